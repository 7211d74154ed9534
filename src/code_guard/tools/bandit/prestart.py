"""Bandit's worker, started with the process on the core the reviewer's start-up leaves idle.

A one-line review's start-up is one thread importing modules for about 0.12 s while the other
core idles; Bandit's worker, importing Bandit (0.08 s of CPU), then started at the review's
start beside semgrep-core and the reviewer's own analysers, and its answer was what the review
waited for last. ``python -m code_guard review`` starts the worker before the package's
modules load (``__main__``); the Bandit tool's pool takes it as an idle worker
(``tools/bandit/tool.py``), so the review's first request goes to a worker already warm. A
review that runs no Bandit ends it unused (``cli.run``). Started later, with semgrep-core, it
only slowed semgrep-core down (docs/performance.md). It is started only when a diff named on
the command line adds or changes a file Bandit reads, or when the diff comes on stdin: a
review of no Python would pay its 0.08 s of CPU for nothing.

Only the standard library is imported here: this runs before the rest of the package loads.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence

# -I: isolated mode, which implies -P: the worker's folder, the working directory (the PR's
# files) and PYTHON* variables stay off sys.path, so a PR adding ``bandit.py`` or ``json.py``
# cannot run its own code.
ARGV = (sys.executable, "-I", os.path.join(os.path.dirname(__file__), "worker.py"))

# The suffixes Bandit reads (``languages.py``: a test holds them equal).
SUFFIXES = (".py", ".pyi")
# A diff's line naming a file's new version, of one of those suffixes.
_NEW_PYTHON = re.compile(rb"^\+\+\+ [^\r\n]*\.pyi?(?:[\t\r ]|$)", re.MULTILINE)

_started: subprocess.Popen[str] | None = None


def wanted(arguments: Sequence[str]) -> bool:
    """Whether a review with these arguments may run Bandit: one of them is a diff file that
    names a new or changed ``.py``/``.pyi`` file, or ``-`` (the diff on stdin, unread here).
    Which argument is the diff is not known before the CLI parses them, so each that names a
    regular file is read; a wrong guess only costs time, never a result."""
    for argument in arguments:
        if argument == "-":
            return True
        if argument.startswith("-") or not os.path.isfile(argument):
            continue
        try:
            with open(argument, "rb") as diff:
                if _NEW_PYTHON.search(diff.read()):
                    return True
        except OSError:
            continue
    return False


def start() -> None:
    """Start the worker (once); if it cannot start, the pool starts its own and says why."""
    global _started
    if _started is not None:
        return
    try:
        _started = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            ARGV,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # as the pool's workers: answers carry the errors
            text=True,
            encoding="utf-8",
        )
    except OSError:
        _started = None


def take() -> subprocess.Popen[str] | None:
    """The worker ``start`` started, handed over once (None when there is none)."""
    global _started
    started, _started = _started, None
    return started


def discard() -> None:
    """End a started worker that no pool took: end of input first, a kill if it stays."""
    started = take()
    if started is None:
        return
    try:
        if started.stdin is not None:
            started.stdin.close()
        started.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        started.kill()
        started.wait()
    if started.stdout is not None:
        started.stdout.close()
