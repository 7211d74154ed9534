"""Files rebuilt from the diff alone: scaffolding makes mid-function Python hunks parseable."""

from __future__ import annotations

import ast

from code_guard.change.diff import parse_diff
from code_guard.change.rebuild import scaffold_python
from code_guard.change.request import ReviewRequest
from code_guard.findings import Outcome, Verdict
from code_guard.options import ReviewOptions
from code_guard.review.engine import review_sync

MID_FUNCTION = """\
diff --git a/svc/app.py b/svc/app.py
--- a/svc/app.py
+++ b/svc/app.py
@@ -20,3 +20,4 @@ class Handler:
         data = self.read()
+        result = eval(data)
         self.log(data)
         return data
"""


def test_indented_hunk_is_scaffolded_into_parseable_code_with_lines_in_place() -> None:
    file = parse_diff(MID_FUNCTION).files[0]
    text = scaffold_python(file.rebuild(), file)
    ast.parse(text)
    lines = text.split("\n")
    assert lines[20] == "        result = eval(data)"  # line 21, unmoved
    assert lines[18] == "    if True:"
    assert lines[17] == "if True:"


def test_text_that_already_parses_is_left_alone() -> None:
    file = parse_diff(MID_FUNCTION).files[0]
    assert scaffold_python("x = 1\n", file) == "x = 1\n"


def test_text_that_scaffolding_cannot_fix_is_left_alone() -> None:
    diff = MID_FUNCTION.replace("+        result = eval(data)", "+        result = eval(data")
    file = parse_diff(diff).files[0]
    rebuilt = file.rebuild()
    assert scaffold_python(rebuilt, file) == rebuilt


def test_a_review_without_the_checkout_still_finds_the_issue() -> None:
    review = review_sync(ReviewRequest(change=parse_diff(MID_FUNCTION)), ReviewOptions())
    assert [(f.line_start, f.category.value) for f in review.findings] == [(21, "code_injection")]
    assert not any(a.notes for a in review.agents)


def test_an_unparsable_file_is_noted_not_passed_off_as_clean() -> None:
    diff = MID_FUNCTION.replace("+        result = eval(data)", "+        result = eval(data")
    review = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    assert review.outcome is Outcome.PARTIAL
    assert "could not parse svc/app.py: static findings there may be missing" in (
        review.outcome_reasons
    )
    assert review.verdict is not Verdict.APPROVE
