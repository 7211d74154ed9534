"""Each process of a ``--jobs N`` eval keeps to its own share of the cores.

With two cases at once on two cores, a process and the analysers it starts (semgrep-core,
Bandit's worker, ruff) on one core, the other process and its analysers on the other, made the
bundled eval about 4% shorter than leaving the scheduler to move them between cores (seven
alternating pairs: 7.85-8.15 s against 8.15-8.51 s, the same CPU time) and realworld-dev's
``cve`` set 6% shorter; its ``clean`` set, whose large cases leave one process alone at the
end, took 1.5% longer. The cost: a case left running alone at the end keeps to one core.

Only where the platform lets a process choose its cores (Linux); elsewhere, and with fewer than
two cores, these do nothing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


def share(index: int, count: int, cores: list[int]) -> set[int]:
    """The cores process ``index`` of ``count`` keeps to: every ``count``-th of ``cores``
    from its own place, or one core shared round the list when there are fewer cores than
    processes."""
    if len(cores) >= count:
        return set(cores[index::count])
    return {cores[index % len(cores)]}


def available() -> list[int]:
    """The cores this thread may run on (empty where the platform does not say)."""
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def _set_for_every_thread(cores: set[int]) -> None:
    # On Linux the call sets one thread's cores; threads and processes started later inherit
    # them from the thread that starts them, and threads started earlier keep their own.
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:  # pragma: no cover - no /proc: leave the cores as they are
        return
    for task in tasks:
        with contextlib.suppress(OSError):  # a thread that has just ended
            os.sched_setaffinity(int(task), cores)


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
