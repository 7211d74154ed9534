"""Git's ignore patterns over changed paths: ``paths-ignore`` and ``.gitattributes``' lines.

pathspec is imported only when there is a pattern to match. Most reviews have none, and its
import (5 ms) was part of every review's start-up, on the path to its first analyser.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether a path matches ``patterns``, read as ``.gitignore`` lines are
    (``pathspec.GitIgnoreSpec``); with no pattern, no path does."""
    if not patterns:
        return _none
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns).match_file


def _none(path: str) -> bool:
    return False
