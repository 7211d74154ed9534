"""What a change introduces: the analysers' results on the files as they were before it.

The same analysers run on the base version of every modified file (rebuilt from the head text
and the hunks, ``FileChange.base_text``), over the lines its hunks show. A head result is one
the change only kept, counted and not reported (``--all-findings`` reports it), when it matches
one base result one to one (``Claim``): same file, same enclosing function or class
(``scopes``; module level is a scope of its own), same tool and rule, and the same normalised
code, never the same line number, which the change shifts. A result on a ``def``/``func``/
``function`` line matches on the name, so a function that was already too complex does not
become "new" because its signature changed.

The base results of the lines the hunks show are first claimed by the head's own results on
the unchanged lines of those hunks: the old copy of a flaw keeps its base result, so a second
copy the change adds, even in the same function with the same code, finds none left and is
new. What the change moved (removed here, added there, in the same function) keeps its match.

A naming result is about a name, not a line: it matches on the name it reports, so editing a
line around an old name (``templateEnv = Environment(loader)`` gaining an argument) does not
make the name new. A name the change adds in a file whose shown base lines already break the
same naming rule follows the file's established style, which PEP 8 asks new code to keep
("mixedCase is allowed only in contexts where that's already the prevailing style"): it is
counted as kept, not reported. Only a naming rule's result is ever excused so.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

_DEFINITION = re.compile(
    r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)"
    r"|^\s*func\s+(?:\([^)]*\)\s*)?(\w+)"
    r"|\bfunction\s*\*?\s*(\w+)"
)

Signature = tuple[str, str, str]
# What a result must match on the other side: its file, its scope and its signature.
Claim = tuple[str, str, Signature]


# The name a result reports, as ruff and Semgrep quote it: "Variable `fooBar` in function ...".
_QUOTED_NAME = re.compile(r"`([A-Za-z_][\w.]*)`")


def named(message: str) -> str | None:
    """The name a naming result's ``message`` reports, or None."""
    match = _QUOTED_NAME.search(message)
    return match.group(1) if match else None


def signature(tool: str, rule: str, line: str, name: str | None = None) -> Signature:
    """What identifies a result across the change: tool, rule and normalised code, or the
    ``name`` a naming result reports."""
    if name:
        return tool, rule, "name " + name
    match = _DEFINITION.search(line)
    if match:
        return tool, rule, "def " + next(name for name in match.groups() if name)
    return tool, rule, " ".join(line.split())


@dataclass(frozen=True, slots=True)
class BaseSide:
    """The modified files as they were before the change, written under ``workspace``.

    ``lines`` holds each file's base lines; ``focus`` the base line numbers its hunks show.
    """

    workspace: Path
    disk_paths: Mapping[str, str]
    real_path: Callable[[str], str]
    lines: Mapping[str, list[str]]
    focus: Mapping[str, frozenset[int]]

    def lines_of(self, path: str) -> list[str]:
        """The base lines of ``path`` (none for a file without a base)."""
        return self.lines.get(path, [])

    def line(self, path: str, number: int) -> str:
        """Base line ``number`` of ``path`` ('' when out of range)."""
        lines = self.lines.get(path, [])
        return lines[number - 1] if 0 < number <= len(lines) else ""


class PreExisting:
    """The base results as a multiset of claims; each can excuse one head result."""

    def __init__(self, claims: Iterable[Claim]) -> None:
        self._left = Counter(claims)

    def claim(self, claim: Claim) -> bool:
        """True (and one fewer left) when ``claim`` was already there before the change."""
        if self._left[claim] <= 0:
            return False
        self._left[claim] -= 1
        return True

    def could_claim(self, claim: Claim) -> bool:
        """True when ``claim`` matches a base result still left, without taking it."""
        return self._left[claim] > 0


def naming_styles(results: Iterable[Claim]) -> frozenset[tuple[str, str, str]]:
    """(path, tool, rule) of every naming result among the base ``results``: the naming each
    file already used before the change."""
    return frozenset(
        (path, tool, rule) for path, _, (tool, rule, code) in results if code.startswith("name ")
    )
