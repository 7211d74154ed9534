"""What this process may run on: its cores, and its threads as the system counts them.

One place for both, since the analysers' batching, Bandit's pool, the eval's core shares and
its choice between fork and spawn all ask.
"""

from __future__ import annotations

import os
import threading


def core_ids() -> list[int]:
    """The cores this thread may run on (empty where the platform does not say)."""
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def core_count() -> int:
    """How many cores this process may run on: its affinity where the platform has one,
    else the machine's count; at least 1."""
    return len(core_ids()) or max(1, os.cpu_count() or 1)


def thread_ids() -> list[int] | None:
    """The ids of this process's threads as the system lists them (``/proc/self/task``),
    which counts threads a library started outside Python's ``threading`` too; None where
    there is no such list."""
    try:
        return [int(task) for task in os.listdir("/proc/self/task")]
    except OSError:
        return None


def thread_count() -> int:
    """This process's threads: the system's count where it gives one, else Python's."""
    ids = thread_ids()
    return len(ids) if ids is not None else threading.active_count()
