"""The review as GitHub-flavoured markdown, laid out for scanning.

Verdict and counts come first, then one short line per finding grouped by severity (with a
link to the changed lines when the caller gives a blob URL), then the details a reviewer opens
on demand, folded: why each finding matters and how to fix it, and the agents, time and cost.
Every string that comes from the pull request, its tools or the model (paths, titles, reasons,
notes) goes through ``report.plain.plain_line``, the one escaping function, so it renders as
plain text and never carries a mention or one of this action's hidden records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from urllib.parse import quote

from code_guard.findings import Finding, Outcome, Review, Severity, Verdict
from code_guard.knowledge.explanations import explain, rule_of
from code_guard.report.silenced import SHOW_SILENCED, count_line
from code_guard.review.dismissals import short_id
from code_guard.trust.escaping import code_span, plain, plain_line

_VERDICT = {
    Verdict.APPROVE: "✅ Approve",
    Verdict.COMMENT: "💬 Comment",
    Verdict.REQUEST_CHANGES: "⛔ Request changes",
}
# Silenced candidates listed in the summary comment; each line is at most about 700 characters,
# so the list stays a small part of GitHub's 65,536-character limit.
SILENCED_LIMIT = 50
# Explanations run to about 600 characters each; this many keep the summary comment well inside
# GitHub's 65,536-character limit even with the findings list at its cap (when one is set).
DETAILS_LIMIT = 25
SEVERITY_ICON = {
    Severity.CRITICAL: "🔴",
    Severity.HIGH: "🟠",
    Severity.MEDIUM: "🟡",
    Severity.LOW: "🔵",
    Severity.INFO: "⚪",
}


def location(finding: Finding) -> str:
    """``path:start`` or ``path:start-end``."""
    end = f"-{finding.line_end}" if finding.line_end > finding.line_start else ""
    return f"{finding.file_path}:{finding.line_start}{end}"


def location_link(finding: Finding, blob_base: str = "") -> str:
    """The location as a code span, linked to the lines at ``blob_base`` (a blob URL) if given."""
    span = code_span(location(finding))
    if not blob_base:
        return span
    end = f"-L{finding.line_end}" if finding.line_end > finding.line_start else ""
    path = "/".join(quote(p, safe="") for p in finding.file_path.split("/"))
    return f"[{span}]({blob_base.rstrip('/')}/{path}#L{finding.line_start}{end})"


def counts_line(findings: Sequence[Finding]) -> str:
    """``🔴 0 critical · 🟠 1 high · …``: every severity, so a zero reads as good news."""
    counts = Counter(f.severity for f in findings)
    return " · ".join(f"{SEVERITY_ICON[s]} {counts[s]} {s.value}" for s in Severity)


def findings_list(
    findings: Sequence[Finding], limit: int | None = None, blob_base: str = ""
) -> str:
    """One line per finding (up to ``limit``), grouped under a heading per severity."""
    shown = findings if limit is None else findings[:limit]
    parts: list[str] = []
    for severity in Severity:
        group = [f for f in shown if f.severity is severity]
        if not group:
            continue
        lines = [
            f"- {location_link(f, blob_base)} {plain_line(f.title)} "
            f"<sub>{f.category.value.replace('_', ' ')}</sub>{marks(f)}"
            for f in group
        ]
        heading = f"#### {SEVERITY_ICON[severity]} {severity.value.capitalize()} ({len(group)})"
        parts.append(heading + "\n\n" + "\n".join(lines))
    text = "\n\n".join(parts)
    if len(shown) < len(findings):
        text += f"\n\n…and {len(findings) - len(shown)} more (see the JSON or SARIF output)."
    return text


def marks(finding: Finding) -> str:
    """Flags a reader must see next to the finding: dismissed by a trusted person, disputed
    by the model, or silenced by a suppression comment the pull request itself added."""
    flags = [dismissal_mark(finding)] if finding.dismissal is not None else []
    if finding.disputed is not None:
        flags.append(f" ⚖️ *disputed by the model:* {plain_line(finding.disputed)}")
    if finding.suppressed_in_pr is not None:
        flags.append(f" 🔕 *suppressed in this PR* ({plain_line(finding.suppressed_in_pr)})")
    return "".join(flags)


def dismissal_mark(finding: Finding) -> str:
    """`` 🚫 *dismissed as false-positive by alice on 2026-11-28:* reason``, or ""."""
    dismissal = finding.dismissal
    if dismissal is None:
        return ""
    when = f" on {dismissal.at[:10]}" if dismissal.at else ""
    who = f"{dismissal.kind.value} by {plain_line(dismissal.by)}{when}"
    return f" 🚫 *dismissed as {who}:* {plain_line(dismissal.reason)}"


def finding_details(finding: Finding, blob_base: str = "") -> str:
    """Why a finding matters, how to fix it, and where it came from, for the folded details."""
    why = explain(finding)
    parts = [f"**{plain_line(finding.title)}** · {location_link(finding, blob_base)}"]
    if finding.description and not finding.description.startswith(finding.title):
        parts.append(plain(finding.description))
    parts.append(f"*Why it matters:* {why.why}")
    parts.append(f"*Fix:* {why.fix}")
    parts.append(f"<sub>{footer(finding)}</sub>")
    return "\n\n".join(parts)


def footer(finding: Finding) -> str:
    """Severity, CWE, rule link, confidence and sources, as one small line."""
    why = explain(finding)
    rule = rule_of(finding)
    name = f"{rule[0]} {rule[1]}" if rule else finding.category.value.replace("_", " ")
    meta = [f"{SEVERITY_ICON[finding.severity]} {finding.severity.value}"]
    if finding.cwe_id:
        meta.append(finding.cwe_id)
    meta.append(f"[{plain_line(name)}]({why.url})")
    meta.append(f"confidence {finding.confidence:.2f}")
    meta.append("found by " + ", ".join(plain_line(s) for s in finding.sources))
    meta.append(f"id {code_span(short_id(finding.fingerprint))}")
    return " · ".join(meta)


def agents_table(review: Review) -> str:
    """One row per agent: state, tools, model, time and any reason or notes."""
    rows = []
    for a in review.agents:
        detail = "; ".join(x for x in (a.reason, *a.notes) if x) or "—"
        rows.append(
            f"| {a.agent.value} | {a.state.value} | {', '.join(a.tools) or '—'} | "
            f"{plain_line(a.model or 'none')} | {a.duration_ms} ms | {plain_line(detail)} |"
        )
    head = "| Agent | State | Tools | Model | Time | Notes |\n|---|---|---|---|---|---|\n"
    return head + "\n".join(rows)


def silenced_section(review: Review) -> str:
    """The candidates held back on proof: a count per mechanism, folded over the list of them
    with each one's proof when the review carries it (``show-silenced``); empty when none."""
    # The count line is ours (numbers and mechanism names); each reason quotes the pull
    # request or its tools, so it goes through ``plain_line``.
    counted = count_line(review)
    if counted is None:
        return ""
    records = review.silenced_candidates
    if not records:
        return f"<sub>🔕 {counted}; `{SHOW_SILENCED}` lists them.</sub>"
    shown = records[:SILENCED_LIMIT]
    lines = [
        f"- {code_span(f'{r.file_path}:{r.line}')} {r.mechanism.value} "
        f"{code_span(f'{r.tool}:{r.rule}')} — {plain_line(r.reason)}"
        for r in shown
    ]
    if len(records) > len(shown):
        lines.append(f"- …and {len(records) - len(shown)} more (see the JSON output).")
    return folded(f"🔕 {counted}", "\n".join(lines))


