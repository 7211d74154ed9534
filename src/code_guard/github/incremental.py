"""Incremental reviews: on a new push, the model sees only the files changed since last time.

The summary comment records the commit it reviewed and the model's own findings (hidden
markers, in the comment this action owns, so a PR author cannot write them). On a
``synchronize`` event, the files changed between that commit and the new head (GitHub's
compare API) are the only ones sent to the model; the static analysis still reviews every
file, as it is cheap and deterministic. The model's earlier findings on files that did not
change carry over into the new review. A force-push (the reviewed commit is no longer an
ancestor of the head), an unknown commit, a re-run on the same commit or a marker that does
not read falls back to a full review, and the summary says which it was.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import TypeAdapter, ValidationError

from code_guard.diff import Change
from code_guard.errors import GitHubError
from code_guard.github.client import GitHubClient
from code_guard.models import AgentState, Finding, Review
from code_guard.sanitize import redact
from code_guard.synthesizer import health_score, summarize, verdict

_REVIEWED = re.compile(r"<!-- code-guard:reviewed ([0-9a-f]{40}) -->")
_CARRIED = re.compile(r"<!-- code-guard:model-findings ([A-Za-z0-9+/=]+) -->")
# GitHub's compare API lists at most 300 files; beyond that the list is incomplete.
COMPARE_FILE_LIMIT = 300
# The hidden findings must leave room in the 65,536-character comment for the report.
_CARRIED_BUDGET = 12_000
_FINDINGS = TypeAdapter(list[Finding])


@dataclass(frozen=True, slots=True)
class Increment:
    """What the model reviews this run: ``model_paths`` (None: every file), and why."""

    model_paths: frozenset[str] | None
    note: str
    carried: tuple[Finding, ...] = ()


def markers(head_sha: str, review: Review) -> str:
    """The hidden lines that let the next run review incrementally: the commit reviewed and
    the model's own findings (compressed; the oldest dropped past the budget).

    Empty unless the model saw every file (a static-only review, a failed agent, or a file
    left out by a cap means the next review must be full)."""
    if not model_saw_everything(review):
        return ""
    own = [f for f in review.findings if "model" in f.sources]
    while True:
        data = redact(_FINDINGS.dump_json(own).decode("utf-8")).encode("utf-8")
        packed = base64.b64encode(zlib.compress(data, 9)).decode("ascii")
        if len(packed) <= _CARRIED_BUDGET or not own:
            break
        own = own[: len(own) // 2]
    lines = [f"<!-- code-guard:reviewed {head_sha} -->"]
    if own:
        lines.append(f"<!-- code-guard:model-findings {packed} -->")
    return "\n".join(lines)


def model_saw_everything(review: Review) -> bool:
    """Whether every reviewed file went through a model that answered (files an incremental
    review left out on purpose count as seen: the model saw them before)."""
    return (
        not review.static_only
        and all(a.state is AgentState.OK for a in review.agents)
        and all(f.deliberate for f in review.not_sent_to_model)
    )


def last_reviewed(body: str) -> str | None:
    """The commit the summary comment says was reviewed, if it says one."""
    match = _REVIEWED.search(body)
    return match.group(1) if match else None


def carried_findings(body: str) -> tuple[Finding, ...] | None:
    """The model findings the summary comment recorded; None when they do not read."""
    match = _CARRIED.search(body)
    if match is None:
        return ()
    try:
        data = zlib.decompress(base64.b64decode(match.group(1), validate=True))
        return tuple(_FINDINGS.validate_json(data))
    except (binascii.Error, zlib.error, ValidationError, json.JSONDecodeError):
        return None


def plan_increment(
    client: GitHubClient, action: str, head_sha: str, summary_body: str | None
) -> Increment:
    """Decide what the model reviews: the files changed since the last reviewed commit on a
    ``synchronize``, else everything."""
    if action != "synchronize":
        return Increment(None, "")
    previous = last_reviewed(summary_body or "")
    if previous is None:
        return Increment(None, "full review: no earlier review of this pull request was found")
    if previous == head_sha:
        return Increment(None, f"full review: commit {head_sha[:7]} is reviewed again")
    carried = carried_findings(summary_body or "")
    if carried is None:
        return Increment(None, "full review: the earlier review's record could not be read")
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


def carry_over(review: Review, carried: Sequence[Finding], change: Change) -> Review:
    """``review`` with the model's earlier findings on unchanged files added back, each only
    while its line is still an added line of the pull request with the same text."""
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
            "verdict": verdict(findings, review.complete),
            "summary": summarize(
                findings,
                review.static_only_reason,
                review.outcome,
                review.outcome_reasons,
                review.preexisting,
            ),
        }
    )
