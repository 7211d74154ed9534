"""Python syntax newer than semgrep-core's main Python parser (``match`` statements and
``except*`` handlers) rewritten, in place, into statements it reads.

semgrep-core parses Python with its own grammar first and, when that fails, with a tree-sitter
grammar. Its own grammar predates ``match`` (Python 3.10) and ``except*`` (3.11), so a file
with one of them anywhere is read by the fallback, where many patterns silently stop matching:
``f"...{$X}..."`` matches nothing, and a string literal's text loses its quotes, so every rule
that looks for a formatted string (SQL built by formatting, hand-written Set-Cookie headers)
misses it. Rewriting the keywords gives the main grammar a file it reads, with every line and
column where it was, so findings land where they would in the original:

- ``match subject:`` becomes ``with  subject:`` (``with`` takes any expression, tuples too);
- ``case pattern:`` becomes ``if   pattern:``: class, sequence, mapping, value and ``|``
  patterns are all valid expressions; ``case P as name:`` becomes ``with P as name:``;
- a guard's ``if`` becomes ``or``, so ``case x if x > 0:`` reads ``if   x or x > 0:``;
- ``except* E as group:`` becomes ``except  E as group:``, an ordinary handler.

The copy must parse as Python, or it is not used (semgrep-core then reads the original, as
before): a capture pattern with both ``as`` and a guard, say, is left to the fallback.
"""

from __future__ import annotations

import ast
import re

from code_guard.rewrites.python_parse import parse_python

# A line that could open a match statement (the soft keyword first, not assigned or used as a
# name) or an ``except*`` handler: the tree decides; this only spares parsing nearly every file.
_NEWER_LINE = re.compile(
    r"^[ \t]*(?:match\b(?![ \t]*(=[^=]|\.|,|\)|:))|except[ \t]*\*)", re.MULTILINE
)
_EXCEPT_STAR = re.compile(r"except[ \t]*(\*)")
# (line index, character column, old text, new text of the same length)
Edit = tuple[int, int, str, str]


def for_semgrep(source: str) -> str | None:
    """``source`` with its ``match`` statements and ``except*`` handlers rewritten, positions
    kept; None when it has none, does not parse, or the rewritten text would not parse."""
    if _NEWER_LINE.search(source) is None:
        return None  # the cheap test: nearly every file stops here
    tree = parse_python(source)
    if tree is None:
        return None
    lines = source.splitlines(keepends=True)
    edits: list[Edit] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.TryStar):
            for handler in node.handlers:
                star = _star_of(lines, handler)
                if star is None:
                    return None
                edits.append(star)
        if not isinstance(node, ast.Match):
            continue
        column = _column(lines, node.lineno, node.col_offset)
        edits.append((node.lineno - 1, column, "match", "with "))
        for case in node.cases:
            keyword = _keyword_before(lines, case.pattern, "case")
            if keyword is None:
                return None
            edits.append((*keyword, "case", _case_keyword(case.pattern)))
            if case.guard is not None:
                guard = _keyword_before(lines, case.guard, "if")
                if guard is None:
                    return None
                edits.append((*guard, "if", "or"))
    if not edits:
        return None
    for index, column, old, new in edits:
        line = lines[index]
        if line[column : column + len(old)] != old:
            return None
        lines[index] = line[:column] + new + line[column + len(old) :]
    rewritten = "".join(lines)
    return rewritten if parse_python(rewritten) is not None else None


def _star_of(lines: list[str], handler: ast.ExceptHandler) -> Edit | None:
    """The edit that drops the ``*`` of ``except*`` at ``handler`` (None when the two are not
    on one line)."""
    column = _column(lines, handler.lineno, handler.col_offset)
    found = _EXCEPT_STAR.match(lines[handler.lineno - 1], column)
    return (handler.lineno - 1, found.start(1), "*", " ") if found else None


def _case_keyword(pattern: ast.pattern) -> str:
    """What ``case`` becomes: ``with`` for ``P as name`` (an ``if`` cannot bind), else ``if``
    (semgrep-core's grammar takes ``with (a, b) or ...`` for a parenthesised list of items)."""
    named = isinstance(pattern, ast.MatchAs) and pattern.pattern is not None
    return "with" if named else "if  "


def _column(lines: list[str], lineno: int, col_offset: int) -> int:
    """The character column of ``col_offset``, which the AST counts in UTF-8 bytes."""
    return len(lines[lineno - 1].encode("utf-8")[:col_offset].decode("utf-8", errors="ignore"))


def _keyword_before(lines: list[str], node: ast.AST, keyword: str) -> tuple[int, int] | None:
    """Where ``keyword`` stands before ``node`` on its first line, with only blanks or
    opening brackets between them (``case (a, b):`` starts its pattern at the bracket)."""
    lineno = getattr(node, "lineno", None)
    col_offset = getattr(node, "col_offset", None)
    if lineno is None or col_offset is None:
        return None
    line = lines[lineno - 1]
    column = _column(lines, lineno, col_offset)
    start = line.rfind(keyword, 0, column)
    if start < 0 or line[start + len(keyword) : column].strip(" \t([{"):
        return None
    before = line[start - 1] if start > 0 else " "
    if before.isalnum() or before == "_":
        return None  # part of a longer name
    return lineno - 1, start