def folded(summary: str, body: str) -> str:
    """A ``<details>`` block; the blank lines let GitHub render the markdown inside."""
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


def render_markdown(review: Review, *, limit: int | None = 100, blob_base: str = "") -> str:
    """Render the whole review; ``limit`` caps the findings listed (None: no cap), and
    ``blob_base`` (``https://github.com/o/r/blob/<sha>``) turns locations into links."""
    parts = [
        "## Ninja Code Guard review",
        f"**{_VERDICT[review.verdict]}** · health {review.health_score}/100 · "
        f"{len(review.findings)} finding(s)\n\n{counts_line(review.findings)}",
    ]
    if not review.complete:
        head = (
            "This review failed: nothing was analysed."
            if review.outcome is Outcome.FAILED
            else "This review is incomplete: part of the change was not analysed."
        )
        reasons = "".join(f"\n> - {plain_line(r)}" for r in review.outcome_reasons)
        parts.append(
            f"> [!WARNING]\n> {head} No findings there does not mean it is clean.\n>{reasons}"
        )
    if review.warnings:
        warned = "".join(f"\n> - {plain_line(w)}" for w in review.warnings)
        parts.append(f"> [!CAUTION]\n> About this pull request:{warned}")
    if review.static_only:
        parts.append(
            f"> [!NOTE]\n> Static analysis only — {review.static_only_reason or 'no model'}. "
            "Findings come from the static tools without model confirmation."
        )
    if review.findings:
        parts.append(findings_list(review.findings, limit, blob_base))
        # No cap (None) explains every finding; a cap also bounds the explanations.
        cap = len(review.findings) if limit is None else min(limit, DETAILS_LIMIT)
        explained = review.findings[:cap]
        details = "\n\n---\n\n".join(finding_details(f, blob_base) for f in explained)
        if len(review.findings) > len(explained):
            details += (
                f"\n\n…the other {len(review.findings) - len(explained)} findings are explained "
                "in their inline comments and the JSON output."
            )
        parts.append(folded("Why these matter and how to fix them", details))
    if review.files_not_reviewed:
        skipped = "\n".join(
            f"- {code_span(s.path)}: {plain_line(s.reason)}" for s in review.files_not_reviewed
        )
        parts.append("#### Files not reviewed\n\n" + skipped)
    if review.not_sent_to_model:
        unsent = "\n".join(
            f"- {code_span(s.path)}: {plain_line(s.reason)}" for s in review.not_sent_to_model
        )
        parts.append(
            "#### Not sent to the model\n\nStatic analysis reviewed these; the model did not.\n\n"
            + unsent
        )
    silenced = silenced_section(review)
    if silenced:
        parts.append(silenced)
    usage = review.usage
    cost = (
        f"{len(review.files_reviewed)} file(s) reviewed in {review.duration_ms} ms · "
        f"tokens: {usage.prompt_tokens} in / {usage.completion_tokens} out · "
        f"cost: ${usage.cost_usd:.4f}"
    )
    parts.append(folded("Agents, time and cost", agents_table(review) + "\n\n" + cost))
    return "\n\n".join(parts) + "\n"
