"""The change side of the regression detector: blocks of changed lines in a hunk, the added
line most like a removed one, and the one way a regression is written down."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from code_guard.change.diff import Hunk, HunkLine, LineKind
from code_guard.findings import Category, Silencing

MAX_PAIR_CELLS = 20_000  # difflib ratios computed for one removed line, at most


@dataclass(frozen=True, slots=True)
class Regression:
    """A protection the change took away, reported on head line ``line``."""

    line: int
    base_line: int
    removed: str  # the removed line that held the protection, as the base had it
    protection: str  # the catalogue id, or GENERIC_ID
    category: Category
    strong: bool
    title: str
    detail: str
    # True when ``line`` is an unchanged line of the hunk: the change only deleted the
    # protection above it and added nothing to comment on instead.
    unchanged: bool = False
    # The ``Silencing`` value that proved the protection still holds (``detail`` gives the
    # proof); empty for a live regression.
    silenced: str = ""

    @property
    def rule(self) -> str:
        """The rule id: ``<protection id>.<category>``, ``.weak`` when the evidence is thin."""
        return f"{self.protection}.{self.category.value}" + ("" if self.strong else ".weak")


@dataclass(frozen=True, slots=True)
class Block:
    """A run of changed lines inside a hunk: what was removed, what was added in its place."""

    removed: tuple[HunkLine, ...]
    added: tuple[HunkLine, ...]
    before: tuple[HunkLine, ...]  # context lines just above the block


def blocks(hunk: Hunk) -> Iterator[Block]:
    removed: list[HunkLine] = []
    added: list[HunkLine] = []
    context: list[HunkLine] = []
    before: tuple[HunkLine, ...] = ()
    for line in (*hunk.lines, None):
        if line is not None and line.kind is not LineKind.CONTEXT:
            if not removed and not added:
                before = tuple(context[-5:])
            (removed if line.kind is LineKind.REMOVED else added).append(line)
            continue
        if removed:
            yield Block(tuple(removed), tuple(added), before)
        removed, added = [], []
        if line is not None:
            context.append(line)


def is_comment(text: str) -> bool:
    return text.lstrip().startswith(("#", "//", "/*", "*"))


def added_lines(hunk: Hunk) -> list[HunkLine]:
    return [ln for ln in hunk.lines if ln.kind is LineKind.ADDED and not is_comment(ln.text)]


def pair_of(block: Block, removed: HunkLine) -> HunkLine | None:
    """The added line of the block most like ``removed`` (its replacement), if any is close."""
    candidates = [ln for ln in block.added if ln.text.strip() and not is_comment(ln.text)]
    if not candidates or len(candidates) * max(len(removed.text), 1) > MAX_PAIR_CELLS * 10:
        return None
    old = removed.text.strip()
    best, score = None, 0.45
    for line in candidates:
        ratio = difflib.SequenceMatcher(None, old, line.text.strip(), autojunk=False).ratio()
        if ratio > score:
            best, score = line, ratio
    return best


def nearest(lines: Sequence[HunkLine], removed: HunkLine, hunk: Hunk) -> HunkLine | None:
    if not lines:
        return None
    order = {id(ln): i for i, ln in enumerate(hunk.lines)}
    at = order.get(id(removed), 0)
    return min(lines, key=lambda ln: (abs(order.get(id(ln), 0) - at), order.get(id(ln), 0)))


def make(
    entry_id: str,
    removed: HunkLine,
    target: HunkLine,
    category: Category,
    strong: bool,
    title: str,
    why: str,
    *,
    unchanged: bool = False,
    kept: str | None = None,
    where: str | None = None,
) -> Regression | None:
    """The regression of ``removed`` reported on ``target``; with ``kept`` (the proof that
    the protection still holds) a silenced one, which never becomes a finding."""
    if target.new_number is None or removed.old_number is None:
        return None
    if where is None:
        where = (
            "this unchanged line now runs without it"
            if unchanged
            else "this line is what replaced it"
        )
    detail = (
        f"Base line {removed.old_number} had `{clip(removed.text)}`; the change took that "
        f"protection away and {where}. {why}"
    )
    if kept is not None:
        detail = (
            f"Base line {removed.old_number} had `{clip(removed.text)}`; the protection still "
            f"holds for line {target.new_number}: {kept}."
        )
    return Regression(
        line=target.new_number,
        base_line=removed.old_number,
        removed=removed.text.strip(),
        protection=entry_id,
        category=category,
        strong=strong,
        title=title,
        detail=detail,
        unchanged=unchanged,
        silenced=Silencing.KEPT_PROTECTION.value if kept is not None else "",
    )


def clip(text: str, size: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 3] + "..."


def deletion_point(hunk: Hunk, block: Block) -> HunkLine | None:
    """The first head line of the hunk after the deleted block (else the last one before)."""
    last = max(hunk.lines.index(ln) for ln in block.removed)
    after = [ln for ln in hunk.lines[last + 1 :] if ln.new_number is not None]
    before = [ln for ln in hunk.lines[:last] if ln.new_number is not None]
    return after[0] if after else (before[-1] if before else None)
