"""Python source parsed once, safely from any thread, and shared by the checkers.

Three in-process checkers (performance, taint, settings) read the same files, from the agents'
threads at once. Two things follow:

- CPython 3.11's AST constructor keeps its recursion depth in per-interpreter state, so two
  ``ast.parse`` calls in two threads can corrupt it ("AST constructor recursion depth
  mismatch", a ``SystemError``) and fail an agent at random under load. Every parse here
  holds one lock; parsing is CPU-bound under the GIL anyway, so nothing is lost.
- Parsing a large file three times costs three times the time and memory: the tree of each
  source text is kept (a few of them) and handed to every checker. The checkers only read
  trees, never change them.
"""

from __future__ import annotations

import ast
import threading
from functools import lru_cache

_LOCK = threading.Lock()


@lru_cache(maxsize=16)
def parsed(source: str) -> tuple[ast.Module | None, str | None]:
    """The tree of ``source``, or None and why Python's parser gave up on valid-looking code
    (None for a syntax error): one parse answers both questions."""
    with _LOCK:
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
