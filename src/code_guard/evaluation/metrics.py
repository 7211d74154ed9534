"""Scores: one case's matching and counts, percentiles, and the aggregate summary of a run.

Everything here is a pure function of per-case findings and expected findings, so a stored
run can be re-scored exactly (see ``results.rescore``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from statistics import fmean

from code_guard.evaluation.dataset import ExpectedFinding
from code_guard.evaluation.matching import match_findings
from code_guard.evaluation.schema import (
    ZERO,
    AgentScore,
    CaseResult,
    ErroredCase,
    EvalSummary,
    Latency,
    Macro,
    Score,
    ratio,
)
from code_guard.findings import AgentName, Category, Finding, Usage


def percentile(values: Iterable[float], percent: int) -> float:
    """Return the nearest-rank ``percent``-th percentile of ``values``.

    The smallest value such that at least ``percent``% of the values are at or below it: with
    the values sorted ascending, the one at 1-based rank ``ceil(percent / 100 * n)``. It is
    always one of the values, never an interpolation. Integer arithmetic keeps the rank exact
    (``0.95 * 20`` in floats is not reliably 19).
    """
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0 < percent <= 100:
        raise ValueError("percent must be in (0, 100]")
    rank = -(-percent * len(ordered) // 100)  # ceiling division
    return ordered[rank - 1]


def score_case(
    findings: Sequence[Finding], expected: Sequence[ExpectedFinding], tolerance: int
) -> tuple[tuple[tuple[int, int], ...], Score]:
    """Match one case's findings to its expected findings; return the pairs and the score."""
    matching = match_findings(findings, expected, tolerance)
    score = Score(
        tp=matching.true_positives, fp=matching.false_positives, fn=matching.false_negatives
    )
    return matching.pairs, score


def summarize(cases: Sequence[CaseResult]) -> EvalSummary:
    """Aggregate per-case results.

    An errored case is never scored on what it found, but it counts against the run: every
    finding it was expected to produce is a false negative. Otherwise a dead model or a
    broken dataset would leave only the cases that happened to work, and a run where every
    case failed would score a perfect 1.0 by the empty-set conventions.
    """
    scored = [c for c in cases if c.scored]
    errored = [c for c in cases if not c.scored]
    scores = [c.score for c in scored if c.score is not None]
    missed = sum(len(c.expected) for c in errored)
    clean = [c for c in scored if not c.expected]
    false_alarms = sum(1 for c in clean if c.findings)
    latencies = [c.latency_ms for c in scored]
    return EvalSummary(
        cases=len(cases),
        scored=len(scored),
        errors=len(cases) - len(scored),
        micro=sum(scores, ZERO) + Score(tp=0, fp=0, fn=missed),
        missed_by_errors=missed,
        macro=_macro(scores),
        per_category=_per_category(scored, errored),
        per_agent=_per_agent(scored),
        clean_cases=len(clean),
        false_alarm_cases=false_alarms,
        false_alarm_rate=false_alarms / len(clean) if clean else None,
        latency=_latency(latencies),
        usage=sum((c.usage for c in cases), Usage()),
        errored=tuple(
            ErroredCase(case_file=c.case_file, pr_id=c.pr_id, reason=c.error or "not scored")
            for c in cases
            if not c.scored
        ),
    )


def _latency(latencies: Sequence[float]) -> Latency | None:
    if not latencies:
        return None
    return Latency(
        p50_ms=percentile(latencies, 50),
        p95_ms=percentile(latencies, 95),
        max_ms=max(latencies),
    )


def _macro(scores: Sequence[Score]) -> Macro | None:
    if not scores:
        return None
    return Macro(
        precision=fmean(s.precision for s in scores),
        recall=fmean(s.recall for s in scores),
        f1=fmean(s.f1 for s in scores),
    )


def _per_category(
    cases: Sequence[CaseResult], errored: Sequence[CaseResult] = ()
) -> dict[Category, Score]:
    """Pool counts per category: a TP or FP counts for the finding's, an FN for the expected's.

    Matching requires equal categories, so a TP has one category on both sides. Every
    expected finding of an ``errored`` case is an FN of its category.
    """
    tp: Counter[Category] = Counter()
    fp: Counter[Category] = Counter()
    fn: Counter[Category] = Counter()
    for case in cases:
        matched_found = {f for f, _ in case.matches}
        matched_expected = {e for _, e in case.matches}
        for index, finding in enumerate(case.findings):
            (tp if index in matched_found else fp)[finding.category] += 1
        for index, expected in enumerate(case.expected):
            if index not in matched_expected:
                fn[expected.category] += 1
    for case in errored:
        fn.update(expected.category for expected in case.expected)
    present = tp.keys() | fp.keys() | fn.keys()
    # Enum order, so tables and charts list categories the same way in every run.
    return {c: Score(tp=tp[c], fp=fp[c], fn=fn[c]) for c in Category if c in present}


def _per_agent(cases: Sequence[CaseResult]) -> dict[AgentName, AgentScore]:
    """Count each agent's findings and how many of them matched; every agent gets a row."""
    tp: Counter[AgentName] = Counter()
    fp: Counter[AgentName] = Counter()
    for case in cases:
        matched_found = {f for f, _ in case.matches}
        for index, finding in enumerate(case.findings):
            (tp if index in matched_found else fp)[finding.agent] += 1
    return {
        agent: AgentScore(
            findings=tp[agent] + fp[agent],
            tp=tp[agent],
            fp=fp[agent],
            precision=ratio(tp[agent], tp[agent] + fp[agent], 1.0),
        )
        for agent in AgentName
    }


DEFAULT_MAX_ERROR_RATE = 0.1


def error_failure(
    summary: EvalSummary, max_error_rate: float = DEFAULT_MAX_ERROR_RATE
) -> str | None:
    """Why the run failed for errors, or None: every case errored, or more than
    ``max_error_rate`` of them did. Such a run measured too little to be trusted, gate or not.
    """
    if not summary.errors:
        return None
    if summary.errors == summary.cases:
        return f"every case errored ({summary.errors} of {summary.cases}); first: " + (
            summary.errored[0].reason if summary.errored else "unknown"
        )
    share = summary.errors / summary.cases
    if share > max_error_rate:
        return (
            f"{summary.errors} of {summary.cases} cases errored ({share:.0%}), more than the "
            f"allowed {max_error_rate:.0%} (--max-error-rate)"
        )
    return None


def gate_failure(summary: EvalSummary, min_f1: float | None) -> str | None:
    """Why the run fails the quality gate ``micro F1 >= min_f1``, or None when it passes.

    A run with no scored case fails whenever a gate is set: its pooled counts are all zero,
    which the conventions would score as a perfect F1 of 1.
    """
    if min_f1 is None:
        return None
    if not summary.scored:
        return "no case was scored, so the quality gate cannot pass"
    if summary.micro.f1 < min_f1:
        return f"micro F1 {summary.micro.f1:.3f} is below the minimum {min_f1:.3f}"
    return None
