"""Bandit, the security linter for Python, run as a subprocess with JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from code_guard.errors import ToolError
from code_guard.tools.base import Tool, ToolHit, is_python, run_process
from code_guard.tools.batches import file_size, run_in_batches


class BanditTool(Tool):
    """Runs every Bandit test; the mapping table decides which results are findings."""

    name = "bandit"

    def applies_to(self, path: str) -> bool:
        """Bandit reads Python only."""
        return is_python(path)

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Run bandit over ``paths`` (in one process per core on a large change) and parse
        its JSON reports."""
        return run_in_batches(paths, file_size(workspace), lambda part: _bandit(workspace, part))


def _bandit(workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
    """One bandit process over ``paths``."""
    if not paths:
        return []
    # Exit 1 means "issues found", which is success for us.
    out = run_process(
        # -I: isolated mode. Bandit runs in the workspace of the PR's files, and ``-m`` would
        # put that folder first on sys.path: a PR adding ``bandit.py`` or ``json.py`` would
        # run its own code. -I keeps it (and PYTHON* variables) out.
        # --ignore-nosec: every result is reported, and the agents decide which ``# nosec``
        # to honour (not one the pull request itself added to a high-severity line).
        [sys.executable, "-I", "-m", "bandit", "--ignore-nosec", "-f", "json", "-q", "--",
         *paths],  # fmt: skip
        cwd=workspace,
        ok_codes=(0, 1),
    )
    try:
        report = json.loads(out)
    except json.JSONDecodeError as exc:
        raise ToolError(f"bandit printed something that is not JSON: {out[:200]!r}") from exc
    return [_hit(r) for r in report.get("results", [])]


def _hit(result: dict[str, object]) -> ToolHit:
    line = int(str(result["line_number"]))
    lines = result.get("line_range") or [line]
    end = max(int(str(n)) for n in lines) if isinstance(lines, list) else line
    return ToolHit(
        tool="bandit",
        rule=str(result["test_id"]),
        file_path=str(result["filename"]).removeprefix("./"),
        line=line,
        end_line=max(end, line),
        message=str(result["issue_text"]),
        tool_severity=str(result.get("issue_severity", "")),
    )
