"""Re-anchoring of model findings to the exact added line they quote.

Models misnumber lines; they rarely misquote them. A model finding names a line number and
quotes the line's text. We trust the text: the finding goes to the added line whose text
matches the quote exactly, else ignoring whitespace, choosing the match nearest to the number
the model gave. A finding whose quote matches no added line of its file is dropped.

A finding about what the pull request removed (a sanitiser, a guard, a safe call) quotes the
removed line. It goes to the added line nearest that removed line in the same hunk: the line
that replaced it, most often. Whatever the quote, a finding lands only on an added line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from code_guard.change.diff import Change, FileChange, Hunk, LineKind


def _squash(text: str) -> str:
    return "".join(text.split())


def resolve_file(change: Change, file_path: str) -> FileChange | None:
    """The changed file a model means by ``file_path``: as given, else without a ``./`` or
    git's ``b/`` prefix (only when no file has the name as given)."""
    for candidate in (file_path, file_path.removeprefix("./"), file_path.removeprefix("b/")):
        file = change.file(candidate)
        if file is not None:
            return file
    return None


def anchor_line(change: Change, file_path: str, quote: str, hint: int) -> int | None:
    """Return the added line of ``file_path`` that ``quote`` designates, or None."""
    file = resolve_file(change, file_path)
    if file is None or not file.added:
        return None
    first = _first_line(quote)
    if not first:
        return None
    return _nearest(file.added, hint, lambda text: text == first) or _nearest(
        file.added, hint, lambda text: bool(_squash(first)) and _squash(text) == _squash(first)
    )


def _nearest(added: Mapping[int, str], hint: int, match: Callable[[str], bool]) -> int | None:
    lines = [number for number, text in added.items() if match(text)]
    return min(lines, key=lambda n: (abs(n - hint), n)) if lines else None


def anchor_finding(
    change: Change, file_path: str, quote: str, hint: int, removed: str | None = None
) -> int | None:
    """The added line a model finding belongs on, or None.

    A finding that names a ``removed`` line goes beside it (``anchor_removal``); else to the
    added line its ``quote`` designates; else, when the quote is itself a removed line (the
    model quoted what it was told to look at), beside that removed line.
    """
    if removed and (line := anchor_removal(change, file_path, removed, hint, quote)):
        return line
    return anchor_line(change, file_path, quote, hint) or anchor_removal(
        change, file_path, quote, hint
    )


def anchor_removal(
    change: Change, file_path: str, removed: str, hint: int, quote: str = ""
) -> int | None:
    """The added line of the hunk that removed ``removed``: the one ``quote`` names, else the
    nearest one with text (after it on a tie: a replacement follows what it replaces). None
    when no removed line matches, or its hunk added no text (a pure deletion has no added
    line to comment on)."""
    file = resolve_file(change, file_path)
    first = _first_line(removed)
    if file is None or not first:
        return None
    spots = _matches(file, LineKind.REMOVED, lambda t: t == first) or _matches(
        file, LineKind.REMOVED, lambda t: _squash(t) == _squash(first)
    )
    if not spots:
        return None
    hunk, index = min(spots, key=lambda s: (abs(_new_position(*s) - hint), _new_position(*s)))
    # A blank added line is no place for a comment: only lines with text are candidates.
    added = [
        (i, ln)
        for i, ln in enumerate(hunk.lines)
        if ln.kind is LineKind.ADDED and ln.text.strip()
    ]
    if not added:
        return None
    wanted = _first_line(quote)
    named = [ln for _, ln in added if wanted and _squash(ln.text) == _squash(wanted)]
    nearest = min(added, key=lambda p: (abs(p[0] - index), p[0] < index))[1]
    return (named[0] if named else nearest).new_number


def removed_beside(file: FileChange, line: int) -> str | None:
    """The removed line nearest added ``line`` in its hunk (before it on a tie: a replacement
    follows what it replaces), or None when that hunk removed nothing."""
    for hunk in file.hunks:
        index = next((i for i, ln in enumerate(hunk.lines) if ln.new_number == line), None)
        if index is None or hunk.lines[index].kind is not LineKind.ADDED:
            continue
        removed = [(i, ln) for i, ln in enumerate(hunk.lines) if ln.kind is LineKind.REMOVED]
        if removed:
            return min(removed, key=lambda p: (abs(p[0] - index), p[0] > index))[1].text
        return None
    return None


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def _matches(
    file: FileChange, kind: LineKind, match: Callable[[str], bool]
) -> list[tuple[Hunk, int]]:
    return [
        (hunk, i)
        for hunk in file.hunks
        for i, ln in enumerate(hunk.lines)
        if ln.kind is kind and match(ln.text)
    ]


def _new_position(hunk: Hunk, index: int) -> int:
    """Where line ``index`` of ``hunk`` sits among new-file numbers (a removed line has none:
    it sits just before the next line that has one)."""
    for line in hunk.lines[index:]:
        if line.new_number is not None:
            return line.new_number
    return hunk.new_start + hunk.new_length
