"""The base of the in-process Python AST checkers, and the one parse of each file they share.

The performance agent's checks and the security agent's taint and settings checks read the
same files; the first of them to ask parses each file once, runs every registered checker over
the tree, and keeps the hits for the others, as the semgrep cache does for semgrep-core's runs.
A checker registers itself by subclassing ``PythonChecker``, so this module imports none of
them and the checkers import only it.

A checker that follows calls into the other files of the run (the taint check's cross-file
flows) reads them through ``PythonFiles``: each file is parsed once per run, whichever
checker or file asks first, and only the files of the run can be read.
"""

from __future__ import annotations

import ast
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

from code_guard.rewrites.python_parse import parse_failure, parse_python
from code_guard.tools.base import (
    NOT_ANALYSED_RULE,
    RunCache,
    Tool,
    ToolHit,
    is_python,
    not_analysed,
)
from code_guard.tools.python.nodes import indexed
from code_guard.tools.runtime.turns import TURN

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

    def prepare(self, files: PythonFiles) -> None:
        """Called once per run, before ``check`` sees any file: the files of the run, for a
        checker that reads one file's definitions while checking another. By default,
        nothing."""

    @abstractmethod
    def check(self, tree: ast.Module, path: str) -> Iterator[Check]:
        """Yield (rule, node, message) for every problem in ``tree``, parsed from ``path``."""

    def run(
        self, workspace: Path, paths: Sequence[str], context: Sequence[str] = ()
    ) -> list[ToolHit]:
        """This checker's hits over ``paths``; each file is parsed once for all the checkers.
        ``context``: more files of the change, read only for what ``paths`` call there."""
        # A file the parser gave up on is every checker's gap, whichever agent asks. A run
        # with context files (a base side) is this checker's alone: no other reads them.
        kinds = (type(self),) if context else None
        return [
            h
            for h in all_hits(workspace, paths, context, kinds)
            if h.tool == self.name or h.rule == NOT_ANALYSED_RULE
        ]

    def hits(self, tree: ast.Module, path: str) -> Iterator[ToolHit]:
        """``check`` over ``tree`` (parsed from ``path``), as tool hits."""
        for rule, node, msg in self.check(tree, path):
            yield ToolHit(self.name, rule, path, node.lineno, node.end_lineno or node.lineno, msg)


class PythonFiles:
    """The Python files of one run, under ``workspace``: those checked (``paths``) and those
    only read for their definitions (``context``: the other files of the change). A tree
    asked for by ``tree`` is kept until the run checks its file (``take``), so that each
    file is read and parsed once per run."""

    def __init__(self, workspace: Path, paths: Sequence[str], context: Sequence[str] = ()) -> None:
        self.workspace = workspace
        self.checked = tuple(paths)
        self.paths = (*paths, *(p for p in context if p not in paths))
        self._kept: dict[str, tuple[str, ast.Module | None]] = {}

    def _read(self, path: str) -> tuple[str, ast.Module | None]:
        source = (self.workspace / path).read_text(encoding="utf-8", errors="replace")
        return source, parse_python(source)  # under the parse lock (python_parse.py)

    def tree(self, path: str) -> ast.Module | None:
        """The tree of ``path``, one of the run's files (None: not one, or no parse)."""
        if path not in self.paths:
            return None
        if path not in self._kept:
            try:
                self._kept[path] = self._read(path)
            except OSError:
                self._kept[path] = ("", None)
        return self._kept[path][1]

    def take(self, path: str) -> tuple[str, ast.Module | None]:
        """The source and tree of ``path`` for checking it, no longer kept after."""
        kept = self._kept.pop(path, None)
        return kept if kept is not None else self._read(path)


def all_hits(
    workspace: Path,
    paths: Sequence[str],
    context: Sequence[str] = (),
    kinds: Sequence[type[PythonChecker]] | None = None,
) -> list[ToolHit]:
    """The hits of every registered checker (or of ``kinds``) over ``paths`` (relative to
    ``workspace``); ``context`` are more files of the change, read only for what ``paths``
    call in them."""
    checkers = tuple(PythonChecker.registered if kinds is None else kinds)
    # The checkers are part of the key: one registered after a run must not find it cached.
    key = (str(workspace), tuple(paths), tuple(context), tuple(c.name for c in checkers))
    return _CACHE.get(key, lambda: _check(PythonFiles(workspace, paths, context), checkers))


def _check(files: PythonFiles, kinds: Sequence[type[PythonChecker]]) -> list[ToolHit]:
    with TURN:  # the in-process analysers take turns (tools/runtime/turns.py)
        return _check_all(files, kinds)


def _check_all(files: PythonFiles, kinds: Sequence[type[PythonChecker]]) -> list[ToolHit]:
    checkers = [kind() for kind in kinds]
    for checker in checkers:
        checker.prepare(files)
    hits: list[ToolHit] = []
    for path in files.checked:
        source, tree = files.take(path)
        if tree is None:
            failure = parse_failure(source)
            if failure is not None:  # not a syntax error (ruff names those): say so
                hits.append(not_analysed("python-ast", path, f"checks skipped it ({failure})"))
            continue
        with indexed(tree):
            for checker in checkers:
                hits.extend(checker.hits(tree, path))
    return hits


_CACHE: RunCache[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = RunCache(size=16)
