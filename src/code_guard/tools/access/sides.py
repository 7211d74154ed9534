"""The two sides of one file's change, as the access-control mechanisms read them: the base and
head lines, their functions, and where a finding about a removed line goes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from code_guard.change.diff import FileChange, HunkLine, LineKind
from code_guard.tools.access.scopes import Scope, code

IMPORT = re.compile(
    r"^\s*(?:import\b|from\s+[\w.]+\s+import\b|(?:\w+\s+)?\"[\w./-]+\"\s*$|"
    r"(?:const|let|var)\s+[\w{}\s,]+=\s*require\()"
)
_COMMENT = re.compile(r"^\s*(?:#|//|/\*|\*)")


@dataclass(frozen=True, slots=True)
class Found:
    """One protection taken away: its rule, the head line it is reported on, and what the
    base had there."""

    rule: str
    line: int
    title: str
    detail: str
    removed: str
    unchanged: bool
    silenced: str = ""  # the ``Silencing`` that held it back, with the proof in ``detail``
    removed_at: int = 0  # the base line of ``removed`` (0: nothing removed)


@dataclass(frozen=True, slots=True)
class Side:
    """One side of the file: its lines, its functions, and the names of those that deny."""

    lines: list[str]
    scopes: list[Scope]
    helpers: set[str]

    def by_key(self) -> dict[str, Scope]:
        """The functions by name."""
        return {s.key: s for s in self.scopes}


def is_code(text: str) -> bool:
    """True for a line with code on it (not blank, not only a comment)."""
    return bool(text.strip()) and not _COMMENT.match(text)


def anchors(file: FileChange) -> dict[int, tuple[int, bool]]:
    """For each removed base line: the head line a finding about it goes on, and whether that
    line is unchanged (the block only deleted lines)."""
    found: dict[int, tuple[int, bool]] = {}
    for hunk in file.hunks:
        lines = hunk.lines
        at = 0
        while at < len(lines):
            if lines[at].kind is LineKind.CONTEXT:
                at += 1
                continue
            end = at
            while end < len(lines) and lines[end].kind is not LineKind.CONTEXT:
                end += 1
            where = _block_anchor(lines, at, end)
            if where is not None:
                for line in lines[at:end]:
                    if line.old_number is not None:
                        found[line.old_number] = where
            at = end
    return found


def _block_anchor(lines: Sequence[HunkLine], start: int, end: int) -> tuple[int, bool] | None:
    added = [
        ln.new_number
        for ln in lines[start:end]
        if ln.kind is LineKind.ADDED and ln.new_number is not None and is_code(ln.text)
    ]
    if added:
        return added[0], False
    after = lines[end].new_number if end < len(lines) else None
    before = lines[start - 1].new_number if start > 0 else None
    point = after if after is not None else before
    return None if point is None else (point, True)


def removed_lines(file: FileChange) -> set[int]:
    return {
        ln.old_number
        for hunk in file.hunks
        for ln in hunk.lines
        if ln.kind is LineKind.REMOVED and ln.old_number is not None
    }


def split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines




def file_count(lines: Sequence[str], name: str, raw: bool) -> int:
    pattern = re.compile(name if raw else rf"(?<![\w.]){re.escape(name)}(?!\w)")
    return sum(
        len(pattern.findall(text if raw else code(text)))
        for text in lines
        if is_code(text) and not IMPORT.match(text)
    )


def count(lines: Sequence[str], pattern: re.Pattern[str]) -> int:
    return sum(len(pattern.findall(t)) for t in lines if is_code(t))


