"""The synthesizer: merge agent reports into one ranked, deduplicated, scored ``Review``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from code_guard.agents.confidence import assess
from code_guard.findings import (
    AgentReport,
    AgentState,
    Category,
    Finding,
    Outcome,
    Review,
    Severity,
    Silenced,
    Silencing,
    SkippedFile,
    UnreadCode,
    Usage,
    Verdict,
    at_or_above,
)
from code_guard.review.unread import outcome_reasons as unread_reasons
from code_guard.review.unread import summary_sentence

# Findings closer than this (in lines) with the same file and category are one issue.
MERGE_DISTANCE = 2
_PENALTY = {
    Severity.CRITICAL: 30.0,
    Severity.HIGH: 15.0,
    Severity.MEDIUM: 6.0,
    Severity.LOW: 2.0,
    Severity.INFO: 0.0,
}


def same_issue(a: Finding, b: Finding) -> bool:
    """True when ``a`` and ``b`` (with ``a`` starting first) describe one issue.

    Same file and category, lines overlapping or within ``MERGE_DISTANCE`` (overlapping only
    for ``other``). Two results of the
    same tool rule on different lines are two issues (two unused imports on adjacent lines),
    so findings that share a source merge only when they start on the same line.
    """
    if a.file_path != b.file_path or a.category is not b.category:
        return False
    # "other" names no particular issue, so two of them are one only on the same lines.
    distance = 0 if a.category is Category.OTHER else MERGE_DISTANCE
    if b.line_start - a.line_end > distance:
        return False
    # "model" confirms findings of many rules, so sharing it says nothing about sameness.
    shared = (set(a.sources) & set(b.sources)) - {"model"}
    return a.line_start == b.line_start or not shared


def deduplicate(findings: Iterable[Finding]) -> list[Finding]:
    """Merge findings that describe the same issue (see ``same_issue``); the merged finding
    lists every source, with the highest severity and confidence."""
    # Ties are broken on every field that can differ, so the result does not depend on the
    # order in which the agents' analysers happened to finish.
    ordered = sorted(
        findings,
        key=lambda f: (
            f.file_path,
            f.category.value,
            f.line_start,
            f.line_end,
            f.sort_key,
            f.sources,
            f.title,
            f.agent.value,
        ),
    )
    merged: list[Finding] = []
    for finding in ordered:
        if merged and same_issue(merged[-1], finding):
            merged[-1] = merged[-1].merge(finding)
        else:
            merged.append(finding)
    return merged


def health_score(findings: Sequence[Finding]) -> int:
    """100 for a clean change, minus a penalty per finding weighted by confidence."""
    penalty = sum(_PENALTY[f.severity] * (0.5 + 0.5 * f.confidence) for f in findings)
    return max(0, round(100 - penalty))


def outcome(
    reports: Sequence[AgentReport],
    files_reviewed: Sequence[str],
    files_not_reviewed: Sequence[SkippedFile],
    *,
    nothing_to_review: bool = False,
    unread: Sequence[UnreadCode] = (),
) -> tuple[Outcome, tuple[str, ...]]:
    """Whether everything asked for was analysed, and why not when it was not.

    Failed: no agent ran, every agent failed, or no file was analysed (an empty diff, every
    file ignored or unreadable). A change whose files have no text to analyse (deletions,
    binaries, mode changes: ``nothing_to_review``) is reviewed, with nothing to say.
    Partial: an agent failed, an analyser could not parse a file or skipped, timed out or
    crashed on one, a file was skipped for a reason other than the change or the user's
    settings, or a file of code was read by no code analyser and no model (``unread``).
    """
    reasons: list[str] = []
    failed = [r.status for r in reports if r.status.state is AgentState.FAILED]
    if not reports:
        reasons.append("no agent was selected, so nothing was analysed")
    if not files_reviewed and not nothing_to_review:
        if files_not_reviewed:
            reasons.append(f"no file was analysed ({len(files_not_reviewed)} not reviewed)")
        else:
            reasons.append("no file was analysed: the diff holds no file changes")
    reasons += [f"the {a.agent.value} agent failed: {a.reason or 'no reason'}" for a in failed]
    unparsed = sorted({path for r in reports for path in r.unparsed})
    reasons += [f"could not parse {p}: static findings there may be missing" for p in unparsed]
    # An analyser that skipped a file, timed out or crashed on it (the same gap may be seen
    # by several agents sharing one run: it is named once; a file some analyser could not
    # parse is already named above).
    gaps = dict.fromkeys(
        (f.path, f.reason) for r in reports for f in r.not_analysed if f.path not in unparsed
    )
    reasons += [
        f"{path} was analysed only in part: {why}; static findings there may be missing"
        for path, why in gaps
    ]
    reasons += [
        f"{f.path} was not reviewed: {f.reason}" for f in files_not_reviewed if not f.deliberate
    ]
    reasons += unread_reasons(unread)
    unsent = [f for f in not_sent_to_model(reports) if not f.deliberate]
    if unsent:
        reasons.append(
            f"{len(unsent)} file(s) were not sent to the model ({unsent[0].reason}); "
            "static analysis covered them"
        )
    analysed = bool(files_reviewed) or nothing_to_review
    if not reports or not analysed or len(failed) == len(reports):
        return Outcome.FAILED, tuple(reasons)
    return (Outcome.PARTIAL if reasons else Outcome.REVIEWED), tuple(reasons)


def not_sent_to_model(reports: Sequence[AgentReport]) -> tuple[SkippedFile, ...]:
    """Every file some agent's model did not see, once, naming the agents and the reason."""
    by_path: dict[str, list[tuple[str, SkippedFile]]] = {}
    for report in reports:
        for file in report.status.not_sent:
            by_path.setdefault(file.path, []).append((report.status.agent.value, file))
    merged = []
    for path, entries in by_path.items():
        agents = ", ".join(agent for agent, _ in entries)
        first = entries[0][1]
        merged.append(
            SkippedFile(
                path=path,
                reason=f"{first.reason} ({agents})",
                deliberate=all(file.deliberate for _, file in entries),
            )
        )
    return tuple(merged)


