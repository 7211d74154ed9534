"""Review a dataset's cases in this process and in worker processes, so ``--jobs N`` uses N
cores.

Cases as asyncio tasks in one process share one GIL: the analysers that run in Python
(detect-secrets, the AST checks, matching) serialise, and ``--jobs 2`` is no faster than 1.
Here ``N - 1`` worker processes and this one each build their own model client once (behind
their own circuit breaker) and review whole cases with the same ``review_case`` as the
in-process path, so results are identical; only where the work runs differs. This process
takes a share because it is ready at once, while a worker is still starting.

Workers are forked where the platform can and this process has no other thread yet (as a
fresh ``code-guard eval`` has none): a forked worker starts with everything imported and
reviews its first case at once (docs/performance.md has the measurements). A process with
threads (the tools' pool after a review, the model client's
background import) is never forked, since a thread holding a lock at the fork would leave the
child stuck on it; such a run spawns its workers instead. Each process keeps to its own share
of the cores (``cores``).
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing
import os
import queue
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing.context import BaseContext
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.util import Finalize
from pathlib import Path
from typing import TypeVar

from code_guard.evaluation.breaker import CircuitBreaker
from code_guard.evaluation.cores import keep_to_share, kept_to_share
from code_guard.evaluation.runner import (
    EvalStopped,
    ProgressFn,
    Reviewer,
    ReviewFn,
    make_reviewer,
    review_case,
)
from code_guard.evaluation.schema import CaseResult
from code_guard.model.factory import make_llm
from code_guard.options import ReviewOptions
from code_guard.tools.runtime.cpus import core_ids, thread_count
from code_guard.tools.runtime.warm import close_warm_pools

T = TypeVar("T")
R = TypeVar("R")
# One per worker process, set by ``_start_worker``.
_WORKER: _Worker | None = None


class _Worker:
    """What a process keeps between cases: the reviewer and its breaker."""

    def __init__(
        self, options: ReviewOptions, tolerance: int, max_model_failures: int, reviewer: Reviewer
    ) -> None:
        llm = make_llm(options.model) if reviewer is Reviewer.PIPELINE else None
        self.breaker = CircuitBreaker(llm, max_model_failures) if llm is not None else None
        self.review: ReviewFn = make_reviewer(reviewer, options, self.breaker)
        self.tolerance = tolerance

    def run(self, path: Path) -> tuple[CaseResult, str | None]:
        result = asyncio.run(review_case(path, self.review, tolerance=self.tolerance))
        stop = self.breaker.reason() if self.breaker is not None and self.breaker.open else None
        return result, stop


def _start_worker(
    options: ReviewOptions,
    tolerance: int,
    max_model_failures: int,
    reviewer: Reviewer,
    places: Synchronized[int],
    processes: int,
    cores: list[int],
) -> None:
    global _WORKER
    with places.get_lock():  # workers take places 1, 2, ...; the eval's own process is 0
        places.value += 1
        place = places.value
    keep_to_share(place, processes, cores)
    _WORKER = _Worker(options, tolerance, max_model_failures, reviewer)
    # A forked worker ends with os._exit once its work is done, so exit handlers never run
    # there; multiprocessing's own finalizers run under either start method.
    Finalize(_WORKER, close_warm_pools, exitpriority=0)
    atexit.register(_exit_quickly)


def _exit_quickly() -> None:
    """A spawned worker's last act: leave without tearing down every module it imported. The
    pool waits for its workers to exit before the eval can report, and that teardown was about
    0.2 s of it. multiprocessing has flushed the streams, finished the result queue and closed
    the warm pools (the ``Finalize`` above) by now; exit handlers run last-registered first, so
    those registered after this one (the finalizers of each case's temporary folders) have run
    too."""
    os._exit(0)


def _worker_context() -> BaseContext:
    """How to start workers: fork where the platform has it and no other thread runs here
    (see the module's docstring), spawn otherwise."""
    if "fork" in multiprocessing.get_all_start_methods() and thread_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


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
    """Review ``files`` ``jobs`` at a time: here and in ``jobs - 1`` worker processes, each
    with its own ``reviewer``; results keep the files' order.

    This process reviews cases too: it has everything imported and warmed up already, and it
    starts at once, while the workers are still starting (about a second each). ``on_result``
    is called in this process as each case finishes. When a model breaker opens, here or in
    a worker, no further case is started and ``EvalStopped`` is raised.
    """
    # Largest case files first, so no big review is left running alone at the end.
    ordered = sorted(files, key=lambda path: -_size(path))
    results: dict[Path, CaseResult] = {}
    stop: list[str] = []

    def record(path: Path, outcome: tuple[CaseResult, str | None]) -> bool:
        result, reason = outcome
        results[path] = result
        if on_result is not None:
            on_result(len(results), len(files), result)
        if reason is not None:
            stop.append(reason)
        return reason is None

    workers = min(jobs, len(files)) - 1
    if workers < 1:
        here = _Worker(options, tolerance, max_model_failures, reviewer)
        share_work(ordered, here.run, None, _review_in_worker, record)
    else:
        context = _worker_context()
        places, cores = context.Value("i", 0), core_ids()
        # A forked child would print again whatever this process still holds in its buffers.
        sys.stdout.flush()
        sys.stderr.flush()
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(
                options, tolerance, max_model_failures, reviewer, places, workers + 1, cores
            ),
        ) as pool, kept_to_share(0, workers + 1, cores):
            # Built after the pool: nothing this process's reviewer makes goes into a fork.
            here = _Worker(options, tolerance, max_model_failures, reviewer)
            share_work(ordered, here.run, pool, _review_in_worker, record, workers=workers)
    if stop:
        raise EvalStopped(stop[0])
    return tuple(results[path] for path in files)


def share_work(
    items: Sequence[T],
    here: Callable[[T], R],
    pool: Executor | None,
    there: Callable[[T], R],
    record: Callable[[T, R], bool],
    *,
    workers: int = 1,
) -> None:
    """Work through ``items`` in order: ``here`` in this thread, and ``there`` in ``pool``,
    keeping one item in flight for each of its ``workers``. Whoever is free takes the next
    item, so neither side waits while work is left. The pool's first items are submitted
    from this thread before any other thread starts, so a pool that forks its workers on
    first use does so while this thread is the only one.

    ``record(item, result)`` is called in this thread for every result; when it returns
    False, no further item is started, and the items in flight are finished and recorded.
    An exception from either side stops the work the same way, then propagates.
    """
    todo = deque(items)
    lock = threading.Lock()
    # Results from the pool, an exception, or None when a feeding thread has ended.
    finished: queue.SimpleQueue[tuple[T, R] | BaseException | None] = queue.SimpleQueue()
    failures: list[BaseException] = []

    def take() -> T | None:
        with lock:
            return todo.popleft() if todo else None

    def halt() -> None:
        with lock:
            todo.clear()

    def feed(pool: Executor, item: T, future: Future[R]) -> None:
        # One item at a time per worker: items queued in the pool would be out of this
        # thread's reach at the end of the run, while it idles.
        try:
            while True:
                finished.put((item, future.result()))
                if (following := take()) is None:
                    break
                item, future = following, pool.submit(there, following)
        except BaseException as exc:  # noqa: BLE001 - handed to the recording thread
            halt()  # at once: this thread may be busy with an item of its own
            finished.put(exc)
        finally:
            finished.put(None)

    feeders = []
    if pool is not None:
        for _ in range(workers):
            if (first := take()) is None:
                break
            future = pool.submit(there, first)
            feeders.append(threading.Thread(target=feed, args=(pool, first, future)))
    for thread in feeders:
        thread.start()
    running = len(feeders)

    def receive() -> None:
        nonlocal running
        got = finished.get()
        if got is None:
            running -= 1
        elif isinstance(got, BaseException):
            failures.append(got)
            halt()
        elif not record(*got):
            halt()

    try:
        while (item := take()) is not None:
            if not record(item, here(item)):
                halt()
            while not finished.empty():
                receive()
    except BaseException:
        halt()
        raise
    finally:
        # Whatever happened here, the items in flight in the pool finish and are recorded.
        while running:
            receive()
        for thread in feeders:
            thread.join()
    if failures:
        raise failures[0]
