"""How sure a finding is, from its evidence: the one place that turns evidence into a number.

A finding starts from a prior: a tool result from its rule's record in the catalogue
(``knowledge/``; low, medium or high: 0.4, 0.6 or 0.8, how often a bare match of that rule is
a real problem), the model's own finding from the model's own estimate; a merged finding from
the higher of its parts. The evidence then raises it, never lowers it:

- ``FLOW`` (0.8): a taint flow with its source named, from request data to a dangerous call
  (the rules whose record says ``flow: true``: semgrep's ``*-taint`` rules and its JS/Go
  request flows, our ``python-taint`` check), counts as the catalogue's "high". It shows the
  path an attacker's input takes, where a bare pattern only shows a risky call.
- ``AGREEMENT`` (+0.1) for each further independent analyser on the same issue (Bandit and
  semgrep, say): two methods that agree are less often both wrong. Ruff's ``S`` rules are
  Bandit's checks ported (their records say ``ported_from: bandit``), so they are Bandit
  again, not a second witness.
- ``CONFIRMATION`` (+0.1) when the model confirmed a tool's finding, or found the same issue
  on its own. Only one step: the model reads the pull request and can be steered by it.
- ``CEILING`` (0.95): raising stops there; static evidence is never certainty.

So a bare Bandit ``B311 random`` stays at 0.40, a bare ``B608`` SQL string at 0.60, a
semgrep ``py-sql-injection-taint`` flow is 0.80, and with ``B608`` on the same line 0.90;
``B608`` confirmed by the model is 0.70.

A finding the model disputed is not raised: the dispute caps it at ``DISPUTED`` (0.3), and it
stays in the review (``synthesizer.synthesize``). ``undisputed`` gives what its evidence says
without the dispute, for callers that must not let the model's word move a finding.
"""

from __future__ import annotations

from collections.abc import Sequence

from code_guard.findings import Finding
from code_guard.knowledge.mapping import lookup

FLOW = 0.8
AGREEMENT = 0.1
CONFIRMATION = 0.1
CEILING = 0.95
DISPUTED = 0.3
# The source the model's confirmations and own findings carry.
MODEL = "model"


def assess(finding: Finding) -> float:
    """The confidence ``finding``'s evidence gives it: its prior raised by a named taint
    flow, by independent analysers that agree, and by the model's confirmation; a disputed
    finding is capped at ``DISPUTED`` instead. Call once, on a finding whose sources are all
    merged in (``synthesizer.synthesize`` does)."""
    if finding.disputed is not None:
        return min(finding.confidence, DISPUTED)
    return raised(finding.confidence, finding.sources)


def undisputed(finding: Finding) -> float:
    """What ``assess`` would give ``finding`` had the model not disputed it.

    The dispute overwrote the prior, so it is read again from the rule's record: a disputed
    finding is always a tool's (the model disputes only tool candidates).
    """
    if finding.disputed is None:
        return finding.confidence
    tools = tuple(s for s in finding.sources if s != MODEL)
    priors = [info.confidence for s in tools if (info := lookup(*_tool_rule(s))) is not None]
    return raised(max(priors, default=finding.confidence), tools)


def raised(prior: float, sources: Sequence[str]) -> float:
    """``prior`` raised by what ``sources`` (``tool:rule`` names and ``model``) show,
    rounded to two decimals so that thresholds compare as they read."""
    rules = [_tool_rule(s) for s in sources if s != MODEL]
    if not rules:
        return prior  # the model alone: its own estimate is all there is
    value = max(prior, FLOW) if any(is_flow(tool, rule) for tool, rule in rules) else prior
    witnesses = {_witness(tool, rule) for tool, rule in rules}
    value += AGREEMENT * (len(witnesses) - 1)
    if MODEL in sources:
        value += CONFIRMATION
    return round(max(prior, min(value, CEILING)), 2)


def is_flow(tool: str, rule: str) -> bool:
    """True for the rules that follow request data from a named source to a sink."""
    record = lookup(tool, rule)
    return record is not None and record.flow


def _witness(tool: str, rule: str) -> str:
    """The analyser behind a result, for counting independent ones: the analyser whose check
    the rule reimplements, if it is a port."""
    record = lookup(tool, rule)
    return record.ported_from if record is not None and record.ported_from else tool


def _tool_rule(source: str) -> tuple[str, str]:
    tool, _, rule = source.partition(":")
    return tool, rule
