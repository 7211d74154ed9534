"""The base of the in-process Python AST checkers, and the one parse of each file they share.

The performance agent's checks and the security agent's taint and settings checks read the
same files; the first of them to ask parses each file once, runs every registered checker over
the tree, and keeps the hits for the others, as the semgrep cache does for semgrep-core's runs.
A checker registers itself by subclassing ``PythonChecker``, so this module imports none of
them and the checkers import only it.
"""

from __future__ import annotations

import ast
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

from code_guard.python_parse import parse_failure, parse_python
from code_guard.tools.base import RunCache, Tool, ToolHit, is_python
from code_guard.tools.mapping import NOT_ANALYSED_RULE, not_analysed
from code_guard.tools.python.nodes import indexed


def dotted(node: ast.AST) -> str:
    """Return ``a.b.c`` for a Name/Attribute chain ('' for anything else)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call):
        return dotted(node.func) + "()." + ".".join(reversed(parts)) if parts else ""
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


Check = tuple[str, ast.expr | ast.stmt, str]  # rule, the node it is about, message


class PythonChecker(Tool):
    """An in-process check over Python's AST. Subclasses implement ``check``; a file that
    does not parse yields no hits (ruff reports it, and the agent notes it)."""

    # Every concrete checker, in the order their modules were imported.
    registered: ClassVar[list[type[PythonChecker]]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "check" in cls.__dict__:
            PythonChecker.registered.append(cls)

    def applies_to(self, path: str) -> bool:
        """Python files only."""
        return is_python(path)

    @abstractmethod
    def check(self, tree: ast.Module, path: str) -> Iterator[Check]:
        """Yield (rule, node, message) for every problem in ``tree``, parsed from ``path``."""

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """This checker's hits over ``paths``; each file is parsed once for all the checkers."""
        # A file the parser gave up on is every checker's gap, whichever agent asks.
        return [
            h
            for h in all_hits(workspace, paths)
            if h.tool == self.name or h.rule == NOT_ANALYSED_RULE
        ]

    def hits(self, tree: ast.Module, path: str) -> Iterator[ToolHit]:
        """``check`` over ``tree`` (parsed from ``path``), as tool hits."""
        for rule, node, msg in self.check(tree, path):
            yield ToolHit(self.name, rule, path, node.lineno, node.end_lineno or node.lineno, msg)


def all_hits(workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
    """The hits of every registered checker over ``paths`` (relative to ``workspace``)."""
    checkers = tuple(PythonChecker.registered)
    # The checkers are part of the key: one registered after a run must not find it cached.
    key = (str(workspace), tuple(paths), tuple(c.name for c in checkers))
    return _CACHE.get(key, lambda: _check(workspace, paths, checkers))


def _check(
    workspace: Path, paths: Sequence[str], kinds: Sequence[type[PythonChecker]]
) -> list[ToolHit]:
    checkers = [kind() for kind in kinds]
    hits: list[ToolHit] = []
    for path in paths:
        source = (workspace / path).read_text(encoding="utf-8", errors="replace")
        tree = parse_python(source)  # under the parse lock (python_parse.py)
        if tree is None:
            failure = parse_failure(source)
            if failure is not None:  # not a syntax error (ruff names those): say so
                hits.append(not_analysed("python-ast", path, f"checks skipped it ({failure})"))
            continue
        with indexed(tree):
            for checker in checkers:
                hits.extend(checker.hits(tree, path))
    return hits


_CACHE: RunCache[tuple[str, tuple[str, ...], tuple[str, ...]]] = RunCache(size=16)
