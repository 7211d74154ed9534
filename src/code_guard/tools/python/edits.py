"""Edits to a Python source that keep every line and column: what an analyser that reads text
(Semgrep) is given instead of the file, its results still naming the file's own positions."""

from __future__ import annotations

from dataclasses import dataclass


def char_col(line: str, byte_col: int) -> int:
    """The character column of ``byte_col`` (the AST counts UTF-8 bytes) in ``line``."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


@dataclass(frozen=True)
class Edit:
    """A statement (replaced by ``pass`` and blanks) or an expression (replaced by a literal)
    from ``start`` to ``end``."""

    start: tuple[int, int]  # (line, char column), lines from 1
    end: tuple[int, int]
    statement: bool


def apply_edit(lines: list[str], edit: Edit) -> bool:
    """Make ``edit`` to ``lines`` (changed in place), every other character where it was;
    False, and nothing changed, where that cannot be done without moving one."""
    (line, col), (end_line, end_col) = edit.start, edit.end
    first, last = lines[line - 1], lines[end_line - 1]
    rest = last[end_col:]
    if edit.statement:
        # ``pass`` where the statement began, blanks for the rest of it; what follows it on its
        # last line must be nothing or a comment, or the blanks would cut a line in two.
        if end_line > line and rest.strip() and not rest.lstrip().startswith("#"):
            return False
        width = (len(first) if end_line > line else end_col) - col
        if width < 4:
            return False
        if end_line == line:
            lines[line - 1] = first[:col] + "pass".ljust(width) + first[end_col:]
            return True
        lines[line - 1] = first[:col] + "pass".ljust(width)
        for number in range(line, end_line - 1):
            lines[number] = " " * len(lines[number])
        lines[end_line - 1] = " " * end_col + rest
        return True
    if end_line != line:
        return False  # an expression over lines may hold the brackets that join them
    width = end_col - col
    following = first[end_col : end_col + 1]
    if width >= 2:
        literal = '""'.ljust(width)
    elif following != ".":
        literal = "0"
    else:
        return False
    lines[line - 1] = first[:col] + literal + first[end_col:]
    return True
