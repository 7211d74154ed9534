"""``matcher``: git's ignore patterns as pathspec reads them; no pathspec without a pattern."""

from __future__ import annotations

import pathspec
import pytest

from code_guard.change.patterns import matcher

PATHS = (
    "app.py", "docs/index.md", "docs/api/v1.md", "src/docs/x.py", "vendor/lib/a.js",
    "build/out.min.js", "README.md", "a/b/c/README.md", "keep.log", "debug.log", ".env",
)  # fmt: skip


@pytest.mark.parametrize(
    "patterns",
    [
        ["docs/"],
        ["*.md", "!README.md"],
        ["/docs", "**/vendor/**"],
        ["*.log", "!keep.log", ".env"],
        ["# a comment", ""],
        ["build/*.min.js", "src/**/x.py"],
    ],
)
def test_patterns_match_what_pathspec_matches(patterns: list[str]) -> None:
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    ignored = matcher(patterns)
    assert [ignored(p) for p in PATHS] == [spec.match_file(p) for p in PATHS]


def test_no_pattern_matches_no_path() -> None:
    ignored = matcher(())
    assert not any(ignored(p) for p in PATHS)
    assert any(matcher(["*.md"])(p) for p in PATHS)  # the paths can match
