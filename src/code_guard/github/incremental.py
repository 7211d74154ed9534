"""Incremental reviews: on a new push, the model sees only the files changed since last time.

The summary comment ends with a record of the commit it reviewed and of the model's own
findings. On a ``synchronize`` event, the files changed between that commit and the new head
(GitHub's compare API) are the only ones sent to the model; the static analysis still reviews
every file, as it is cheap and deterministic. The model's earlier findings on files that did
not change carry over into the new review. A force-push (the reviewed commit is no longer an
ancestor of the head), an unknown commit, a re-run on the same commit or a record that does
not read falls back to a full review, and the summary says which it was.

The record is trusted because of where it is: the action writes it once, as the very last
line of its own summary comment (after all the text that quotes the pull request), and reads
that line only, whole. Text from the pull request (file names in reasons, titles) goes through
``report.plain.plain_line`` and so never holds the record's syntax; a marker that reached the
body some other way would still not be read. There is no secret to sign the record with (the
token changes every run), so its place, not a signature, is what makes it the action's own.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, ValidationError

from code_guard.change.diff import Change
from code_guard.errors import GitHubError
from code_guard.findings import AgentState, Finding, Frozen, Review, Severity
from code_guard.github.client import GitHubClient
from code_guard.review.synthesizer import health_score, summarize, verdict
from code_guard.trust.sanitize import redact

RECORD_PREFIX = "<!-- code-guard:record "
_RECORD = re.compile(r"<!-- code-guard:record ([A-Za-z0-9+/]+={0,2}) -->")
# GitHub's compare API lists at most 300 files; beyond that the list is incomplete.
COMPARE_FILE_LIMIT = 300
# The record must leave room in the 65,536-character comment for the report.
_RECORD_BUDGET = 12_000


class Record(Frozen):
    """What one review leaves for the next: the commit it reviewed and the model's findings."""

    version: Literal[1] = 1
    reviewed: str = Field(pattern=r"^[0-9a-f]{40}$")
    findings: tuple[Finding, ...] = ()


class RecordError(ValueError):
    """The summary comment ends with a record that does not read."""


@dataclass(frozen=True, slots=True)
class Increment:
    """What the model reviews this run: ``model_paths`` (None: every file), and why."""

    model_paths: frozenset[str] | None
    note: str
    carried: tuple[Finding, ...] = ()


def record_trailer(head_sha: str, review: Review) -> str:
    """The record, as the one line that ends the summary comment: the commit reviewed and the
    model's own findings (compressed; the oldest dropped past the budget).

    Empty unless the model saw every file (a static-only review, a failed agent, or a file
    left out by a cap means the next review must be full)."""
    if not model_saw_everything(review):
        return ""
    own = [_redacted(f) for f in review.findings if "model" in f.sources]
    while True:
        record = Record(reviewed=head_sha, findings=tuple(own))
        data = record.model_dump_json().encode("utf-8")
        packed = base64.b64encode(zlib.compress(data, 9)).decode("ascii")
        if len(packed) <= _RECORD_BUDGET or not own:
            return f"{RECORD_PREFIX}{packed} -->"
        own = own[: len(own) // 2]


def _redacted(finding: Finding) -> Finding:
    """``finding`` with the prose the model wrote redacted, as everything posted is. Field by
    field: redacting the JSON text could match across fields and break the record. The place
    (path, anchored line) is the pull request's own text, kept as is so that it still matches
    its line on the next run."""
    prose = ("title", "description", "suggested_fix", "disputed", "suppressed_in_pr")
    update: dict[str, object] = {
        name: redact(text) for name in prose if (text := getattr(finding, name))
    }
    update["dismissal"] = None  # judged afresh on every run, from the comments and the file
    return finding.model_copy(update=update)


def model_saw_everything(review: Review) -> bool:
    """Whether every reviewed file went through a model that answered (files an incremental
    review left out on purpose count as seen: the model saw them before)."""
    return (
        not review.static_only
        and all(a.state is AgentState.OK for a in review.agents)
        and all(f.deliberate for f in review.not_sent_to_model)
    )


def read_record(body: str) -> Record | None:
    """The record on the last line of the summary comment ``body``, or None when that line is
    not one. Raises ``RecordError`` for a last line that starts like a record but does not
    read. Nothing else in the body is looked at: a marker anywhere else is not the action's."""
    last = body.rstrip().rpartition("\n")[2]
    if not last.startswith(RECORD_PREFIX):
        return None
    match = _RECORD.fullmatch(last)
    if match is None:
        raise RecordError("the record line is malformed")
    try:
        data = zlib.decompress(base64.b64decode(match.group(1), validate=True))
        return Record.model_validate_json(data)
    except (binascii.Error, zlib.error, ValidationError) as exc:
        raise RecordError(f"the record does not read ({type(exc).__name__})") from exc


def plan_increment(
    client: GitHubClient, action: str, head_sha: str, summary_body: str | None
) -> Increment:
    """Decide what the model reviews: the files changed since the last reviewed commit on a
    ``synchronize``, else everything."""
    if action != "synchronize":
        return Increment(None, "")
    if summary_body is None:
        return Increment(None, "full review: no earlier review of this pull request was found")
    try:
        record = read_record(summary_body)
    except RecordError:
        return Increment(None, "full review: the earlier review's record could not be read")
    if record is None:
        return Increment(None, "full review: the earlier review left no record to go on from")
    previous, carried = record.reviewed, record.findings
    if previous == head_sha:
        return Increment(None, f"full review: commit {head_sha[:7]} is reviewed again")
    try:
        status, files = client.compare(previous, head_sha)
    except GitHubError as exc:
        return Increment(None, f"full review: comparing with {previous[:7]} failed ({exc})")
    if status not in ("ahead", "identical"):
        return Increment(
            None,
            f"full review: {previous[:7]}, reviewed before, is no longer an ancestor of "
            f"{head_sha[:7]} (a force-push or rebase)",
        )
    if len(files) >= COMPARE_FILE_LIMIT:
        return Increment(None, f"full review: {len(files)}+ files changed since {previous[:7]}")
    changed = frozenset(files)
    kept = tuple(f for f in carried if f.file_path not in changed)
    return Increment(
        changed,
        f"incremental: the model reviewed the {len(changed)} file(s) changed since "
        f"{previous[:7]}; its {len(kept)} earlier finding(s) on the other files carry over",
        kept,
    )


def carry_over(
    review: Review,
    carried: Sequence[Finding],
    change: Change,
    fail_on: Severity | None = Severity.HIGH,
    *,
    count_disputed: bool = True,
) -> Review:
    """``review`` with the model's earlier findings on unchanged files added back, each only
    while its line is still an added line of the pull request with the same text; the verdict
    follows the gate (``fail_on``, ``count_disputed``) as ``synthesizer.verdict`` says."""
    present = {f.fingerprint for f in review.findings}
    kept = []
    for finding in carried:
        file = change.file(finding.file_path)
        line = file.added.get(finding.line_start) if file is not None else None
        if line is None or line.strip() != finding.anchor_text or finding.fingerprint in present:
            continue
        kept.append(finding)
    if not kept:
        return review
    findings = tuple(sorted((*review.findings, *kept), key=lambda f: f.sort_key))
    return review.model_copy(
        update={
            "findings": findings,
            "health_score": health_score(findings),
            "verdict": verdict(findings, review.complete, fail_on, count_disputed=count_disputed),
            "summary": summarize(
                findings,
                review.static_only_reason,
                review.outcome,
                review.outcome_reasons,
                review.preexisting,
            ),
        }
    )
