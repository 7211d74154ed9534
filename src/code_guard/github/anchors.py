"""Which findings go inline, and where exactly GitHub will accept them.

Only findings at least as confident as the ``inline-confidence`` option are posted inline;
the others are listed in the summary comment with their confidence.

GitHub takes a review comment only on a line the diff shows on the side it names: ``RIGHT``
for an added or context line of the new file, ``LEFT`` for a removed or context line of the
base. A multi-line comment is taken only when both ends sit in the same hunk. Every finding is
checked against the parsed hunks here, before anything is posted, so a 422 from GitHub is the
exception rather than the way anchoring is discovered.

A finding about a protection the change deleted (``Finding.removed_at``) that is reported on
the unchanged line at the deletion point goes on the removed line itself, ``side: LEFT``,
where a human reviewer would put it. One reported on the added line that replaced the
protection stays there (``RIGHT``): that line is what to change, and only a comment on the new
side can offer a one-click suggestion. Either way the reported line (``line_start``, in JSON,
SARIF and annotations) is the head line.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal

from code_guard.agents.confidence import undisputed
from code_guard.change.diff import Change, FileChange, Hunk, LineKind
from code_guard.findings import Finding

Side = Literal["RIGHT", "LEFT"]


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where an inline comment goes: ``line`` (from ``start_line`` if set) on ``side``: the
    new file's line for ``RIGHT``, the base file's for ``LEFT``. Two anchors are the same
    place only with the same side: a base and a head line number can be equal."""

    path: str
    line: int
    start_line: int | None = None
    side: Side = "RIGHT"

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
    if (removed := _removed_anchor(finding, file)) is not None:
        return removed
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


def _removed_anchor(finding: Finding, file: FileChange) -> Anchor | None:
    """The removed line a finding about a deletion goes on (``LEFT``), or None: when it has
    no removed line, when the finding stands on an added line (the replacement), or when that
    base line is not a removed line of the file's hunks."""
    at = finding.removed_at
    if at is None or file.is_added(finding.line_start):
        return None
    removed = any(
        ln.kind is LineKind.REMOVED and ln.old_number == at for h in file.hunks for ln in h.lines
    )
    return Anchor(file.path, at, side="LEFT") if removed else None


def _hunk_of(file: FileChange, line: int) -> Hunk | None:
    return next((h for h in file.hunks if line in h.new_range), None)


def place_findings(
    findings: Iterable[Finding],
    change: Change,
    limit: int,
    already: Collection[str],
    *,
    min_confidence: float = 0.0,
    trust_disputes: bool = False,
) -> Placement:
    """Choose inline comments: anchorable, not already posted, at least ``min_confidence``
    (the ``inline-confidence`` option), at most ``limit``, worst first.

    ``already`` holds the fingerprints found in the pull request's existing review comments.
    A finding the model disputed is judged by its evidence without the dispute
    (``confidence.undisputed``), since the model's word can be steered by the pull request
    and the finding still counts for the gate; it is posted with the model's reason. Only
    when ``trust_disputes`` (``gate-disputed: false``) does the dispute's lowered confidence
    decide, as it then decides the gate.
    """
    inline: list[tuple[Finding, Anchor]] = []
    in_summary: list[tuple[Finding, str]] = []
    done: list[Finding] = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        if finding.fingerprint in already:
            done.append(finding)
            continue
        anchor = anchor_for(finding, change)
        below = _below(finding, min_confidence, trust_disputes)
        if anchor is None:
            in_summary.append((finding, "its lines are not part of the diff"))
        elif below is not None:
            in_summary.append((finding, below))
        elif len(inline) >= limit:
            in_summary.append((finding, f"over the limit of {limit} inline comments"))
        else:
            inline.append((finding, anchor))
    return Placement(tuple(inline), tuple(in_summary), tuple(done))


def _below(finding: Finding, threshold: float, trust_disputes: bool) -> str | None:
    """Why ``finding`` is not confident enough to go inline, or None when it is."""
    lowered = finding.disputed is not None and trust_disputes
    confidence = finding.confidence if lowered else undisputed(finding)
    if confidence >= threshold:
        return None
    why = f"confidence {confidence:.2f} is below inline-confidence {threshold:.2f}"
    return f"disputed by the model ({why})" if lowered else why
