"""Tests of ``code-guard eval`` and ``eval merge`` through the real CLI, and the action entry.

The runs here use the real pipeline, offline and static-only, on tiny hand-made cases.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from evalfakes import FakeReviewer, WriteCase, make_finding, new_file_diff, read_json

from code_guard.cli import main
from code_guard.errors import DatasetError
from code_guard.evaluation.dataset import Shard
from code_guard.evaluation.entry import BUNDLED_DATASET, bundled_dataset, run_eval_for_action
from code_guard.evaluation.results import load_results, merge_results, save_results
from code_guard.evaluation.runner import evaluate
from code_guard.findings import Category
from code_guard.options import ModelOptions, ReviewOptions

SQL_APP = """\
import sqlite3


def get_user(user_id):
    conn = sqlite3.connect("users.db")
    query = f"SELECT * FROM users WHERE id = {user_id}"
    return conn.execute(query).fetchone()
"""


def write_sql_case(directory: Path, expected_category: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    case = {
        "pr_id": "users",
        "diff": new_file_diff("app.py", SQL_APP),
        "file_contents": {"app.py": SQL_APP},
        "expected_findings": [
            {"file_path": "app.py", "line_start": 6, "category": expected_category}
        ],
    }
    (directory / "users.json").write_text(json.dumps(case), encoding="utf-8")


def test_real_pipeline_finds_the_sql_injection(tmp_path: Path) -> None:
    write_sql_case(tmp_path / "cases", "sql_injection")
    outcome = run_eval_for_action(
        dataset=tmp_path / "cases",
        options=ReviewOptions(model=ModelOptions(offline=True)),
        jobs=1,
        min_f1=0.99,
        baseline=None,
        output=tmp_path / "results.json",
    )
    stored = load_results(tmp_path / "results.json")
    (case,) = stored.cases
    assert case.error is None
    assert case.score is not None and case.score.tp == 1
    assert any(f.category is Category.SQL_INJECTION for f in case.findings)
    assert case.latency_ms > 0
    assert outcome.recall == 1.0
    assert outcome.errors == 0
    assert outcome.latency_p50_ms == outcome.latency_p95_ms == case.latency_ms
    assert outcome.passed is (outcome.f1 >= 0.99)
    assert outcome.markdown.startswith("## Ninja Code Guard evaluation\n")


def test_quality_gate_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing in the static analysers reports a memory leak in this file, so TP = 0 and F1 = 0.
    write_sql_case(tmp_path / "cases", "memory_leak")
    monkeypatch.chdir(tmp_path)
    args = ["eval", "--offline", "--dataset", "cases"]

    assert main([*args, "--min-f1", "0.5"]) == 1
    captured = capsys.readouterr()
    assert "quality gate failed: micro F1 0.000 is below the minimum 0.500" in captured.err
    assert "[1/1] users  P=" in captured.err
    assert captured.out.startswith("## Ninja Code Guard evaluation\n")
    assert (tmp_path / "results.json").is_file()  # the default --output

    assert main([*args, "--min-f1", "0", "--summary", "report.md", "--output", "r.json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("eval: 1 cases, 1 scored, 0 errored · micro P=")
    assert (tmp_path / "report.md").read_text(encoding="utf-8").startswith("## Ninja Code")
    assert load_results(tmp_path / "r.json").summary.micro.tp == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "--dataset", "missing"], "error: dataset directory missing does not exist"),
        (["eval", "--shard", "3/2"], "argument --shard: invalid shard 3/2: need 1 <= I <= N"),
        (["eval", "--min-f1", "1.5"], "argument --min-f1: expected a number from 0 to 1"),
        (["eval", "--tolerance", "-1"], "argument --tolerance: expected an integer >= 0"),
        (["eval", "merge", "nope.json", "--output", "x.json"], "cannot read results file"),
        (["eval", "merge", "a.json"], "the following arguments are required: --output"),
        (["eval", "--baseline", "nope.json"], "cannot read results file nope.json"),
    ],
)
def test_bad_usage_or_input_exits_2_with_one_line(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "results.json").exists()


def test_merge_command_equals_merge_results(
    write_case: WriteCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for k in range(5):
        write_case(f"c{k}", [(4, Category.XSS)])
    reviewer = FakeReviewer(findings={"app_c1.py": [make_finding("app_c1.py", 4, Category.XSS)]})
    shards = []
    for i in (1, 2):
        run = evaluate(
            tmp_path / "cases",
            reviewer,
            model=ModelOptions(offline=True),
            tolerance=3,
            shard=Shard(i, 2),
            clock=reviewer.clock,
        )
        shards.append(asyncio.run(run))
        save_results(shards[-1], tmp_path / f"results-{i}.json")

    argv = ["eval", "merge", str(tmp_path / "results-2.json"), str(tmp_path / "results-1.json")]
    assert main([*argv, "--output", str(tmp_path / "all.json"), "--min-f1", "0.5"]) == 1
    assert load_results(tmp_path / "all.json") == merge_results(shards)
    assert read_json(tmp_path / "all.json")["metadata"]["shard"] is None
    out = capsys.readouterr().out
    assert "| **Micro** (pooled TP/FP/FN) | 1.000 | 0.200 | 0.333 |" in out


def test_default_dataset_is_the_checkouts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CODE_GUARD_DATASET", raising=False)
    monkeypatch.chdir(tmp_path)
    assert Path(__file__).resolve().parents[2] / "dataset" == BUNDLED_DATASET
    assert bundled_dataset(tmp_path) == tmp_path
    with pytest.raises(DatasetError, match=r"no bundled dataset at .*: pass --dataset DIR$"):
        bundled_dataset(tmp_path / "dataset")
    (tmp_path / "dataset").mkdir()
    assert bundled_dataset(tmp_path / "missing") == tmp_path / "dataset"  # ./dataset fallback


def test_image_dataset_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODE_GUARD_DATASET", str(tmp_path))
    assert bundled_dataset() == tmp_path
    monkeypatch.setenv("CODE_GUARD_DATASET", str(tmp_path / "absent"))
    with pytest.raises(DatasetError, match="absent"):
        bundled_dataset()
