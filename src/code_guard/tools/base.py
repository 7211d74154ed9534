"""The tool interface: a static analyser run over a workspace of the change's new files."""

from __future__ import annotations

import subprocess
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from code_guard.errors import ToolError

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True, slots=True)
class ToolHit:
    """One raw result of a tool: which rule fired where, in the tool's own words."""

    tool: str
    rule: str
    file_path: str
    line: int
    end_line: int
    message: str
    tool_severity: str = ""  # the tool's own severity word, where it gives one


class Tool(ABC):
    """A static analyser. ``run`` is synchronous and is called from a worker thread."""

    name: ClassVar[str]

    @abstractmethod
    def applies_to(self, path: str) -> bool:
        """True when this tool can analyse the file at ``path``."""

    @abstractmethod
    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Analyse ``paths`` (relative to ``workspace``), raising ``ToolError`` on a crash."""


def is_python(path: str) -> bool:
    """True for Python source files."""
    return path.endswith(PYTHON_SUFFIXES)


def run_process(args: Sequence[str], cwd: Path, ok_codes: tuple[int, ...] = (0,)) -> str:
    """Run an analyser and return its stdout, wrapping every failure in ``ToolError``."""
    try:
        proc = subprocess.run(  # noqa: S603 - fixed argv, no shell
            list(args), cwd=cwd, capture_output=True, text=True, timeout=300, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"{args[0]} could not run: {exc}") from exc
    if proc.returncode not in ok_codes:
        detail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ToolError(f"{Path(args[0]).name} exited {proc.returncode}: {detail[0][:300]}")
    return proc.stdout
