"""The review as plain text for a terminal: one line per finding, then the summary."""

from __future__ import annotations

from code_guard.models import Review


def render_text(review: Review) -> str:
    """Render ``path:line: severity category: title [sources]`` lines and a footer.

    A review that is not complete says so on one line per reason (``partial: …`` or
    ``failed: …``) and in the footer's ``outcome``; skipped files are listed either way.
    """
    lines = [
        f"{f.file_path}:{f.line_start}: {f.severity.value} {f.category.value}: {f.title} "
        f"[{', '.join(f.sources)}]"
        for f in review.findings
    ]
    lines.extend(f"{review.outcome.value}: {reason}" for reason in review.outcome_reasons)
    lines.extend(
        f"not reviewed: {s.path} ({s.reason})" for s in review.files_not_reviewed if s.deliberate
    )
    outcome = "" if review.complete else f"  outcome: {review.outcome.value}"
    lines.append(
        f"verdict: {review.verdict.value}{outcome}  health: {review.health_score}/100  "
        f"{review.summary}"
    )
    return "\n".join(lines) + "\n"
