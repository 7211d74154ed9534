"""Tests of the caps and the time budget: a file over a cap is listed as not reviewed with its
reason while the rest is reviewed, secret scanning reads only the changed lines, and a review
that runs out of time reports what it found and says it is partial.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentState, Category, Outcome
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.review.engine import review_sync, run_review
from code_guard.review.limits import MAX_FILE_LINES, MAX_LINE_CHARS
from code_guard.tools.secrets.tool import SecretsTool

AWS = 'AWS_KEY = "AKIAIOSFODNN7EXAMPLE"'


def added_file(path: str, *lines: str, start: int = 1) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{start},0 +{start},{len(lines)} @@\n{body}"
    )


def test_a_huge_hunk_header_is_not_rebuilt_and_the_rest_is_reviewed() -> None:
    diff = added_file("far.py", "x = eval(input())", start=MAX_FILE_LINES + 5)
    diff += added_file("near.py", "y = eval(input())")
    result = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    assert [f.file_path for f in result.findings] == ["near.py"]
    (skipped,) = result.files_not_reviewed
    assert skipped.path == "far.py" and "past the cap" in skipped.reason
    assert result.outcome is Outcome.PARTIAL


def test_a_minified_line_skips_its_file_with_the_reason() -> None:
    minified = "var a=" + "[1,2,3]," * (MAX_LINE_CHARS // 8 + 1) + "0;"
    diff = added_file("dist/app.js", minified) + added_file("ok.py", "z = eval(input())")
    result = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    assert [f.file_path for f in result.findings] == ["ok.py"]
    assert "minified or generated" in result.files_not_reviewed[0].reason


def test_sections_past_the_diff_cap_are_listed_not_parsed() -> None:
    first = added_file("a.py", "a = eval(input())")
    second = added_file("b.py", "b = eval(input())")
    change = parse_diff(first + second, max_chars=len(first) + 10)
    assert [f.path for f in change.files] == ["a.py"]
    (skipped,) = change.not_parsed
    assert skipped.path == "b.py" and "over the cap" in skipped.reason


def test_secret_scan_reads_only_the_focus_lines(tmp_path: Path) -> None:
    lines = ["pass"] * 50
    lines[9] = AWS  # line 10: not in focus
    lines[39] = AWS  # line 40: in focus
    (tmp_path / "conf.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tool = SecretsTool()
    everywhere = {h.line for h in tool.run(tmp_path, ["conf.py"])}
    focused = {h.line for h in tool.run_focused(tmp_path, ["conf.py"], {"conf.py": {38, 40}})}
    assert everywhere == {10, 40}
    assert focused == {40}


def test_a_secret_among_many_blank_lines_is_found_on_its_own_line() -> None:
    diff = added_file("settings.py", AWS, start=150_000)
    result = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    assert [(f.line_start, f.category) for f in result.findings] == [
        (150_000, Category.HARDCODED_SECRET)
    ]


def test_a_review_out_of_time_reports_partial() -> None:
    diff = added_file("a.py", "a = eval(input())")
    options = ReviewOptions(analysis=AnalysisOptions(time_budget=1e-9))
    result = asyncio.run(run_review(ReviewRequest(change=parse_diff(diff)), options))
    assert result.outcome is Outcome.PARTIAL or result.outcome is Outcome.FAILED
    assert all(a.state is AgentState.FAILED for a in result.agents)
    assert "time budget of 1e-09 minute(s) ran out" in (result.agents[0].reason or "")
