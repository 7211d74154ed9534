"""Tests of diff-aware reviews: what a change keeps from before is counted, not reported; what
it introduces is reported; production-only rules stay quiet in test files."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

import pytest

from code_guard.agents.baseline import PreExisting, signature
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.cli import EXIT_FINDINGS, main
from code_guard.findings import Category, Review
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.review.engine import review_sync


def change_of(path: str, old: str, new: str, *, all_findings: bool = False) -> Review:
    """Review the change from ``old`` to ``new`` of ``path``, with the new text known."""
    return changes_of({path: (old, new)}, all_findings=all_findings)


def changes_of(files: Mapping[str, tuple[str, str]], *, all_findings: bool = False) -> Review:
    """Review one change of every file of ``files`` (path: old text, new text)."""
    diff = ""
    for path, (old, new) in files.items():
        diff += f"diff --git a/{path} b/{path}\n" + "".join(
            line if line.endswith("\n") else line + "\n"
            for line in difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"a/{path}",
                f"b/{path}",
            )
        )
    contents = {path: new for path, (_, new) in files.items()}
    request = ReviewRequest(change=parse_diff(diff), contents=contents)
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
    assert [(f.line_start, f.category) for f in review.findings] == [(6, Category.CODE_INJECTION)]


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
    before = PreExisting([("app.py", "run", signature("bandit", "B307", "  return   eval(x)"))])
    assert not before.claim(("other.py", "run", signature("bandit", "B307", "return eval(x)")))
    assert not before.claim(("app.py", "other", signature("bandit", "B307", "return eval(x)")))
    assert before.claim(("app.py", "run", signature("bandit", "B307", "return eval(x)")))
    assert not before.claim(("app.py", "run", signature("bandit", "B307", "return eval(x)")))
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


# --- issue 27: a kept flaw must match one base result in the same file and function ---------

ROUTES = """\
import requests
from flask import Flask, request

app = Flask(__name__)


@app.route("/fetch")
def fetch():
    url = request.args["url"]
    return requests.get(url, timeout=5).text
"""
SINK = "    return requests.get(url, timeout=5).text"
SECOND_ROUTE = """

@app.route("/preview")
def preview():
    url = request.args["url"]
    return requests.get(url, timeout=5).text
"""


def _ssrf(review: Review) -> list[int]:
    return sorted(f.line_start for f in review.findings if f.category is Category.SSRF)


def _diff_adds(path: str, old: str, new: str, line: str) -> bool:
    """Whether the unified diff from ``old`` to ``new`` shows ``line`` as added."""
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), path, path, lineterm="")
    return f"+{line}" in diff


def test_a_second_route_with_the_same_flaw_is_new() -> None:
    new = ROUTES + SECOND_ROUTE
    review = change_of("app.py", ROUTES, new)
    assert _ssrf(review) == [new.splitlines().index(SINK, 10) + 1]
    assert review.preexisting == 0


def test_a_second_route_fails_the_check_through_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    new = ROUTES + SECOND_ROUTE
    diff = "".join(
        difflib.unified_diff(ROUTES.splitlines(True), new.splitlines(True), "a/app.py", "b/app.py")
    )
    (tmp_path / "pr.diff").write_text("diff --git a/app.py b/app.py\n" + diff, encoding="utf-8")
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "app.py").write_text(new, encoding="utf-8")
    args = ["review", str(tmp_path / "pr.diff"), "--root", str(tmp_path / "root")]
    code = main([*args, "--format", "json", "-q", "--offline", "--fail-on", "high"])
    review = Review.model_validate_json(capsys.readouterr().out)
    assert code == EXIT_FINDINGS
    assert _ssrf(review) == [16]


def test_a_second_copy_in_the_same_function_is_new() -> None:
    # The old sink sits on an unchanged line of the hunk and keeps its own base result: each
    # added copy (same file, function and code) finds none left.
    new = ROUTES.replace(SINK, f"{SINK.replace('return ', 'first = ')}\n{SINK}\n{SINK}")
    review = change_of("app.py", ROUTES, new)
    assert len(_ssrf(review)) == 2
    assert set(_ssrf(review)) <= {10, 11, 12}


def test_a_copy_into_another_function_the_change_edits_is_new() -> None:
    old = ROUTES + SECOND_ROUTE.replace(SINK.strip(), 'return "preview"')
    new = ROUTES + SECOND_ROUTE
    review = change_of("app.py", old, new)
    assert _ssrf(review) == [16]


def test_a_flaw_moved_to_another_file_is_new() -> None:
    # One change to two files: the flaw leaves one (for another, so the base of that file is
    # read) and arrives, the same code in a function of the same name, in the other.
    emptied = ROUTES.replace(SINK, '    return ""')
    posted = ROUTES.replace(SINK, SINK.replace(".get(", ".post("))
    review = changes_of({"app.py": (ROUTES, posted), "b.py": (emptied, ROUTES)})
    found = sorted(
        (f.file_path, f.line_start) for f in review.findings if f.category is Category.SSRF
    )
    assert found == [("app.py", 10), ("b.py", 10)]


def test_a_moved_function_keeps_its_old_flaw() -> None:
    filler = "".join(f"    total += {n}\n" for n in range(12))
    other = f"\n\ndef tally():\n    total = 0\n{filler}    return total\n"
    head, route = ROUTES.split("\n\n\n@app.route")
    old = ROUTES + other
    new = head + other + "\n\n@app.route" + route
    assert _diff_adds("app.py", old, new, SINK)  # the diff really moves the sink
    review = change_of("app.py", old, new)
    assert _ssrf(review) == []
    assert review.preexisting >= 1


def test_an_old_flaw_next_to_an_edited_line_stays_pre_existing() -> None:
    new = ROUTES.replace(SINK, "    if url:\n    " + SINK)
    assert _diff_adds("app.py", ROUTES, new, "    " + SINK)
    review = change_of("app.py", ROUTES, new)
    assert _ssrf(review) == []
    assert review.preexisting >= 1
    logged = ROUTES.replace(SINK, '    app.logger.info("fetch %s", url)\n' + SINK)
    assert _ssrf(change_of("app.py", ROUTES, logged)) == []


EXPRESS = """\
const express = require("express");
const app = express();

