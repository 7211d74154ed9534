"""The domain values of a review: severities, categories, findings and the review itself.

Every value here is a frozen pydantic model with ``extra="forbid"``: they are built once, at
the edge (a tool's output, a model's answer, a JSON file), and trusted everywhere after.
Merging two findings returns a new finding; nothing here is mutated in place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator


class Frozen(BaseModel):
    """Base of every domain value: immutable, and unknown fields are an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Severity(StrEnum):
    """How bad a finding is, from ``critical`` down to ``info``."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Return 4 for critical down to 0 for info, so severities sort by weight."""
        return _SEVERITY_RANK[self]

    @classmethod
    def parse(cls, text: str) -> Severity:
        """Parse a user-given severity name (case-insensitive), raising ``ValueError``."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown severity {text!r} (expected one of: {names})") from None


_SEVERITY_RANK = {
    Severity.CRITICAL: 4,
    Severity.HIGH: 3,
    Severity.MEDIUM: 2,
    Severity.LOW: 1,
    Severity.INFO: 0,
}


class Category(StrEnum):
    """The fixed vocabulary every tool result and model finding is mapped to."""

    SQL_INJECTION = "sql_injection"
    COMMAND_INJECTION = "command_injection"
    CODE_INJECTION = "code_injection"
    PATH_TRAVERSAL = "path_traversal"
    XSS = "xss"
    SSRF = "ssrf"
    INSECURE_DESERIALIZATION = "insecure_deserialization"
    HARDCODED_SECRET = "hardcoded_secret"
    WEAK_CRYPTO = "weak_crypto"
    INSECURE_CONFIG = "insecure_config"
    XXE = "xxe"
    OPEN_REDIRECT = "open_redirect"
    BROKEN_ACCESS_CONTROL = "broken_access_control"
    CSRF = "csrf"
    N_PLUS_ONE_QUERY = "n_plus_one_query"
    INEFFICIENT_LOOP = "inefficient_loop"
    BLOCKING_IO = "blocking_io"
    MEMORY_LEAK = "memory_leak"
    UNUSED_CODE = "unused_code"
    NAMING = "naming"
    COMPLEXITY = "complexity"
    ERROR_HANDLING = "error_handling"
    OTHER = "other"


class Silencing(StrEnum):
    """A mechanism that held a candidate back instead of reporting it. Each must prove its
    case against code the pull request's author wrote (docs/detection.md); the review counts
    what each one silenced, so "why was this not flagged?" always has an answer."""

    GUARD = "guard"  # a check whose failing branch leaves dominates the sink
    SANITISER = "sanitiser"  # a sanitiser the security model says neutralises the category
    FOLDING = "folding"  # the code cannot run, or the value is built from literals only
    KEPT_PROTECTION = "kept-protection"  # the protection still guards the same sink
    PRE_EXISTING = "pre-existing"  # matched one to one with a result of the base
    TEST_FILE = "test-file"  # a rule about production behaviour, in a test file
    SUPPRESSION = "suppression"  # a suppression comment the review honours
    RULE_DECLINED = "rule-declined"  # the rule's record says this shape is harmless
    # The one exception to proof: the repository owner turned the rule off (``disable-rules``,
    # from the trusted config). Their choice, not proof that the code is safe.
    DISABLED = "disabled"


def every_mechanism(counts: dict[Silencing, int]) -> dict[Silencing, int]:
    """``counts`` with every mechanism present (0 where none silenced), in sorted order, so
    the JSON output has the same keys in the same order in every review."""
    return {m: counts.get(m, 0) for m in sorted(Silencing, key=lambda m: m.value)}


# How many candidates each mechanism silenced: every ``Silencing`` a key, sorted by name.
SilencedCounts = Annotated[
    dict[Silencing, Annotated[int, Field(ge=0)]], AfterValidator(every_mechanism)
]
REASON_CHARS = 500


class AgentName(StrEnum):
    """The three review agents."""

    SECURITY = "security"
    PERFORMANCE = "performance"
    STYLE = "style"


class Verdict(StrEnum):
    """What the review recommends, in GitHub's review vocabulary."""

    APPROVE = "approve"
    COMMENT = "comment"
    REQUEST_CHANGES = "request_changes"


Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
# The longest title, description and suggested fix a finding holds. Whoever builds a finding
# bounds its text to these (``clip``; a fix that does not fit is dropped, never cut): a value
# over a limit would fail validation and, with it, every other finding of the agent.
TITLE_CHARS = 200
TEXT_CHARS = 4000
FIX_CHARS = 4000
MARK_CHARS = 100
LineNumber = Annotated[int, Field(ge=1)]


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "..." when it was cut."""
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


class DismissalKind(StrEnum):
    """Why a trusted person dismissed a finding."""

    FALSE_POSITIVE = "false-positive"  # the finding is wrong
    ACCEPTED_RISK = "accepted-risk"  # the finding is right, and the risk is accepted
    WONT_FIX = "wont-fix"  # the finding is right, and will not be fixed


class Dismissal(Frozen):
    """A trusted person's reasoned decision that a finding no longer gates: who, when, what
    kind, why, and where it was made (a pull request comment, or the base branch's file)."""

    kind: DismissalKind
    reason: str = Field(min_length=1, max_length=REASON_CHARS)
    by: str = Field(min_length=1, max_length=100)
    at: str = Field(default="", max_length=40)  # ISO 8601, as GitHub gives it; "" when unknown
    source: str = Field(default="", max_length=500)  # the comment's URL, or the file's name


class Finding(Frozen):
    """One issue on one range of lines of the new version of a file."""

    agent: AgentName
    file_path: str = Field(min_length=1)
    line_start: LineNumber
    line_end: LineNumber
    severity: Severity
    category: Category
    title: str = Field(min_length=1, max_length=TITLE_CHARS)
    description: str = Field(max_length=TEXT_CHARS)
    suggested_fix: str | None = Field(default=None, max_length=FIX_CHARS)
    # The lines ``suggested_fix`` was written to replace (it defaults to the finding's own);
    # a merge can widen the finding, but never the range a fix applies to.
    fix_lines: tuple[LineNumber, LineNumber] | None = None
    cwe_id: str | None = Field(default=None, pattern=r"^CWE-\d+$")
    confidence: Confidence
    sources: tuple[str, ...] = Field(min_length=1)
    # The text of the anchored line, stripped: it makes the fingerprint independent of the
    # wording of the title and of the line number, so a finding survives edits above it.
    anchor_text: str = ""
    fingerprint: str = ""
    # Set when the model disputes a finding of a deterministic detector: its reason. The
    # model may lower the confidence, never remove the finding (its text is untrusted).
    disputed: str | None = Field(default=None, max_length=500)
    # Set when the pull request itself added a suppression comment (``# nosec``...) that the
    # analyser would have honoured: which one. Such findings are still reported.
    suppressed_in_pr: str | None = Field(default=None, max_length=MARK_CHARS)
    # The rule's knowledge as every output explains it: why it matters, how to fix it (text;
    # ``suggested_fix`` is the rewrite) and where to read more. Filled in by the renderers that
    # carry it (JSON), so API users get what a person reading the terminal gets.
    why: str | None = Field(default=None, max_length=2000)
    fix: str | None = Field(default=None, max_length=2000)
    help_uri: str | None = Field(default=None, max_length=500)
    # Set when the finding is about a protection the change removed: the removed line that
    # held it, quoted beside the added line when the model is asked about the finding.
    removed_line: str | None = Field(default=None, max_length=500)
    # The base-file number of that removed line, when a detector knows it: the inline comment
    # then goes on the removed line itself (``side: LEFT``); ``line_start`` stays the head line.
    removed_at: LineNumber | None = None
    # Set when a trusted person dismissed the finding (``dismissals``): it is still reported,
    # marked, and no longer counts for the gate or the verdict.
    dismissal: Dismissal | None = None

    @model_validator(mode="after")
    def _derive(self) -> Finding:
        if self.line_end < self.line_start:
            raise ValueError("line_end must not be before line_start")
        if not self.fingerprint:
            object.__setattr__(self, "fingerprint", self.compute_fingerprint())
        if self.suggested_fix is not None and self.fix_lines is None:
            object.__setattr__(self, "fix_lines", (self.line_start, self.line_end))
        return self

    def compute_fingerprint(self) -> str:
        """Hash file, category and anchored text: stable across rewording and line moves."""
        anchor = " ".join(self.anchor_text.split())
        key = f"{self.file_path}\0{self.category.value}\0{anchor}"
        if not anchor:
            key += f"\0{self.line_start}"
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    @property
    def sort_key(self) -> tuple[int, float, str, int]:
        """Rank by severity, then confidence (both descending), then place."""
        return (-self.severity.rank, -self.confidence, self.file_path, self.line_start)

    def merge(self, other: Finding) -> Finding:
        """Return one finding standing for both: every source, highest severity and confidence."""
        lead, rest = (self, other) if self.sort_key <= other.sort_key else (other, self)
        sources = tuple(dict.fromkeys((*lead.sources, *rest.sources)))
        fixer = lead if lead.suggested_fix is not None else rest
        return lead.model_copy(
            update={
                "line_start": min(self.line_start, other.line_start),
                "line_end": max(self.line_end, other.line_end),
                "confidence": max(self.confidence, other.confidence),
                "sources": sources,
                "suggested_fix": fixer.suggested_fix,
                "fix_lines": fixer.fix_lines,
                "cwe_id": lead.cwe_id or rest.cwe_id,
                "removed_line": lead.removed_line or rest.removed_line,
                "removed_at": lead.removed_at or rest.removed_at,
                # Disputed only if both are: a detection the model did not dispute still
                # stands, so a gate that ignores disputed findings must still see it.
                "disputed": lead.disputed if rest.disputed is not None else None,
            }
        )


class Usage(Frozen):
    """Tokens spent and their cost in US dollars (0 when the price is unknown)."""

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cost_usd: float = Field(default=0.0, ge=0.0)

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
        )


