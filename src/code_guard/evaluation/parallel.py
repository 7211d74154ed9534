"""Review a dataset's cases in worker processes, so ``--jobs N`` uses N cores.

Cases as asyncio tasks in one process share one GIL: the analysers that run in Python
(detect-secrets, the AST checks, matching) serialise, and ``--jobs 2`` is no faster than 1.
Here each worker process builds its own model client once (behind its own circuit breaker)
and reviews whole cases with the same ``review_case`` as the in-process path, so results are
identical; only where the work runs differs.

Workers are started with ``spawn``: a fork of a process that has threads (asyncio's executor,
litellm's clients) can deadlock, and spawn behaves the same on every platform.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from code_guard.evaluation.breaker import CircuitBreaker
from code_guard.evaluation.runner import (
    EvalStopped,
    ProgressFn,
    Reviewer,
    ReviewFn,
    make_reviewer,
    review_case,
)
from code_guard.evaluation.schema import CaseResult
from code_guard.model_client import make_llm
from code_guard.options import ReviewOptions

# One per worker process, set by ``_start_worker``.
_WORKER: _Worker | None = None


class _Worker:
    """What a worker process keeps between cases: the reviewer and its breaker."""

    def __init__(
        self, options: ReviewOptions, tolerance: int, max_model_failures: int, reviewer: Reviewer
    ) -> None:
        llm = make_llm(options) if reviewer is Reviewer.PIPELINE else None
        self.breaker = CircuitBreaker(llm, max_model_failures) if llm is not None else None
        self.review: ReviewFn = make_reviewer(reviewer, options, self.breaker)
        self.tolerance = tolerance

    def run(self, path: Path) -> tuple[CaseResult, str | None]:
        result = asyncio.run(review_case(path, self.review, tolerance=self.tolerance))
        stop = self.breaker.reason() if self.breaker is not None and self.breaker.open else None
        return result, stop


def _start_worker(
    options: ReviewOptions, tolerance: int, max_model_failures: int, reviewer: Reviewer
) -> None:
    global _WORKER
    _WORKER = _Worker(options, tolerance, max_model_failures, reviewer)


def _review_in_worker(path: Path) -> tuple[CaseResult, str | None]:
    if _WORKER is None:  # pragma: no cover - the pool's initializer always runs first
        raise RuntimeError("worker not initialised")
    return _WORKER.run(path)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # unreadable: review_case reports it


def review_in_processes(
    files: Sequence[Path],
    options: ReviewOptions,
    *,
    tolerance: int,
    jobs: int,
    max_model_failures: int,
    on_result: ProgressFn | None = None,
    reviewer: Reviewer = Reviewer.PIPELINE,
) -> tuple[CaseResult, ...]:
    """Review ``files`` in ``jobs`` worker processes, each with its own ``reviewer``; results
    keep the files' order.

    ``on_result`` is called in this process as each case finishes. When a worker's model
    breaker opens, pending cases are cancelled and ``EvalStopped`` is raised.
    """
    results: dict[int, CaseResult] = {}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=min(jobs, max(len(files), 1)),
        mp_context=context,
        initializer=_start_worker,
        initargs=(options, tolerance, max_model_failures, reviewer),
    ) as pool:
        # Largest case files first, so no big review is left running alone at the end.
        order = sorted(range(len(files)), key=lambda i: -_size(files[i]))
        pending: dict[Future[tuple[CaseResult, str | None]], int] = {
            pool.submit(_review_in_worker, files[index]): index for index in order
        }
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                result, stop = future.result()
                results[index] = result
                if on_result is not None:
                    on_result(len(results), len(files), result)
                if stop is not None:
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise EvalStopped(stop)
    return tuple(results[i] for i in range(len(files)))
