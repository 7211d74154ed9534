"""The review as SARIF 2.1.0, for GitHub code scanning (``github/codeql-action/upload-sarif``).

One rule per category, carrying what GitHub reads from rules: ``security-severity`` (the
worst of its findings) and ``tags`` (``security`` and the CWE ids) so code scanning ranks and
files security alerts, a working ``helpUri``, and help that explains the category and each
tool rule behind its findings (why, fix, link: the same texts the other outputs print). The
rule ids stay one per category so existing alerts keep their rule. Results carry our stable
fingerprint in ``partialFingerprints`` so an alert follows its finding across commits, and
their own rule's why, fix and link in ``properties``.

A finding a trusted person dismissed (``dismissals``) stays a result, with an accepted
``external`` suppression whose justification is the kind, who and why, so code scanning can
close its alert; its ``properties.dismissal`` carries the whole decision.

Candidates held back on proof go out only when the review lists them (``show-silenced``), as
results with an accepted ``suppressions`` entry (SARIF 2.1.0 §3.35) whose justification is
the proof: ``inSource`` for a suppression comment, ``external`` for every other mechanism.
Code scanning shows such a result as a closed alert, so "why was this not flagged?" has its
answer there too without opening an alert. They carry their own fingerprint key, never a
finding's, so a silenced result cannot close the alert of a finding.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from code_guard import package_version
from code_guard.findings import AgentName, Category, Finding, Review, Severity, Silenced, Silencing
from code_guard.knowledge.explanations import explain, explain_category, rule_of
from code_guard.knowledge.mapping import lookup
from code_guard.trust.sanitize import redact_json

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


def _rule(category: Category, findings: list[Finding]) -> dict[str, Any]:
    """The rule of ``category``: GitHub reads ``security-severity`` and ``tags`` here."""
    words = category.value.replace("_", " ")
    why = explain_category(category)
    worst = max((f.severity for f in findings), key=lambda s: s.rank, default=Severity.INFO)
    cwes = sorted({f.cwe_id for f in findings if f.cwe_id}, key=lambda c: int(c[4:]))
    security = any(f.agent is AgentName.SECURITY for f in findings)
    tags = (["security"] if security else []) + [category.value] + cwes
    tags += [f"external/cwe/cwe-{int(c[4:]):03d}" for c in cwes]
    properties: dict[str, Any] = {"tags": tags, "precision": _precision(findings)}
    if security:
        properties["security-severity"] = _SECURITY_SEVERITY[worst]
    text, markdown = _help(why.why, why.fix, why.url, findings)
    return {
        "id": rule_id(category),
        "name": "".join(w.capitalize() for w in category.value.split("_")),
        "shortDescription": {"text": words.capitalize()},
        "fullDescription": {"text": why.why},
        "help": {"text": text, "markdown": markdown},
        "helpUri": why.url,
        "defaultConfiguration": {"level": _LEVEL[worst]},
        "properties": properties,
    }


def _help(why: str, fix: str, url: str, findings: list[Finding]) -> tuple[str, str]:
    """The rule's help as text and markdown: the category's, then each tool rule's own."""
    text = [f"{why}\n\nFix: {fix}\n\nSee {url}"]
    markdown = [f"{why}\n\n**Fix:** {fix}\n\n[Read more]({url})"]
    rules: dict[str, Finding] = {}
    for finding in findings:
        tool_rule = rule_of(finding)
        if tool_rule is not None:
            rules.setdefault(":".join(tool_rule), finding)
    for name, finding in sorted(rules.items()):
        own = explain(finding)
        if (own.why, own.fix) == (why, fix):
            continue
        text.append(f"{name}: {own.why} Fix: {own.fix} See {own.url}")
        markdown.append(f"- `{name}`: {own.why} **Fix:** {own.fix} [Read more]({own.url})")
    return "\n\n".join(text), "\n\n".join(markdown)


