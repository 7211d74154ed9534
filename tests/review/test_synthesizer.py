"""Tests of the synthesizer (dedupe, ranking, score, verdict) and of finding fingerprints."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest

from code_guard.findings import (
    AgentName,
    AgentReport,
    AgentState,
    AgentStatus,
    Category,
    Finding,
    Outcome,
    Severity,
    Silenced,
    Silencing,
    SkippedFile,
    Usage,
    Verdict,
    at_or_above,
    silenced_counts,
)
from code_guard.review.synthesizer import deduplicate, health_score, synthesize, verdict

if TYPE_CHECKING:
    from conftest import MakeFinding


def report(
    *findings: Finding,
    agent: AgentName = AgentName.SECURITY,
    reason: str | None = None,
    usage: Usage | None = None,
) -> AgentReport:
    """An agent's report; it failed when ``reason`` is given."""
    state = AgentState.FAILED if reason else AgentState.OK
    status = AgentStatus(agent=agent, state=state, reason=reason, usage=usage or Usage())
    return AgentReport(status=status, findings=findings)


# --- dedupe ---------------------------------------------------------------------------


def test_overlapping_findings_of_one_category_merge(make_finding: MakeFinding) -> None:
    tool = make_finding(
        line_start=10,
        line_end=12,
        severity=Severity.MEDIUM,
        confidence=0.6,
        sources=("bandit:B608",),
    )
    model = make_finding(
        line_start=11,
        severity=Severity.HIGH,
        confidence=0.9,
        sources=("model",),
        suggested_fix="use a parameter",
        agent=AgentName.PERFORMANCE,
    )
    (merged,) = deduplicate([tool, model])
    assert (merged.line_start, merged.line_end) == (10, 12)
    assert merged.severity is Severity.HIGH
    assert merged.confidence == 0.9
    assert merged.sources == ("model", "bandit:B608")
    assert merged.suggested_fix == "use a parameter"
    assert merged.agent is AgentName.PERFORMANCE  # the leading (highest ranked) finding's


def test_findings_within_two_lines_merge_with_every_source(make_finding: MakeFinding) -> None:
    findings = [
        make_finding(line_start=10, sources=("a",)),
        make_finding(line_start=12, sources=("b",)),
        make_finding(line_start=14, sources=("c", "d")),
    ]
    (merged,) = deduplicate(findings)
    assert (merged.line_start, merged.line_end) == (10, 14)
    assert merged.sources == ("a", "b", "c", "d")


def test_one_rule_on_two_nearby_lines_is_two_issues(make_finding: MakeFinding) -> None:
    findings = [
        make_finding(line_start=1, sources=("ruff:F401",)),
        make_finding(line_start=2, sources=("ruff:F401",)),
    ]
    assert [f.line_start for f in deduplicate(findings)] == [1, 2]


def test_one_rule_twice_on_one_line_is_one_issue(make_finding: MakeFinding) -> None:
    findings = [make_finding(sources=("ruff:F401",)), make_finding(sources=("ruff:F401",))]
    assert len(deduplicate(findings)) == 1


def test_confirmed_candidates_of_different_rules_still_merge(make_finding: MakeFinding) -> None:
    # Bandit flags the query string, the taint check the call one line below: one issue.
    # Unconfirmed they merge; the model confirming both must not change that.
    query = make_finding(line_start=6, sources=("bandit:B608", "model"))
    call = make_finding(line_start=7, sources=("python-taint:taint-sql_injection", "model"))
    assert len(deduplicate([query, call])) == 1


def test_findings_three_lines_apart_stay_apart(make_finding: MakeFinding) -> None:
    findings = [make_finding(line_start=10), make_finding(line_start=13)]
    assert [f.line_start for f in deduplicate(findings)] == [10, 13]


def test_other_findings_merge_only_on_the_same_lines(make_finding: MakeFinding) -> None:
    # "other" names no particular issue: a mutable default and an assert two lines apart
    # are two issues, while two tools on one line are still one.
    other = Category.OTHER
    findings = [
        make_finding(category=other, line_start=15, sources=("ruff:B006",)),
        make_finding(category=other, line_start=17, sources=("bandit:B101",)),
        make_finding(category=other, line_start=17, sources=("model",)),
    ]
    merged = deduplicate(findings)
    assert [(f.line_start, f.sources) for f in merged] == [
        (15, ("ruff:B006",)),
        (17, ("bandit:B101", "model")),
    ]


def test_other_category_or_file_stays_apart(make_finding: MakeFinding) -> None:
    findings = [
        make_finding(),
        make_finding(category=Category.XSS),
        make_finding(file_path="other.py"),
    ]
    assert len(deduplicate(findings)) == 3


def test_merge_keeps_the_lead_cwe_or_takes_the_other(make_finding: MakeFinding) -> None:
    lead = make_finding(confidence=0.9, cwe_id=None)
    other = make_finding(confidence=0.5, cwe_id="CWE-89")
    assert lead.merge(other).cwe_id == "CWE-89"
    assert lead.merge(other) == other.merge(lead)


