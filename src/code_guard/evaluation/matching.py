"""One-to-one matching of produced findings to expected ones, as a maximum bipartite matching.

A produced finding can stand for an expected one when both name the same file and the same
category and their lines are at most ``tolerance`` apart (a model may point at the use of a
tainted value rather than its definition). Each finding stands for at most one expected
finding and the other way round.

First-come greedy matching undercounts when one finding is close to two expected ones: it can
take the one a later finding needed. A maximum matching (augmenting paths, Kuhn's algorithm)
counts every true positive that some one-to-one assignment allows. Candidates are tried
nearest line first, so among maximum matchings the one found pairs close lines where it can;
everything is deterministic for a given order of inputs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from code_guard.findings import Category

DEFAULT_TOLERANCE = 3


class Located(Protocol):
    """Anything with a file, a line and a category: a ``Finding`` or an ``ExpectedFinding``."""

    @property
    def file_path(self) -> str: ...

    @property
    def line_start(self) -> int: ...

    @property
    def category(self) -> Category: ...


def can_match(found: Located, expected: Located, tolerance: int) -> bool:
    """True when ``found`` may stand for ``expected``: same file and category, lines close."""
    return (
        found.file_path == expected.file_path
        and found.category == expected.category
        and abs(found.line_start - expected.line_start) <= tolerance
    )


@dataclass(frozen=True, slots=True)
class Matching:
    """Matched ``(found index, expected index)`` pairs, sorted, plus the sizes of both sides."""

    pairs: tuple[tuple[int, int], ...]
    found_count: int
    expected_count: int

    @property
    def true_positives(self) -> int:
        """Matched pairs."""
        return len(self.pairs)

    @property
    def false_positives(self) -> int:
        """Produced findings left unmatched."""
        return self.found_count - len(self.pairs)

    @property
    def false_negatives(self) -> int:
        """Expected findings left unmatched."""
        return self.expected_count - len(self.pairs)

    @property
    def matched_found(self) -> frozenset[int]:
        """Indices of the produced findings that matched."""
        return frozenset(f for f, _ in self.pairs)


def match_findings(
    found: Sequence[Located], expected: Sequence[Located], tolerance: int = DEFAULT_TOLERANCE
) -> Matching:
    """Return a maximum one-to-one matching of ``found`` to ``expected`` findings."""
    if tolerance < 0:
        raise ValueError("tolerance must be >= 0")
    index = _index(expected)
    edges = [_candidates(f, expected, index, tolerance) for f in found]
    state = _State(owner=[None] * len(expected), partner=[None] * len(found))
    for start, candidates in enumerate(edges):
        if candidates:
            state.augment(start, edges)
    pairs = sorted((f, j) for j, f in enumerate(state.owner) if f is not None)
    return Matching(tuple(pairs), len(found), len(expected))


_Index = dict[tuple[str, Category], list[tuple[int, int]]]


def _index(expected: Sequence[Located]) -> _Index:
    """Expected findings by (file, category), as sorted ``(line, index)`` lists.

    Lets each finding look up its candidates by bisection instead of scanning every expected
    finding: large fixtures hold hundreds of findings on both sides.
    """
    index: _Index = {}
    for j, e in enumerate(expected):
        index.setdefault((e.file_path, e.category), []).append((e.line_start, j))
    for lines in index.values():
        lines.sort()
    return index


def _candidates(
    found: Located, expected: Sequence[Located], index: _Index, tolerance: int
) -> list[int]:
    """Indices of the expected findings ``found`` may match, nearest line first."""
    lines = index.get((found.file_path, found.category), [])
    low = bisect_left(lines, (found.line_start - tolerance, -1))
    high = bisect_right(lines, (found.line_start + tolerance, len(expected)))
    hits = [j for _, j in lines[low:high]]
    return sorted(hits, key=lambda j: (abs(found.line_start - expected[j].line_start), j))


@dataclass(slots=True)
class _State:
    """The matching under construction: ``owner[expected] = found`` and its inverse."""

    owner: list[int | None]
    partner: list[int | None]

    def augment(self, start: int, edges: list[list[int]]) -> bool:
        """Find an augmenting path from the free ``start`` by breadth-first search; flip it.

        Iterative on purpose: a recursive search would hit Python's recursion limit on a case
        with a thousand findings in one place.
        """
        # came_from[j]: the found vertex from which expected j was first reached.
        came_from: dict[int, int] = {}
        queue = deque([start])
        while queue:
            f = queue.popleft()
            for j in edges[f]:
                if j in came_from:
                    continue
                came_from[j] = f
                holder = self.owner[j]
                if holder is None:
                    self._flip(j, came_from)
                    return True
                queue.append(holder)
        return False

    def _flip(self, free: int, came_from: dict[int, int]) -> None:
        """Walk back from the free expected vertex, moving each found vertex on the path."""
        current: int | None = free
        while current is not None:
            f = came_from[current]
            previous = self.partner[f]
            self.owner[current] = f
            self.partner[f] = current
            current = previous
