"""Long-lived analyser processes that answer one JSON request per line, kept warm between runs.

An analyser written in Python pays its interpreter start and imports on every run: for Bandit
that is about 0.3 s of CPU, more than the analysis of a small change, and an eval of 68 cases
started it 54 times. A ``WarmPool`` starts a worker process on first use and keeps it for the
next request, so a one-shot review pays one start, as before, and every later review in the
same process (eval cases, benchmarks) pays none. Each worker is still a process of its own:
isolated from the reviewer, on its own core, and killed when a request outruns its time.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import threading
import weakref
from collections.abc import Sequence
from typing import IO

from code_guard.errors import ToolError
from code_guard.tools.base import process_timeout

JsonObject = dict[str, object]


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, argv: Sequence[str], started: subprocess.Popen[str] | None = None) -> None:
        if started is not None:  # started from ``argv`` already, with these pipes
            self.proc = started
            return
        try:
            self.proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                # The worker's answers carry its errors; its log lines are not read, and an
                # unread stderr pipe would fill up and stall it.
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
            )
        except OSError as exc:
            raise ToolError(f"{argv[0]} could not run: {exc}") from exc

    def ask(self, request: JsonObject, timeout: float, name: str) -> JsonObject:
        """Send ``request`` and read the answer; the process is killed after ``timeout``."""
        stdin, stdout = self._pipes()
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            self.proc.kill()

        timer = threading.Timer(timeout, expire)
        timer.start()
        try:
            stdin.write(json.dumps(request) + "\n")
            stdin.flush()
            line = stdout.readline()
        except OSError as exc:  # the worker died: a broken pipe
            raise ToolError(f"{name} worker stopped: {exc}") from exc
        finally:
            timer.cancel()
        if timed_out.is_set():
            raise ToolError(f"{name} ran out of time after {timeout:.0f} s")
        if not line:
            try:  # the pipe closes just before the process can be reaped
                code: int | None = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
            raise ToolError(f"{name} worker exited {code} without an answer")
        try:
            answer = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ToolError(f"{name} printed something that is not JSON: {line[:200]!r}") from exc
        if not isinstance(answer, dict):
            raise ToolError(f"{name} answered with something that is not an object")
        return answer

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        if self.proc.stdin is None or self.proc.stdout is None:  # pragma: no cover - Popen
            raise ToolError("worker pipes are missing")
        return self.proc.stdin, self.proc.stdout

    def disown(self) -> None:
        """In a forked child: close this process's copies of the pipes and leave the worker
        to the parent, which still sees it answer and end as before (a copy of the pipe to
        its stdin kept open here would keep it waiting for input after the parent closes)."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def close(self) -> None:
        """End the process: EOF on its stdin first, a kill if it does not go."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def close_warm_pools() -> None:
    """End the idle workers of every pool, so the next request starts afresh: what a one-shot
    review pays, and what benchmarks of one must measure (an ended worker's CPU time then
    counts among this process's children)."""
    for pool in list(_POOLS):
        pool.close()


class WarmPool:
    """Worker processes started from ``argv`` on demand and reused: a request takes an idle
    worker or starts one, so concurrent requests each get their own process. At most
    ``keep`` idle workers are kept; a worker that failed or timed out is never reused."""

    def __init__(self, name: str, argv: Sequence[str], keep: int) -> None:
        self.name = name
        self._argv = tuple(argv)
        self._keep = keep
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        atexit.register(self.close)
        _POOLS.add(self)

    def ask(self, request: JsonObject) -> JsonObject:
        """The answer of one worker to ``request``, within the review's time budget."""
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            worker = _Worker(self._argv)
        try:
            answer = worker.ask(request, process_timeout(), self.name)
        except BaseException:
            worker.close()
            raise
        with self._lock:
            if len(self._idle) < self._keep:
                self._idle.append(worker)
                return answer
        worker.close()
        return answer

    def adopt(self, started: subprocess.Popen[str]) -> None:
        """Keep ``started``, a process started from this pool's argv with its pipes, as an idle
        worker (``tools/bandit/prestart.py``); ended at once if the pool keeps none."""
        worker = _Worker(self._argv, started)
        with self._lock:
            if len(self._idle) < self._keep:
                self._idle.append(worker)
                return
        worker.close()

    def close(self) -> None:
        """End every idle worker (also run at interpreter exit)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()

    def after_fork(self) -> None:
        """In a forked child: start empty, leaving the parent's idle workers to the parent."""
        self._lock = threading.Lock()  # its holder, if any, is a thread the fork left behind
        idle, self._idle = self._idle, []
        for worker in idle:
            worker.disown()


_POOLS: weakref.WeakSet[WarmPool] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for pool in list(_POOLS):
        pool.after_fork()


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere processes are never forked
    os.register_at_fork(after_in_child=_after_fork_in_child)
