"""The review as plain text for a terminal: one line per finding, then the summary."""

from __future__ import annotations

from code_guard.findings import Finding, Review
from code_guard.knowledge.explanations import explain
from code_guard.report.silenced import SHOW_SILENCED, count_line, record_line


def render_text(review: Review) -> str:
    """Render ``path:line: severity category: title [sources]`` lines, each followed by
    indented ``why:``, ``fix:`` and ``see:`` lines, then a footer.

    A review that is not complete says so on one line per reason (``partial: …`` or
    ``failed: …``) and in the footer's ``outcome``; skipped files are listed either way.
    Candidates held back on proof are counted on one line, or listed, each with its proof,
    when the review carries them (``--show-silenced``).
    """
    lines = [f"warning: {w}" for w in review.warnings]
    lines += [line for f in review.findings for line in _finding_lines(f)]
    lines.extend(f"{review.outcome.value}: {reason}" for reason in review.outcome_reasons)
    lines.extend(
        f"not reviewed: {s.path} ({s.reason})" for s in review.files_not_reviewed if s.deliberate
    )
    lines.extend(f"not sent to the model: {s.path} ({s.reason})" for s in review.not_sent_to_model)
    lines.extend(_silenced_lines(review))
    outcome = "" if review.complete else f"  outcome: {review.outcome.value}"
    lines.append(
        f"verdict: {review.verdict.value}{outcome}  health: {review.health_score}/100  "
        f"{review.summary}"
    )
    return "\n".join(lines) + "\n"


def _finding_lines(finding: Finding) -> list[str]:
    why = explain(finding)
    head = (
        f"{finding.file_path}:{finding.line_start}: {finding.severity.value} "
        f"{finding.category.value}: {finding.title} [{', '.join(finding.sources)}]"
    )
    fix = finding.suggested_fix if finding.suggested_fix else why.fix
    fix_lines = fix.strip("\n").splitlines() or [""]
    marks = [f"    disputed by the model: {finding.disputed}"] if finding.disputed else []
    if finding.dismissal is not None:
        d = finding.dismissal
        when = f" on {d.at[:10]}" if d.at else ""
        marks.insert(0, f"    dismissed as {d.kind.value} by {d.by}{when}: {d.reason}")
    if finding.suppressed_in_pr:
        marks.append(f"    suppressed in this PR ({finding.suppressed_in_pr}): reported anyway")
    return [
        head,
        *marks,
        f"    why: {why.why}",
        f"    fix: {fix_lines[0]}",
        *(f"         {line}" for line in fix_lines[1:]),
        f"    see: {why.url}",
    ]


def _silenced_lines(review: Review) -> list[str]:
    """The count of candidates silenced on proof, then each one when the review lists them."""
    counted = count_line(review)
    if counted is None:
        return []
    if not review.silenced_candidates:
        return [f"{counted}; --{SHOW_SILENCED} lists them"]
    return [f"{counted}:", *(f"    {record_line(r)}" for r in review.silenced_candidates)]
