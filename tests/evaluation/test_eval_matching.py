"""Tests of the one-to-one maximum matching of findings to expected findings."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

import pytest
from evalfakes import make_finding
from hypothesis import given, settings
from hypothesis import strategies as st

from code_guard.evaluation.dataset import ExpectedFinding
from code_guard.evaluation.matching import Located, can_match, match_findings
from code_guard.findings import Category

SQL = Category.SQL_INJECTION
XSS = Category.XSS


def expected(file_path: str, line: int, category: Category) -> ExpectedFinding:
    return ExpectedFinding(file_path=file_path, line_start=line, category=category)


def greedy_first_come(found: Sequence[Located], wanted: Sequence[Located], tolerance: int) -> int:
    """The earlier harness's matching: each expected finding takes the first free finding."""
    taken: set[int] = set()
    for e in wanted:
        for j, f in enumerate(found):
            if j not in taken and can_match(f, e, tolerance):
                taken.add(j)
                break
    return len(taken)


def test_maximum_matching_beats_greedy_first_come() -> None:
    # The finding at line 12 can stand for either expected finding; the one at 9 only for
    # line 10. Greedy gives line 10 to the finding at 12 and leaves line 14 unmatched.
    found = [make_finding("a.py", 12, SQL), make_finding("a.py", 9, SQL)]
    wanted = [expected("a.py", 10, SQL), expected("a.py", 14, SQL)]

    assert greedy_first_come(found, wanted, 3) == 1
    matching = match_findings(found, wanted, 3)

    assert matching.pairs == ((0, 1), (1, 0))
    assert (matching.true_positives, matching.false_positives, matching.false_negatives) == (
        2,
        0,
        0,
    )


@pytest.mark.parametrize(
    ("distance", "matches"), [(-4, False), (-3, True), (0, True), (3, True), (4, False)]
)
def test_tolerance_boundary_is_inclusive(distance: int, matches: bool) -> None:
    found = [make_finding("a.py", 10 + distance, SQL)]
    matching = match_findings(found, [expected("a.py", 10, SQL)], tolerance=3)
    assert matching.true_positives == (1 if matches else 0)


def test_tolerance_is_configurable() -> None:
    found = [make_finding("a.py", 14, SQL)]
    wanted = [expected("a.py", 10, SQL)]
    assert match_findings(found, wanted, tolerance=4).true_positives == 1
    assert match_findings(found, wanted, tolerance=0).true_positives == 0
    assert match_findings([make_finding("a.py", 10, SQL)], wanted, 0).true_positives == 1


def test_other_file_or_category_never_matches() -> None:
    wanted = [expected("a.py", 10, SQL)]
    assert match_findings([make_finding("b.py", 10, SQL)], wanted).true_positives == 0
    assert match_findings([make_finding("a.py", 10, XSS)], wanted).true_positives == 0
    assert match_findings([make_finding("A.py", 10, SQL)], wanted).true_positives == 0


def test_one_to_one_two_findings_one_expected() -> None:
    found = [make_finding("a.py", 10, SQL), make_finding("a.py", 11, SQL)]
    matching = match_findings(found, [expected("a.py", 10, SQL)])
    assert (matching.true_positives, matching.false_positives, matching.false_negatives) == (
        1,
        1,
        0,
    )
    assert matching.pairs == ((0, 0),)


def test_nearest_line_is_preferred_when_the_count_allows() -> None:
    found = [make_finding("a.py", 12, SQL)]
    matching = match_findings(found, [expected("a.py", 10, SQL), expected("a.py", 13, SQL)])
    assert matching.pairs == ((0, 1),)


def test_empty_sides() -> None:
    assert match_findings([], []).pairs == ()
    only_found = match_findings([make_finding("a.py", 1, SQL)], [])
    assert (only_found.false_positives, only_found.false_negatives) == (1, 0)
    only_expected = match_findings([], [expected("a.py", 1, SQL)])
    assert (only_expected.false_positives, only_expected.false_negatives) == (0, 1)


def test_negative_tolerance_is_rejected() -> None:
    with pytest.raises(ValueError, match="tolerance"):
        match_findings([], [], tolerance=-1)


def test_long_augmenting_path_does_not_recurse() -> None:
    # Expected j sits on line 2j+2; chain finding i on 2i+3, next to expected i and i+1, and
    # takes expected i. The last finding (line 1) can only take expected 0, so every chain
    # finding must shift one place: an augmenting path through all of them, which a recursive
    # search would follow 3000 frames deep.
    n = 3000
    wanted = [expected("a.py", 2 * j + 2, SQL) for j in range(n)]
    chain = [make_finding("a.py", 2 * i + 3, SQL) for i in range(n - 1)]
    found = [*chain, make_finding("a.py", 1, SQL)]

    matching = match_findings(found, wanted, tolerance=1)

    assert matching.true_positives == n
    assert matching.pairs[:2] == ((0, 1), (1, 2))
    assert matching.pairs[-1] == (n - 1, 0)


def _brute_force(found: Sequence[Located], wanted: Sequence[Located], tolerance: int) -> int:
    """The largest number of one-to-one pairs, by trying every assignment."""
    best = 0
    slots = list(range(len(wanted))) + [None] * len(found)
    for assignment in set(permutations(slots, len(found))):
        pairs = sum(
            1
            for f, j in zip(found, assignment, strict=True)
            if j is not None and can_match(f, wanted[j], tolerance)
        )
        best = max(best, pairs)
    return best


_point = st.tuples(
    st.sampled_from(["a.py", "b.py"]), st.integers(1, 12), st.sampled_from([SQL, XSS])
)


@settings(max_examples=150, deadline=None)
@given(
    found=st.lists(_point, max_size=4),
    wanted=st.lists(_point, max_size=4),
    tolerance=st.integers(0, 4),
)
def test_matching_is_maximum_and_one_to_one(
    found: list[tuple[str, int, Category]],
    wanted: list[tuple[str, int, Category]],
    tolerance: int,
) -> None:
    f = [make_finding(*p) for p in found]
    e = [expected(*p) for p in wanted]
    matching = match_findings(f, e, tolerance)

    assert matching.true_positives == _brute_force(f, e, tolerance)
    assert len({i for i, _ in matching.pairs}) == len(matching.pairs)
    assert len({j for _, j in matching.pairs}) == len(matching.pairs)
    assert all(can_match(f[i], e[j], tolerance) for i, j in matching.pairs)
