"""The review as JSON: every field of the ``Review``, every finding with its rule's knowledge."""

from __future__ import annotations

import json

from code_guard.findings import Finding, Review
from code_guard.knowledge.explanations import explain
from code_guard.trust.sanitize import redact_json


def explained(finding: Finding) -> Finding:
    """``finding`` with the why, fix text and link that the text and markdown outputs print."""
    known = explain(finding)
    return finding.model_copy(update={"why": known.why, "fix": known.fix, "help_uri": known.url})


def render_json(review: Review) -> str:
    """Serialize ``review`` as indented JSON; ``Review.model_validate_json`` reads it back.

    Every string is redacted, the quoted code lines (``anchor_text``, ``removed_line``)
    included, as in SARIF: the file is uploaded and shared, and a finding about a hard-coded
    token must not carry the token with it.
    """
    findings = tuple(explained(f) for f in review.findings)
    data = review.model_copy(update={"findings": findings}).model_dump(mode="json")
    return json.dumps(redact_json(data), indent=2, ensure_ascii=False) + "\n"
