"""Tests that an eval never looks better than what it measured.

Errored cases count their expected findings as misses, a run where (too many) cases errored
fails, a dead model stops the run early, and reviewing in worker processes gives the same
results as reviewing in this process.
"""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from evalfakes import LOOP, SQL, XSS, WriteCase, case, errored, exp, make_finding

from code_guard.cli import main
from code_guard.errors import TransientModelError
from code_guard.evaluation.breaker import CircuitBreaker, ModelUnavailable
from code_guard.evaluation.dataset import Shard
from code_guard.evaluation.entry import run_dataset, run_eval_for_action
from code_guard.evaluation.metrics import error_failure, summarize
from code_guard.evaluation.runner import EvalStopped, evaluate, pipeline_reviewer
from code_guard.evaluation.schema import CaseResult
from code_guard.findings import Category
from code_guard.options import ModelOptions, ReviewOptions

BUNDLED = Path(__file__).resolve().parents[2] / "dataset"


def errored_with(name: str, *expected: tuple[int, Category]) -> CaseResult:
    """An errored case whose expected findings are known (it loaded, then failed)."""
    return errored(name).model_copy(update={"expected": tuple(exp(n, c) for n, c in expected)})


def test_errored_cases_count_their_expected_findings_as_missed() -> None:
    scored = case("a", [make_finding("a.py", 10, SQL)], [exp(10, SQL)])
    summary = summarize([scored, errored_with("b", (5, XSS), (9, LOOP)), errored("c")])
    assert (summary.micro.tp, summary.micro.fp, summary.micro.fn) == (1, 0, 2)
    assert summary.micro.recall == pytest.approx(1 / 3)
    assert summary.missed_by_errors == 2
    assert summary.errors == 2
    assert summary.per_category[XSS].fn == 1
    assert summary.per_category[LOOP].fn == 1


def test_a_run_where_every_case_errored_is_not_perfect() -> None:
    summary = summarize([errored_with("a", (1, SQL)), errored_with("b", (2, XSS))])
    assert summary.micro.f1 == 0.0
    failure = error_failure(summary)
    assert failure is not None and failure.startswith("every case errored (2 of 2)")


def test_error_share_above_the_limit_fails_the_run() -> None:
    cases = [case(f"ok{i}", [], []) for i in range(8)] + [errored("x"), errored("y")]
    summary = summarize(cases)
    assert error_failure(summary, max_error_rate=0.25) is None
    failure = error_failure(summary, max_error_rate=0.1)
    assert failure is not None and "2 of 10 cases errored (20%)" in failure


def test_cli_eval_of_an_all_broken_dataset_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("a", "b"):
        (cases / f"{name}.json").write_text("{not json", encoding="utf-8")
    code = main(["eval", "--offline", "--dataset", str(cases), "--output", str(tmp_path / "r")])
    assert code == 1
    assert "eval failed: every case errored (2 of 2)" in capsys.readouterr().err


def test_action_outcome_of_an_all_broken_dataset_reports_zero_and_fails(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "a.json").write_text("[]", encoding="utf-8")
    outcome = run_eval_for_action(
        dataset=cases,
        options=ReviewOptions(model=ModelOptions(offline=True)),
        jobs=1,
        min_f1=None,
        baseline=None,
        output=tmp_path / "results.json",
    )
    assert not outcome.passed
    assert (outcome.precision, outcome.recall, outcome.f1) == (0.0, 0.0, 0.0)
    assert outcome.failure is not None and "every case errored" in outcome.failure


# ``fake_llm`` and ``answer`` are fixtures of tests/conftest.py, whose types this folder's
# own conftest shadows for mypy; hence ``Any``.
def test_breaker_opens_after_consecutive_failures_and_a_success_resets_it(
    fake_llm: Any, answer: Any
) -> None:
    down = TransientModelError("connection refused")
    inner = fake_llm(down, answer(), down, down, max_retries=0)
    breaker = CircuitBreaker(inner, threshold=2)

    async def calls() -> list[str]:
        outcomes = []
        for _ in range(5):
            try:
                await breaker.complete([{"role": "user", "content": "hi"}], type(answer()))
                outcomes.append("ok")
            except ModelUnavailable:
                outcomes.append("open")
            except TransientModelError:
                outcomes.append("failed")
        return outcomes

    assert asyncio.run(calls()) == ["failed", "ok", "failed", "failed", "open"]
    assert len(inner.calls) == 4  # the open breaker sent nothing
    assert "2 consecutive model failures" in breaker.reason()
    assert "connection refused" in breaker.reason()


def test_eval_over_a_dead_model_stops_early(
    write_case: WriteCase, tmp_path: Path, fake_llm: Any
) -> None:
    for index in range(6):
        write_case(f"case{index}", [(3, SQL)])
    dead = fake_llm(*[TransientModelError("503 from the provider")] * 50, max_retries=0)
    breaker = CircuitBreaker(dead, threshold=3)
    options = ReviewOptions(model=ModelOptions(name="gpt-4o-mini"))
    run = evaluate(
        tmp_path / "cases",
        pipeline_reviewer(options, breaker),
        model=options.model,
        tolerance=3,
        stop=lambda: breaker.reason() if breaker.open else None,
    )
    with pytest.raises(EvalStopped, match="stopped after 3 consecutive model failures"):
        asyncio.run(run)
    # Three agents per case: the first case's calls open the breaker, the rest send nothing.
    assert len(dead.calls) == 3


@pytest.mark.parametrize("jobs", [1, 2])
def test_cli_eval_against_an_unreachable_server_stops_with_one_line(
    write_case: WriteCase, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, jobs: int,
) -> None:
    # The variables reach the worker process that ``--jobs 2`` starts, too.
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for index in range(8):
        write_case(f"case{index}", [(3, SQL)])
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = tmp_path / "config.yml"
    config.write_text("max-retries: 0\ntimeout-s: 5\n", encoding="utf-8")
    code = main(
        [
            "eval", "--dataset", str(tmp_path / "cases"), "--output", str(tmp_path / "r.json"),
            "--model", "openai/local", "--api-base", f"http://127.0.0.1:{port}/v1",
            "--config", str(config), "--max-model-failures", "2", "--jobs", str(jobs),
        ]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("code-guard: error:")]
    assert len(errors) == 1
    # The three agents of the first case fail concurrently, so the count may pass the limit.
    assert re.search(r"stopped after [23] consecutive model failures", errors[0])
    # The run stopped after each job's first case instead of trying all eight.
    assert err.count("[") <= 2 * jobs


def test_process_workers_give_the_same_results_as_one_process() -> None:
    options = ReviewOptions(model=ModelOptions(offline=True))
    shard = Shard.parse("1/6")
    one = run_dataset(BUNDLED, options, jobs=1, shard=shard)
    two = run_dataset(BUNDLED, options, jobs=2, shard=shard)
    assert len(one.cases) >= 10
    assert [c.pr_id for c in two.cases] == [c.pr_id for c in one.cases]
    assert [c.findings for c in two.cases] == [c.findings for c in one.cases]
    assert two.summary.micro == one.summary.micro
