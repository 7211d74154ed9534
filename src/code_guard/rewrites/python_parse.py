"""Python source parsed once, safely from any thread, and shared by the checkers.

Three in-process checkers (performance, taint, settings) read the same files, from the agents'
threads at once. Two things follow:

- CPython 3.11's AST constructor keeps its recursion depth in per-interpreter state, so two
  ``ast.parse`` calls in two threads can corrupt it ("AST constructor recursion depth
  mismatch", a ``SystemError``) and fail an agent at random under load. Every parse here
  holds one lock; parsing is CPU-bound under the GIL anyway, so nothing is lost.
- Parsing a large file three times costs three times the time and memory: the tree of each
  source text is kept (within a memory budget) and handed to every reader. The readers only
  read trees, never change them.
"""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict

_LOCK = threading.Lock()


# What the kept parses may cost, in bytes of source weighted by what each keeps alive: a tree
# takes about 40 times its source (ast.parse of this package's checkers: 0.22 MB of source,
# 9.1 MB of trees), a file that does not parse only its text. 32 MiB keeps about 800 KB of
# parsed source, the whole of the benchmarks' 20 modified 500-line files, head and base:
# with room for 16 trees, as before, the checkers, the scopes and the Semgrep copy read the
# 20 files in turn and each found its tree evicted by the others (42 parses for 21 texts).
_BUDGET = 32 * 1024 * 1024
_TREE_WEIGHT = 40
_MAX_ENTRIES = 512
_Parsed = tuple[ast.Module | None, str | None]
_kept: OrderedDict[str, tuple[_Parsed, int]] = OrderedDict()
_kept_cost = 0
_parse_count = 0


def parsed(source: str) -> _Parsed:
    """The tree of ``source``, or None and why Python's parser gave up on valid-looking code
    (None for a syntax error): one parse answers both questions, and the answer is kept for
    the next reader of the same text (the least recently read are dropped first)."""
    global _kept_cost, _parse_count  # noqa: PLW0603 - the cache's running totals, under the lock
    with _LOCK:
        if (kept := _kept.get(source)) is not None:
            _kept.move_to_end(source)
            return kept[0]
        answer = _parse(source)
        _parse_count += 1
        cost = len(source) * (_TREE_WEIGHT if answer[0] is not None else 1)
        _kept[source] = (answer, cost)
        _kept_cost += cost
        while len(_kept) > 1 and (_kept_cost > _BUDGET or len(_kept) > _MAX_ENTRIES):
            _kept_cost -= _kept.popitem(last=False)[1][1]
        return answer


def parse_count() -> int:
    """How many times ``ast.parse`` ran here: what a test reads to count the parses."""
    return _parse_count


def _parse(source: str) -> _Parsed:
    try:
        return ast.parse(source), None
    except (SyntaxError, ValueError):
        return None, None
    except RecursionError:
        return None, "it is nested too deeply for Python's parser"
    except MemoryError:
        return None, "Python's parser ran out of memory on it"


def parse_python(source: str) -> ast.Module | None:
    """The tree of ``source``, or None when it does not parse (ruff reports that)."""
    return parsed(source)[0]


def parse_failure(source: str) -> str | None:
    """Why Python's own parser gives up on ``source`` although it may be valid (too deeply
    nested, out of memory), or None: a syntax error is not one (ruff reports it)."""
    return parsed(source)[1]


def parses(source: str) -> bool:
    """Whether ``source`` is valid Python."""
    return parse_python(source) is not None


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
