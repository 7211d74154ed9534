"""The review as SARIF 2.1.0, for GitHub code scanning (``github/codeql-action/upload-sarif``).

One rule per category; results carry a partial fingerprint so code scanning tracks a finding
across commits, and ``security-severity`` so GitHub ranks security alerts.
"""

from __future__ import annotations

import json
from typing import Any

from code_guard import __version__
from code_guard.models import Category, Finding, Review, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INFO_URI = "https://github.com/ninja/code-guard"

_LEVEL = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
# GitHub maps security-severity to critical (>= 9), high (>= 7), medium (>= 4) and low.
_SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0",
    Severity.INFO: "1.0",
}


def rule_id(category: Category) -> str:
    """The SARIF rule id of a category."""
    return f"code-guard/{category.value}"


def _rule(category: Category) -> dict[str, Any]:
    words = category.value.replace("_", " ")
    return {
        "id": rule_id(category),
        "name": "".join(w.capitalize() for w in category.value.split("_")),
        "shortDescription": {"text": words.capitalize()},
        "helpUri": f"{_INFO_URI}#categories",
        "properties": {"tags": [category.value]},
    }


def _result(finding: Finding, index: dict[Category, int]) -> dict[str, Any]:
    text = finding.title
    if finding.description and finding.description != finding.title:
        text += f"\n\n{finding.description}"
    properties: dict[str, Any] = {
        "severity": finding.severity.value,
        "confidence": finding.confidence,
        "agent": finding.agent.value,
        "sources": list(finding.sources),
        "security-severity": _SECURITY_SEVERITY[finding.severity],
    }
    if finding.cwe_id:
        properties["tags"] = [finding.cwe_id]
    return {
        "ruleId": rule_id(finding.category),
        "ruleIndex": index[finding.category],
        "level": _LEVEL[finding.severity],
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": finding.file_path, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": finding.line_start, "endLine": finding.line_end},
                }
            }
        ],
        "partialFingerprints": {"codeGuardFingerprint/v1": finding.fingerprint},
        "properties": properties,
    }


def to_sarif(review: Review) -> dict[str, Any]:
    """Build the SARIF log as a dict."""
    categories = sorted({f.category for f in review.findings}, key=lambda c: c.value)
    index = {c: i for i, c in enumerate(categories)}
    notifications = [
        {"level": "error", "message": {"text": f"review {review.outcome.value}: {reason}"}}
        for reason in review.outcome_reasons
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "Ninja Code Guard",
                        "version": __version__,
                        "informationUri": _INFO_URI,
                        "rules": [_rule(c) for c in categories],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": review.complete,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": [_result(f, index) for f in review.findings],
                "properties": {
                    "verdict": review.verdict.value,
                    "healthScore": review.health_score,
                    "staticOnly": review.static_only,
                    "staticOnlyReason": review.static_only_reason,
                    "outcome": review.outcome.value,
                },
            }
        ],
    }


def render_sarif(review: Review) -> str:
    """Serialize the SARIF log as indented JSON."""
    return json.dumps(to_sarif(review), indent=2) + "\n"