def test_deduplicate_gives_one_result_whatever_order_the_findings_come_in(
    make_finding: MakeFinding,
) -> None:
    found = [
        make_finding(sources=("bandit:B106",), title="Possible hardcoded password"),
        make_finding(sources=("detect-secrets:Secret Keyword",), title="Secret keyword"),
        make_finding(sources=("detect-secrets:Hex High Entropy String",), title="Hex string"),
        make_finding(line_start=11, sources=("semgrep:py-sql-injection-taint",)),
    ]
    results = {tuple(deduplicate(order)) for order in itertools.permutations(found)}
    assert len(results) == 1
    (merged,) = next(iter(results))
    assert set(merged.sources) == {s for f in found for s in f.sources}


def test_a_merge_is_disputed_only_when_both_findings_are(make_finding: MakeFinding) -> None:
    disputed = make_finding(severity=Severity.CRITICAL, disputed="the input is a constant")
    standing = make_finding(severity=Severity.HIGH, sources=("semgrep:py-sql-injection-taint",))
    merged = disputed.merge(standing)
    assert merged.severity is Severity.CRITICAL and merged.disputed is None
    assert merged == standing.merge(disputed)
    # the gate that ignores disputed findings still fails on the detection nobody disputed
    assert at_or_above([merged], Severity.HIGH, count_disputed=False)
    both = disputed.merge(standing.model_copy(update={"disputed": "test code"}))
    assert both.disputed == "the input is a constant"


# --- ranking, score, verdict ----------------------------------------------------------


def test_findings_rank_by_severity_then_confidence(make_finding: MakeFinding) -> None:
    findings = [
        make_finding(file_path="a.py", severity=Severity.LOW, confidence=0.9),
        make_finding(file_path="b.py", severity=Severity.CRITICAL, confidence=0.3),
        make_finding(file_path="c.py", severity=Severity.HIGH, confidence=0.5),
        make_finding(file_path="d.py", severity=Severity.HIGH, confidence=0.8),
    ]
    review = synthesize([report(*findings)])
    assert [f.file_path for f in review.findings] == ["b.py", "d.py", "c.py", "a.py"]


def test_health_score_is_100_for_a_clean_change() -> None:
    assert health_score([]) == 100


def test_health_score_never_drops_below_zero(make_finding: MakeFinding) -> None:
    many = [make_finding(line_start=n, severity=Severity.CRITICAL) for n in range(1, 50, 5)]
    assert health_score(many) == 0


def test_health_score_weighs_severity_and_confidence(make_finding: MakeFinding) -> None:
    def score(severity: Severity, confidence: float) -> int:
        return health_score([make_finding(severity=severity, confidence=confidence)])

    assert score(Severity.INFO, 1.0) == 100
    assert 0 < score(Severity.CRITICAL, 1.0) < score(Severity.HIGH, 1.0) < score(Severity.LOW, 1.0)
    assert score(Severity.HIGH, 1.0) < score(Severity.HIGH, 0.2) < 100


@pytest.mark.parametrize(
    ("severity", "confidence", "expected"),
    [
        (Severity.CRITICAL, 0.5, Verdict.REQUEST_CHANGES),
        (Severity.HIGH, 0.9, Verdict.REQUEST_CHANGES),
        (Severity.HIGH, 0.3, Verdict.REQUEST_CHANGES),  # fail-on counts it: so does the verdict
        (Severity.MEDIUM, 1.0, Verdict.COMMENT),
    ],
)
def test_verdict_of_one_finding(
    make_finding: MakeFinding, severity: Severity, confidence: float, expected: Verdict
) -> None:
    assert verdict([make_finding(severity=severity, confidence=confidence)], True) is expected


@pytest.mark.parametrize("fail_on", [*Severity, None])
@pytest.mark.parametrize("count_disputed", [True, False])
def test_the_verdict_requests_changes_exactly_when_the_gate_fails(
    make_finding: MakeFinding, fail_on: Severity | None, count_disputed: bool
) -> None:
    for severity in Severity:
        for disputed in (None, "the model says it is test code"):
            finding = make_finding(severity=severity, confidence=0.3, disputed=disputed)
            review = synthesize(
                [report(finding)],
                files_reviewed=["app.py"],
                fail_on=fail_on,
                count_disputed=count_disputed,
            )
            # With no gate (fail-on: none) the verdict still asks for changes at high.
            gated = review.at_or_above(fail_on or Severity.HIGH, count_disputed=count_disputed)
            expected = Verdict.REQUEST_CHANGES if gated else Verdict.COMMENT
            assert review.verdict is expected, (severity, disputed)
            assert verdict(review.findings, True, fail_on, count_disputed=count_disputed) is (
                expected
            )


def test_clean_complete_review_approves() -> None:
    assert verdict([], complete=True) is Verdict.APPROVE


def test_clean_incomplete_review_only_comments() -> None:
    assert verdict([], complete=False) is Verdict.COMMENT


