"""Bandit, the security linter for Python, run in a warm worker process (``bandit_worker``)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from code_guard.errors import ToolError
from code_guard.findings import Silencing
from code_guard.rewrites.folding import folding_of
from code_guard.rewrites.python_parse import parse_python
from code_guard.tools.bandit import prestart
from code_guard.tools.base import Tool, ToolHit, is_python, not_analysed
from code_guard.tools.runtime.batches import cores, file_size, run_in_batches
from code_guard.tools.runtime.warm import WarmPool

# ``prestart.ARGV`` runs the worker isolated (``-I``: the PR's files are never importable).
# One idle worker per core is kept for the next review; the one ``python -m code_guard
# review`` started with the process, if any, is the first.
_WORKERS = WarmPool("bandit", prestart.ARGV, keep=cores())
if (_started := prestart.take()) is not None:
    _WORKERS.adopt(_started)


class BanditTool(Tool):
    """Runs every Bandit test; the rule catalogue decides which results are findings."""

    name = "bandit"

    def applies_to(self, path: str) -> bool:
        """Bandit reads Python only."""
        return is_python(path)

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Run bandit over ``paths`` (in one worker per core on a large change)."""
        return run_in_batches(paths, file_size(workspace), lambda part: _bandit(workspace, part))


def _bandit(workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
    """One worker's scan of ``paths``."""
    if not paths:
        return []
    answer = _WORKERS.ask({"cwd": str(workspace), "paths": list(paths)})
    results = answer.get("results")
    if not isinstance(results, list):
        raise ToolError(f"bandit failed: {str(answer.get('error', answer))[:300]}")
    # A file Bandit skipped got none of its tests: say so (the review is partial), never
    # let its silence read as "nothing found".
    skipped = [
        not_analysed("bandit", str(entry[0]).removeprefix("./"), f"skipped it ({entry[1]})")
        for entry in _list(answer.get("skipped"))
        if isinstance(entry, list) and len(entry) == 2
    ]
    hits = [_judged(workspace, r) for r in results if isinstance(r, dict)]
    return skipped + hits


def _judged(workspace: Path, result: dict[str, object]) -> ToolHit:
    """The hit of ``result``, marked silenced by folding (with the proof) when its call runs
    only data built from literals (``_on_literal_data``): counted, never a finding."""
    hit = _hit(result)
    argument = _on_literal_data(workspace, result)
    if argument is None:
        return hit
    proof = f"first argument `{argument}` holds a value built from literals only (constant folding)"
    return replace(hit, silenced=Silencing.FOLDING.value, message=proof)


# Bandit's tests of a call whose danger is its first argument, the data it runs, loads or
# parses: code (B102 exec, B307 eval), a pickle or marshal stream (B301, B302), YAML (B506),
# XML (B313-B320) or a shell command line (B602, B605). Given only literals, the call runs
# what the code's author wrote, not what an attacker sent: an injection needs outside data.
_DATA_RULES = frozenset(
    {"B102", "B301", "B302", "B307", "B506", "B602", "B605"} | {f"B3{n}" for n in range(13, 21)}
)


def _on_literal_data(workspace: Path, result: dict[str, object]) -> str | None:
    """The name of the variable ``result``'s call takes as its first argument, when the call
    is one of ``_DATA_RULES`` and constant folding (``rewrites/folding/``) shows that
    variable holds a value built from literals only; else None. A literal written in the call
    keeps its result: the rule is about that use of the API, and its advice (``safe_load``,
    ``literal_eval``) still holds."""
    if result.get("test_id") not in _DATA_RULES:
        return None
    try:
        line, col = int(str(result["line_number"])), int(str(result.get("col_offset")))
        path = workspace / str(result["filename"])
        source = path.read_text(encoding="utf-8", errors="replace")
    except (KeyError, ValueError, OSError):
        return None
    folding = folding_of(source)
    if folding is None or not folding.static_first_argument(line, col):
        return None
    return _first_argument(source, line, col)


def _first_argument(source: str, line: int, col: int) -> str:
    """The variable the call at ``line``/``col`` passes first (folding only marks calls whose
    first argument is a name), from the tree folding read."""
    tree = parse_python(source)
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Call)
            and (node.lineno, node.col_offset) == (line, col)
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            return node.args[0].id
    return "?"


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


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
