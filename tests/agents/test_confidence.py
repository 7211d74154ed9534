"""Tests of confidence from evidence: flows, agreeing analysers, the model's word."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
import yaml

from code_guard.agents.confidence import assess, is_flow, raised, undisputed
from code_guard.findings import (
    AgentName,
    AgentReport,
    AgentState,
    AgentStatus,
    Category,
    Finding,
    Severity,
)
from code_guard.review.synthesizer import synthesize
from code_guard.tools.semgrep.command import rules_file

if TYPE_CHECKING:
    from conftest import MakeFinding


@pytest.mark.parametrize(
    ("prior", "sources", "expected"),
    [
        # A bare pattern keeps its table value.
        (0.4, ("bandit:B311",), 0.4),
        (0.4, ("bandit:B101",), 0.4),
        (0.6, ("bandit:B608",), 0.6),
        (0.8, ("detect-secrets:Private Key",), 0.8),
        # A taint flow with its source named is high, whatever its table value.
        (0.6, ("semgrep:py-sql-injection-taint",), 0.8),
        (0.5, ("python-taint:taint-xss",), 0.8),
        # Independent analysers that agree raise it, one step per further analyser.
        (0.6, ("bandit:B608", "semgrep:py-sql-injection-formatted-query"), 0.7),
        (0.6, ("bandit:B608", "semgrep:py-sql-injection-taint"), 0.9),
        (0.6, ("bandit:B608", "semgrep:py-sql-injection-taint", "python-taint:taint-x"), 0.95),
        # Two rules of one analyser are one witness; so are Bandit and its ruff port.
        (0.6, ("bandit:B608", "bandit:B611"), 0.6),
        (0.8, ("bandit:B110", "ruff:S110"), 0.8),
        (0.6, ("bandit:B112", "ruff:BLE001"), 0.7),
        # The model's confirmation raises it one step.
        (0.6, ("bandit:B608", "model"), 0.7),
        (0.4, ("bandit:B311", "model"), 0.5),
        (0.6, ("semgrep:py-ssrf-taint", "model"), 0.9),
        # The model alone: its own estimate, neither raised nor capped.
        (0.75, ("model",), 0.75),
        (1.0, ("model",), 1.0),
        # A prior above the ceiling is never lowered by it.
        (0.97, ("bandit:B608", "semgrep:py-sql-injection-taint"), 0.97),
    ],
)
def test_raised_by_the_evidence(prior: float, sources: tuple[str, ...], expected: float) -> None:
    assert raised(prior, sources) == expected


def test_only_named_taint_flows_are_flows() -> None:
    assert is_flow("semgrep", "py-command-injection-taint")
    assert is_flow("semgrep", "js-ssrf-request-url")
    assert is_flow("python-taint", "taint-command_injection")
    assert not is_flow("semgrep", "py-sql-injection-formatted-query")
    assert not is_flow("semgrep", "py-weak-crypto-random-secret")
    assert not is_flow("bandit", "B602")


def test_every_flow_rule_is_a_semgrep_taint_rule() -> None:
    rules = {
        rule["id"]: rule
        for path in sorted(rules_file("x").parent.glob("*.yml"))
        for rule in yaml.safe_load(path.read_text(encoding="utf-8"))["rules"]
    }
    flows = [name for name in rules if is_flow("semgrep", name)]
    # The Python taint rules are named so; the JS/Go flows from request data predate the name.
    assert {name for name in rules if name.endswith("-taint")} <= set(flows)
    assert {"js-xss-html-from-input", "go-ssrf-request-url"} <= set(flows)
    assert all(rules[name].get("mode") == "taint" for name in flows)
    # Taint rules whose source is not untrusted input, or that end at no dangerous call.
    assert not {"py-weak-crypto-random-secret", "py-trust-boundary-session-key"} & set(flows)


def test_assess_raises_an_agreed_finding_and_caps_a_disputed_one(
    make_finding: MakeFinding,
) -> None:
    agreed = make_finding(confidence=0.6, sources=("bandit:B608", "semgrep:py-sql-injection-taint"))
    assert assess(agreed) == 0.9
    disputed = agreed.model_copy(update={"disputed": "constant input", "confidence": 0.3})
    assert assess(disputed) == 0.3


def test_undisputed_reads_the_evidence_again_without_the_dispute(
    make_finding: MakeFinding,
) -> None:
    flow = make_finding(confidence=0.3, sources=("semgrep:py-sql-injection-taint",), disputed="ok")
    assert undisputed(flow) == 0.8
    pattern = make_finding(confidence=0.3, sources=("bandit:B311",), disputed="not a token")
    assert undisputed(pattern) == 0.4
    plain = make_finding(confidence=0.6, sources=("bandit:B608",))
    assert undisputed(plain) == 0.6


def _report(*findings: Finding) -> AgentReport:
    status = AgentStatus(agent=AgentName.SECURITY, state=AgentState.OK)
    return AgentReport(status=status, findings=findings)


def test_synthesize_merges_before_it_assesses(make_finding: MakeFinding) -> None:
    bandit = make_finding(confidence=0.6, sources=("bandit:B608",))
    semgrep = make_finding(confidence=0.6, sources=("semgrep:py-sql-injection-taint",))
    weak = make_finding(
        file_path="b.py",
        category=Category.WEAK_CRYPTO,
        severity=Severity.LOW,
        confidence=0.4,
        sources=("bandit:B311",),
    )
    review = synthesize([_report(bandit, semgrep, weak)])
    assert [(f.file_path, f.confidence, f.sources) for f in review.findings] == [
        ("app.py", 0.9, ("bandit:B608", "semgrep:py-sql-injection-taint")),
        ("b.py", 0.4, ("bandit:B311",)),
    ]


def test_min_confidence_applies_to_the_assessed_confidence(make_finding: MakeFinding) -> None:
    confirmed = make_finding(confidence=0.4, sources=("bandit:B311", "model"))
    bare = make_finding(file_path="b.py", confidence=0.4, sources=("bandit:B311",))
    disputed = make_finding(
        file_path="c.py", confidence=0.3, sources=("bandit:B608",), disputed="constant"
    )
    review = synthesize([_report(confirmed, bare, disputed)], min_confidence=0.5)
    # The bare pattern goes; the corroborated one stays, and so does the disputed one.
    assert [(f.file_path, f.confidence) for f in review.findings] == [
        ("app.py", 0.5),
        ("c.py", 0.3),
    ]
