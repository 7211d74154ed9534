"""Warm analyser workers: reuse, concurrency, time-outs and failures, and Bandit's worker
answering exactly as the Bandit command line does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from code_guard.errors import ToolError
from code_guard.tools.bandit import worker as bandit_worker
from code_guard.tools.bandit.tool import BanditTool, _hit
from code_guard.tools.base import DEADLINE
from code_guard.tools.runtime.warm import WarmPool

# A real worker process: answers {"pid", "echo"}; "sleep" delays, "exit" quits, "garbage"
# prints a line that is not JSON.
ECHO = """\
import json, os, sys, time
for line in sys.stdin:
    request = json.loads(line)
    if request.get("exit"):
        sys.exit(3)
    if request.get("garbage"):
        print("not json", flush=True)
        continue
    time.sleep(request.get("sleep", 0))
    print(json.dumps({"pid": os.getpid(), "echo": request}), flush=True)
"""


@pytest.fixture
def pool() -> WarmPool:
    return WarmPool("echo", [sys.executable, "-I", "-c", ECHO], keep=2)


def test_a_worker_is_reused_between_requests(pool: WarmPool) -> None:
    first = pool.ask({"n": 1})
    second = pool.ask({"n": 2})
    assert first["echo"] == {"n": 1} and second["echo"] == {"n": 2}
    assert first["pid"] == second["pid"]
    pool.close()


def test_concurrent_requests_get_their_own_workers(pool: WarmPool) -> None:
    with ThreadPoolExecutor(max_workers=2) as threads:
        answers = list(threads.map(pool.ask, [{"sleep": 0.5}, {"sleep": 0.5}]))
    assert answers[0]["pid"] != answers[1]["pid"]
    pool.close()


def test_a_request_past_the_deadline_is_killed_and_the_worker_replaced(pool: WarmPool) -> None:
    before = pool.ask({})["pid"]
    token = DEADLINE.set(time.monotonic() + 0.3)
    try:
        with pytest.raises(ToolError, match="ran out of time"):
            pool.ask({"sleep": 30})
    finally:
        DEADLINE.reset(token)
    assert pool.ask({})["pid"] != before
    pool.close()


def test_a_worker_that_dies_or_babbles_is_an_error_then_replaced(pool: WarmPool) -> None:
    with pytest.raises(ToolError, match="exited 3 without an answer"):
        pool.ask({"exit": True})
    with pytest.raises(ToolError, match="not JSON"):
        pool.ask({"garbage": True})
    assert pool.ask({"n": 3})["echo"] == {"n": 3}
    pool.close()


def test_a_worker_that_cannot_start_is_an_error() -> None:
    missing = WarmPool("missing", ["/nonexistent/analyser"], keep=1)
    with pytest.raises(ToolError, match="could not run"):
        missing.ask({})


SOURCE = """\
import pickle
import subprocess
import yaml


def handler(data, cmd):
    subprocess.call(cmd, shell=True)
    obj = pickle.loads(data)  # nosec
    password = "hunter2"
    return yaml.load(data), obj, password
