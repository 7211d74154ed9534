"""Handlers and branches of one source text, read line by line: where each function starts and
ends (its decorators included), and the ``if`` statements in it with their bodies.

Lines are numbered from 1. The reading is lexical, as a reviewer skims: Python by indentation,
Go and JavaScript by braces outside strings and comments. It never runs or imports the code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from code_guard.tools.access.model import Language
from code_guard.tools.regressions.proofs import IF

_PY_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)|^(\s*)class\s+(\w+)")
_GO_FUNC = re.compile(r"^func\s*(?:\(\s*(?:\w+\s+)?\*?\s*(\w+)[^)]*\)\s*)?(\w+)")
_JS_FUNC = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(\w+)"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*=\s*(?:async\s+)?"
    r"(?:function\b|\([^)]*\)\s*=>|\w+\s*=>)"
    r"|^\s+(?:(?:public|private|protected|static|async|override|get|set)\s+)*"
    r"(?!(?:if|for|while|switch|catch|return|function|else)\b)(\w+)\s*\([^)]*\)\s*"
    r"(?::\s*[^={;]+)?\{"
)
_JS_ROUTE = re.compile(r"^\s*(\w+)\.(get|post|put|patch|delete|all|use)\(\s*([^,]+),")
# A literal runs to its closing quote or, unterminated, to the end of the line: either way each
# quote starts at most one scan, so runs of quotes and backslashes stay linear.
_STRING = re.compile(r"\"(?:\\.|[^\"\\])*+(?:\"|\\?$)|'(?:\\.|[^'\\])*+(?:'|\\?$)|`[^`]*+(?:`|$)")


@dataclass(frozen=True, slots=True)
class Scope:
    """A function (or class, or inline route handler): ``key`` names it, ``start`` is its first
    decorator line, ``header`` its ``def``/``func`` line, ``end`` its last line."""

    key: str
    start: int
    header: int
    end: int

    def holds(self, line: int) -> bool:
        """True when ``line`` is within the scope."""
        return self.start <= line <= self.end


@dataclass(frozen=True, slots=True)
class Branch:
    """An ``if`` statement: its condition's lines and its body's lines (inclusive)."""

    line: int  # the ``if`` line
    cond_end: int  # the last line of the condition
    end: int  # the last line of the body
    condition: str  # the condition's text, on one line


def statement(lines: list[str], number: int, limit: int = 30) -> str:
    """Line ``number`` joined with the lines after it until its brackets close."""
    text, depth, at = "", 0, number
    while at <= min(len(lines), number + limit):
        bare = code(lines[at - 1])
        text += " " + lines[at - 1].strip()
        depth += sum(bare.count(c) for c in "([{") - sum(bare.count(c) for c in ")]}")
        if depth <= 0:
            break
        at += 1
    return text.strip()


def code(line: str) -> str:
    """``line`` without its string literals' contents and without a trailing comment."""
    bare = _STRING.sub('""', line)
    for mark in ("//", "#"):
        at = bare.find(mark)
        if at >= 0:
            bare = bare[:at]
    return bare


def indent(line: str) -> int:
    """The width of the line's leading whitespace (a tab counts as 4)."""
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def brace_end(lines: Sequence[str], start: int) -> int:
    """The line (1-based) where the braces opened from line ``start`` on close again, or the
    last line. A ``}`` that opens line ``start`` (``} else if``) closes an earlier block."""
    depth, opened = 0, False
    for number in range(start, len(lines) + 1):
        bare = code(lines[number - 1])
        if number == start:
            bare = bare.lstrip().removeprefix("}")
        depth += bare.count("{") - bare.count("}")
        opened = opened or "{" in bare
        if opened and depth <= 0:
            return number
    return len(lines)


def _python_end(lines: Sequence[str], header: int) -> int:
    width = indent(lines[header - 1])
    end = header
    for number in range(header + 1, len(lines) + 1):
        text = lines[number - 1]
        if not text.strip():
            continue
        if indent(text) <= width and not text.lstrip().startswith((")", "]", "}")):
            break
        end = number
    return end


