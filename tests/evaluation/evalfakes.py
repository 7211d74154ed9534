"""Fakes and builders shared by the eval tests: findings, diffs, a fake reviewer, a fake clock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from code_guard.evaluation.dataset import ExpectedFinding
from code_guard.evaluation.metrics import score_case
from code_guard.evaluation.schema import CaseResult
from code_guard.findings import (
    AgentName,
    AgentState,
    AgentStatus,
    Category,
    Finding,
    Review,
    Severity,
    Usage,
    Verdict,
)
from code_guard.review.engine import ReviewRequest

# write_case(pr_id, expected=[(line, category)], **top_level_overrides) -> the case file.
WriteCase = Callable[..., Path]


def make_finding(
    file_path: str, line: int, category: Category, agent: AgentName = AgentName.SECURITY
) -> Finding:
    """A finding with fixed filler for everything matching ignores."""
    return Finding(
        agent=agent,
        file_path=file_path,
        line_start=line,
        line_end=line,
        severity=Severity.HIGH,
        category=category,
        title=f"{category.value} at {line}",
        description="",
        confidence=0.9,
        sources=("test",),
    )


def new_file_diff(path: str, text: str) -> str:
    """A git-style diff that adds ``path`` with ``text``."""
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


@dataclass
class FakeClock:
    """A clock that only moves when told to, so latencies are exact."""

    now: float = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeReviewer:
    """Returns chosen findings for each reviewed file, and records what it was asked.

    ``findings`` maps a file path to the findings a review of it returns; ``latency_s`` maps
    a file path to the seconds its review takes on ``clock`` (or sleeps, when ``sleep``).
    """

    findings: Mapping[str, Sequence[Finding]] = field(default_factory=dict)
    latency_s: Mapping[str, float] = field(default_factory=dict)
    clock: FakeClock = field(default_factory=FakeClock)
    sleep: bool = False
    failed_agent: str | None = None
    usage: Usage = Usage()
    requests: list[ReviewRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    async def __call__(self, request: ReviewRequest) -> Review:
        self.requests.append(request)
        paths = [f.path for f in request.change.files]
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        delay = sum(self.latency_s.get(p, 0.0) for p in paths)
        if self.sleep:
            await asyncio.sleep(delay)
        else:
            self.clock.now += delay
        self.in_flight -= 1
        return fake_review(
            [f for p in paths for f in self.findings.get(p, ())],
            usage=self.usage,
            failed_reason=self.failed_agent if any(p in self.findings for p in paths) else None,
        )


def fake_review(
    findings: Sequence[Finding], usage: Usage | None = None, failed_reason: str | None = None
) -> Review:
    """A review holding ``findings``; the style agent failed when ``failed_reason`` is set."""
    agents = tuple(
        AgentStatus(
            agent=name,
            state=AgentState.FAILED if failed_reason and name is AgentName.STYLE else AgentState.OK,
            reason=failed_reason if name is AgentName.STYLE else None,
        )
        for name in AgentName
    )
    return Review(
        findings=tuple(findings),
        health_score=100,
        verdict=Verdict.COMMENT,
        summary="",
        agents=agents,
        usage=usage or Usage(),
    )


def read_json(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


SQL = Category.SQL_INJECTION
XSS = Category.XSS
LOOP = Category.INEFFICIENT_LOOP


def exp(line: int, category: Category, file_path: str = "a.py") -> ExpectedFinding:
    """An expected finding."""
    return ExpectedFinding(file_path=file_path, line_start=line, category=category)


def case(
    name: str,
    findings: list[Finding],
    expected: list[ExpectedFinding],
    latency_ms: float = 0.0,
    usage: Usage | None = None,
) -> CaseResult:
    """A case result scored with tolerance 3."""
    matches, score = score_case(findings, expected, tolerance=3)
    return CaseResult(
        case_file=f"{name}.json",
        pr_id=name,
        findings=tuple(findings),
        expected=tuple(expected),
        matches=matches,
        score=score,
        latency_ms=latency_ms,
        usage=usage or Usage(),
    )


def errored(name: str, reason: str = "invalid JSON") -> CaseResult:
    """A case that could not be scored (its latency must not count)."""
    return CaseResult(case_file=f"{name}.json", pr_id=name, error=reason, latency_ms=9999.0)


def hand_computed_run() -> list[CaseResult]:
    """Five scored cases and one errored, whose figures the tests compute by hand."""
    return [
        # A: expected 10 sql, 20 xss; found 11 sql (TP), 40 xss (FP) -> TP1 FP1 FN1.
        case(
            "a",
            [make_finding("a.py", 11, SQL), make_finding("a.py", 40, XSS, AgentName.STYLE)],
            [exp(10, SQL), exp(20, XSS)],
            latency_ms=100.0,
            usage=Usage(prompt_tokens=10, completion_tokens=5, cost_usd=0.25),
        ),
        # B: expected 5 loop; found 5 loop -> TP1, perfect.
        case("b", [make_finding("a.py", 5, LOOP, AgentName.PERFORMANCE)], [exp(5, LOOP)], 300.0),
        # C: clean case with a false alarm -> FP1, P=0 R=1 F1=0.
        case("c", [make_finding("a.py", 1, SQL)], [], 200.0),
        # D: clean case, nothing flagged -> perfect.
        case("d", [], [], 50.0),
        # E: a miss -> FN1, P=1 R=0 F1=0.
        case("e", [], [exp(7, XSS)], 400.0),
        errored("z"),
    ]
