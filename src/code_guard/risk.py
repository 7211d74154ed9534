"""The order in which a review spends its budget: the riskiest changed files first.

When a model's token or cost cap, or the review's time budget, stops the work part-way, what
was left out should be what matters least. Files are ordered by three keys, in turn:
1. source before tests: a flaw in shipped code reaches users, one in a test does not;
2. by language: code we analyse in depth (Python, JavaScript/TypeScript, Go), then other
   code, then configuration, then prose;
3. by the size of the change, largest first: more new lines, more room for new flaws.
The diff's own order breaks ties, so the order is stable and reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from code_guard.diff import FileChange
from code_guard.knowledge.placeholders import is_test_path

_ANALYSED = frozenset({".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".go"})
_OTHER_CODE = frozenset(
    {".java", ".kt", ".rb", ".php", ".cs", ".c", ".cc", ".cpp", ".h", ".rs", ".swift", ".scala",
     ".sh", ".bash", ".sql", ".html", ".vue", ".svelte"}  # fmt: skip
)
_CONFIG = frozenset({".yml", ".yaml", ".json", ".toml", ".ini", ".cfg", ".conf", ".xml", ".env"})


def language_rank(path: str) -> int:
    """0 for code we analyse in depth, 1 other code, 2 configuration, 3 anything else."""
    name = PurePosixPath(path).name.lower()
    suffix = PurePosixPath(name).suffix
    if suffix in _ANALYSED:
        return 0
    if suffix in _OTHER_CODE or name in {"dockerfile", "makefile"}:
        return 1
    if suffix in _CONFIG:
        return 2
    return 3


def by_risk(files: Sequence[FileChange]) -> tuple[FileChange, ...]:
    """``files`` riskiest first: source before tests, then by language, then by lines added."""
    return tuple(
        sorted(files, key=lambda f: (is_test_path(f.path), language_rank(f.path), -len(f.added)))
    )