def _decorators_start(lines: list[str], header: int) -> int:
    """The first decorator line above a Python ``def`` (the header itself without one)."""
    width = indent(lines[header - 1])
    start = header
    number = header - 1
    while number >= 1:
        text = lines[number - 1]
        if not text.strip():
            break
        if text.lstrip().startswith("#"):  # a comment between decorators
            number -= 1
            continue
        if indent(text) == width and text.lstrip().startswith("@"):
            start = number
        elif indent(text) <= width and not text.lstrip().startswith((")", "]")):
            break
        number -= 1
    return start


def _python_scopes(lines: list[str]) -> list[Scope]:
    found: list[Scope] = []
    owners: list[tuple[int, str]] = []  # (indent, name) of the enclosing classes and defs
    for number, text in enumerate(lines, 1):
        match = _PY_DEF.match(text)
        if match is None:
            continue
        width = indent(text)
        while owners and owners[-1][0] >= width:
            owners.pop()
        name = match.group(2) or match.group(4)
        key = ".".join([o for _, o in owners] + [name])
        owners.append((width, name))
        found.append(
            Scope(key, _decorators_start(lines, number), number, _python_end(lines, number))
        )
    return found


def _go_scopes(lines: list[str]) -> list[Scope]:
    found = []
    for number, text in enumerate(lines, 1):
        match = _GO_FUNC.match(text)
        if match is not None:
            key = ".".join(p for p in (match.group(1), match.group(2)) if p)
            found.append(Scope(key, number, number, brace_end(lines, number)))
    return found


def _js_scopes(lines: list[str]) -> list[Scope]:
    found = []
    for number, text in enumerate(lines, 1):
        route = _JS_ROUTE.match(text)
        match = _JS_FUNC.match(text)
        if route is not None and "{" in code(text):
            key = f"{route.group(1)}.{route.group(2)} {route.group(3)}"
        elif match is not None:
            key = next(g for g in match.groups() if g)
        else:
            continue
        found.append(Scope(key, number, number, brace_end(lines, number)))
    return found


def scopes(lines: list[str], language: Language) -> list[Scope]:
    """The functions of ``lines``, outermost first."""
    if language == "python":
        return _python_scopes(lines)
    if language == "go":
        return _go_scopes(lines)
    return _js_scopes(lines)


def innermost(found: list[Scope], line: int) -> Scope | None:
    """The smallest scope holding ``line``."""
    holding = [s for s in found if s.holds(line)]
    return min(holding, key=lambda s: s.end - s.start) if holding else None


def branch_at(lines: Sequence[str], number: int, language: Language) -> Branch | None:
    """The ``if`` statement starting at line ``number``, or None."""
    text = lines[number - 1]
    if not IF.match(text):
        return None
    if language == "python":
        cond_end = number
        while cond_end < len(lines) and not code(lines[cond_end - 1]).rstrip().endswith(":"):
            cond_end += 1
        head = " ".join(code(lines[i - 1]).strip() for i in range(number, cond_end + 1))
        condition = re.sub(r"^(?:if|elif)\s+", "", head).rsplit(":", 1)[0]
        inline = head.rsplit(":", 1)[1].strip() if ":" in head else ""
        end = cond_end if inline else _python_end(lines, number)
        return Branch(number, cond_end, end, condition.strip())
    cond_end = number
    if language == "javascript" and "{" not in code(text):
        # A body without braces: one statement, on this line or the next.
        bare = code(text).rstrip()
        end = number + 1 if bare.endswith(")") and number < len(lines) else number
        return Branch(number, number, end, _parenthesised(bare))
    while cond_end < len(lines) and "{" not in code(lines[cond_end - 1]):
        cond_end += 1
    head = " ".join(code(lines[i - 1]).strip() for i in range(number, cond_end + 1))
    condition = re.sub(r"^\}?\s*(?:else\s+)?if\s*", "", head).split("{", 1)[0].strip()
    if language == "javascript":
        condition = _parenthesised(head)
    return Branch(number, cond_end, brace_end(lines, number), condition.strip())


def _parenthesised(head: str) -> str:
    """The text inside the first balanced parentheses of ``head`` (a JavaScript condition)."""
    start = head.find("(")
    if start < 0:
        return head.strip()
    depth = 0
    for at in range(start, len(head)):
        depth += {"(": 1, ")": -1}.get(head[at], 0)
        if depth == 0:
            return head[start + 1 : at].strip()
    return head[start + 1 :].strip()
