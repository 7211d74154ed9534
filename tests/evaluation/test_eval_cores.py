"""``--jobs N``: each process keeps to its share of the cores, and gives them all back."""

from __future__ import annotations

import os
import threading

import pytest

from code_guard.evaluation.cores import kept_to_share, share
from code_guard.tools.runtime.cpus import core_ids as available


def test_each_process_gets_every_nth_core_from_its_own_place() -> None:
    assert [share(i, 2, [0, 1]) for i in range(2)] == [{0}, {1}]
    assert [share(i, 2, [0, 1, 2, 3]) for i in range(2)] == [{0, 2}, {1, 3}]
    assert [share(i, 3, [4, 5, 6, 7, 8]) for i in range(3)] == [{4, 7}, {5, 8}, {6}]


def test_with_fewer_cores_than_processes_the_cores_are_shared_round_the_list() -> None:
    assert [share(i, 3, [0, 1]) for i in range(3)] == [{0}, {1}, {0}]
    assert share(5, 8, [3]) == {3}


needs_two_cores = pytest.mark.skipif(
    len(available()) < 2, reason="needs a platform that sets cores, and two of them"
)


@needs_two_cores
def test_every_thread_keeps_to_the_share_and_gets_all_the_cores_back() -> None:
    cores = available()
    go_on = threading.Event()
    seen: dict[str, set[int]] = {}

    def started_inside() -> None:
        seen["inside"] = set(os.sched_getaffinity(0))
        go_on.wait(10)
        seen["after"] = set(os.sched_getaffinity(0))

    with kept_to_share(1, 2, cores):
        assert set(os.sched_getaffinity(0)) == share(1, 2, cores)
        thread = threading.Thread(target=started_inside)
        thread.start()
    go_on.set()
    thread.join(10)
    assert set(os.sched_getaffinity(0)) == set(cores)
    assert seen == {"inside": share(1, 2, cores), "after": set(cores)}


def test_one_core_is_left_alone() -> None:
    before = available()
    with kept_to_share(0, 2, before[:1]):
        assert available() == before