def verdict(
    findings: Sequence[Finding],
    complete: bool,
    fail_on: Severity | None = Severity.HIGH,
    *,
    count_disputed: bool = True,
) -> Verdict:
    """Request changes exactly when the gate fails on ``findings`` (``findings.at_or_above`` at
    ``fail_on``, or at high when there is no gate); approve only a complete, clean review;
    comment otherwise.

    The verdict follows the gate's rule, not a rule of its own: it once also asked for
    confidence 0.5, so a high finding the model disputed (its confidence capped lower) read
    as ``comment`` while the step still failed, and a workflow branching on the verdict was
    misled by the very model the gate does not take at its word.
    """
    if at_or_above(findings, fail_on or Severity.HIGH, count_disputed=count_disputed):
        return Verdict.REQUEST_CHANGES
    if findings or not complete:
        return Verdict.COMMENT
    return Verdict.APPROVE


def summarize(
    findings: Sequence[Finding],
    static_reason: str | None,
    state: Outcome = Outcome.REVIEWED,
    reasons: Sequence[str] = (),
    preexisting: int = 0,
    unread: Sequence[UnreadCode] = (),
) -> str:
    """One or two sentences: how many findings of which severity, and what was not run (an
    analyser, a model, or the code of a language no analyser reads)."""
    counts = Counter(f.severity for f in findings)
    if findings:
        parts = [f"{counts[s]} {s.value}" for s in Severity if counts[s]]
        text = f"{len(findings)} finding(s): {', '.join(parts)}."
    else:
        text = "No findings."
    if state is not Outcome.REVIEWED:
        head = "Review failed" if state is Outcome.FAILED else "Incomplete"
        first = reasons[0] if reasons else "see agent status"
        more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
        text += f" {head}: {first[:300]}{more}."
    text += summary_sentence(unread)
    if preexisting:
        text += (
            f" {preexisting} issue(s) on changed lines were there before this change and are "
            "not reported (--all-findings shows them)."
        )
    if static_reason:
        text += f" Static analysis only: {static_reason}."
    return text


