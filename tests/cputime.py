"""CPU-time measurement for the linear-time tests: steady on a shared, loaded machine.

Wall time counts every other process on the machine; the CPU time of this process does not,
so a loaded machine makes these tests slower, never red.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType


class OverBudget(Exception):
    """The block used more CPU time than it was given."""


def cpu_seconds(run: Callable[[], object], repeat: int = 1) -> float:
    """The least CPU time of ``repeat`` runs of ``run``."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


@contextlib.contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise ``OverBudget`` in the block after ``seconds`` of this process's CPU time.

    ``re`` and most of Python check for signals while they run, so a regex stuck in
    backtracking or a repr of an exponential structure is stopped, and the test fails
    instead of hanging. Outside the main thread (no signals there) the block is unbounded.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum: int, frame: FrameType | None) -> None:
        raise OverBudget(f"over {seconds} s of CPU time")

    previous = signal.signal(signal.SIGVTALRM, ring)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
