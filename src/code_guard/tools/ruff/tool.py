"""Ruff, run with an explicit rule selection per agent and JSON output."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from ruff.__main__ import find_ruff_bin

from code_guard.errors import ToolError
from code_guard.tools.base import (
    ProcessCrash,
    RunCache,
    Tool,
    ToolHit,
    is_python,
    not_analysed,
    run_process,
)
from code_guard.tools.python.dynamic_names import read_by_evaluated_code

PERFORMANCE_RULES = ("PERF", "ASYNC", "B019", "SIM115")
STYLE_RULES = (
    "F401", "F811", "F841",
    "N8", "E741", "E742", "E743",
    "C901", "PLR0911", "PLR0912", "PLR0913", "PLR0915",
    "E722", "BLE001", "S110", "S112", "B012",
    "B006", "B023", "E711", "E712", "E721",
)  # fmt: skip


class RuffTool(Tool):
    """Runs ruff in isolation from any project config, so results do not depend on the repo."""

    name = "ruff"

    def __init__(self, select: Sequence[str], max_complexity: int = 10) -> None:
        self.select = tuple(select)
        self.max_complexity = max_complexity

    def applies_to(self, path: str) -> bool:
        """Ruff reads Python only."""
        return is_python(path)

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Ruff's diagnostics over ``paths`` for this tool's rules. One ruff process checks
        every agent's rules at once (shared through a cache), and each keeps its own: ruff
        selects rules by code prefix, and so does the filter."""
        if not paths:
            return []
        rules = tuple(sorted({*PERFORMANCE_RULES, *STYLE_RULES, *self.select}))
        key = (str(workspace), tuple(paths), rules, self.max_complexity)
        hits = _CACHE.get(key, lambda: _run(workspace, paths, rules, self.max_complexity))
        # What no selection asked for (``invalid-syntax``, a crash) ruff reports to every
        # caller.
        return [h for h in hits if h.rule.startswith(self.select) or not h.rule.startswith(rules)]


def _run(
    workspace: Path, paths: Sequence[str], select: Sequence[str], max_complexity: int
) -> list[ToolHit]:
    """Ruff's diagnostics over ``paths``. A crash (ruff overflows its stack on an expression
    thousands of lines deep) is narrowed down by halves: the other files keep their results,
    and each file ruff crashes on alone is named, so the review says it is partial."""
    try:
        return _check(workspace, paths, select, max_complexity)
    except ProcessCrash as exc:
        if not _crashed(exc.code):
            raise  # ruff refused its arguments (exit 2): the tool failed, not one file
        if len(paths) == 1:
            return [not_analysed("ruff", paths[0], f"crashed on it ({exc.detail})")]
    half = len(paths) // 2
    return [
        *_run(workspace, paths[:half], select, max_complexity),
        *_run(workspace, paths[half:], select, max_complexity),
    ]


def _crashed(code: int) -> bool:
    """Whether ruff's exit code is a crash: a signal (its stack overflow aborts) or a Rust
    panic (101), rather than its own "abnormal termination" (2) on bad arguments."""
    return code < 0 or code == _PANIC


_PANIC = 101


def _check(
    workspace: Path, paths: Sequence[str], select: Sequence[str], max_complexity: int
) -> list[ToolHit]:
    args = [
        find_ruff_bin(),
        "check",
        "--isolated",
        "--no-cache",
        "--output-format=json",
        "--exit-zero",
        f"--select={','.join(select)}",
        "--config",
        f"lint.mccabe.max-complexity = {max_complexity}",
        "--",
        *paths,
    ]
    out = run_process(args, cwd=workspace)
    try:
        diagnostics = json.loads(out)
    except json.JSONDecodeError as exc:
        raise ToolError(f"ruff printed something that is not JSON: {out[:200]!r}") from exc
    hits = [_hit(d, workspace) for d in diagnostics if d.get("code")]
    return [h for h in hits if not _read_dynamically(workspace, h)]


# "Local variable `x` is assigned to but never used": the name ruff reports.
_UNUSED_LOCAL = re.compile(r"`([^`]+)`")


def _read_dynamically(workspace: Path, hit: ToolHit) -> bool:
    """An unused-local report (F841) on a variable that code the function evaluates reads
    (``dynamic_names``): ruff cannot see that use, as it cannot see a ``locals()`` one, which
    it already exempts."""
    name = _UNUSED_LOCAL.search(hit.message) if hit.rule == "F841" else None
    if name is None:
        return False
    try:
        source = (workspace / hit.file_path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return read_by_evaluated_code(source, hit.line, name.group(1))


_CACHE: RunCache[tuple[str, tuple[str, ...], tuple[str, ...], int]] = RunCache()


def _hit(diag: dict[str, object], workspace: Path) -> ToolHit:
    location = diag["location"]
    end = diag.get("end_location") or location
    assert isinstance(location, dict) and isinstance(end, dict)
    path = Path(str(diag["filename"]))
    rel = path.relative_to(workspace.resolve()) if path.is_absolute() else path
    return ToolHit(
        tool="ruff",
        rule=str(diag["code"]),
        file_path=rel.as_posix(),
        line=int(location["row"]),
        end_line=max(int(end["row"]), int(location["row"])),
        message=str(diag["message"]),
    )