def _precision(findings: list[Finding]) -> str:
    """Code scanning's precision word, from the findings' mean confidence."""
    mean = sum(f.confidence for f in findings) / len(findings) if findings else 0.0
    for floor, word in ((0.9, "very-high"), (0.7, "high"), (0.5, "medium")):
        if mean >= floor:
            return word
    return "low"


def _result(finding: Finding, index: dict[Category, int]) -> dict[str, Any]:
    text = finding.title
    if finding.description and finding.description != finding.title:
        text += f"\n\n{finding.description}"
    properties: dict[str, Any] = {
        "severity": finding.severity.value,
        "confidence": finding.confidence,
        "agent": finding.agent.value,
        "sources": list(finding.sources),
    }
    if finding.cwe_id:
        properties["tags"] = [finding.cwe_id]
    known = explain(finding)
    properties.update(why=known.why, fix=known.fix, helpUri=known.url)
    result = {
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
    if finding.dismissal is not None:
        dismissal = finding.dismissal
        properties["dismissal"] = dismissal.model_dump(mode="json")
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": f"{dismissal.kind.value} (dismissed by {dismissal.by}): "
                f"{dismissal.reason}",
            }
        ]
    return result


def _silenced_category(record: Silenced) -> tuple[Category, Severity]:
    """The category and severity the silenced candidate's rule would have reported."""
    info = lookup(record.tool, record.rule)
    return (info.category, info.severity) if info is not None else (Category.OTHER, Severity.INFO)


def _silenced_result(record: Silenced, index: dict[Category, int]) -> dict[str, Any]:
    """A silenced candidate as a suppressed result, its proof as the justification."""
    category, severity = _silenced_category(record)
    source = f"{record.tool}:{record.rule}"
    key = "\0".join((record.file_path, source, record.mechanism.value, str(record.line)))
    kind = "inSource" if record.mechanism is Silencing.SUPPRESSION else "external"
    return {
        "ruleId": rule_id(category),
        "ruleIndex": index[category],
        "level": _LEVEL[severity],
        "message": {"text": f"{source} silenced ({record.mechanism.value}): {record.reason}"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": record.file_path, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": record.line},
                }
            }
        ],
        "partialFingerprints": {
            "codeGuardSilenced/v1": hashlib.sha256(key.encode()).hexdigest()[:16]
        },
        "suppressions": [
            {
                "kind": kind,
                "status": "accepted",
                "justification": f"{record.mechanism.value}: {record.reason}",
            }
        ],
        "properties": {"mechanism": record.mechanism.value, "sources": [source]},
    }


def to_sarif(review: Review) -> dict[str, Any]:
    """Build the SARIF log as a dict."""
    silenced = review.silenced_candidates
    categories = sorted(
        {f.category for f in review.findings} | {_silenced_category(r)[0] for r in silenced},
        key=lambda c: c.value,
    )
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
                        "version": package_version(),
                        "informationUri": _INFO_URI,
                        "rules": [
                            _rule(c, [f for f in review.findings if f.category is c])
                            for c in categories
                        ],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": review.complete,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": [_result(f, index) for f in review.findings]
                + [_silenced_result(r, index) for r in silenced],
                "properties": {
                    "verdict": review.verdict.value,
                    "healthScore": review.health_score,
                    "staticOnly": review.static_only,
                    "staticOnlyReason": review.static_only_reason,
                    "outcome": review.outcome.value,
                    "silenced": {m.value: n for m, n in review.silenced.items()},
                    "notSentToModel": [
                        {"path": s.path, "reason": s.reason} for s in review.not_sent_to_model
                    ],
                },
            }
        ],
    }


def render_sarif(review: Review) -> str:
    """Serialize the SARIF log as indented JSON, every string in it redacted (a model can
    echo a secret into a finding's text, and the file is uploaded)."""
    return json.dumps(redact_json(to_sarif(review)), indent=2) + "\n"
