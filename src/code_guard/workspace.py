"""The change's new files written to a temporary directory, for tools that read from disk."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from code_guard.request import ReviewRequest


def safe_relative(path: str) -> PurePosixPath | None:
    """Return ``path`` as a relative path that stays inside a root, or None if it escapes.

    Diff paths are untrusted: ``../../etc/passwd`` must not make us write outside the workspace.
    """
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        return None
    return pure


@contextmanager
def materialize(request: ReviewRequest, paths: tuple[str, ...]) -> Iterator[Path]:
    """Write the new text of ``paths`` under a temporary root, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="code-guard-") as tmp:
        root = Path(tmp)
        for path in paths:
            rel = safe_relative(path)
            if rel is None:
                continue
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(request.text_of(path), encoding="utf-8", errors="surrogateescape")
        yield root
