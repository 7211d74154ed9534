"""Running a command in a process group of its own, to check what it leaves behind."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path


def run_alone(argv: Sequence[str], cwd: Path, timeout: float = 120) -> tuple[int, str, str]:
    """Run ``argv`` to its end in a new process group; its exit code, output and errors.
    Raises ``AssertionError`` when any process of its group (an analyser it started, a
    worker) is still alive after it ends."""
    proc = subprocess.Popen(  # noqa: S603 - the tests' own interpreter and arguments
        list(argv),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    out, err = proc.communicate(timeout=timeout)
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        return proc.returncode, out, err
    raise AssertionError(f"{argv[:3]} left processes of its group running")
