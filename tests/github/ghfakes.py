"""Shared test values and helpers for the GitHub Action tests (fixtures live in conftest)."""

from __future__ import annotations

from collections.abc import Callable

from code_guard.findings import (
    AgentName,
    AgentState,
    AgentStatus,
    Finding,
    Review,
    Severity,
    Verdict,
)
from code_guard.github.retry import RetrySettings

# Tiny waits: the retry paths run for real, without sleeping through the test suite.
FAST_RETRY = RetrySettings(
    total=2,
    backoff_factor=0.001,
    backoff_max=0.01,
    secondary_rate_wait=0.0,
    max_rate_limit_wait=5.0,
    timeout_s=5,
    seconds_between_writes=0.0,
)
TOKEN = "ghs_testtoken0000000000000000000000000000"


FindingFactory = Callable[..., Finding]


def make_review(*findings: Finding) -> Review:
    """A review holding ``findings``, verdict by the worst severity."""
    worst = max((f.severity.rank for f in findings), default=-1)
    return Review(
        findings=findings,
        health_score=max(0, 100 - 20 * len(findings)),
        verdict=Verdict.REQUEST_CHANGES if worst >= Severity.HIGH.rank else Verdict.COMMENT,
        summary=f"{len(findings)} finding(s).",
        agents=(AgentStatus(agent=AgentName.SECURITY, state=AgentState.OK, tools=("bandit",)),),
        files_reviewed=("app/db.py",),
    )


def render_stub(review: Review) -> str:
    """A stand-in for the markdown report: one line per finding, enough to assert on."""
    lines = [f"## Report: {review.verdict.value}, {len(review.findings)} findings"]
    lines += [
        f"- {f.severity.value} {f.file_path}:{f.line_start} {f.title}" for f in review.findings
    ]
    return "\n".join(lines) + "\n"