app.get("/run", (req, res) => {
  res.send(String(eval(req.query.code)));
});
"""
EVAL = "  res.send(String(eval(req.query.code)));"


def _injections(review: Review) -> list[int]:
    return sorted(f.line_start for f in review.findings if f.category is Category.CODE_INJECTION)


def test_a_second_express_route_with_the_same_flaw_is_new() -> None:
    new = EXPRESS + '\napp.get("/again", (req, res) => {\n' + EVAL + "\n});\n"
    assert _injections(change_of("app.js", EXPRESS, new)) == [9]
    twice = EXPRESS.replace(EVAL, f"{EVAL}\n{EVAL}")
    assert _injections(change_of("app.js", EXPRESS, twice)) in ([5], [6])
    moved = EXPRESS.replace(EVAL, "  // run it\n" + "  " + EVAL)
    assert _injections(change_of("app.js", EXPRESS, moved)) == []


GO_HANDLER = """\
package main

import (
	"net/http"
	"os/exec"
)

func run(w http.ResponseWriter, r *http.Request) {
	out, _ := exec.Command("sh", "-c", r.URL.Query().Get("cmd")).Output()
	w.Write(out)
}
"""


def test_a_second_go_handler_with_the_same_flaw_is_new() -> None:
    body = GO_HANDLER.split("func run")[1].replace("run(", "again(", 1)
    new = GO_HANDLER + "\nfunc again" + body.replace("(w http", "(w http", 1)
    review = change_of("main.go", GO_HANDLER, new)
    assert 14 in [f.line_start for f in review.findings if f.category is Category.COMMAND_INJECTION]


def test_an_old_flaw_the_project_suppressed_excuses_no_copy() -> None:
    # The old line carries the project's own ``# nosec`` (honoured, so it is no candidate); a
    # copy the change adds, comment and all, is a suppression the pull request grants itself.
    old = "import os\n\n\ndef run(cmd):\n    os.system(cmd)  # nosec\n    return 0\n"
    new = old.replace("    return 0", "    os.system(cmd)  # nosec\n    return 0")
    review = change_of("ops.py", old, new)
    assert [f.line_start for f in review.findings if f.category is Category.COMMAND_INJECTION] == [
        6
    ]


def test_all_lines_still_counts_an_old_flaw_and_reports_its_copy() -> None:
    new = ROUTES.replace(SINK, f"    if url:\n    {SINK}\n{SINK}")
    diff = "".join(
        difflib.unified_diff(ROUTES.splitlines(True), new.splitlines(True), "a/app.py", "b/app.py")
    )
    request = ReviewRequest(
        change=parse_diff("diff --git a/app.py b/app.py\n" + diff), contents={"app.py": new}
    )
    options = ReviewOptions(analysis=AnalysisOptions(added_lines_only=False))
    review = review_sync(request, options)
    # git keeps the old line (12, unchanged) and adds the indented copy (11): that one is new
    assert "+    " + SINK in diff.splitlines()
    assert _ssrf(review) == [11]
    assert review.preexisting >= 1


def test_a_function_redefined_under_the_old_name_with_the_same_flaw_is_new() -> None:
    # Same file, same scope name ("fetch"), same code: the old copy keeps its base result.
    new = ROUTES + SECOND_ROUTE.replace("preview", "fetch")
    assert _ssrf(change_of("app.py", ROUTES, new)) == [16]


def test_a_flaw_moved_to_a_method_of_the_same_name_in_another_class_is_new() -> None:
    mirror = "class Mirror:\n    def get(self, expr):\n        return eval(expr)\n"
    helper = "\n\ndef helper():\n    return 1\n"
    old = mirror + helper
    moved = mirror.replace("return eval(expr)", "return expr") + helper + "\n\n"
    new = moved + mirror.replace("Mirror", "Proxy")
    assert _diff_adds("proxy.py", old, new, "        return eval(expr)")
    assert _injections(change_of("proxy.py", old, new)) == [12]
    back = moved + mirror  # the same class and method: moved, kept
    assert _diff_adds("proxy.py", old, back, "        return eval(expr)")
    assert _injections(change_of("proxy.py", old, back)) == []
