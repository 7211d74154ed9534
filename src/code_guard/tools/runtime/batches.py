"""Splitting one analyser's files into batches, one per core, for large changes.

An analyser process is single-threaded: on a large change it keeps one core busy while the
others wait. Above ``MIN_PARALLEL_BYTES`` of input the files are dealt, largest first, into
as many batches of about equal size as there are cores, and each batch runs in its own
process. Small changes keep one process: starting another costs more than it saves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from code_guard.tools.runtime.cpus import core_count

# Below this much input (about 4,000 lines of code) one process is as fast as several.
MIN_PARALLEL_BYTES = 150_000
T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on."""
    return core_count()


def batches(paths: Sequence[str], size: Callable[[str], int], count: int) -> list[list[str]]:
    """``paths`` dealt into at most ``count`` batches of about equal total ``size``."""
    if count <= 1 or len(paths) <= 1:
        return [list(paths)] if paths else []
    bins: list[tuple[int, list[str]]] = [(0, []) for _ in range(min(count, len(paths)))]
    for path in sorted(paths, key=size, reverse=True):
        lightest = min(range(len(bins)), key=lambda i: bins[i][0])
        total, members = bins[lightest]
        members.append(path)
        bins[lightest] = (total + size(path), members)
    return [sorted(members) for _, members in bins if members]


def file_size(workspace: Path) -> Callable[[str], int]:
    """The size in bytes of a path under ``workspace`` (0 when it cannot be read)."""

    def size(path: str) -> int:
        try:
            return (workspace / path).stat().st_size
        except OSError:
            return 0

    return size


def run_in_batches(
    paths: Sequence[str],
    size: Callable[[str], int],
    run: Callable[[list[str]], list[T]],
) -> list[T]:
    """``run`` over ``paths``: once, or per batch in parallel threads (each starting its own
    process) when the input is large; results in batch order."""
    total = sum(size(p) for p in paths)
    parts = batches(paths, size, cores() if total >= MIN_PARALLEL_BYTES else 1)
    if len(parts) <= 1:
        return run(list(paths)) if paths else []
    with ThreadPoolExecutor(max_workers=len(parts), thread_name_prefix="batch") as pool:
        results = list(pool.map(run, parts))
    return [item for result in results for item in result]
