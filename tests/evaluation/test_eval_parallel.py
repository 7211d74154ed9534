"""``--jobs N``: this process and N - 1 workers share the cases, whoever is free taking the next.

``share_work`` is tested with a thread pool standing in for the process pool (both are
``concurrent.futures`` executors); the process pool itself is tested end to end.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from evalfakes import WriteCase

from code_guard.evaluation.entry import run_dataset
from code_guard.evaluation.parallel import share_work
from code_guard.models import Category
from code_guard.options import ReviewOptions


class Sides:
    """``here`` and ``there`` for ``share_work``: each records what it did, and each waits
    until the other has started one item, so both sides are sure to take work."""

    def __init__(self) -> None:
        self.here: list[int] = []
        self.there: list[int] = []
        self.recorded: list[tuple[int, int]] = []
        self._here_started = threading.Event()
        self._there_started = threading.Event()

    def run_here(self, item: int) -> int:
        self._here_started.set()
        assert self._there_started.wait(5)
        self.here.append(item)
        return item * 10

    def run_there(self, item: int) -> int:
        self._there_started.set()
        assert self._here_started.wait(5)
        self.there.append(item)
        return item * 10

    def record(self, item: int, result: int) -> bool:
        self.recorded.append((item, result))
        return True


def test_both_sides_take_items_and_every_item_is_done_once() -> None:
    sides = Sides()
    with ThreadPoolExecutor(max_workers=2) as pool:
        share_work(range(40), sides.run_here, pool, sides.run_there, sides.record, workers=2)
    assert sides.here and sides.there
    assert sorted(sides.here + sides.there) == list(range(40))
    assert sorted(sides.recorded) == [(i, i * 10) for i in range(40)]


def test_without_a_pool_everything_is_done_here_in_order() -> None:
    sides = Sides()
    sides._there_started.set()
    share_work([3, 1, 2], sides.run_here, None, sides.run_there, sides.record)
    assert sides.here == [3, 1, 2]
    assert sides.there == []


def test_a_false_record_starts_nothing_more_but_finishes_what_is_in_flight() -> None:
    started: list[int] = []
    recorded: list[int] = []
    in_flight = threading.Event()

    def here(item: int) -> int:
        started.append(item)
        assert in_flight.wait(5)  # the pool holds an item while this one stops the run
        return item

    def there(item: int) -> int:
        started.append(item)
        in_flight.set()
        return item

    def record(item: int, result: int) -> bool:
        recorded.append(item)
        return False

    with ThreadPoolExecutor(max_workers=1) as pool:
        share_work(range(100), here, pool, there, record, workers=1)
    assert len(started) < 100
    assert sorted(recorded) == sorted(started)


def test_an_error_in_the_pool_stops_the_run_and_is_raised() -> None:
    done: list[int] = []

    def here(item: int) -> int:
        done.append(item)
        time.sleep(0.001)
        return item

    def there(item: int) -> int:
        raise ValueError(f"worker failed on {item}")

    with ThreadPoolExecutor(max_workers=1) as pool, pytest.raises(ValueError, match="worker"):
        share_work(range(1000), here, pool, there, lambda i, r: True, workers=1)
    assert len(done) < 999


def test_an_error_here_waits_for_the_pool_then_is_raised() -> None:
    finished: list[int] = []

    def here(item: int) -> int:
        raise RuntimeError("bug")

    def there(item: int) -> int:
        finished.append(item)
        return item

    recorded: list[int] = []

    def record(item: int, result: int) -> bool:
        recorded.append(item)
        return True

    with ThreadPoolExecutor(max_workers=1) as pool, pytest.raises(RuntimeError, match="bug"):
        share_work(range(10), here, pool, there, record)
    assert recorded == finished  # whatever the pool did is still recorded


def test_more_jobs_than_cases_reviews_each_case_once(
    write_case: WriteCase, tmp_path: Path
) -> None:
    write_case("one", [(4, Category.SQL_INJECTION)])
    write_case("two")
    options = ReviewOptions(offline=True)
    many = run_dataset(tmp_path / "cases", options, jobs=4)
    one = run_dataset(tmp_path / "cases", options, jobs=1)
    assert [c.pr_id for c in many.cases] == [c.pr_id for c in one.cases] == ["one", "two"]
    assert [c.findings for c in many.cases] == [c.findings for c in one.cases]

