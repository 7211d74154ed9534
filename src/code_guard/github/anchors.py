"""Which findings GitHub will accept as inline comments, and where exactly.

GitHub takes a review comment only on a line the diff shows (added or context) on the new
side, and a multi-line comment only when both ends sit in the same hunk. Every finding is
checked against the parsed hunks here, before anything is posted, so a 422 from GitHub is the
exception rather than the way anchoring is discovered.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from code_guard.diff import Change, FileChange, Hunk
from code_guard.models import Finding


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where an inline comment goes: ``line`` on the new side, from ``start_line`` if set."""

    path: str
    line: int
    start_line: int | None = None

    @property
    def first_line(self) -> int:
        """The first line the comment covers."""
        return self.line if self.start_line is None else self.start_line


@dataclass(frozen=True, slots=True)
class Placement:
    """Findings split into inline comments, summary-only entries, and ones already posted."""

    inline: tuple[tuple[Finding, Anchor], ...]
    in_summary: tuple[tuple[Finding, str], ...]
    already_commented: tuple[Finding, ...]


def anchor_for(finding: Finding, change: Change) -> Anchor | None:
    """Return where GitHub will accept a comment on ``finding``, or None if nowhere."""
    file = change.file(finding.file_path)
    if file is None or not file.reviewable:
        return None
    end_hunk = _hunk_of(file, finding.line_end) if file.in_hunk(finding.line_end) else None
    if end_hunk is None:
        # The end is outside the diff; the first line alone may still be commentable.
        if file.in_hunk(finding.line_start):
            return Anchor(file.path, finding.line_start)
        return None
    start = finding.line_start
    if start < finding.line_end and start in end_hunk.new_range:
        return Anchor(file.path, finding.line_end, start)
    return Anchor(file.path, finding.line_end)


def _hunk_of(file: FileChange, line: int) -> Hunk | None:
    return next((h for h in file.hunks if line in h.new_range), None)


def place_findings(
    findings: Iterable[Finding],
    change: Change,
    limit: int,
    already: Collection[str],
) -> Placement:
    """Choose inline comments: anchorable, not already posted, at most ``limit``, worst first.

    ``already`` holds the fingerprints found in the pull request's existing review comments.
    """
    inline: list[tuple[Finding, Anchor]] = []
    in_summary: list[tuple[Finding, str]] = []
    done: list[Finding] = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        if finding.fingerprint in already:
            done.append(finding)
            continue
        anchor = anchor_for(finding, change)
        if anchor is None:
            in_summary.append((finding, "its lines are not part of the diff"))
        elif len(inline) >= limit:
            in_summary.append((finding, f"over the limit of {limit} inline comments"))
        else:
            inline.append((finding, anchor))
    return Placement(tuple(inline), tuple(in_summary), tuple(done))
