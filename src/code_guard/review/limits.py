"""The caps that keep a review's cost in proportion to the change, whatever the input.

A file over a cap is listed as not reviewed, with the cap it hit, and the rest of the change
is reviewed; nothing is silently dropped. The figures are documented in the README.
"""

from __future__ import annotations

from collections.abc import Sequence

from code_guard.change.diff import FileChange
from code_guard.change.request import ReviewRequest
from code_guard.findings import SkippedFile

# A changed line longer than this is minified or generated code, or data: the analysers'
# cost explodes on such lines (a 200 KB line of minified JS held the secret scanner 100 s).
MAX_LINE_CHARS = 5_000
# The new text of one file, in characters.
MAX_FILE_CHARS = 2_000_000
# The last line a diff's hunks may place a line on. A hunk header is free text
# (``@@ -1,0 +1000000,1 @@``); past this, rebuilding the file would cost more than the change.
MAX_FILE_LINES = 200_000


def over_cap(request: ReviewRequest, file: FileChange) -> str | None:
    """Why ``file`` is too large to review, or None when it is within every cap."""
    last = max((h.new_start + h.new_length for h in file.hunks), default=0)
    if file.path not in request.contents and last > MAX_FILE_LINES:
        return f"its hunks reach line {last:,}, past the cap of {MAX_FILE_LINES:,} lines"
    longest = max((len(text) for text in file.added.values()), default=0)
    if longest > MAX_LINE_CHARS:
        return (
            f"a changed line is {longest:,} characters long, over the cap of "
            f"{MAX_LINE_CHARS:,} (minified or generated code?)"
        )
    size = len(request.text_of(file.path))
    if size > MAX_FILE_CHARS:
        return f"its new text is {size:,} characters, over the cap of {MAX_FILE_CHARS:,}"
    return None


def within_caps(
    request: ReviewRequest, files: Sequence[FileChange]
) -> tuple[tuple[FileChange, ...], tuple[SkippedFile, ...]]:
    """Split ``files`` into those within every cap and those not reviewed, with the reason."""
    keep: list[FileChange] = []
    skipped: list[SkippedFile] = []
    for file in files:
        reason = over_cap(request, file)
        if reason is None:
            keep.append(file)
        else:
            skipped.append(SkippedFile(path=file.path, reason=reason, deliberate=False))
    return tuple(keep), tuple(skipped)
