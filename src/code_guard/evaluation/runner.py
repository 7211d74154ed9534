"""Review each case of a dataset with the real pipeline, concurrently, and score it.

A case goes through what a pull request goes through: its diff is parsed with
``code_guard.change.diff.parse_diff``, its ``file_contents`` are the files after the change, and
``engine.run_review`` reviews it. The review function is injected, so tests can pass a fake
reviewer and check the runner without depending on detection quality; ``Reviewer`` names
the real ones: our pipeline, or Bandit alone (the baseline our figures are compared with).

A case that cannot be scored (malformed file, bad diff, failed review, an agent that failed)
becomes a result with ``error`` set; the run goes on with the others.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import assert_never

from code_guard.change.diff import parse_diff
from code_guard.errors import CodeGuardError, ConfigError, ModelError
from code_guard.evaluation.bandit_alone import BANDIT_ALONE, bandit_reviewer
from code_guard.evaluation.dataset import CaseError, Shard, list_case_files, load_case
from code_guard.evaluation.metrics import score_case, summarize
from code_guard.evaluation.schema import STATIC_ONLY, CaseResult, EvalResults, RunMetadata
from code_guard.findings import AgentState, Review
from code_guard.model.interface import LLMClient
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.review.engine import ReviewRequest, run_review

ReviewFn = Callable[[ReviewRequest], Awaitable[Review]]
ProgressFn = Callable[[int, int, CaseResult], None]
Clock = Callable[[], float]
# Asked after each case: a reason to stop the whole run (a dead model), or None to go on.
StopFn = Callable[[], str | None]


class EvalStopped(ModelError):
    """The run was stopped early, e.g. after too many consecutive model failures."""


class Reviewer(StrEnum):
    """Who reviews the cases: our pipeline, or Bandit alone with the same scoring."""

    PIPELINE = "pipeline"
    BANDIT = "bandit"


def make_reviewer(reviewer: Reviewer, options: ReviewOptions, llm: LLMClient | None) -> ReviewFn:
    """The review function of ``reviewer``; only the pipeline uses ``llm``."""
    match reviewer:
        case Reviewer.PIPELINE:
            return pipeline_reviewer(options, llm)
        case Reviewer.BANDIT:
            return bandit_reviewer(options.analysis)
        case _:
            assert_never(reviewer)


def pipeline_reviewer(options: ReviewOptions, llm: LLMClient | None) -> ReviewFn:
    """Return the production review function, bound to ``options`` and ``llm``."""

    async def review(request: ReviewRequest) -> Review:
        return await run_review(request, options, llm)

    return review


def mode_of(model: ModelOptions, reviewer: Reviewer = Reviewer.PIPELINE) -> tuple[str, str | None]:
    """Return the review mode for run metadata: the model name or ``static-only``, and why.

    Bandit alone is static-only, and says so in its reason, so a results file tells which
    reviewer made it and shards of different reviewers never merge.
    """
    if reviewer is Reviewer.BANDIT:
        return STATIC_ONLY, BANDIT_ALONE
    if model.enabled and model.name:
        return model.name, None
    return STATIC_ONLY, model.static_only_reason


async def evaluate(
    dataset: Path,
    review: ReviewFn,
    *,
    model: ModelOptions,
    tolerance: int,
    jobs: int = 1,
    shard: Shard | None = None,
    on_result: ProgressFn | None = None,
    clock: Clock = time.perf_counter,
    stop: StopFn | None = None,
    reviewer: Reviewer = Reviewer.PIPELINE,
) -> EvalResults:
    """Review every case of ``dataset`` (or of one shard of it) and return the scored run.

    Raises ``DatasetError`` when the dataset cannot be listed (malformed cases are results),
    and ``EvalStopped`` when ``stop`` gives a reason after a case. ``reviewer`` names the
    reviewer behind ``review`` and ``model`` the model options it ran with, for the run's
    metadata.
    """
    files = list_case_files(dataset)
    selected = shard.select(files) if shard else files
    cases = await review_cases(
        selected,
        review,
        tolerance=tolerance,
        jobs=jobs,
        on_result=on_result,
        clock=clock,
        stop=stop,
    )
    return assemble(
        dataset, files, cases, model=model, tolerance=tolerance, shard=shard, reviewer=reviewer
    )


def assemble(
    dataset: Path,
    files: Sequence[Path],
    cases: Sequence[CaseResult],
    *,
    model: ModelOptions,
    tolerance: int,
    shard: Shard | None,
    reviewer: Reviewer = Reviewer.PIPELINE,
) -> EvalResults:
    """The scored run: metadata (from the dataset's ``files``), summary and case results."""
    mode, reason = mode_of(model, reviewer)
    metadata = RunMetadata(
        tolerance=tolerance,
        model=mode,
        static_only_reason=reason,
        dataset=str(dataset),
        dataset_cases=len(files),
        shard=str(shard) if shard else None,
    )
    return EvalResults(metadata=metadata, summary=summarize(cases), cases=tuple(cases))


async def review_cases(
    files: Sequence[Path],
    review: ReviewFn,
    *,
    tolerance: int,
    jobs: int = 1,
    on_result: ProgressFn | None = None,
    clock: Clock = time.perf_counter,
    stop: StopFn | None = None,
) -> tuple[CaseResult, ...]:
    """Review ``files`` with at most ``jobs`` reviews at once; results keep the files' order.

    ``on_result(done, total, result)`` is called as each case finishes, in finishing order.
    Latency is measured per review, so with ``jobs > 1`` it includes waiting on shared CPU.
    When ``stop`` gives a reason after a case, the other reviews are cancelled and
    ``EvalStopped`` is raised with it.
    """
    if jobs < 1:
        raise ConfigError("--jobs must be at least 1")
    semaphore = asyncio.Semaphore(jobs)
    done = 0

    async def one(path: Path) -> CaseResult:
        nonlocal done
        async with semaphore:
            result = await review_case(path, review, tolerance=tolerance, clock=clock)
        done += 1
        if on_result is not None:
            on_result(done, len(files), result)
        reason = stop() if stop is not None else None
        if reason is not None:
            raise EvalStopped(reason)
        return result

    # A TaskGroup, so that a bug in one review (an exception that is not a CodeGuardError)
    # cancels the rest and surfaces, instead of being recorded as a case error.
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(path)) for path in files]
    except* EvalStopped as stopped:
        raise stopped.exceptions[0] from None
    return tuple(task.result() for task in tasks)


