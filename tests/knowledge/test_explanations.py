"""Every rule we map explains itself: why it matters, how to fix it, and a working link."""

from __future__ import annotations

import pytest

from code_guard.findings import AgentName, Category, Finding, Severity
from code_guard.knowledge.catalogue import records
from code_guard.knowledge.explanations import cwe_url, explain, explain_category, explain_rule
from code_guard.knowledge.records import RuleRecord

MAPPED = sorted(records(), key=lambda r: (r.tool, r.id))


@pytest.mark.parametrize("record", MAPPED, ids=[f"{r.tool}:{r.id}" for r in MAPPED])
def test_every_mapped_rule_has_a_why_a_fix_and_a_link(record: RuleRecord) -> None:
    text = explain_rule(record.tool, record.id, record.category, record.cwe)
    assert len(text.why) > 20 and text.why.endswith(".")
    assert len(text.fix) > 10 and text.fix.endswith(".")
    assert text.url.startswith("https://")


@pytest.mark.parametrize("category", list(Category))
def test_every_category_has_a_fallback(category: Category) -> None:
    assert explain_category(category).why


def _finding(sources: tuple[str, ...], cwe: str | None) -> Finding:
    return Finding(
        agent=AgentName.SECURITY, file_path="a.py", line_start=1, line_end=1,
        severity=Severity.HIGH, category=Category.XXE, title="t", description="",
        cwe_id=cwe, confidence=0.5, sources=sources,
    )  # fmt: skip


def test_a_rule_nobody_wrote_a_text_for_falls_back_to_its_category_and_cwe() -> None:
    found = explain(_finding(("bandit:B9999",), "CWE-611"))
    assert found.why == explain_category(Category.XXE).why
    assert found.url == cwe_url("CWE-611") == "https://cwe.mitre.org/data/definitions/611.html"


def test_a_rule_without_a_cwe_links_to_its_category() -> None:
    found = explain(_finding(("model",), None))
    assert found == explain_category(Category.XXE)


def test_a_known_rule_uses_its_own_text_even_after_a_model_confirmed_it() -> None:
    found = explain(_finding(("model", "bandit:B113"), "CWE-400"))
    assert "timeout" in found.fix
    assert found.url.endswith("b113_request_without_timeout.html")
