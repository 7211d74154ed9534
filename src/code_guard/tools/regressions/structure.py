"""The shape of one source text: which function each line is in, and how deep it is nested.

A protection only counts as kept when it still guards the same sink in the same function and
runs before it on every path (it dominates the sink). Without a parser for three languages the
detector reads that shape from the text: indentation for Python, braces (outside strings and
comments) for Go and JavaScript. Where the shape is unclear (a line outside any function, a
guard in a branch the sink is not in), ``dominates`` answers no, so the finding stays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from code_guard.knowledge.protections import Language

_PY_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)")
# A Go or JS line that opens a function: `func name(`, `func (r T) name(`, `function name(`,
# `name = function (`, `name = (...) =>`, a method `name(...) {`.
_BRACE_DEF = re.compile(
    r"\bfunc\b\s*(?:\([^)\n]*+\)\s*)?(\w*)"
    r"|\bfunction\b\s*\*?\s*(\w*)"
    r"|(?:^|[\s,{(])(\w+)\s*[:=]\s*(?:async\s+)?(?:\([^)\n]*+\)|\w+)\s*=>"
    r"|^\s*(?:(?:static|async|get|set|public|private|protected)\s+)*(\w+)\s*\([^)\n]*+\)\s*\{"
)
_CONTROL = frozenset(["if", "for", "while", "switch", "catch", "with", "return", "else"])
# String literals and comments, whose braces are not the code's.
# An unclosed literal runs to the end of the line, so that every match consumes what it tries.
_NOISE = re.compile(r"\"(?:[^\"\\\n]|\\.)*+\"?|'(?:[^'\\\n]|\\.)*+'?|`(?:[^`\\]|\\.)*+`?|//.*")


@dataclass(frozen=True, slots=True)
class Layout:
    """Per line (0-based): its nesting depth, and the function it belongs to (the number of
    the line that opens it, or -1 outside any function)."""

    depth: tuple[int, ...]
    function: tuple[int, ...]
    names: dict[int, str]  # function header line -> the function's name ('' if anonymous)
    blank: tuple[bool, ...]
    # Per line: the first later line that closes its block (shallower, not blank), or the end.
    close: tuple[int, ...]

    def function_name(self, line: int) -> str | None:
        """The name of the function holding 1-based ``line``, or None outside any."""
        header = self._function(line)
        return None if header < 0 else self.names.get(header, "")

    def dominates(self, guard: int, sink: int) -> bool:
        """True when 1-based ``guard`` runs before ``sink`` on every path through their
        function: the same function, above it, no deeper, and no line between them closes
        the block the guard is in (an ``else``, the end of a loop or of a branch)."""
        g, s = guard - 1, sink - 1
        if not (0 <= g < s < len(self.depth)):
            return False
        if self.function[g] < 0 or self.function[g] != self.function[s]:
            return False
        return self.depth[s] >= self.depth[g] and s < self.close[g]

    def body(self, line: int) -> range:
        """The 1-based lines nested under ``line`` (the body of its ``if``)."""
        start = line  # 0-based index of the next line
        level = self.depth[line - 1]
        end = start
        while end < len(self.depth) and (self.blank[end] or self.depth[end] > level):
            end += 1
        return range(start + 1, end + 1)

    def _function(self, line: int) -> int:
        return self.function[line - 1] if 0 < line <= len(self.function) else -1


def layout(text: str, language: Language) -> Layout:
    """The layout of ``text`` in ``language``."""
    lines = text.split("\n")
    if language == "python":
        return _python(lines)
    return _braces(lines)


def _is_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(("#", "//", "/*", "*"))


def _python(lines: list[str]) -> Layout:
    depth: list[int] = []
    function: list[int] = []
    names: dict[int, str] = {}
    blank = [_is_blank(ln) for ln in lines]
    stack: list[tuple[int, int]] = []  # (indentation of a def, its line)
    level = 0
    for i, line in enumerate(lines):
        if not blank[i]:
            level = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
            while stack and stack[-1][0] >= level:
                stack.pop()
        depth.append(level)
        function.append(stack[-1][1] if stack else -1)
        found = _PY_DEF.match(line)
        if found and not blank[i]:
            names[i] = found.group(1)
            stack.append((level, i))
    return Layout(tuple(depth), tuple(function), names, tuple(blank), _closes(depth, blank))


def _closes(depth: list[int], blank: list[bool]) -> tuple[int, ...]:
    """For each line, the first later non-blank line shallower than it (one pass, a stack of
    the lines whose block is still open), or the number of lines."""
    close = [len(depth)] * len(depth)
    open_lines: list[int] = []
    for i, level in enumerate(depth):
        if blank[i]:
            continue
        while open_lines and depth[open_lines[-1]] > level:
            close[open_lines.pop()] = i
        open_lines.append(i)
    return tuple(close)


def _braces(lines: list[str]) -> Layout:
    depth: list[int] = []
    function: list[int] = []
    names: dict[int, str] = {}
    blank = [_is_blank(ln) for ln in lines]
    # One entry per open brace: the line of the function it opens, or -1 for other blocks.
    stack: list[int] = []
    pending = -1  # a function header seen whose brace has not opened yet
    for i, line in enumerate(lines):
        code = _NOISE.sub('""', line)
        stripped = code.lstrip()
        closing = len(stripped) - len(stripped.lstrip("}"))
        depth.append(max(len(stack) - closing, 0))
        header = _header(code)
        if header is not None:
            names[i] = header
            pending = i
        inner = [s for s in stack if s >= 0]
        function.append(inner[-1] if inner else (pending if pending == i else -1))
        for char in code:
            if char == "{":
                stack.append(pending)
                pending = -1
            elif char == "}" and stack:
                stack.pop()
        if pending == i and "{" not in code and code.count("(") <= code.count(")"):
            pending = -1  # a function type or a declaration without a body
    return Layout(tuple(depth), tuple(function), names, tuple(blank), _closes(depth, blank))


def _header(code: str) -> str | None:
    """The name of the function ``code`` opens ('' for an anonymous one), or None."""
    found = _BRACE_DEF.search(code)
    if found is None:
        return None
    name = next((g for g in found.groups() if g is not None), "")
    if name in _CONTROL:
        return None
    return name
