"""Tests of diff-aware reviews: what a change keeps from before is counted, not reported; what
it introduces is reported; production-only rules stay quiet in test files."""

from __future__ import annotations

import difflib

from code_guard.baseline import PreExisting, signature
from code_guard.diff import parse_diff
from code_guard.engine import review_sync
from code_guard.models import Category, Review
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.request import ReviewRequest


def change_of(path: str, old: str, new: str, *, all_findings: bool = False) -> Review:
    """Review the change from ``old`` to ``new`` of ``path``, with the new text known."""
    diff = "".join(
        line if line.endswith("\n") else line + "\n"
        for line in difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )
    diff = f"diff --git a/{path} b/{path}\n" + diff
    request = ReviewRequest(change=parse_diff(diff), contents={path: new})
    return review_sync(request, ReviewOptions(analysis=AnalysisOptions(all_findings=all_findings)))


OLD = """\
def run(data):
    return eval(data)


def other():
    return 1
"""


def test_an_issue_the_change_only_reindents_is_counted_not_reported() -> None:
    new = OLD.replace("    return eval(data)", "    if data:\n        return eval(data)")
    review = change_of("app.py", OLD, new)
    assert [f for f in review.findings if f.category is Category.CODE_INJECTION] == []
    assert review.preexisting >= 1
    assert "were there before this change" in review.summary
    shown = change_of("app.py", OLD, new, all_findings=True)
    assert [f.line_start for f in shown.findings if f.category is Category.CODE_INJECTION] == [3]


def test_an_issue_the_change_introduces_is_reported() -> None:
    new = OLD.replace("    return 1", "    return eval(input())")
    review = change_of("app.py", OLD, new)
    assert [(f.line_start, f.category) for f in review.findings] == [
        (6, Category.CODE_INJECTION)
    ]


def test_a_second_copy_of_an_old_issue_is_new() -> None:
    new = OLD.replace("    return eval(data)", "    eval(data)\n    return eval(data)")
    review = change_of("app.py", OLD, new)
    assert len([f for f in review.findings if f.category is Category.CODE_INJECTION]) == 1


def test_a_definition_keeps_its_old_issues_when_its_signature_changes() -> None:
    old = "def f(a, b, c, d, e, f):\n    return a\n"
    new = "def f(a, b, c, d, e, f, g=None):\n    return a\n"
    review = change_of("mod.py", old, new)
    assert [f for f in review.findings if f.category is Category.COMPLEXITY] == []
    assert review.preexisting >= 1


def test_signatures_match_on_code_and_definitions_not_lines() -> None:
    before = PreExisting([signature("bandit", "B307", "  return   eval(x)")])
    assert before.claim(signature("bandit", "B307", "return eval(x)"))
    assert not before.claim(signature("bandit", "B307", "return eval(x)"))  # one-to-one
    assert signature("ruff", "C901", "async def go(a):")[2] == "def go"
    assert signature("semgrep", "r", "func (s *S) Handle(w http.ResponseWriter) {")[2] == (
        "def Handle"
    )


def test_production_only_rules_are_quiet_in_tests() -> None:
    code = "import requests\n\n\ndef fetch():\n    return requests.get('https://x.test')\n"
    for path, expected in (("app/client.py", True), ("tests/test_client.py", False)):
        review = change_of(path, "", code)
        timeouts = [f for f in review.findings if "bandit:B113" in f.sources]
        assert bool(timeouts) is expected, path


MIXED_CASE = """\
def render(loader, page):
    templateEnv = make_env(loader)
    return templateEnv.render(page)
"""


def _naming(review: Review) -> list[tuple[int, str]]:
    return [(f.line_start, f.title) for f in review.findings if f.category is Category.NAMING]


def test_editing_a_line_around_an_old_name_does_not_make_the_name_new() -> None:
    new = MIXED_CASE.replace("make_env(loader)", "make_env(loader, autoescape=True)")
    assert _naming(change_of("app.py", MIXED_CASE, new)) == []
    line_a, line_b = "templateEnv = make_env(loader)", "templateEnv = make_env(loader, x)"
    assert signature("ruff", "N806", line_a, "templateEnv") == signature(
        "ruff", "N806", line_b, "templateEnv"
    )
    assert signature("ruff", "N806", line_a, "templateEnv") != signature(
        "ruff", "N806", line_a, "pageTitle"
    )


def test_a_new_name_in_the_style_the_file_already_uses_is_not_reported() -> None:
    new = MIXED_CASE.replace(
        "    return templateEnv", "    pageTitle = page.title()\n    return templateEnv"
    )
    assert _naming(change_of("app.py", MIXED_CASE, new)) == []


def test_a_new_name_against_the_files_style_is_reported() -> None:
    snake = MIXED_CASE.replace("templateEnv", "template_env")
    new = snake.replace(
        "    return template_env", "    pageTitle = page.title()\n    return template_env"
    )
    assert [line for line, _ in _naming(change_of("app.py", snake, new))] == [3]
