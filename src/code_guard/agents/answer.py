"""The model's answer, as pydantic models: they are the response schema, and they validate it.

Bounds on every list and string keep a runaway answer from costing more than it is worth.
Every field is required (nullable where optional) so strict JSON-schema backends accept it.
"""

from __future__ import annotations

from pydantic import Field

from code_guard.findings import Category, Confidence, Frozen, Severity


class CandidateVerdict(Frozen):
    """The model's verdict on one tool candidate, by its id (``C1``, ``C2``...)."""

    candidate_id: str = Field(max_length=16)
    confirmed: bool
    reason: str = Field(max_length=400)


class ModelFinding(Frozen):
    """An issue the model found itself. ``quote`` is the exact added line it is about;
    ``removed_line``, when the issue is a protection the change took away, the removed line
    that held it (the finding then goes on the added line beside it)."""

    file_path: str = Field(max_length=500)
    line: int = Field(ge=1)
    quote: str = Field(max_length=500)
    removed_line: str | None = Field(max_length=500)
    severity: Severity
    category: Category
    title: str = Field(min_length=1, max_length=120)
    explanation: str = Field(max_length=1500)
    suggested_fix: str | None = Field(max_length=2000)
    cwe_id: str | None = Field(pattern=r"^CWE-\d+$")
    confidence: Confidence


class ModelAnswer(Frozen):
    """The whole answer of one agent's model pass."""

    candidates: list[CandidateVerdict] = Field(max_length=100)
    findings: list[ModelFinding] = Field(max_length=25)