def synthesize(
    reports: Sequence[AgentReport],
    *,
    min_confidence: float = 0.0,
    static_reason: str | None = None,
    files_reviewed: Sequence[str] = (),
    files_not_reviewed: Sequence[SkippedFile] = (),
    duration_ms: int = 0,
    nothing_to_review: bool = False,
    warnings: Sequence[str] = (),
    fail_on: Severity | None = Severity.HIGH,
    count_disputed: bool = True,
    unread_code: Sequence[UnreadCode] = (),
) -> Review:
    """Combine the agents' reports into one ``Review``.

    ``unread_code`` names the reviewed files of code no analyser reads (``unread.py``): each
    the model did not read makes the review partial.

    Findings are merged first, so each one's confidence comes from all its evidence
    (``confidence.assess``), and ``min_confidence`` then applies to that. ``fail_on`` and
    ``count_disputed`` are the gate's settings, which the verdict follows (``verdict``).
    """
    merged = deduplicate(f for r in reports for f in r.findings)
    assessed = [f.model_copy(update={"confidence": assess(f)}) for f in merged]
    # A disputed finding of a deterministic detector stays whatever its lowered confidence:
    # otherwise a model told to dispute everything would empty the review again.
    findings = sorted(
        (f for f in assessed if f.confidence >= min_confidence or f.disputed is not None),
        key=lambda f: f.sort_key,
    )
    state, reasons = outcome(
        reports,
        files_reviewed,
        files_not_reviewed,
        nothing_to_review=nothing_to_review,
        unread=unread_code,
    )
    usage = sum((r.status.usage for r in reports), Usage())
    return Review(
        findings=tuple(findings),
        health_score=health_score(findings),
        verdict=verdict(
            findings, state is Outcome.REVIEWED, fail_on, count_disputed=count_disputed
        ),
        summary=summarize(
            findings,
            static_reason,
            state,
            reasons,
            sum(r.preexisting for r in reports),
            unread_code,
        ),
        outcome=state,
        outcome_reasons=reasons,
        warnings=tuple(warnings),
        preexisting=sum(r.preexisting for r in reports),
        silenced=silenced_total(reports),
        silenced_candidates=silenced_candidates(reports),
        agents=tuple(r.status for r in reports),
        usage=usage,
        duration_ms=duration_ms,
        static_only=static_reason is not None,
        static_only_reason=static_reason,
        files_reviewed=tuple(files_reviewed),
        files_not_reviewed=tuple(files_not_reviewed),
        not_sent_to_model=not_sent_to_model(reports),
        unread_code=tuple(unread_code),
    )


def silenced_total(reports: Sequence[AgentReport]) -> dict[Silencing, int]:
    """How many candidates each mechanism held back, over every agent."""
    return {m: sum(r.silenced.get(m, 0) for r in reports) for m in Silencing}


def silenced_candidates(reports: Sequence[AgentReport]) -> tuple[Silenced, ...]:
    """Every agent's silenced candidates (listed when asked for), in the order of place."""
    records = (s for r in reports for s in r.silenced_candidates)
    return tuple(sorted(records, key=lambda s: (s.file_path, s.line, s.mechanism, s.tool, s.rule)))


def with_not_reviewed(review: Review, files: Sequence[SkippedFile]) -> Review:
    """``review`` with ``files`` listed as not reviewed too (files the caller could not hand
    to the engine, such as a patch GitHub withheld); outcome, verdict and summary follow (the
    findings are the same, so only an approval changes: an incomplete review only comments)."""
    if not files:
        return review
    paths = {f.path for f in files}
    reasons = review.outcome_reasons + tuple(
        f"{f.path} was not reviewed: {f.reason}" for f in files if not f.deliberate
    )
    state = review.outcome
    if state is Outcome.REVIEWED and reasons:
        state = Outcome.PARTIAL
    return review.model_copy(
        update={
            "files_reviewed": tuple(p for p in review.files_reviewed if p not in paths),
            "files_not_reviewed": (*review.files_not_reviewed, *files),
            "outcome": state,
            "outcome_reasons": reasons,
            "verdict": (
                Verdict.COMMENT
                if review.verdict is Verdict.APPROVE and state is not Outcome.REVIEWED
                else review.verdict
            ),
            "summary": summarize(
                review.findings,
                review.static_only_reason,
                state,
                reasons,
                review.preexisting,
                review.unread_code,
            ),
        }
    )
