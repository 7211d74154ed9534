"""Why a finding matters, how to fix it, and where to read more, for every rule we map.

The texts are the rule's own, from its record in the catalogue, and fall back to the
finding's category (``knowledge/categories.yml``), so a rule another engineer adds without a
text still explains itself. The link is the rule's own reference where it has one, else the
CWE entry, else a page on the category.
"""

from __future__ import annotations

from dataclasses import dataclass

from code_guard.findings import Category, Finding
from code_guard.knowledge.catalogue import category_text
from code_guard.knowledge.mapping import lookup


@dataclass(frozen=True, slots=True)
class Explanation:
    """A short reason the issue matters, a concrete fix, and a documentation link."""

    why: str
    fix: str
    url: str


def cwe_url(cwe_id: str) -> str:
    """The MITRE page of ``CWE-<n>``."""
    return f"https://cwe.mitre.org/data/definitions/{cwe_id.removeprefix('CWE-')}.html"


def rule_of(finding: Finding) -> tuple[str, str] | None:
    """The first ``(tool, rule)`` among the finding's sources (``"bandit:B113"``), if any."""
    for source in finding.sources:
        tool, sep, rule = source.partition(":")
        if sep:
            return tool, rule
    return None


def explain(finding: Finding) -> Explanation:
    """The explanation of ``finding``: its rule's own, else its category's, with its CWE link."""
    tool, rule = rule_of(finding) or ("", "")
    return explain_rule(tool, rule, finding.category, finding.cwe_id)


def explain_rule(tool: str, rule: str, category: Category, cwe_id: str | None) -> Explanation:
    """The explanation of a rule: its record's texts and link, each falling back to
    ``category``'s text (the link to the page of ``cwe_id`` first)."""
    record = lookup(tool, rule) if tool else None
    base = explain_category(category)
    why, fix = base.why, base.fix
    if record is not None and record.why is not None and record.fix is not None:
        why, fix = record.why, record.fix
    if record is not None and record.references:
        url = record.references[0]
    else:
        url = cwe_url(cwe_id) if cwe_id else base.url
    return Explanation(why, fix, url)


def explain_category(category: Category) -> Explanation:
    """The category-level explanation (every category has one)."""
    text = category_text(category)
    return Explanation(text.why, text.fix, text.link)