class Silenced(Frozen):
    """A candidate held back on proof instead of reported: the mechanism that silenced it,
    the tool rule that raised it, where, and the proof (``reason``, bounded by ``clip``).
    Listed only when the user asks (``show-silenced``); the review always counts them."""

    mechanism: Silencing
    tool: str
    rule: str
    file_path: str = Field(min_length=1)
    line: LineNumber
    reason: str = Field(max_length=REASON_CHARS)


def silenced_counts(records: Sequence[Silenced]) -> dict[Silencing, int]:
    """How many of ``records`` each mechanism silenced, every mechanism present."""
    counts: dict[Silencing, int] = {}
    for record in records:
        counts[record.mechanism] = counts.get(record.mechanism, 0) + 1
    return every_mechanism(counts)


class SkippedFile(Frozen):
    """A changed file that was not reviewed, and why (binary, ignored, no patch...).

    ``deliberate`` skips follow from the change or the user's settings (a binary file, a
    ``paths-ignore`` match) and leave the review complete; the others (a fetch that failed, a
    file over a size cap, a name the file system refuses) make the review partial.
    """

    path: str
    reason: str
    deliberate: bool = True


class UnreadCode(Frozen):
    """A reviewed file of code that no code analyser reads (``languages.py``), and why: its
    language, and whether a model read it, as the only reader of its code. Unless a model
    did, the file's code was not analysed and the review is partial."""

    path: str
    language: str
    reason: str
    model_read: bool = False


