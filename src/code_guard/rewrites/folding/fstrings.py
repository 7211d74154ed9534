"""f-strings of Python 3.12 masked for an older parser, with every line and column kept."""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------------
# f-strings of Python 3.12, masked for an older parser

_PREFIX = frozenset("rRbBuUfF")
# Where an f-string may start: an ``f`` of its prefix, then at most one more prefix letter
# and its quote. A text without one has nothing to mask.
_FSTRING_START = re.compile(r"[fF][rRbBuUfF]?['\"]")


def _string_at(source: str, i: int) -> tuple[int, str, bool] | None:
    """When a string literal starts at ``i``: where its body starts, its quote, and whether it
    is an f-string."""
    j = i
    while j < len(source) and j - i < 2 and source[j] in _PREFIX:
        j += 1
    if j >= len(source) or source[j] not in "'\"":
        return None
    if i > 0 and (source[i - 1].isalnum() or source[i - 1] == "_") and j > i:
        return None  # the end of a name, not a prefix
    quote = source[j] * 3 if source.startswith(source[j] * 3, j) else source[j]
    return j + len(quote), quote, "f" in source[i:j].lower()


def _string_end(source: str, i: int, quote: str, fstring: bool) -> int | None:
    """The index just after the literal whose body starts at ``i``."""
    n = len(source)
    while i < n:
        if source.startswith(quote, i):
            return i + len(quote)
        c = source[i]
        if c == "\\":
            i += 2
        elif c == "\n" and len(quote) == 1:
            return None
        elif fstring and c == "{":
            if source.startswith("{{", i):
                i += 2
            else:
                end = _replacement_end(source, i + 1)
                if end is None:
                    return None
                i = end
        else:
            i += 1
    return None


def _replacement_end(source: str, i: int) -> int | None:
    """The index just after the ``}`` closing the replacement field whose body starts at
    ``i``, strings of any quote nested inside (Python 3.12)."""
    depth, n = 0, len(source)
    while i < n:
        c = source[i]
        start = _string_at(source, i) if c in _PREFIX or c in "'\"" else None
        if start is not None:
            end = _string_end(source, start[0], start[1], start[2])
            if end is None:
                return None
            i = end
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i + 1
            depth -= 1
        elif c == ":" and depth == 0 and not source.startswith(":=", i):
            return _string_end(source, i + 1, "}", True)  # the format spec, to its ``}``
        i += 1
    return None


def _masked_fstrings(source: str) -> str | None:
    """``source`` with every f-string replaced, character for character, by a name (an
    unknown value): ``f'{a}'`` becomes ``______``, one over several lines ``(___ ... )``.
    None when a literal does not end."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "#":
            end_of_line = source.find("\n", i)
            i = n if end_of_line < 0 else end_of_line
            continue
        start = _string_at(source, i) if c in _PREFIX or c in "'\"" else None
        if start is None:
            i += 1
            continue
        end = _string_end(source, start[0], start[1], start[2])
        if end is None:
            return None
        if start[2]:
            _mask(out, source, i, end)
        i = end
    return "".join(out)


def _mask(out: list[str], source: str, start: int, end: int) -> None:
    multiline = "\n" in source[start:end]
    for k in range(start, end):
        if source[k] != "\n":
            out[k] = " " if multiline else "_"
    if multiline:
        out[start], out[start + 1], out[end - 1] = "(", "_", ")"
