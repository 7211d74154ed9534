"""One parse of each Python file for all the in-process AST checkers, shared by the agents.

The performance agent's checks and the security agent's taint and settings checks read the
same files; the first of them to ask parses each file once, runs every checker over the tree,
and keeps the hits for the others, as the semgrep cache does for semgrep-core's runs.
"""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from code_guard.tools.base import ToolHit

_Key = tuple[str, tuple[str, ...]]


def all_hits(workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
    """The hits of every AST checker over ``paths`` (relative to ``workspace``)."""
    return _CACHE.get(workspace, tuple(paths))


def _check(workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
    from code_guard.tools.python_ast import PythonAstTool
    from code_guard.tools.python_settings import PythonSettingsTool
    from code_guard.tools.python_taint import PythonTaintTool

    checkers = (PythonAstTool(), PythonTaintTool(), PythonSettingsTool())
    hits: list[ToolHit] = []
    for path in paths:
        source = (workspace / path).read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for checker in checkers:
            hits.extend(checker.hits(tree, path))
    return hits


class _HitCache:
    """The hits of recent (workspace, files) runs; one thread computes, the others wait.

    Workspaces are fresh temporary directories, so a key never refers to stale content.
    """

    def __init__(self, size: int = 16) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[_Key, list[ToolHit]] = OrderedDict()
        self._pending: dict[_Key, threading.Lock] = {}

    def get(self, workspace: Path, paths: tuple[str, ...]) -> list[ToolHit]:
        key = (str(workspace), paths)
        with self._lock:
            if key in self._entries:
                return self._entries[key]
            gate = self._pending.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                if key in self._entries:
                    return self._entries[key]
            hits = _check(workspace, paths)
            with self._lock:
                self._entries[key] = hits
                self._pending.pop(key, None)
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)
            return hits


_CACHE = _HitCache()
