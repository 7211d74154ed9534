"""The review as GitHub-flavoured markdown: verdict, severity table, findings, agent status."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from code_guard.models import Finding, Outcome, Review, Severity, Verdict

_VERDICT = {
    Verdict.APPROVE: "✅ Approve",
    Verdict.COMMENT: "💬 Comment",
    Verdict.REQUEST_CHANGES: "⛔ Request changes",
}
SEVERITY_ICON = {
    Severity.CRITICAL: "🔴",
    Severity.HIGH: "🟠",
    Severity.MEDIUM: "🟡",
    Severity.LOW: "🔵",
    Severity.INFO: "⚪",
}


def cell(text: str) -> str:
    """Make ``text`` safe inside a markdown table cell."""
    return " ".join(text.replace("|", "\\|").split())


def severity_table(findings: Sequence[Finding]) -> str:
    """A one-row table counting findings per severity."""
    counts = Counter(f.severity for f in findings)
    head = " | ".join(f"{SEVERITY_ICON[s]} {s.value}" for s in Severity)
    row = " | ".join(str(counts[s]) for s in Severity)
    return f"| {head} |\n|{'---|' * len(Severity)}\n| {row} |"


def findings_table(findings: Sequence[Finding], limit: int | None = None) -> str:
    """One row per finding (up to ``limit``), with a note of how many were left out."""
    shown = findings if limit is None else findings[:limit]
    rows = [
        f"| {SEVERITY_ICON[f.severity]} {f.severity.value} | "
        f"`{cell(f.file_path)}:{f.line_start}` | {f.category.value} | {cell(f.title)} | "
        f"{f.confidence:.2f} | "
        f"{cell(', '.join(f.sources))} |"
        for f in shown
    ]
    table = "| Severity | Location | Category | Finding | Confidence | Sources |\n"
    table += "|---|---|---|---|---|---|\n" + "\n".join(rows)
    if len(shown) < len(findings):
        table += f"\n\n…and {len(findings) - len(shown)} more (see the JSON or SARIF output)."
    return table


def agents_table(review: Review) -> str:
    """One row per agent: state, tools, model, time and any reason or notes."""
    rows = []
    for a in review.agents:
        detail = "; ".join(x for x in (a.reason, *a.notes) if x) or "—"
        rows.append(
            f"| {a.agent.value} | {a.state.value} | {', '.join(a.tools) or '—'} | "
            f"{a.model or 'none'} | {a.duration_ms} ms | {cell(detail)} |"
        )
    head = "| Agent | State | Tools | Model | Time | Notes |\n|---|---|---|---|---|---|\n"
    return head + "\n".join(rows)


def render_markdown(review: Review, *, limit: int | None = 100) -> str:
    """Render the whole review; ``limit`` caps the findings table (None: no cap)."""
    parts = [
        "## Ninja Code Guard review",
        f"**Verdict:** {_VERDICT[review.verdict]} · **Health score:** {review.health_score}/100",
        review.summary,
    ]
    if review.static_only:
        parts.append(
            f"> [!NOTE]\n> Static analysis only — {review.static_only_reason or 'no model'}. "
            "Findings come from the static tools without model confirmation."
        )
    if not review.complete:
        head = (
            "This review failed: nothing was analysed."
            if review.outcome is Outcome.FAILED
            else "This review is incomplete: part of the change was not analysed."
        )
        reasons = "".join(f"\n> - {cell(r)}" for r in review.outcome_reasons)
        parts.append(
            f"> [!WARNING]\n> {head} No findings there does not mean it is clean.\n>{reasons}"
        )
    parts.append(severity_table(review.findings))
    if review.findings:
        parts.append("### Findings\n\n" + findings_table(review.findings, limit))
    if review.files_not_reviewed:
        skipped = "\n".join(f"- `{cell(s.path)}`: {s.reason}" for s in review.files_not_reviewed)
        parts.append("### Files not reviewed\n\n" + skipped)
    parts.append("### Agents\n\n" + agents_table(review))
    usage = review.usage
    parts.append(
        f"<sub>{len(review.files_reviewed)} file(s) reviewed in {review.duration_ms} ms · "
        f"tokens: {usage.prompt_tokens} in / {usage.completion_tokens} out · "
        f"cost: ${usage.cost_usd:.4f}</sub>"
    )
    return "\n\n".join(parts) + "\n"
