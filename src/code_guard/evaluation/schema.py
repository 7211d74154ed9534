"""The pydantic models of ``results.json``: run metadata, per-case results and the summary.

The file is the whole record of a run: the findings each case produced and the ground truth
sit next to the scores, so ``results.rescore`` can recompute every number from it alone.
Precision, recall and F1 are written for readers but always derived from the counts, never
trusted from the file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from code_guard.evaluation.dataset import ExpectedFinding
from code_guard.findings import AgentName, Category, Finding, Frozen, Usage

ResultsFormat = Literal["code-guard-eval/1"]
RESULTS_FORMAT: ResultsFormat = "code-guard-eval/1"
STATIC_ONLY = "static-only"


def ratio(numerator: int, denominator: int, empty: float) -> float:
    """``numerator / denominator``, or ``empty`` when the denominator is 0."""
    return numerator / denominator if denominator else empty


class Score(Frozen):
    """TP/FP/FN counts and the precision, recall and F1 they give.

    Conventions: precision is 1 when nothing was flagged, recall is 1 when nothing was
    expected, and F1 is 0 when precision + recall is 0. So a clean case with no finding
    scores 1/1/1, and one with a false alarm scores precision 0, recall 1, F1 0.
    """

    tp: int = Field(ge=0)
    fp: int = Field(ge=0)
    fn: int = Field(ge=0)
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0

    @model_validator(mode="after")
    def _derive(self) -> Score:
        precision = ratio(self.tp, self.tp + self.fp, 1.0)
        recall = ratio(self.tp, self.tp + self.fn, 1.0)
        total = precision + recall
        f1 = 2 * precision * recall / total if total else 0.0
        object.__setattr__(self, "precision", precision)
        object.__setattr__(self, "recall", recall)
        object.__setattr__(self, "f1", f1)
        return self

    def __add__(self, other: Score) -> Score:
        return Score(tp=self.tp + other.tp, fp=self.fp + other.fp, fn=self.fn + other.fn)


ZERO = Score(tp=0, fp=0, fn=0)


class CaseResult(Frozen):
    """What one case produced and how it scored; ``error`` is set when it could not be scored.

    ``case_file`` (the file name) identifies the case: it is unique in a dataset, while a
    malformed case may have no readable ``pr_id`` (its file stem is used then).
    """

    case_file: str
    pr_id: str
    findings: tuple[Finding, ...] = ()
    expected: tuple[ExpectedFinding, ...] = ()
    # (index into findings, index into expected) for every true positive.
    matches: tuple[tuple[int, int], ...] = ()
    score: Score | None = None
    latency_ms: float = Field(default=0.0, ge=0.0)
    usage: Usage = Usage()
    error: str | None = None

    @property
    def scored(self) -> bool:
        """True when the case ran and counts towards precision, recall and F1."""
        return self.error is None and self.score is not None


class RunMetadata(Frozen):
    """How the run was made: matching tolerance, review mode, dataset and shard."""

    tolerance: int = Field(ge=0)
    model: str  # the litellm model name, or "static-only"
    static_only_reason: str | None = None
    dataset: str
    dataset_cases: int = Field(ge=0, description="case files in the whole dataset")
    shard: str | None = Field(default=None, description="I/N, or None for the whole dataset")


class Macro(Frozen):
    """Means of the per-case precision, recall and F1 over scored cases."""

    precision: float
    recall: float
    f1: float


class AgentScore(Frozen):
    """How one agent's findings fared: how many it produced, and how many matched."""

    findings: int = Field(ge=0)
    tp: int = Field(ge=0)
    fp: int = Field(ge=0)
    precision: float


class Latency(Frozen):
    """Latency of one review over the scored cases, in ms: nearest-rank p50 and p95, and max."""

    p50_ms: float
    p95_ms: float
    max_ms: float


class ErroredCase(Frozen):
    """A case that could not be scored, and why."""

    case_file: str
    pr_id: str
    reason: str


class EvalSummary(Frozen):
    """The aggregate of a run. Micro (pooled counts) is the headline; macro is per-case means."""

    cases: int = Field(ge=0)
    scored: int = Field(ge=0)
    errors: int = Field(ge=0)
    micro: Score
    # Expected findings of errored cases, counted as false negatives in ``micro``.
    missed_by_errors: int = Field(default=0, ge=0)
    macro: Macro | None  # None when no case was scored
    per_category: dict[Category, Score]
    per_agent: dict[AgentName, AgentScore]
    clean_cases: int = Field(ge=0, description="scored cases with no expected finding")
    false_alarm_cases: int = Field(ge=0, description="clean cases with at least one finding")
    false_alarm_rate: float | None  # None when there is no clean case
    latency: Latency | None  # None when no case was scored
    usage: Usage
    errored: tuple[ErroredCase, ...] = ()


class EvalResults(Frozen):
    """The content of ``results.json``."""

    format: ResultsFormat = RESULTS_FORMAT
    metadata: RunMetadata
    summary: EvalSummary
    cases: tuple[CaseResult, ...]
