"""The function or class each line of a file belongs to, by qualified name.

A result the change only kept must sit in the same function on both sides of it
(``baseline``): a copy of an old flaw pasted into another function is new. A line's scope is
the innermost function or class around it (``Class.method``; a nested function ``f.g``), or
``""`` at module level, which counts as a scope of its own. A definition's own lines (its
decorators, its signature) belong to it.

Python files are read with Python's parser, lines numbered as git numbers them
(``linemap``). Other languages, and Python it rejects, by their layout: a line that opens a
function or class (``function f``, ``func (s *S) f``, ``class A``, ``f(x) {``, an arrow or an
anonymous function, named by its own line) holds every more indented line after it. The layout
can be written to mislead, which can only split a match (a result reported): scopes never make
two results match that the rest of the signature tells apart.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from code_guard.change.linemap import analysed_text, line_map
from code_guard.rewrites.python_parse import parse_python
from code_guard.tools.base import is_python

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = (ast.stmt, ast.ExceptHandler, ast.match_case)

# A named function or class: Python, JavaScript/TypeScript.
_NAMED = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:def|class|interface|function\s*\*?)\s+([A-Za-z_$][\w$]*)"
)
# A Go function, or a method with its receiver: ``func (s *Server) Handle(``.
_GO_FUNC = re.compile(r"^\s*func\s*(?:\(([^)]*)\)\s*)?(\w+)\s*[(\[]")
_WORD = re.compile(r"\w+")
# A function without a name of its own: an arrow, ``function (...)``, a Go closure.
_ANONYMOUS = re.compile(r"=>|\bfunction\b|\bfunc\s*\(")
# The start of a JavaScript/TypeScript method, ``static name<T>(``, or of a block statement
# such as ``if (``; possessive, so a long run of modifiers cannot make it backtrack.
_METHOD = re.compile(
    r"^\s*+(?:(?:public|private|protected|static|async|get|set|override|readonly)\s++)*+"
    r"([A-Za-z_$][\w$]*+)\s*+(?:<[^>]*>)?\s*\("
)
_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "with", "return", "else"})
_DEPTH = 4  # openers that name a scope found from the layout, innermost first
_NAME_CHARS = 120  # of an anonymous function's line, as its name


def scope_at(path: str, lines: Sequence[str], line: int) -> str:
    """The scope of git's line ``line`` of ``path``, whose git lines are ``lines``."""
    return in_table(scopes_of(path, lines), line)


def in_table(scopes: Sequence[str], line: int) -> str:
    """The scope of git's line ``line`` in a file's ``scopes_of`` table."""
    return scopes[line - 1] if 0 < line <= len(scopes) else ""


def scopes_of(path: str, lines: Sequence[str]) -> tuple[str, ...]:
    """The scope of each git line of ``path`` (index 0 is line 1), whose lines are ``lines``."""
    return _scopes(path, tuple(lines))


@lru_cache(maxsize=64)
def _scopes(path: str, lines: tuple[str, ...]) -> tuple[str, ...]:
    if is_python(path):
        found = _python_scopes(path, lines)
        if found is not None:
            return found
    return _layout_scopes(lines)


def _python_scopes(path: str, lines: tuple[str, ...]) -> tuple[str, ...] | None:
    """Scopes from Python's parser (None when it rejects the file), on git's lines."""
    # the text as written for the analysers, so the checkers' parse of it is shared
    tree = parse_python(analysed_text(path, "".join(line + "\n" for line in lines)))
    if tree is None:
        return None
    mapping = line_map(path, lines)
    out = [""] * len(lines)
    todo: list[tuple[ast.AST, str]] = [(tree, "")]
    while todo:  # a stack, not recursion: a deeply nested file must not exhaust Python's
        node, prefix = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFINITIONS):
                name = f"{prefix}.{child.name}" if prefix else child.name
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                last = child.end_lineno or child.lineno
                if mapping is not None:
                    first, last = mapping.to_git(first), mapping.to_git(last)
                # outer definitions are marked before the ones inside them, which overwrite
                out[first - 1 : last] = [name] * (min(last, len(out)) - first + 1)
                todo.append((child, name))
            elif isinstance(child, _BLOCKS):
                todo.append((child, prefix))
    return tuple(out)


def _opens(line: str) -> str | None:
    """The name of the function or class ``line`` opens, if it opens one; an anonymous one
    is named by its own line (``app.get("/a", (req, res) => {``)."""
    named = _NAMED.search(line)
    if named:
        return named.group(1)
    go = _GO_FUNC.search(line)
    if go:
        receiver = _WORD.findall(go.group(1) or "")
        return f"{receiver[min(1, len(receiver) - 1)]}.{go.group(2)}" if receiver else go.group(2)
    if _ANONYMOUS.search(line):
        return " ".join(line.split())
    text = line.strip()
    method = _METHOD.search(text) if text.endswith("{") and ";" not in text else None
    if method and method.group(1) not in _KEYWORDS:
        return method.group(1)
    return None


def _layout_scopes(lines: Sequence[str]) -> tuple[str, ...]:
    """Scopes from indentation: an opening line holds the more indented lines after it.

    A scope is named by its innermost ``_DEPTH`` openers, each cut to ``_NAME_CHARS``: the
    cost stays linear in the file however its author nests it."""
    out: list[str] = []
    stack: list[tuple[int, str, str]] = []  # indent, name, qualified name
    for line in lines:
        if not line.strip():
            out.append(stack[-1][2] if stack else "")
            continue
        indent = len(line) - len(line.lstrip())
        closer = line.lstrip()[:1] in ")]}"
        while stack and (stack[-1][0] > indent or stack[-1][0] == indent and not closer):
            stack.pop()
        name = _opens(line)
        if name is not None:
            name = name[:_NAME_CHARS]
            outer = [entry[1] for entry in stack[max(len(stack) - _DEPTH + 1, 0) :]]
            stack.append((indent, name, ".".join([*outer, name])))
        out.append(stack[-1][2] if stack else "")
        if name is None and line.lstrip()[:1] == "}" and stack and stack[-1][0] == indent:
            stack.pop()  # the brace that closes the function is its last line
    return tuple(out)


class ScopeTables:
    """The scopes of each file of one side of the change, worked out once per file."""

    def __init__(self) -> None:
        self._tables: dict[str, tuple[str, ...]] = {}

    def of(self, path: str, lines_of: Callable[[str], Sequence[str]]) -> tuple[str, ...]:
        """The scope of each line of ``path``, whose lines ``lines_of`` gives."""
        if path not in self._tables:
            self._tables[path] = scopes_of(path, lines_of(path))
        return self._tables[path]
