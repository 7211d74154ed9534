"""The command line lets go of the change before it renders the review (docs/performance.md,
"huge pull request"): on 3,000 files the rendering was the peak, on top of every file's text,
lines and hunks, which nothing reads any more by then."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from code_guard import cli
from code_guard.change.diff import Change
from code_guard.change.request import ReviewRequest
from code_guard.findings import Review
from code_guard.report import RENDERERS, OutputFormat

DIFF = (
    "diff --git a/app.py b/app.py\nnew file mode 100644\n--- /dev/null\n+++ b/app.py\n"
    "@@ -0,0 +1,3 @@\n+import hashlib\n+def h(x):\n+    return hashlib.md5(x).hexdigest()\n"
)


def _alive() -> tuple[int, int]:
    gc.collect()
    objects = gc.get_objects()
    return (
        sum(isinstance(o, ReviewRequest) for o in objects),
        sum(isinstance(o, Change) for o in objects),
    )


def test_no_change_is_held_while_the_review_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pr.diff").write_text(DIFF, encoding="utf-8")
    seen: list[tuple[int, int]] = []
    before = _alive()
    render = RENDERERS[OutputFormat.JSON]

    def watching(review: Review) -> str:
        seen.append(_alive())
        return render(review)

    monkeypatch.setitem(RENDERERS, OutputFormat.JSON, watching)
    code = cli.main(["review", str(tmp_path / "pr.diff"), "--offline", "-q", "--format", "json"])
    assert code == cli.EXIT_OK
    assert Review.model_validate_json(capsys.readouterr().out).findings  # it did review
    assert seen == [before]  # no request and no parsed change more than before the run