async def review_case(
    path: Path, review: ReviewFn, *, tolerance: int, clock: Clock = time.perf_counter
) -> CaseResult:
    """Load, review and score one case file; any expected failure becomes ``error``."""
    try:
        case = load_case(path)
    except CaseError as exc:
        return CaseResult(case_file=path.name, pr_id=path.stem, error=exc.reason)
    base = CaseResult(case_file=path.name, pr_id=case.pr_id, expected=case.expected_findings)
    try:
        change = parse_diff(case.diff)
    except CodeGuardError as exc:
        return base.model_copy(update={"error": str(exc)})
    # No title or body: a case's pr_id often names the bug it holds ("sql_injection_basic"),
    # and handing it to a model as the PR title would leak the answer.
    request = ReviewRequest(change=change, contents=case.file_contents)
    start = clock()
    try:
        result = await review(request)
    except CodeGuardError as exc:
        elapsed = (clock() - start) * 1000
        return base.model_copy(update={"error": f"review failed: {exc}", "latency_ms": elapsed})
    elapsed = (clock() - start) * 1000
    base = base.model_copy(
        update={"findings": result.findings, "latency_ms": elapsed, "usage": result.usage}
    )
    failed = [a for a in result.agents if a.state is AgentState.FAILED]
    if failed:
        # A partial review is not comparable with complete ones: scoring it would count the
        # failed agent's share as misses. It is listed as an error, with what it found kept.
        reasons = "; ".join(f"{a.agent.value} agent failed: {a.reason}" for a in failed)
        return base.model_copy(update={"error": f"review incomplete: {reasons}"})
    matches, score = score_case(result.findings, case.expected_findings, tolerance)
    return base.model_copy(update={"matches": matches, "score": score})
