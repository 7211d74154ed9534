"""Tests of results.json: round trip, re-scoring from the file alone, and merge checks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from evalfakes import FakeReviewer, WriteCase, make_finding, read_json

from code_guard.evaluation.dataset import Shard
from code_guard.evaluation.results import (
    ResultsError,
    load_results,
    merge_results,
    rescore,
    save_results,
)
from code_guard.evaluation.runner import evaluate
from code_guard.evaluation.schema import EvalResults
from code_guard.findings import AgentName, Category
from code_guard.options import ModelOptions

SQL = Category.SQL_INJECTION


def sample_run(write_case: WriteCase, tmp_path: Path, shard: Shard | None = None) -> EvalResults:
    write_case("a", [(5, SQL), (9, SQL)])
    write_case("b")
    write_case("c", [(2, Category.NAMING)])
    write_case("d", expected_findings=[{"file_path": "app_d.py", "line_start": 1}])
    reviewer = FakeReviewer(
        findings={
            "app_a.py": [make_finding("app_a.py", 7, SQL), make_finding("app_a.py", 8, SQL)],
            "app_b.py": [make_finding("app_b.py", 3, Category.NAMING, AgentName.STYLE)],
            "app_c.py": [make_finding("app_c.py", 5, Category.NAMING, AgentName.STYLE)],
        },
        latency_s={"app_a.py": 0.5, "app_b.py": 0.25, "app_c.py": 1.0},
    )
    return asyncio.run(
        evaluate(
            tmp_path / "cases",
            reviewer,
            model=ModelOptions(offline=True),
            tolerance=3,
            shard=shard,
            clock=reviewer.clock,
        )
    )


def test_round_trip(write_case: WriteCase, tmp_path: Path) -> None:
    results = sample_run(write_case, tmp_path)
    path = tmp_path / "results.json"
    save_results(results, path)
    assert load_results(path) == results


def test_file_holds_what_rescoring_needs(write_case: WriteCase, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    save_results(sample_run(write_case, tmp_path), path)
    data = read_json(path)

    assert data["format"] == "code-guard-eval/1"
    assert data["metadata"] == {
        "tolerance": 3,
        "model": "static-only",
        "static_only_reason": "offline mode was requested (--offline)",
        "dataset": str(tmp_path / "cases"),
        "dataset_cases": 4,
        "shard": None,
    }
    a = data["cases"][0]
    assert set(a) == {
        "case_file",
        "pr_id",
        "findings",
        "expected",
        "matches",
        "score",
        "latency_ms",
        "usage",
        "error",
    }
    assert a["findings"][0] == make_finding("app_a.py", 7, SQL).model_dump(mode="json")
    assert a["expected"][0] == {
        "file_path": "app_a.py",
        "line_start": 5,
        "category": "sql_injection",
    }
    assert a["score"] == {"tp": 2, "fp": 0, "fn": 0, "precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert (a["latency_ms"], a["error"]) == (500.0, None)
    assert data["cases"][3]["error"] == "expected_findings.0.category: Field required"


def test_rescoring_the_file_alone_equals_the_run(write_case: WriteCase, tmp_path: Path) -> None:
    results = sample_run(write_case, tmp_path)
    path = tmp_path / "results.json"
    save_results(results, path)

    # Scramble every stored figure: rescoring must rebuild them from findings + expected.
    data = read_json(path)
    data["summary"]["micro"] = {"tp": 99, "fp": 0, "fn": 0}
    for case in data["cases"]:
        case["matches"] = []
        if case["score"]:
            case["score"] = {"tp": 0, "fp": 0, "fn": 0}
    path.write_text(json.dumps(data), encoding="utf-8")

    assert rescore(load_results(path)) == results


def test_rescore_with_another_tolerance(write_case: WriteCase, tmp_path: Path) -> None:
    results = sample_run(write_case, tmp_path)
    strict = rescore(results, tolerance=1)
    assert strict.metadata.tolerance == 1
    # a: 7 -> 5 and 8 -> 9 need tolerance 2; 8 -> 9 still matches at 1.
    assert (strict.summary.micro.tp, results.summary.micro.tp) == (1, 3)
    assert rescore(strict, tolerance=3) == results


def test_merge_refuses_incomplete_or_inconsistent_shards(
    write_case: WriteCase, tmp_path: Path
) -> None:
    one, two, three = (sample_run(write_case, tmp_path, Shard(i, 3)) for i in (1, 2, 3))
    whole = sample_run(write_case, tmp_path)

    with pytest.raises(ResultsError, match=r"^cannot merge: missing shard 2/3$"):
        merge_results([one, three])
    with pytest.raises(ResultsError, match=r"^shard 1/3 is given more than once$"):
        merge_results([one, one, two, three])
    with pytest.raises(ResultsError, match="unsharded run with other runs"):
        merge_results([whole, one])
    other = two.model_copy(update={"metadata": two.metadata.model_copy(update={"tolerance": 5})})
    with pytest.raises(ResultsError, match="^cannot merge runs with different tolerance: 3 and 5$"):
        merge_results([one, other, three])
    with pytest.raises(ResultsError, match="nothing to merge"):
        merge_results([])
    assert merge_results([whole]) == whole


def test_merge_refuses_a_case_twice(write_case: WriteCase, tmp_path: Path) -> None:
    one, two = (sample_run(write_case, tmp_path, Shard(i, 2)) for i in (1, 2))
    two = two.model_copy(update={"cases": two.cases + one.cases[:1]})
    with pytest.raises(ResultsError, match="^case a.json appears in more than one results file$"):
        merge_results([one, two])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{", r"is not a code-guard results file: file: Invalid JSON"),
        (b'{"format": "other/2"}', r"format: Input should be 'code-guard-eval/1'"),
        (b"\xff", r"cannot read results file .*: not UTF-8"),
    ],
)
def test_load_rejects_bad_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    with pytest.raises(ResultsError, match=message):
        load_results(path)


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="cannot read results file .*: No such file"):
        load_results(tmp_path / "none.json")
