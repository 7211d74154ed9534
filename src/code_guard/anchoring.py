"""Re-anchoring of model findings to the exact added line they quote.

Models misnumber lines; they rarely misquote them. A model finding names a line number and
quotes the line's text. We trust the text: the finding goes to the added line whose text
matches the quote exactly, else ignoring whitespace, choosing the match nearest to the number
the model gave. A finding whose quote matches no added line of its file is dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from code_guard.diff import Change, FileChange


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
    first = next((line for line in quote.splitlines() if line.strip()), "")
    if not first.strip():
        return None
    return _nearest(file.added, hint, lambda text: text == first) or _nearest(
        file.added, hint, lambda text: bool(_squash(first)) and _squash(text) == _squash(first)
    )


def _nearest(added: Mapping[int, str], hint: int, match: Callable[[str], bool]) -> int | None:
    lines = [number for number, text in added.items() if match(text)]
    return min(lines, key=lambda n: (abs(n - hint), n)) if lines else None
