"""The order in which a review spends its budget: the riskiest changed files first.

When a model's token or cost cap, or the review's time budget, stops the work part-way, what
was left out should be what matters least. Files are ordered by three keys, in turn:
1. source before tests: a flaw in shipped code reaches users, one in a test does not;
2. by language (``languages.py``): code we analyse in depth (Python, JavaScript/TypeScript,
   Go), then other code, then configuration, then prose;
3. by the size of the change, largest first: more new lines, more room for new flaws.
The diff's own order breaks ties, so the order is stable and reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

from code_guard.change.diff import FileChange
from code_guard.knowledge.placeholders import is_test_path
from code_guard.languages import Kind, language_of

_RANK = {Kind.CODE: 1, Kind.MARKUP: 1, Kind.BUILD: 1, Kind.CONFIG: 2, Kind.PROSE: 3}


def language_rank(path: str) -> int:
    """0 for code we analyse in depth, 1 other code (markup and build files too), 2
    configuration, 3 anything else (prose, unknown suffixes)."""
    language = language_of(path)
    if language is None:
        return 3
    return 0 if language.code_analysed else _RANK[language.kind]


def by_risk(files: Sequence[FileChange]) -> tuple[FileChange, ...]:
    """``files`` riskiest first: source before tests, then by language, then by lines added."""
    return tuple(
        sorted(files, key=lambda f: (is_test_path(f.path), language_rank(f.path), -len(f.added)))
    )
