"""``--jobs N``: this process and N - 1 workers share the cases, whoever is free taking the next.

``share_work`` is tested with a thread pool standing in for the process pool (both are
``concurrent.futures`` executors); the process pool itself is tested end to end.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from evalfakes import WriteCase

from code_guard.evaluation.entry import run_dataset
from code_guard.evaluation.parallel import share_work
from code_guard.findings import Category
from code_guard.options import ModelOptions, ReviewOptions

BUNDLED = Path(__file__).resolve().parents[2] / "dataset"
# Bundled cases with findings, in Python, JavaScript and Go (semgrep-core, Bandit, ruff).
FINDING_CASES = (
    "sql_injection_basic.json",
    "express_search_sql_xss.json",
    "go_user_search_sql.json",
    "product_tags_mutable_default.json",
)

# How long one side waits for the other to start. Only a deadlock reaches it; a loaded CI
# machine can take seconds to schedule a thread, which a 5-second wait once failed on.
HANDOFF_S = 60.0


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
        assert self._there_started.wait(HANDOFF_S)
        self.here.append(item)
        return item * 10

    def run_there(self, item: int) -> int:
        self._there_started.set()
        assert self._here_started.wait(HANDOFF_S)
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
        assert in_flight.wait(HANDOFF_S)  # the pool holds an item while this one stops the run
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
    # The pool's item waits until this thread has taken one: left to run, a pool thread on a
    # busy machine could take all ten before this thread took any, and nothing would fail.
    taken_here = threading.Event()

    def here(item: int) -> int:
        taken_here.set()
        raise RuntimeError("bug")

    def there(item: int) -> int:
        taken_here.wait(timeout=30)
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
    options = ReviewOptions(model=ModelOptions(offline=True))
    many = run_dataset(tmp_path / "cases", options, jobs=4)
    one = run_dataset(tmp_path / "cases", options, jobs=1)
    assert [c.pr_id for c in many.cases] == [c.pr_id for c in one.cases] == ["one", "two"]
    assert [c.findings for c in many.cases] == [c.findings for c in one.cases]



class RecordingPool(ThreadPoolExecutor):
    """A thread pool that notes, for each submission, the thread it came from and how many
    threads the process had then."""

    def __init__(self, max_workers: int) -> None:
        super().__init__(max_workers=max_workers)
        self.submissions: list[tuple[str, int]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submissions.append((threading.current_thread().name, threading.active_count()))
        return super().submit(fn, *args, **kwargs)


def test_the_pools_first_items_are_submitted_before_any_other_thread_starts() -> None:
    # A pool that forks its workers on first use must be first used by a process with one
    # thread: so the first item of each worker is submitted from this thread, before the
    # threads that feed the pool exist.
    threads_before = threading.active_count()
    with RecordingPool(max_workers=3) as pool:
        share_work(range(30), lambda i: i, pool, lambda i: i, lambda i, r: True, workers=3)
    first = pool.submissions[:3]
    assert [name for name, _ in first] == [threading.current_thread().name] * 3
    # Only the pool's own threads may have started by the third submission (one each).
    assert all(count <= threads_before + 2 for _, count in first)
    assert len(pool.submissions) >= 3


# A fresh interpreter, as `code-guard eval` is: it forks its worker, and reviews cases there and
# in itself; it prints the start method, whether it had all its cores back at the end, and each
# case's findings.
FRESH_EVAL = """\
import json, sys
from pathlib import Path
from code_guard.evaluation import parallel
from code_guard.evaluation.entry import run_dataset
from code_guard.options import ModelOptions, ReviewOptions

method = parallel._worker_context().get_start_method()
cores = parallel.core_ids()
offline = ReviewOptions(model=ModelOptions(offline=True))
results = run_dataset(Path(sys.argv[1]), offline, jobs=2)
print(json.dumps({
    "method": method,
    "cores_given_back": parallel.core_ids() == cores,
    "cases": [[c.pr_id, [f.model_dump(mode="json") for f in c.findings]] for c in results.cases],
}))
"""


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_fresh_eval_forks_its_worker_and_finds_what_one_process_finds(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in FINDING_CASES:
        shutil.copy(BUNDLED / name, cases / name)
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", FRESH_EVAL, str(cases)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    forked = json.loads(done.stdout.strip().splitlines()[-1])
    assert forked["method"] == "fork"
    assert forked["cores_given_back"]
    alone = run_dataset(cases, ReviewOptions(model=ModelOptions(offline=True)), jobs=1)
    expected = [[c.pr_id, [f.model_dump(mode="json") for f in c.findings]] for c in alone.cases]
    assert forked["cases"] == expected
    assert sum(len(findings) for _, findings in expected) >= len(FINDING_CASES)