class AgentState(StrEnum):
    """How an agent's run ended."""

    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"


class AgentStatus(Frozen):
    """How one agent fared: state, the reason when not ok, and what it spent."""

    agent: AgentName
    state: AgentState
    reason: str | None = None
    tools: tuple[str, ...] = ()
    model: str | None = None
    usage: Usage = Usage()
    duration_ms: int = Field(default=0, ge=0)
    notes: tuple[str, ...] = ()
    # Files this agent's model did not see, each with why; ``deliberate`` is false when a
    # cap or a failure left it out, which makes the review partial.
    not_sent: tuple[SkippedFile, ...] = ()


class AgentReport(Frozen):
    """What one agent returns: its findings, its status, the files its analysers could not
    parse, and those an analyser skipped or gave up on, with why (each reviewed only in
    part: findings there may be missing)."""

    status: AgentStatus
    findings: tuple[Finding, ...] = ()
    unparsed: tuple[str, ...] = ()
    not_analysed: tuple[SkippedFile, ...] = ()
    # Results on lines the change touched that were already there before it (not reported).
    preexisting: int = Field(default=0, ge=0)
    # Candidates held back on proof, counted per mechanism (``pre-existing`` included), and
    # each with its proof when the user asked to see them (``show-silenced``).
    silenced: SilencedCounts = Field(default_factory=dict, validate_default=True)
    silenced_candidates: tuple[Silenced, ...] = ()


