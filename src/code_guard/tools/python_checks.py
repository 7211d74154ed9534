"""One parse of each Python file for all the in-process AST checkers, shared by the agents.

The performance agent's checks and the security agent's taint and settings checks read the
same files; the first of them to ask parses each file once, runs every checker over the tree,
and keeps the hits for the others, as the semgrep cache does for semgrep-core's runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from code_guard.tools.base import RunCache, ToolHit
from code_guard.tools.mapping import not_analysed
from code_guard.tools.python_nodes import indexed
from code_guard.tools.python_parse import parse_failure, parse_python


def all_hits(workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
    """The hits of every AST checker over ``paths`` (relative to ``workspace``)."""
    return _CACHE.get((str(workspace), tuple(paths)), lambda: _check(workspace, paths))


def _check(workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
    from code_guard.tools.python_ast import PythonAstTool
    from code_guard.tools.python_correctness import PythonCorrectnessTool
    from code_guard.tools.python_settings import PythonSettingsTool
    from code_guard.tools.python_taint import PythonTaintTool

    checkers = (PythonAstTool(), PythonTaintTool(), PythonSettingsTool(), PythonCorrectnessTool())
    hits: list[ToolHit] = []
    for path in paths:
        source = (workspace / path).read_text(encoding="utf-8", errors="replace")
        tree = parse_python(source)  # under the parse lock (tools/python_parse.py)
        if tree is None:
            failure = parse_failure(source)
            if failure is not None:  # not a syntax error (ruff names those): say so
                hits.append(not_analysed("python-ast", path, f"checks skipped it ({failure})"))
            continue
        with indexed(tree):
            for checker in checkers:
                hits.extend(checker.hits(tree, path))
    return hits


_CACHE: RunCache[tuple[str, tuple[str, ...]]] = RunCache(size=16)
