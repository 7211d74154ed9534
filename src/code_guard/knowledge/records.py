"""The record of one rule, and of one category: what a finding of it says, as frozen data.

A ``RuleRecord`` holds every fact the review needs about one analyser rule (or rule prefix):
the category, severity, confidence and CWE its findings get; the why, fix and link the outputs
print; whether it is quiet in tests; the rewrite that fixes its line; and the few facts the
filters and the confidence model read. ``catalogue.py`` loads them from the YAML files under
``knowledge/rules/`` and from the ``metadata:`` blocks of the Semgrep rules.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from code_guard.findings import Category, Frozen, Severity

# The readable confidence levels and the prior each stands for: how often a bare match of
# the rule is a real problem (confidence.py raises it with the evidence).
LEVELS: dict[str, float] = {"high": 0.8, "medium": 0.6, "low": 0.4}


def _level(value: object) -> object:
    """``high``, ``medium`` or ``low`` (any case, as Semgrep's corpus writes them) as its number."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word not in LEVELS:
            raise ValueError(f"confidence is high, medium, low or a number, not {value!r}")
        return LEVELS[word]
    return value


def _pattern(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"bad regular expression {value!r}: {exc}") from exc
    return value


Confidence = Annotated[float, BeforeValidator(_level), Field(gt=0.0, le=1.0)]
Cwe = Annotated[str, Field(pattern=r"^CWE-[1-9][0-9]*$")]
Text = Annotated[str, Field(min_length=1)]
Url = Annotated[str, Field(pattern=r"^https://\S+$")]
Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]


class RuleRecord(Frozen):
    """Everything the review knows about one rule of one analyser.

    ``id`` also covers the longer ids it begins (ruff's ``PERF`` covers ``PERF401``). Without
    its own ``why`` and ``fix`` a rule is explained by its category's text; without
    ``references`` its link is its CWE's page, else its category's.
    """

    tool: Text
    id: str
    category: Category
    severity: Severity
    confidence: Confidence
    cwe: Cwe | None = None
    why: Text | None = None
    fix: Text | None = None
    references: tuple[Url, ...] = ()
    # A rule about production behaviour: not reported in test files.
    quiet_in_tests: bool = False
    # The name of the one-line rewrite that fixes a flagged line (``fixes.py``).
    rewrite: Name | None = None
    # The rule follows request data from a named source to a sink (a taint flow).
    flow: bool = False
    # The analyser whose check this rule reimplements (ruff's ``S`` rules are Bandit's).
    ported_from: Text | None = None
    # The analyser's own ratings of a hit (``ToolHit.tool_severity``) that are not findings:
    # Bandit rates a shell call with a constant command line LOW.
    ignore_when_rated: tuple[Text, ...] = ()
    # A flagged line that matches this in full is not a finding.
    ignore_line: Text | None = None

    _regex = field_validator("ignore_line")(_pattern)

    @model_validator(mode="after")
    def _texts_together(self) -> RuleRecord:
        if (self.why is None) != (self.fix is None):
            raise ValueError("`why` and `fix` come together: give both or neither")
        return self


class IgnoredRule(Frozen):
    """A rule deliberately not reported (noise such as "imports subprocess"), and why."""

    tool: Text
    id: str
    ignored: Literal[True]
    reason: Text


class CategoryText(Frozen):
    """The explanation of a category: what a rule without its own text says."""

    why: Text
    fix: Text
    link: Url
