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
    if edit.statement:
        return _replace_statement(lines, edit)
    (line, col), (end_line, end_col) = edit.start, edit.end
    first = lines[line - 1]
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


def _replace_statement(lines: list[str], edit: Edit) -> bool:
    """``pass`` where the statement began, blanks for the rest of it. When its first line is
    too short for ``pass`` (a decorator ``@f``), and the statement starts its line, ``pass``
    goes on the first line of it that has room, indented as the statement, the lines above
    it blank."""
    (line, col), (end_line, end_col) = edit.start, edit.end
    first, last = lines[line - 1], lines[end_line - 1]
    rest = last[end_col:]
    if end_line == line:
        if end_col - col < 4:
            return False
        lines[line - 1] = first[:col] + "pass".ljust(end_col - col) + first[end_col:]
        return True
    # What follows the statement on its last line must be nothing or a comment, or the blanks
    # would cut a line in two.
    if rest.strip() and not rest.lstrip().startswith("#"):
        return False
    indent = first[:col]
    room = [len(lines[n - 1]) - col for n in range(line, end_line)] + [end_col - col]
    at = next((line + i for i, width in enumerate(room) if width >= 4), None)
    if at is None or (at > line and indent.strip()):
        return False
    lines[line - 1] = indent + " " * (len(first) - col)
    for number in range(line, end_line - 1):
        lines[number] = " " * len(lines[number])
    lines[end_line - 1] = " " * end_col + rest
    lines[at - 1] = indent + "pass" + lines[at - 1][col + 4 :]
    return True
