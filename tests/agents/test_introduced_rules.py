"""The pre-existing check's Semgrep runs read only the rules its candidates came from
(``Tool.with_rules``), and decide exactly as runs of every rule do."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
import yaml

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.errors import ToolError
from code_guard.findings import Review, Silencing
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.review.engine import review_sync
from code_guard.tools.base import Focus, ToolHit
from code_guard.tools.semgrep import tool as semgrep_tool
from code_guard.tools.semgrep.command import rules_file
from code_guard.tools.semgrep.tool import SemgrepTool, subset_text

OLD = """\
const express = require("express");
const crypto = require("crypto");
const app = express();

app.get("/run", (req, res) => {
  res.send(String(eval(req.query.code)));
});

app.get("/hash", (req, res) => {
  res.send(crypto.createHash("md5").update(req.query.p).digest("hex"));
});
"""
EVAL = "  res.send(String(eval(req.query.code)));"
HASH = '  res.send(crypto.createHash("md5").update(req.query.p).digest("hex"));'
# The change keeps the old eval (re-indented under a comment: a candidate on an added line
# the base had) and adds a second md5 route (new), so both rules have candidates; a Python
# file it edits has no Semgrep candidate at all.
NEW = (
    OLD.replace(EVAL, "  // run it\n  " + EVAL)
    + '\napp.get("/hash2", (req, res) => {\n'
    + HASH
    + "\n});\n"
)
PY_OLD = "LIMIT = 1\n\n\ndef limit():\n    return LIMIT\n"
PY_NEW = PY_OLD.replace("LIMIT = 1", "LIMIT = 2")
CANDIDATE_RULES = {"js-code-injection-eval", "js-weak-crypto-hash"}


def _review(files: Mapping[str, tuple[str, str]]) -> Review:
    diff = ""
    for path, (old, new) in files.items():
        diff += f"diff --git a/{path} b/{path}\n" + "".join(
            difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"
            )
        )
    contents = {path: new for path, (_, new) in files.items()}
    request = ReviewRequest(change=parse_diff(diff), contents=contents)
    return review_sync(request, ReviewOptions(analysis=AnalysisOptions(show_silenced=True)))


Held = tuple[str, str, str, str, int, str]


def _decisions(review: Review) -> tuple[list[tuple[str, int, str]], list[Held]]:
    """The findings (file, line, title) and the candidates held back, with why."""
    found = sorted((f.file_path, f.line_start, f.title) for f in review.findings)
    held = sorted(
        (s.mechanism.value, s.tool, s.rule, s.file_path, s.line, s.reason)
        for s in review.silenced_candidates
    )
    return found, held


Run = tuple[str, tuple[str, ...] | None]


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[Run]:
    """Each semgrep-core run of the review: its rules file and the rules it read (None: all)."""
    seen: list[Run] = []
    real = semgrep_tool.run_rules

    def spy(
        workspace: Path,
        paths: Sequence[str],
        rules: Path,
        *,
        focus: Focus = None,
        only: Sequence[str] | None = None,
    ) -> list[ToolHit]:
        seen.append((rules.name, None if only is None else tuple(only)))
        return real(workspace, paths, rules, focus=focus, only=only)

    monkeypatch.setattr(semgrep_tool, "run_rules", spy)
    semgrep_tool._CACHE._entries.clear()  # a run cached by another test would not be seen
    return seen


def test_the_base_runs_read_only_the_candidates_rules(runs: list[Run]) -> None:
    review = _review({"app.js": (OLD, NEW), "util.py": (PY_OLD, PY_NEW)})
    semgrep = [s for s in review.silenced_candidates if s.tool == "semgrep"]
    kept = {s.rule for s in semgrep if s.mechanism is Silencing.PRE_EXISTING}
    assert kept == {"js-code-injection-eval"}
    assert any("md5" in f.anchor_text for f in review.findings)  # the second md5 is new
    # the head's runs read every rule of both files; the base and the head's unchanged hunk
    # lines read the two candidates' rules, and Python's rules, which gave none, not at all
    assert ("javascript.yml", None) in runs and ("python.yml", None) in runs
    filtered = [run for run in runs if run[1] is not None]
    assert filtered == [("javascript.yml", tuple(sorted(CANDIDATE_RULES)))] * 2


def test_the_decisions_equal_those_of_runs_of_every_rule(
    runs: list[Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"app.js": (OLD, NEW), "util.py": (PY_OLD, PY_NEW)}
    filtered = _decisions(_review(files))
    assert any(run[1] is not None for run in runs)
    runs.clear()
    semgrep_tool._CACHE._entries.clear()
    monkeypatch.setattr(SemgrepTool, "with_rules", lambda self, rules: self)
    every = _decisions(_review(files))
    assert all(run[1] is None for run in runs)
    assert filtered == every
    assert filtered[0] and filtered[1]  # something reported, something kept: a real test


@pytest.mark.parametrize("name", ["python.yml", "javascript.yml", "go.yml"])
def test_a_subset_of_a_rules_file_is_exactly_those_rules(name: str) -> None:
    every = yaml.safe_load(rules_file(name).read_text(encoding="utf-8"))["rules"]
    chosen = [every[0]["id"], every[-1]["id"]]
    text = subset_text(rules_file(name), chosen)
    assert yaml.safe_load(text)["rules"] == [every[0], every[-1]]


def test_a_rules_file_of_another_layout_is_read_whole(tmp_path: Path) -> None:
    # a rule in flow style would be folded into its neighbour's text: no subset is made, so
    # a run reads the whole file rather than lose a rule or run one it was not asked for
    flow = tmp_path / "flow.yml"
    flow.write_text(
        "rules:\n  - id: a\n    pattern: f()\n  - {id: b, pattern: g()}\n", encoding="utf-8"
    )
    assert semgrep_tool._subset(flow, frozenset({"a"})) is None
    with pytest.raises(ToolError):
        subset_text(flow, ["a"])
    nested = tmp_path / "nested.yml"
    nested.write_text("other:\n  rules:\n  - id: a\n    pattern: f()\n", encoding="utf-8")
    assert semgrep_tool._subset(nested, frozenset({"a"})) is None
    quoted = tmp_path / "quoted.yml"
    quoted.write_text('rules:\n  - id: a\n    pattern: f()\n  - id: "b"\n    pattern: g()\n')
    assert semgrep_tool._subset(quoted, frozenset({"a"})) is None
    plain = tmp_path / "plain.yml"
    plain.write_text("rules:\n  - id: a\n    pattern: f()\n  - id: b\n    pattern: g()\n")
    assert semgrep_tool._subset(plain, frozenset({"b", "c"})) == ("b",)
    assert semgrep_tool._subset(plain, None) is None
    with pytest.raises(ToolError):
        subset_text(plain, ["c"])
