"""The rule ids the detector reports, with their facts, read from the catalogue.

A rule id is ``<protection id>.<category>``, with ``.weak`` appended when the evidence is thin
(the protection went away but no replacement or sink that uses the value was seen). The
mapping and explanation tables read these instead of listing every protection by hand.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from code_guard.models import Category, Severity
from code_guard.regressions.catalogue import DERIVE, catalogue
from code_guard.regressions.detector import GENERIC_ID

TOOL = "security-regression"
# A weak match (no sink and no replacement seen) is this much less certain.
_WEAK_PENALTY = 0.25
_CWE: dict[Category, str] = {
    Category.SQL_INJECTION: "CWE-89",
    Category.COMMAND_INJECTION: "CWE-78",
    Category.CODE_INJECTION: "CWE-94",
    Category.PATH_TRAVERSAL: "CWE-22",
    Category.XSS: "CWE-79",
    Category.SSRF: "CWE-918",
    Category.INSECURE_DESERIALIZATION: "CWE-502",
    Category.HARDCODED_SECRET: "CWE-798",
    Category.WEAK_CRYPTO: "CWE-327",
    Category.INSECURE_CONFIG: "CWE-693",
    Category.XXE: "CWE-611",
    Category.OPEN_REDIRECT: "CWE-601",
}
_GENERIC_WHY = (
    "A call that cleaned or checked the value on its way to a sink was removed, so the value "
    "now reaches the sink as the client sent it."
)
_GENERIC_FIX = "Put the cleaning or checking call back, or show why the value is now safe."


@dataclass(frozen=True, slots=True)
class RegressionRule:
    """The facts of one rule id: what the mapping and explanations tables need."""

    category: Category
    severity: Severity
    confidence: float
    cwe: str
    why: str
    fix: str


@functools.cache
def regression_rules() -> dict[str, RegressionRule]:
    """Every rule id the detector can report, with its facts."""
    rules: dict[str, RegressionRule] = {}
    entries: list[tuple[str, str, Severity, float, str, str]] = [
        (p.id, p.category, p.severity, p.confidence, p.why, p.fix) for p in catalogue().protections
    ]
    entries.append((GENERIC_ID, DERIVE, Severity.MEDIUM, 0.6, _GENERIC_WHY, _GENERIC_FIX))
    for ident, category, severity, confidence, why, fix in entries:
        categories = list(_CWE) if category == DERIVE else [Category(category)]
        for cat in categories:
            rule = RegressionRule(cat, severity, confidence, _CWE[cat], why, fix)
            rules[f"{ident}.{cat.value}"] = rule
            weak = round(max(confidence - _WEAK_PENALTY, 0.3), 2)
            weaker = Severity.LOW if severity is Severity.MEDIUM else Severity.MEDIUM
            rules[f"{ident}.{cat.value}.weak"] = RegressionRule(
                cat, weaker, weak, _CWE[cat], why, fix
            )
    return rules