"""


def test_the_bandit_worker_answers_as_the_command_line_does(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "app.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "b.py").write_text("exec(input())\nassert True\n", encoding="utf-8")
    paths = ["b.py", "pkg/app.py"]
    cli = subprocess.run(  # noqa: S603 - Bandit's own command line, as the reference
        [sys.executable, "-I", "-m", "bandit", "--ignore-nosec", "-f", "json", "-q", *paths],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    expected = [_hit(r) for r in json.loads(cli.stdout)["results"]]
    hits = BanditTool().run(tmp_path, paths)
    assert hits == expected
    rules = {h.rule for h in hits}
    assert {"B102", "B101", "B602", "B301", "B506", "B105"} <= rules  # B301: nosec ignored


def test_the_bandit_worker_reports_a_failed_scan_as_a_tool_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="bandit failed"):
        BanditTool().run(tmp_path / "gone", ["a.py"])


def test_the_bandit_worker_answers_then_exits_cleanly_at_end_of_input(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("exec(input())\n", encoding="utf-8")
    request = json.dumps({"cwd": str(tmp_path), "paths": ["a.py"]}) + "\n"
    done = subprocess.run(  # noqa: S603 - the worker as the pool starts it
        [sys.executable, "-I", bandit_worker.__file__],
        input=request * 2,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert len(answers) == 2  # every answer is written before the quick exit
    assert [r["test_id"] for r in answers[1]["results"]] == ["B102"]


# Runs the Bandit worker's ``main`` on one request, counting the cyclic collector's runs.
_WORKER_PROBE = """\
import gc, io, json, runpy, sys
if sys.argv[3] == "no-pause":
    gc.disable = lambda: None  # the control: what the worker costs without its pause
runs = [0]
gc.callbacks.append(lambda stage, info: runs.__setitem__(0, runs[0] + (stage == "start")))
worker = runpy.run_path(sys.argv[1])
sys.stdin = io.StringIO(json.dumps({"cwd": sys.argv[2], "paths": ["a.py"]}) + "\\n")
out, sys.stdout = sys.stdout, io.StringIO()
worker["main"]()
answer, sys.stdout = sys.stdout.getvalue(), out
print(json.dumps({"runs": runs[0], "enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                  "rules": [r["test_id"] for r in json.loads(answer)["results"]]}))
"""


def test_the_bandit_worker_loads_bandit_without_the_cyclic_collector(tmp_path: Path) -> None:
    """Bandit's modules live as long as the worker: the collector is paused while they load
    (a one-line review waits for the worker's first answer), then runs on what is new."""
    (tmp_path / "a.py").write_text("exec(input())\n", encoding="utf-8")

    def probe(mode: str) -> dict[str, object]:
        argv = [sys.executable, "-I", "-c", _WORKER_PROBE, bandit_worker.__file__, str(tmp_path)]
        done = subprocess.run(  # noqa: S603 - our own interpreter, fixed argv
            [*argv, mode],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        answer: dict[str, object] = json.loads(done.stdout)
        return answer

    paused, control = probe("pause"), probe("no-pause")
    assert paused["rules"] == control["rules"] == ["B102"]
    assert paused["enabled"] is True
    assert isinstance(paused["frozen"], int) and paused["frozen"] > 10_000
    # the control collects all the way through loading Bandit; the worker barely at all
    assert isinstance(paused["runs"], int) and isinstance(control["runs"], int)
    assert control["runs"] > 20 and paused["runs"] * 3 < control["runs"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
# Python 3.12+ warns at any fork of a process with threads (earlier tests leave the tools' pool
# running); the child here only reads its own state and writes one byte.
@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")
def test_a_forked_child_leaves_the_parents_idle_worker_to_the_parent(pool: WarmPool) -> None:
    before = pool.ask({"n": 1})["pid"]
    report_r, report_w = os.pipe()
    release_r, release_w = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child, which never returns
        empty = not pool._idle
        os.write(report_w, b"1" if empty else b"0")
        os.read(release_r, 1)  # alive, with whatever pipes it kept, until the parent is done
        os._exit(0)
    os.close(report_w)
    os.close(release_r)
    try:
        assert os.read(report_r, 1) == b"1", "the child inherited the parent's idle worker"
        assert pool.ask({"n": 2})["pid"] == before  # still the parent's, still answering
        worker = pool._idle[0]
        started = time.monotonic()
        pool.close()
        # End of input reached it although the child is still alive: the child had closed
        # its copy of the pipe, so the worker ended by itself rather than by a kill after 2 s.
        assert worker.proc.returncode == 0
        assert time.monotonic() - started < 1.5
    finally:
        os.write(release_w, b"x")
        os.waitpid(child, 0)
        for fd in (report_r, release_w):
            os.close(fd)
