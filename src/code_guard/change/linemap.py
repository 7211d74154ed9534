"""Line numbers as git counts them, for the analysers that end a line at more than ``\\n``.

Git, the diff and every comment on the pull request end a line at ``\\n`` only. Python's
tokenizer (so Bandit, Ruff and the Python checks) and detect-secrets also end one at a lone
``\\r`` (one not followed by ``\\n``): a few of them in a comment shifted every result after it
onto another line, an unchanged one, where it was dropped. Tried on each analyser (issue 27):
``\\r\\n`` is one line end for all of them; ``\\x0b``, ``\\x0c``, ``\\x1c``-``\\x1e``,
``\\x85``, ``\\u2028`` and ``\\u2029`` end no line for any (Bandit, Ruff, detect-secrets, the
Python checks, semgrep-core on Python, JavaScript and Go); a lone ``\\r`` ends one for all but
semgrep-core, which counts ``\\n`` only (and took one in a JavaScript comment for a syntax
error).

So the copy the analysers read is written with every lone ``\\r`` made ``\\n``
(``analysed_text``): all of them then agree on its lines, and ``LineMap`` takes each result
back to git's line (and the lines a review focuses on, given in git's numbers, to the copy's).
For Python and JavaScript this is the language's own reading: their parsers end a line at a
lone ``\\r`` as at ``\\n``, and neither allows one inside a one-line string. Go reads a
carriage return as white space (the Go specification, "Tokens"), where a line end would insert
a semicolon; a Go copy gets a space instead, which keeps both its meaning and its lines.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from code_guard.tools.base import ToolHit

_LONE_CR = re.compile(r"\r(?!\n)")
# Files whose language reads a carriage return as white space, never as a line end.
_CR_IS_SPACE = (".go",)


def _cr_is_space(path: str) -> bool:
    return path.lower().endswith(_CR_IS_SPACE)


def analysed_text(path: str, text: str) -> str:
    """``text`` as the analysers are given it: each lone ``\\r`` a line end (``\\n``), or a
    space where the language of ``path`` reads it so."""
    if "\r" not in text:
        return text
    return _LONE_CR.sub(" " if _cr_is_space(path) else "\n", text)


@dataclass(frozen=True, slots=True)
class LineMap:
    """Between git's line numbers of one file and those of its analysed copy.

    ``firsts[i]`` is the copy's number of the first line of git's line ``i + 1``, ``end`` the
    number after the copy's last line.
    """

    firsts: tuple[int, ...]
    end: int

    def to_git(self, line: int) -> int:
        """Git's number of the copy's ``line`` (one past the end stays on the last line)."""
        if line < 1:
            return line
        return max(bisect.bisect_right(self.firsts, line), 1)

    def to_analysed(self, lines: Iterable[int]) -> frozenset[int]:
        """The copy's numbers of git's ``lines``: every line each of them became."""
        out: set[int] = set()
        for line in lines:
            if 0 < line <= len(self.firsts):
                end = self.firsts[line] if line < len(self.firsts) else self.end
                out.update(range(self.firsts[line - 1], end))
        return frozenset(out)


def line_map(path: str, lines: Sequence[str]) -> LineMap | None:
    """The map of a file whose git lines (``request.split_lines``: each ``\\r`` left in them
    is lone) are ``lines``; None when the copy has the same lines as git."""
    if _cr_is_space(path) or not any("\r" in line for line in lines):
        return None
    firsts: list[int] = []
    at = 1
    for line in lines:
        firsts.append(at)
        at += 1 + line.count("\r")
    return LineMap(tuple(firsts), at)


def maps_of(files: Iterable[tuple[str, Sequence[str]]]) -> dict[str, LineMap]:
    """The line map of each of ``files`` (path, git lines) whose analysed copy has other
    lines than git."""
    return {path: m for path, lines in files if (m := line_map(path, lines)) is not None}


def analysed_lines(mapping: LineMap | None, lines: Iterable[int]) -> Collection[int]:
    """Git's ``lines`` of a file as its analysed copy numbers them."""
    return mapping.to_analysed(lines) if mapping is not None else frozenset(lines)


def on_git_lines(
    hits: Iterable[ToolHit], real_path: Callable[[str], str], maps: Mapping[str, LineMap]
) -> list[ToolHit]:
    """``hits`` on the change's paths and git's line numbers: an analyser that ends a line
    at a lone ``\\r`` counts more lines than git."""
    out = []
    for hit in hits:
        path = real_path(hit.file_path)
        mapping = maps.get(path)
        if mapping is None:
            out.append(replace(hit, file_path=path))
        else:
            line, end = mapping.to_git(hit.line), mapping.to_git(hit.end_line)
            out.append(replace(hit, file_path=path, line=line, end_line=end))
    return out
