"""Every pattern of the regression catalogue runs in linear time on lines built to make it
backtrack, and so does the whole detector on a long line.

A pull request writes the lines these patterns read, and the detector runs in a worker thread
that no time budget can stop, so one quadratic pattern stalls a review: a 200 kB string of SQL
words once held a 6 s review for 24 s. The approach is ``test_regex_fuzz.py``'s: run each
pattern over an input of two sizes ten times apart and compare the CPU time (linear work grows
about 10x, quadratic about 100x), failing only when the growth is large *and* the bigger run
took long enough to measure. The inputs are made for these patterns: an opener (a quote, a
call's parenthesis) followed by a long run of one of the pattern's own words, which is the
shape that makes ``"[^"]*KEYWORD[^"]*"`` try every keyword against every end.
"""

from __future__ import annotations

import difflib
import re

import pytest
from cputime import cpu_budget, cpu_seconds

from code_guard.change.diff import parse_diff
from code_guard.knowledge.protections import catalogue
from code_guard.tools.regressions.detector import find_regressions

SMALL, BIG = 1_000, 10_000
MAX_GROWTH = 30.0  # linear is ~10x, quadratic ~100x
MEASURABLE_S = 0.02  # below this at BIG nothing is quadratic at BIG, whatever the ratio
ALARM_S = 5.0
OPENERS = ("", "'", '"', "`", "f'", '("', 'Sprintf("', '.execute("', ".query('", "$('")
_WORD = re.compile(r"[A-Za-z_]{2,}")


def _patterns() -> dict[str, str]:
    """Every pattern the catalogue holds (sinks, name hints, generic names, protections)."""
    cat = catalogue()
    found = [p for sink in cat.sinks for p in sink.patterns]
    found += [hint.pattern for hint in cat.name_hints]
    found += [p for p in (cat.generic_sanitiser, cat.generic_exclude) if p]
    for entry in cat.protections:
        found += [p for p in (entry.protection, entry.unsafe, entry.call, entry.not_if) if p]
    return {f"{p[:50]!r}#{i}": p for i, p in enumerate(dict.fromkeys(found))}


def _bodies(pattern: str) -> list[str]:
    """Runs to repeat: the pattern's own words with a space or an ``=`` after them, and the
    punctuation its classes are about."""
    words = list(dict.fromkeys(_WORD.findall(pattern)))[:12]
    return [*(w + " " for w in words), *(w + " = " for w in words[:3]), "? ", "%s ", "<a ", "a."]


def _growth(pattern: re.Pattern[str], opener: str, body: str) -> tuple[float, float]:
    def scan(size: int) -> float:
        text = opener + body * (size // len(body)) + "\x00"
        return cpu_seconds(lambda: sum(1 for _ in pattern.finditer(text)))

    with cpu_budget(ALARM_S):
        big = scan(BIG)
        if big < MEASURABLE_S:
            return 0.0, big
        return scan(SMALL), min(big, scan(BIG))


@pytest.mark.parametrize("pattern", list(_patterns().values()), ids=list(_patterns()))
def test_every_catalogue_pattern_is_linear(pattern: str) -> None:
    compiled = re.compile(pattern)
    for opener in OPENERS:
        for body in _bodies(pattern):
            small, big = _growth(compiled, opener, body)
            assert big < MEASURABLE_S or big < MAX_GROWTH * max(small, 1e-4), (
                f"{pattern!r} grew {big / max(small, 1e-4):.0f}x on {opener!r} + {body!r}*n"
            )


def _review_seconds(size: int) -> float:
    """CPU time of the detector on a change that swaps a parameterised query for a line of
    ``size`` characters of SQL words in an unclosed string (the shape of the stall)."""
    base = 'def find(cur, name):\n    cur.execute("SELECT * FROM t WHERE n = ?", (name,))\n'
    words = "SELECT name FROM WHERE VALUES " * (size // 30)
    head = base.replace('"SELECT * FROM t WHERE n = ?", (name,)', f'"{words}" + name')
    diff = "".join(
        difflib.unified_diff(
            base.splitlines(keepends=True), head.splitlines(keepends=True), "a/q.py", "b/q.py"
        )
    )
    change = parse_diff(f"diff --git a/q.py b/q.py\n{diff}").files[0]
    return cpu_seconds(lambda: find_regressions(change, head))


def test_the_detector_is_linear_on_a_long_line_of_sql_words() -> None:
    with cpu_budget(ALARM_S * 4):
        small = _review_seconds(20_000)
        big = _review_seconds(200_000)
    assert big < 1.0 or big < MAX_GROWTH * max(small, 1e-3), (small, big)
