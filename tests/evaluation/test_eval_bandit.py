"""Tests of ``code-guard eval --reviewer bandit``: Bandit alone, scored like our review.

Bandit really runs here (the version we ship), on small hand-written cases.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from evalfakes import new_file_diff, read_json

from code_guard.change.diff import parse_diff
from code_guard.cli import main
from code_guard.evaluation.bandit_alone import BANDIT_ALONE, review_with_bandit
from code_guard.evaluation.entry import run_dataset
from code_guard.evaluation.metrics import score_case
from code_guard.evaluation.results import load_results, merge_results, rescore
from code_guard.evaluation.runner import Reviewer, evaluate, make_reviewer
from code_guard.evaluation.schema import STATIC_ONLY, EvalResults
from code_guard.findings import AgentName, Category, Finding
from code_guard.options import AnalysisOptions, ModelOptions, ReviewOptions
from code_guard.review.engine import ReviewRequest, run_review

OFFLINE = ReviewOptions(model=ModelOptions(offline=True))

APP = """\
import subprocess
import urllib.request

import yaml


def run(command):
    return subprocess.call(command, shell=True)


def load(text):
    return yaml.load(text)


def fetch(url):
    return urllib.request.urlopen(url).read()
"""
SHELL, YAML, URLOPEN = 8, 12, 16


def write_app_case(
    directory: Path, pr_id: str = "app", expected: list[tuple[int, Category]] | None = None
) -> Path:
    """A case adding ``app.py`` (``APP``), expecting the shell call and the unsafe load."""
    directory.mkdir(parents=True, exist_ok=True)
    labels = expected or [
        (SHELL, Category.COMMAND_INJECTION),
        (YAML, Category.INSECURE_DESERIALIZATION),
    ]
    case = {
        "pr_id": pr_id,
        "diff": new_file_diff("app.py", APP),
        "file_contents": {"app.py": APP},
        "expected_findings": [
            {"file_path": "app.py", "line_start": line, "category": category.value}
            for line, category in labels
        ],
    }
    path = directory / f"{pr_id}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def bandit_run(directory: Path) -> EvalResults:
    review = make_reviewer(Reviewer.BANDIT, OFFLINE, None)
    run = evaluate(directory, review, model=OFFLINE.model, tolerance=3, reviewer=Reviewer.BANDIT)
    return asyncio.run(run)


def by_rule(findings: tuple[Finding, ...]) -> dict[str, Finding]:
    return {f.sources[0]: f for f in findings}


def test_bandit_alone_finds_the_planted_shell_call_and_yaml_load(tmp_path: Path) -> None:
    write_app_case(tmp_path / "cases")
    (case,) = bandit_run(tmp_path / "cases").cases
    assert case.error is None
    found = by_rule(case.findings)
    assert found["bandit:B602"].line_start == SHELL
    assert found["bandit:B602"].category is Category.COMMAND_INJECTION
    assert found["bandit:B506"].line_start == YAML
    assert found["bandit:B506"].category is Category.INSECURE_DESERIALIZATION
    assert {f.agent for f in case.findings} == {AgentName.SECURITY}
    assert case.score is not None and (case.score.tp, case.score.fn) == (2, 0)


def test_bandit_alone_reports_what_our_pipeline_drops(tmp_path: Path) -> None:
    # B310 (any urlopen) and B404 (importing subprocess) are mapped to IGNORED: our review
    # never reports them, while Bandit alone does, in the fallback category of unmapped rules.
    request = ReviewRequest(
        change=parse_diff(new_file_diff("app.py", APP)), contents={"app.py": APP}
    )
    alone = by_rule(review_with_bandit(request, AnalysisOptions()).findings)
    ours = asyncio.run(run_review(request, OFFLINE))

    assert alone["bandit:B310"].line_start == URLOPEN
    assert alone["bandit:B310"].category is Category.OTHER
    assert alone["bandit:B404"].line_start == 1
    assert not {"bandit:B310", "bandit:B404"} & {s for f in ours.findings for s in f.sources}
    assert any("bandit:B602" in f.sources for f in ours.findings)


def test_a_file_bandit_skips_is_no_finding_of_bandit_alone() -> None:
    # Bandit's visitor gives up on a 1,500-term sum: the file is skipped, not a result.
    text = "import os\na = 1\nb = (a\n" + "    + a\n" * 1500 + ")\nos.system(a)\n"
    request = ReviewRequest(
        change=parse_diff(new_file_diff("deep.py", text)), contents={"deep.py": text}
    )
    assert review_with_bandit(request, AnalysisOptions()).findings == ()


def test_a_data_call_folding_proved_harmless_is_no_finding_of_bandit_alone() -> None:
    # Bandit's tool returns the folded eval marked silenced (so the review can count it);
    # Bandit alone, as before, reports only the eval of outside data.
    text = (
        "def run(text):\n    limit = 86\n    if 7 * 42 - limit > 200:\n        code = '1'\n"
        "    else:\n        code = text\n    return eval(code)\n\n\n"
        "def other(text):\n    return eval(text)\n"
    )
    request = ReviewRequest(
        change=parse_diff(new_file_diff("calc.py", text)), contents={"calc.py": text}
    )
    found = review_with_bandit(request, AnalysisOptions()).findings
    assert [(f.line_start, f.sources) for f in found] == [(11, ("bandit:B307",))]


def test_only_results_on_added_lines_are_kept(tmp_path: Path) -> None:
    # yaml.load was already in the file (a context line); the change adds only os.system.
    before = "import os\nimport yaml\n\n\ndef load(text):\n    return yaml.load(text)\n"
    after = before + "\n\ndef run(command):\n    os.system(command)\n"
    diff = (
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -4,3 +4,7 @@\n"
        " \n def load(text):\n     return yaml.load(text)\n"
        "+\n+\n+def run(command):\n+    os.system(command)\n"
    )
    request = ReviewRequest(change=parse_diff(diff), contents={"app.py": after})

    added = review_with_bandit(request, AnalysisOptions()).findings
    every = review_with_bandit(request, AnalysisOptions(added_lines_only=False))
    assert [(f.line_start, f.sources) for f in added] == [(10, ("bandit:B605",))]
    assert {f.line_start for f in every.findings} == {6, 10}


def test_bandit_alone_scores_through_the_same_matching(tmp_path: Path) -> None:
    # The urlopen is labelled SSRF: Bandit alone flags the line, but in another category.
    labels = [(SHELL + 3, Category.COMMAND_INJECTION), (URLOPEN, Category.SSRF)]
    write_app_case(tmp_path / "cases", expected=labels)
    results = bandit_run(tmp_path / "cases")
    (case,) = results.cases

    assert (case.matches, case.score) == score_case(case.findings, case.expected, tolerance=3)
    assert case.score is not None
    assert (case.score.tp, case.score.fn) == (1, 1)  # 3 lines off still matches; SSRF missed
    assert case.score.fp == len(case.findings) - 1
    assert rescore(results) == results
    assert rescore(results, tolerance=2).summary.micro.tp == 0


def test_results_file_is_the_eval_format(tmp_path: Path) -> None:
    write_app_case(tmp_path / "cases", "one")
    write_app_case(tmp_path / "cases", "two")
    output = tmp_path / "results.json"
    argv = ["eval", "--offline", "--reviewer", "bandit", "--dataset", str(tmp_path / "cases")]
    assert main([*argv, "--output", str(output), "--summary", str(tmp_path / "s.md")]) == 0

    data = read_json(output)
    assert data["format"] == "code-guard-eval/1"
    assert data["metadata"]["model"] == STATIC_ONLY
    assert data["metadata"]["static_only_reason"] == BANDIT_ALONE
    # What an independent scorer reads: each case's pr_id, error, and findings' file, line and
    # category in the category vocabulary.
    assert [c["pr_id"] for c in data["cases"]] == ["one", "two"]
    for case in data["cases"]:
        assert case["error"] is None
        assert case["findings"]
        for finding in case["findings"]:
            assert finding["file_path"] == "app.py"
            assert isinstance(finding["line_start"], int)
            assert Category(finding["category"])
    assert load_results(output).summary.micro.tp == 4
    assert "Bandit alone" in (tmp_path / "s.md").read_text(encoding="utf-8")


def test_shards_and_worker_processes_work_the_same(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write_app_case(tmp_path / "cases", name)
    one = run_dataset(tmp_path / "cases", OFFLINE, reviewer=Reviewer.BANDIT)
    two = run_dataset(tmp_path / "cases", OFFLINE, jobs=2, reviewer=Reviewer.BANDIT)
    assert [c.findings for c in two.cases] == [c.findings for c in one.cases]
    assert two.metadata == one.metadata

    shards = []
    for i in (1, 2):
        output = tmp_path / f"shard-{i}.json"
        argv = ["eval", "--offline", "--reviewer", "bandit", "--shard", f"{i}/2"]
        assert main([*argv, "--dataset", str(tmp_path / "cases"), "--output", str(output)]) == 0
        shards.append(load_results(output))
    merged = merge_results(shards)
    assert [c.findings for c in merged.cases] == [c.findings for c in one.cases]
    assert merged.summary.micro == one.summary.micro


def test_bandit_alone_refuses_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--reviewer", "bandit", "--model", "gpt-4o-mini"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "code-guard: error: --reviewer bandit uses no model: drop --model, or add --offline"
    ]
    assert not (tmp_path / "results.json").exists()