class Outcome(StrEnum):
    """Whether the review looked at everything it was asked to.

    ``reviewed``: every reviewable file by every selected agent. ``partial``: something was
    left out (an agent failed, a file could not be fetched, parsed or written, a cap or
    budget was hit). ``failed``: nothing was analysed at all.
    """

    REVIEWED = "reviewed"
    PARTIAL = "partial"
    FAILED = "failed"


class Review(Frozen):
    """The outcome of reviewing one change."""

    findings: tuple[Finding, ...]
    health_score: int = Field(ge=0, le=100)
    verdict: Verdict
    summary: str
    agents: tuple[AgentStatus, ...]
    usage: Usage = Usage()
    duration_ms: int = Field(default=0, ge=0)
    static_only: bool = True
    static_only_reason: str | None = None
    files_reviewed: tuple[str, ...] = ()
    files_not_reviewed: tuple[SkippedFile, ...] = ()
    # Reviewed files the model did not see (static analysis still covered them), with why.
    not_sent_to_model: tuple[SkippedFile, ...] = ()
    outcome: Outcome = Outcome.REVIEWED
    # Why the outcome is partial or failed, one sentence each; empty when reviewed.
    outcome_reasons: tuple[str, ...] = ()
    # Warnings about the pull request itself, e.g. text that tries to instruct the reviewer.
    warnings: tuple[str, ...] = ()
    # Issues on changed lines that were there before the change: counted, not reported.
    preexisting: int = Field(default=0, ge=0)
    # Candidates held back on proof, per mechanism (every one a key, sorted; ``pre-existing``
    # repeats ``preexisting``), and, when asked for (``show-silenced``), each with its proof.
    silenced: SilencedCounts = Field(default_factory=dict, validate_default=True)
    silenced_candidates: tuple[Silenced, ...] = ()
    # Reviewed code files in a language no code analyser reads (only a model, if any, did).
    unread_code: tuple[UnreadCode, ...] = ()

    @model_validator(mode="after")
    def _never_complete_with_a_failed_agent(self) -> Review:
        """However a review was built, a failed agent makes it partial, and an incomplete
        review is never an approval: "nothing found" must mean "looked and found nothing"."""
        failed = [a for a in self.agents if a.state is AgentState.FAILED]
        if failed and self.outcome is Outcome.REVIEWED:
            reasons = tuple(f"the {a.agent.value} agent failed: {a.reason}" for a in failed)
            object.__setattr__(self, "outcome", Outcome.PARTIAL)
            object.__setattr__(self, "outcome_reasons", self.outcome_reasons + reasons)
        if self.outcome is not Outcome.REVIEWED and self.verdict is Verdict.APPROVE:
            object.__setattr__(self, "verdict", Verdict.COMMENT)
        return self

    @property
    def complete(self) -> bool:
        """True when everything asked for was analysed, so an empty review means clean."""
        return self.outcome is Outcome.REVIEWED

    def at_or_above(
        self, threshold: Severity, *, count_disputed: bool = True
    ) -> tuple[Finding, ...]:
        """Return the findings whose severity is at least ``threshold`` (the gate); findings
        the model disputed count unless ``count_disputed`` is false."""
        return at_or_above(self.findings, threshold, count_disputed=count_disputed)


def at_or_above(
    findings: Sequence[Finding], threshold: Severity, *, count_disputed: bool = True
) -> tuple[Finding, ...]:
    """The findings a gate at ``threshold`` fails on: those of that severity or worse, with
    the ones the model disputed unless ``count_disputed`` is false, and never a dismissed one.
    The one rule that both ``fail-on`` and the verdict (``synthesizer.verdict``) apply."""
    return tuple(
        f
        for f in findings
        if f.severity.rank >= threshold.rank
        and (count_disputed or f.disputed is None)
        and f.dismissal is None
    )
