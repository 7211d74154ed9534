"""semgrep-core started before the review (``tools/semgrep/early.py``): a review takes an
early run only when its own run would read exactly the same files with the same command, so
its findings are those of a run of its own; any difference ends the early run unused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from code_guard.cli import OUTPUT_FORMATS, main
from code_guard.report import OutputFormat
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep import early
from code_guard.tools.semgrep import tool as semgrep_tool
from code_guard.tools.semgrep.command import rules_file
from code_guard.tools.semgrep.tool import run_rules

RULES = rules_file("python.yml")
VULNERABLE = (
    "import os\n\nfrom flask import request\n\n\ndef run():\n"
    "    os.system(request.args.get('cmd'))\n"
)
SAFE = "import os\n\n\ndef run():\n    os.system('ls')\n"


@pytest.fixture(autouse=True)
def _no_leftovers() -> Iterator[None]:
    early.discard()
    yield
    early.discard()


def _write(root: Path, files: dict[str, str]) -> list[str]:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return sorted(files)


def _summary(hits: list[ToolHit]) -> list[tuple[str, str, int]]:
    return sorted((h.file_path, h.rule, h.line) for h in hits)


def test_a_review_takes_the_early_run_of_the_same_files(tmp_path: Path) -> None:
    files = {"app.py": VULNERABLE, "pkg/util.py": SAFE}
    expected = _summary(run_rules(tmp_path, _write(tmp_path, files), RULES))
    assert expected and expected[0][:2] == ("app.py", "py-command-injection-taint")
    assert early.start(files) == 1
    assert early.pending() == 1
    assert _summary(run_rules(tmp_path, sorted(files), RULES)) == expected
    assert early.pending() == 0  # taken


@pytest.mark.parametrize(
    ("started", "reviewed"),
    [
        # the author's text differs from what was started: the early run read a safe file
        ({"app.py": SAFE}, {"app.py": VULNERABLE}),
        # one more file in the review than in the early run
        ({"app.py": VULNERABLE}, {"app.py": VULNERABLE, "b.py": SAFE}),
        # one byte more
        ({"app.py": VULNERABLE}, {"app.py": VULNERABLE + "\n"}),
        # the same text under another name
        ({"other.py": VULNERABLE}, {"app.py": VULNERABLE}),
    ],
)
def test_an_early_run_of_other_files_is_never_taken(
    tmp_path: Path, started: dict[str, str], reviewed: dict[str, str]
) -> None:
    early.start(started)
    hits = run_rules(tmp_path, _write(tmp_path, reviewed), RULES)
    assert early.pending() == 0  # ended, not left running
    early.discard()
    assert _summary(hits) == _summary(run_rules(tmp_path, sorted(reviewed), RULES))
    assert any(h.rule == "py-command-injection-taint" for h in hits) == (
        "os.system(request" in reviewed.get("app.py", "")
    )


def test_a_file_read_from_the_same_rewritten_copy_is_taken(tmp_path: Path) -> None:
    # A branch that cannot run is pruned from the copy semgrep-core reads (constant folding),
    # by the early run as by the review: the results are the review's own, and name app.py.
    text = VULNERABLE.replace("    os.system", "    if False:\n        os.system") + (
        "\n\ndef other():\n    os.system(request.args.get('x'))\n"
    )
    paths = _write(tmp_path, {"app.py": text, "b.py": VULNERABLE})
    expected = _summary(run_rules(tmp_path, paths, RULES))
    assert [(f, line) for f, rule, line in expected if rule == "py-command-injection-taint"] == [
        ("app.py", 12),
        ("b.py", 7),
    ]
    early.start({"app.py": text, "b.py": VULNERABLE})
    hits = run_rules(tmp_path, paths, RULES)
    assert early.pending() == 0
    assert _summary(hits) == expected
    assert [h.file_path for h in hits] == [h.file_path for h in run_rules(tmp_path, paths, RULES)]


def test_a_review_that_reads_another_copy_does_not_take_the_early_run(tmp_path: Path) -> None:
    # The review empties the function no line of its focus falls in (``focus.py``); the early
    # run read it whole, and found a flow there that the review's own run cannot report.
    text = VULNERABLE + "\n\ndef other():\n    x = 1\n    return x\n"
    paths = _write(tmp_path, {"app.py": text})
    focus = {"app.py": frozenset({12})}
    expected = _summary(run_rules(tmp_path, paths, RULES, focus=focus))
    assert not any(rule == "py-command-injection-taint" for _, rule, _ in expected)
    early.start({"app.py": text})
    assert _summary(run_rules(tmp_path, paths, RULES, focus=focus)) == expected
    assert early.pending() == 0


def test_only_a_subset_of_rules_is_never_the_early_run(tmp_path: Path) -> None:
    early.start({"app.py": VULNERABLE})
    paths = _write(tmp_path, {"app.py": VULNERABLE})
    hits = run_rules(tmp_path, paths, RULES, only=("py-command-injection-taint",))
    assert [h.rule for h in hits] == ["py-command-injection-taint"]
    assert early.pending() == 1  # still there for the full run
    early.discard()
    assert early.pending() == 0


def test_a_language_with_a_modified_file_is_not_started() -> None:
    # the review's run reads the modified file too, so it could never take this one
    assert early.start({"app.py": VULNERABLE, "web.js": "x = 1;\n"}, ["old.py"]) == 1
    assert early.pending() == 1  # JavaScript's run only
    assert early.start({"app.py": VULNERABLE}, ["README.md"]) == 1


def test_paths_that_are_not_plain_relative_start_nothing() -> None:
    assert early.start({"../escape.py": SAFE}) == 0
    assert early.start({"/abs.py": SAFE}) == 0
    assert early.pending() == 0


def test_a_large_change_starts_nothing() -> None:
    many = {f"m{i}.py": SAFE for i in range(early.MAX_FILES + 1)}
    assert early.start(many) == 0
    assert early.start({"big.py": "x = 1\n" * (early.MAX_CHARACTERS // 6 + 1)}) == 0


def test_the_cli_review_of_a_new_file_is_the_same_and_leaves_nothing_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "checkout"
    root.mkdir()
    (root / "app.py").write_text(VULNERABLE, encoding="utf-8")
    body = "".join(f"+{line}\n" for line in VULNERABLE.splitlines())
    diff = tmp_path / "change.diff"
    diff.write_text(
        "diff --git a/app.py b/app.py\nnew file mode 100644\n--- /dev/null\n+++ b/app.py\n"
        f"@@ -0,0 +1,{VULNERABLE.count(chr(10))} @@\n{body}",
        encoding="utf-8",
    )
    argv = ["review", str(diff), "--root", str(root), "--offline", "-q", "--format", "json"]
    assert main(argv) == 0
    assert "py-command-injection-taint" in capsys.readouterr().out
    assert early.pending() == 0


def test_the_cli_lists_every_output_format() -> None:
    assert tuple(f.value for f in OutputFormat) == OUTPUT_FORMATS


def test_a_focused_run_of_the_same_files_and_lines_is_taken(tmp_path: Path) -> None:
    text = VULNERABLE + "\n\ndef other():\n    os.system(request.args.get('x'))\n"
    paths = _write(tmp_path, {"app.py": text})
    focus = {"app.py": frozenset({7})}  # the first function's sink line only
    expected = _summary(run_rules(tmp_path, paths, RULES, focus=focus))
    assert [line for _, rule, line in expected if rule == "py-command-injection-taint"] == [7]
    early.start({"app.py": text}, focus=focus)
    assert _summary(run_rules(tmp_path, paths, RULES, focus=focus)) == expected
    assert early.pending() == 0  # taken


MODIFIED = (
    "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -5,3 +5,4 @@\n"
    " \n def run():\n-    pass\n+    os.system(request.args.get('cmd'))\n+    return 1\n"
)


def test_the_cli_review_of_a_modified_file_is_the_same_with_and_without_an_early_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "checkout"
    root.mkdir()
    untouched = "\n\ndef other():\n    os.system(request.args.get('x'))\n"
    (root / "app.py").write_text(VULNERABLE + "    return 1\n" + untouched, encoding="utf-8")
    diff = tmp_path / "change.diff"
    diff.write_text(MODIFIED, encoding="utf-8")
    argv = ["review", str(diff), "--root", str(root), "--offline", "-q", "--format", "json"]
    started: list[int] = []
    real_start = early.start
    monkeypatch.setattr(early, "start", lambda *a, **k: started.append(real_start(*a, **k)))
    taken: list[bool] = []

    def take(*args: Any) -> early.EarlyRun | None:
        run = early.take(*args)
        taken.append(run is not None)
        return run

    monkeypatch.setattr(semgrep_tool, "take", take)
    assert main(argv) == 0
    with_early = json.loads(capsys.readouterr().out)["findings"]
    assert started == [1] and taken[0] and early.pending() == 0
    monkeypatch.setattr(early, "MAX_FILES", 0)  # nothing is started early
    assert main(argv) == 0
    without = json.loads(capsys.readouterr().out)["findings"]
    assert started == [1, 0]
    assert [(f["line_start"], f["sources"]) for f in with_early] == [
        (f["line_start"], f["sources"]) for f in without
    ]
    assert any("py-command-injection-taint" in " ".join(f["sources"]) for f in with_early)