def test_min_confidence_drops_less_confident_findings(make_finding: MakeFinding) -> None:
    findings = [
        make_finding(file_path="a.py", confidence=0.39),
        make_finding(file_path="b.py", confidence=0.4),
        make_finding(file_path="c.py", confidence=0.95),
    ]
    review = synthesize([report(*findings)], min_confidence=0.4)
    assert [f.file_path for f in review.findings] == ["c.py", "b.py"]


# --- the review -----------------------------------------------------------------------


def test_review_sums_usage_and_keeps_agents_and_files(make_finding: MakeFinding) -> None:
    usage = Usage(prompt_tokens=10, completion_tokens=2, cost_usd=0.5)
    reports = [
        report(make_finding(), usage=usage),
        report(agent=AgentName.STYLE, usage=usage),
    ]
    skipped = [SkippedFile(path="logo.png", reason="binary file")]
    review = synthesize(
        reports, files_reviewed=["app.py"], files_not_reviewed=skipped, duration_ms=42
    )
    assert review.usage == Usage(prompt_tokens=20, completion_tokens=4, cost_usd=1.0)
    assert [a.agent for a in review.agents] == [AgentName.SECURITY, AgentName.STYLE]
    assert (review.files_reviewed, review.files_not_reviewed) == (("app.py",), tuple(skipped))
    assert review.duration_ms == 42
    assert (review.static_only, review.static_only_reason) == (False, None)


def test_summary_counts_findings_by_severity(make_finding: MakeFinding) -> None:
    findings = [
        make_finding(file_path="a.py", severity=Severity.HIGH),
        make_finding(file_path="b.py", severity=Severity.LOW),
        make_finding(file_path="c.py", severity=Severity.LOW),
    ]
    review = synthesize([report(*findings)], files_reviewed=["a.py", "b.py", "c.py"])
    assert review.summary == "3 finding(s): 1 high, 2 low."


def test_failed_agent_makes_the_review_incomplete(make_finding: MakeFinding) -> None:
    reports = [report(agent=AgentName.SECURITY, reason="model failed: 401"), report()]
    review = synthesize(
        reports,
        static_reason="offline mode was requested (--offline)",
        files_reviewed=["app.py"],
    )
    assert not review.complete
    assert review.outcome is Outcome.PARTIAL
    assert review.outcome_reasons == ("the security agent failed: model failed: 401",)
    assert review.verdict is Verdict.COMMENT
    assert review.summary == (
        "No findings. Incomplete: the security agent failed: model failed: 401. "
        "Static analysis only: offline mode was requested (--offline)."
    )
    assert (review.static_only, review.static_only_reason) == (
        True,
        "offline mode was requested (--offline)",
    )


# --- fingerprints ---------------------------------------------------------------------


def test_fingerprint_ignores_wording_and_line_moves(make_finding: MakeFinding) -> None:
    base = make_finding()
    moved = make_finding(
        line_start=40,
        title="Injection!",
        description="reworded",
        severity=Severity.CRITICAL,
        anchor_text='db.execute("SELECT "   +   name)',
    )
    assert base.fingerprint == moved.fingerprint
    assert len(base.fingerprint) == 16


def test_fingerprint_differs_across_files_categories_and_lines(make_finding: MakeFinding) -> None:
    base = make_finding().fingerprint
    assert make_finding(file_path="other.py").fingerprint != base
    assert make_finding(category=Category.XSS).fingerprint != base
    assert make_finding(anchor_text="other code").fingerprint != base


def test_fingerprint_without_anchor_falls_back_to_the_line(make_finding: MakeFinding) -> None:
    assert (
        make_finding(anchor_text="").fingerprint
        != make_finding(anchor_text="", line_start=11).fingerprint
    )


def test_finding_rejects_an_inverted_range(make_finding: MakeFinding) -> None:
    with pytest.raises(ValueError, match="line_end must not be before line_start"):
        make_finding(line_start=10, line_end=9)


# --- silenced ---------------------------------------------------------------------------


def _held(mechanism: Silencing, path: str, line: int) -> Silenced:
    return Silenced(
        mechanism=mechanism, tool="bandit", rule="B307", file_path=path, line=line, reason="r"
    )


def test_silenced_counts_sum_over_agents_and_list_by_place() -> None:
    security = [_held(Silencing.PRE_EXISTING, "b.py", 3), _held(Silencing.FOLDING, "a.py", 9)]
    style = [_held(Silencing.PRE_EXISTING, "a.py", 2)]
    reports = [
        report(agent=AgentName.SECURITY).model_copy(
            update={"silenced": silenced_counts(security), "silenced_candidates": tuple(security)}
        ),
        report(agent=AgentName.STYLE).model_copy(
            update={"silenced": silenced_counts(style), "silenced_candidates": tuple(style)}
        ),
    ]
    review = synthesize(reports)
    assert review.silenced[Silencing.PRE_EXISTING] == 2
    assert review.silenced[Silencing.FOLDING] == 1
    assert sum(review.silenced.values()) == 3  # every other mechanism present, at 0
    assert list(review.silenced) == sorted(Silencing, key=lambda m: m.value)
    places = [(s.file_path, s.line) for s in review.silenced_candidates]
    assert places == [("a.py", 2), ("a.py", 9), ("b.py", 3)]
