"""Each process of a ``--jobs N`` eval keeps to its own share of the cores.

A process and the analysers it starts (semgrep-core, Bandit's worker, ruff) stay on their
share, so two cases at once do not compete for one core while the scheduler moves them
(docs/performance.md has the measurements). The cost: a case left running alone at the end
keeps to one core.

Only where the platform lets a process choose its cores (Linux); elsewhere, and with fewer than
two cores, these do nothing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from code_guard.tools.runtime.cpus import thread_ids


def share(index: int, count: int, cores: list[int]) -> set[int]:
    """The cores process ``index`` of ``count`` keeps to: every ``count``-th of ``cores``
    from its own place, or one core shared round the list when there are fewer cores than
    processes."""
    if len(cores) >= count:
        return set(cores[index::count])
    return {cores[index % len(cores)]}


def _set_for_every_thread(cores: set[int]) -> None:
    # On Linux the call sets one thread's cores; threads and processes started later inherit
    # them from the thread that starts them, and threads started earlier keep their own.
    tasks = thread_ids()
    if tasks is None:  # pragma: no cover - no /proc: leave the cores as they are
        return
    for task in tasks:
        with contextlib.suppress(OSError):  # a thread that has just ended
            os.sched_setaffinity(task, cores)


def keep_to_share(index: int, count: int, cores: list[int]) -> None:
    """Keep this process (a worker that ends with the eval) to its share of ``cores``, the
    eval's cores (a forked worker starts with its parent's share)."""
    if len(cores) > 1:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, share(index, count, cores))


@contextlib.contextmanager
def kept_to_share(index: int, count: int, cores: list[int]) -> Iterator[None]:
    """Keep every thread of this process to its share of ``cores`` until the block ends,
    then give every thread, including those started meanwhile, all of ``cores``."""
    if len(cores) < 2:
        yield
        return
    _set_for_every_thread(share(index, count, cores))
    try:
        yield
    finally:
        _set_for_every_thread(set(cores))
