"""Run an eval of a dataset directory end to end, for the command line and the GitHub Action.

``run_dataset`` reviews and scores the cases and returns the run; ``run_eval_for_action``
also writes ``results.json`` and returns the figures the action reports, with the verdict of
the ``min-f1`` quality gate.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from code_guard.errors import DatasetError
from code_guard.evaluation.breaker import DEFAULT_MAX_MODEL_FAILURES, CircuitBreaker
from code_guard.evaluation.dataset import Shard, list_case_files
from code_guard.evaluation.matching import DEFAULT_TOLERANCE
from code_guard.evaluation.metrics import DEFAULT_MAX_ERROR_RATE, error_failure, gate_failure
from code_guard.evaluation.parallel import review_in_processes
from code_guard.evaluation.report import render_markdown
from code_guard.evaluation.results import load_results, save_results
from code_guard.evaluation.runner import ProgressFn, Reviewer, assemble, evaluate, make_reviewer
from code_guard.evaluation.schema import EvalResults
from code_guard.model.factory import make_llm
from code_guard.options import ReviewOptions

# src/code_guard/evaluation/entry.py -> the repository root, when running from a checkout.
BUNDLED_DATASET = Path(__file__).resolve().parents[3] / "dataset"


def bundled_dataset(path: Path = BUNDLED_DATASET) -> Path:
    """The bundled dataset: ``$CODE_GUARD_DATASET`` (set in the action's image), else the
    checkout this package runs from, else ``./dataset``; ``DatasetError`` when none exists.

    An installed package (``pip install .``) has no dataset next to it, hence the fallbacks.
    """
    env = os.environ.get("CODE_GUARD_DATASET")
    candidates = [Path(env)] if env else [path, Path.cwd() / "dataset"]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise DatasetError(
        f"no bundled dataset at {candidates[0]} (not running from a checkout?): "
        "pass --dataset DIR"
    )


@dataclass(frozen=True, slots=True)
class EvalOutcome:
    """The figures the GitHub Action reports: micro P/R/F1, latency, gate verdict, report.

    Latencies are None when no case was scored; ``failure`` says why the gate failed.
    """

    precision: float
    recall: float
    f1: float
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    passed: bool
    markdown: str
    errors: int
    failure: str | None = None


def run_eval_for_action(
    *,
    dataset: Path | None,
    options: ReviewOptions,
    jobs: int,
    min_f1: float | None,
    baseline: Path | None,
    output: Path,
    tolerance: int = DEFAULT_TOLERANCE,
    on_result: ProgressFn | None = None,
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE,
) -> EvalOutcome:
    """Run an eval for the GitHub Action: write ``output`` and return the outcome.

    Raises ``CodeGuardError`` subclasses on bad input, like the command line. A run where too
    many cases errored fails like a failed gate, and a run that scored no case reports zeros:
    nothing measured is never presented as a perfect score.
    """
    old = load_results(baseline) if baseline else None
    results = run_dataset(dataset, options, jobs=jobs, tolerance=tolerance, on_result=on_result)
    save_results(results, output)
    summary = results.summary
    failure = error_failure(summary, max_error_rate) or gate_failure(summary, min_f1)
    measured = summary.scored > 0
    return EvalOutcome(
        precision=summary.micro.precision if measured else 0.0,
        recall=summary.micro.recall if measured else 0.0,
        f1=summary.micro.f1 if measured else 0.0,
        latency_p50_ms=summary.latency.p50_ms if summary.latency else None,
        latency_p95_ms=summary.latency.p95_ms if summary.latency else None,
        passed=failure is None,
        markdown=render_markdown(results, old),
        errors=summary.errors,
        failure=failure,
    )


def run_dataset(
    dataset: Path | None,
    options: ReviewOptions,
    *,
    jobs: int = 1,
    shard: Shard | None = None,
    tolerance: int = DEFAULT_TOLERANCE,
    on_result: ProgressFn | None = None,
    max_model_failures: int = DEFAULT_MAX_MODEL_FAILURES,
    reviewer: Reviewer = Reviewer.PIPELINE,
) -> EvalResults:
    """Review and score every case of ``dataset`` (default: the bundled one) with the pipeline
    (or with Bandit alone, for ``Reviewer.BANDIT``).

    With ``jobs > 1`` the cases are reviewed in that many worker processes; with one, in this
    process. Either way the model sits behind a circuit breaker: after ``max_model_failures``
    failed calls in a row the run stops with ``EvalStopped``. Blocking: call it from
    synchronous code.
    """
    directory = dataset or bundled_dataset()
    if jobs > 1:
        files = list_case_files(directory)
        cases = review_in_processes(
            shard.select(files) if shard else files,
            options,
            tolerance=tolerance,
            jobs=jobs,
            max_model_failures=max_model_failures,
            on_result=on_result,
            reviewer=reviewer,
        )
        return assemble(
            directory,
            files,
            cases,
            model=options.model,
            tolerance=tolerance,
            shard=shard,
            reviewer=reviewer,
        )
    llm = make_llm(options.model) if reviewer is Reviewer.PIPELINE else None
    breaker = CircuitBreaker(llm, max_model_failures) if llm is not None else None
    run = evaluate(
        directory,
        make_reviewer(reviewer, options, breaker),
        model=options.model,
        tolerance=tolerance,
        shard=shard,
        on_result=on_result,
        stop=lambda: breaker.reason() if breaker is not None and breaker.open else None,
        reviewer=reviewer,
    )
    return asyncio.run(run)
