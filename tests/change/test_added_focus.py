"""Each file's added lines, as its analysed copy numbers them, are worked out once per review
and shared by every tool run of every agent (docs/performance.md, "huge pull request"): one set
per asker held 60 MiB on a 3,000-file pull request."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from code_guard.change.diff import FileChange, parse_diff
from code_guard.change.linemap import analysed_lines
from code_guard.change.request import ReviewRequest
from code_guard.options import ReviewOptions
from code_guard.review.engine import review_sync


def _new_file(path: str, lines: list[str]) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def test_the_focus_is_the_analysed_numbers_of_the_added_lines() -> None:
    # A lone carriage return ends a line for the analysers, not for git: line 2 of git is
    # lines 2 and 3 of the copy, and git's line 3 is the copy's line 4.
    request = ReviewRequest(change=parse_diff(_new_file("a.py", ["x = 1", "# a\rb", "y = 2"])))
    file = request.change.file("a.py")
    assert file is not None
    focus = request.added_focus(file)
    maps = request.line_maps(["a.py"])
    assert set(focus) == set(analysed_lines(maps["a.py"], file.added.keys())) == {1, 2, 3, 4}
    assert request.added_focus(file) is focus  # worked out once


def test_another_file_of_the_same_path_gets_its_own_focus() -> None:
    request = ReviewRequest(change=parse_diff(_new_file("a.py", ["x = 1", "y = 2"])))
    file = request.change.file("a.py")
    assert file is not None
    assert set(request.added_focus(file)) == {1, 2}
    fewer = FileChange(path="a.py", old_path=None, status=file.status, added={2: "y = 2"})
    assert set(request.added_focus(fewer)) == {2}


def test_every_tool_run_of_every_agent_reads_the_same_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    diff = _new_file("app/views.py", ["import os", "", "def f(p):", "    return open(p)"])
    diff += _new_file("app/util.js", ["function g(x) {", "  return eval(x);", "}"])
    asked: dict[str, set[int]] = {}
    calls = []
    real = ReviewRequest.added_focus

    def recording(self: ReviewRequest, file: FileChange) -> Collection[int]:
        lines = real(self, file)
        asked.setdefault(file.path, set()).add(id(lines))
        calls.append(file.path)
        return lines

    monkeypatch.setattr(ReviewRequest, "added_focus", recording)
    review = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    assert review.findings  # the tools did run over the files
    assert set(asked) == {"app/views.py", "app/util.js"}
    assert len(calls) > len(asked)  # several tool runs asked for each file ...
    assert all(len(ids) == 1 for ids in asked.values())  # ... and got the same set
