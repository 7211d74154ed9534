"""The rules the security-regression detector reports, derived from its protections.

A rule id is ``<protection id>.<category>``, with ``.weak`` appended when the evidence is thin
(the protection went away but no replacement or sink that uses the value was seen). Each
protection of ``knowledge/protections.yml`` gives its severity, confidence, why and fix;
``knowledge/rules/security-regression.yml`` adds what is the same for all of them (the CWE of
each category, how much less a weak match is worth) and the rules of the detector's own that
no protection names. Nothing is listed by hand.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator

from code_guard.findings import Category, Frozen, Severity
from code_guard.knowledge.protections import DERIVE, catalogue
from code_guard.knowledge.records import Confidence, Cwe, RuleRecord, Text

TOOL = "security-regression"


class _Deferred(Frozen):
    # Built on first use: only a review that reports a regression reads these facts.
    model_config = ConfigDict(defer_build=True)


class Weak(_Deferred):
    """How a weak match reads: less sure, and one step less severe."""

    confidence_drop: Annotated[float, Field(gt=0.0, lt=1.0)]
    confidence_floor: Annotated[float, Field(gt=0.0, lt=1.0)]
    # The severity of a weak match, by the severity of the strong one.
    severity: dict[Severity, Severity]

    @model_validator(mode="after")
    def _every_severity(self) -> Weak:
        if missing := [s.value for s in Severity if s not in self.severity]:
            raise ValueError(f"no weak severity for {missing[0]!r}")
        return self


class Own(_Deferred):
    """A rule of the detector that no protection names (a call named like a sanitiser)."""

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]+$")]
    category: Category | Literal["derive"]
    severity: Severity
    confidence: Confidence
    why: Text
    fix: Text


class Facts(_Deferred):
    """``knowledge/rules/security-regression.yml``."""

    cwe: dict[Category, Cwe]
    weak: Weak
    rules: tuple[Own, ...]


def derive(facts: Facts, links: Mapping[Category, str]) -> Iterator[RuleRecord]:
    """Every rule the detector can report, with its facts; a rule links to its category's
    page (``links``). A category of a protection with no CWE in ``facts`` is a ValueError."""
    protections = catalogue()
    entries = [
        (p.id, p.category, p.severity, p.confidence, p.why, p.fix) for p in protections.protections
    ]
    entries += [(o.id, o.category, o.severity, o.confidence, o.why, o.fix) for o in facts.rules]
    # A protection of a derived category takes the category of the sink it guarded, or the
    # one its helper's name points to.
    found = {s.category for s in protections.sinks} | {h.category for h in protections.name_hints}
    derived = sorted(found, key=list(Category).index)
    for ident, category, severity, confidence, why, fix in entries:
        categories = derived if category == DERIVE else [Category(category)]
        for cat in categories:
            if cat not in facts.cwe:
                raise ValueError(f"rule {ident!r}: no CWE is given for category {cat.value!r}")
            weak = max(confidence - facts.weak.confidence_drop, facts.weak.confidence_floor)
            for suffix, level, sure in (
                ("", severity, confidence),
                (".weak", facts.weak.severity[severity], round(weak, 2)),
            ):
                yield RuleRecord(
                    tool=TOOL,
                    id=f"{ident}.{cat.value}{suffix}",
                    category=cat,
                    severity=level,
                    confidence=sure,
                    cwe=facts.cwe[cat],
                    why=why,
                    fix=fix,
                    references=(links[cat],),
                    # A test file is quiet only when the review proves no production file
                    # loads it (``testfiles.py``); the filter decides, never the path alone.
                    quiet_in_tests=True,
                )
