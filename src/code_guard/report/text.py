"""The review as plain text for a terminal: one line per finding, then the summary."""

from __future__ import annotations

from code_guard.models import AgentState, Review


def render_text(review: Review) -> str:
    """Render ``path:line: severity category: title [sources]`` lines and a footer."""
    lines = [
        f"{f.file_path}:{f.line_start}: {f.severity.value} {f.category.value}: {f.title} "
        f"[{', '.join(f.sources)}]"
        for f in review.findings
    ]
    lines.extend(
        f"agent {a.agent.value} {a.state.value}: {a.reason}"
        for a in review.agents
        if a.state is not AgentState.OK
    )
    lines.extend(f"not reviewed: {s.path} ({s.reason})" for s in review.files_not_reviewed)
    lines.append(
        f"verdict: {review.verdict.value}  health: {review.health_score}/100  {review.summary}"
    )
    return "\n".join(lines) + "\n"
