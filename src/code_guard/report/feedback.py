"""The reviewer's precision on a repository's own code, per rule and agent: pure renderers
from what the action posted and what people decided about it.

For each rule (the tool's rule, else the finding's category) and agent: how many findings
were posted inline, how many a trusted person dismissed as false positives, how many they
accepted (``accepted-risk`` or ``wont-fix``), and how many the next push fixed (the comment
went outdated, the finding was not dismissed, and the rule did not comment on that file again
in the pull request). The noisiest rules are those with the highest share of false positives.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from code_guard.models import DismissalKind
from code_guard.report.plain import code_span

NOISIEST = 5  # rules named as the noisiest, at most
NOISE_FLOOR = 0.5  # a rule is noisy when at least this share of its findings is dismissed wrong


@dataclass(frozen=True, slots=True)
class Posted:
    """One finding the action posted inline on one pull request, and what became of it."""

    pull: int
    fingerprint: str
    rule: str
    agent: str
    path: str
    dismissed: DismissalKind | None = None
    fixed: bool = False


@dataclass(frozen=True, slots=True)
class RuleStats:
    """What happened to one rule's findings over the pull requests looked at."""

    rule: str
    agent: str
    posted: int
    false_positive: int
    accepted: int
    fixed: int

    @property
    def false_positive_rate(self) -> float:
        """The share of posted findings dismissed as false positives."""
        return self.false_positive / self.posted if self.posted else 0.0


def tally(posted: Sequence[Posted]) -> list[RuleStats]:
    """One row per rule and agent, the highest false-positive share first (then most posted,
    then by name)."""
    groups: dict[tuple[str, str], list[Posted]] = {}
    for item in posted:
        groups.setdefault((item.rule, item.agent), []).append(item)
    rows = [
        RuleStats(
            rule=rule,
            agent=agent,
            posted=len(items),
            false_positive=sum(i.dismissed is DismissalKind.FALSE_POSITIVE for i in items),
            accepted=sum(
                i.dismissed in (DismissalKind.ACCEPTED_RISK, DismissalKind.WONT_FIX) for i in items
            ),
            fixed=sum(i.fixed for i in items),
        )
        for (rule, agent), items in groups.items()
    ]
    return sorted(rows, key=lambda r: (-r.false_positive_rate, -r.posted, r.rule, r.agent))


def noisiest(rows: Sequence[RuleStats]) -> list[RuleStats]:
    """The rules whose findings were most often dismissed as false positives."""
    noisy = [r for r in rows if r.false_positive and r.false_positive_rate >= NOISE_FLOOR]
    return noisy[:NOISIEST]


def render_feedback_markdown(rows: Sequence[RuleStats], pulls: int, since: str) -> str:
    """The job-summary table, per agent totals, and the noisiest rules."""
    head = [
        "## Ninja Code Guard: precision on this repository",
        "",
        f"{pulls} pull request(s) updated since {since}; "
        f"{sum(r.posted for r in rows)} finding(s) posted inline.",
    ]
    if not rows:
        return "\n".join([*head, "", "No finding was posted in that time."]) + "\n"
    table = [
        "| Rule | Agent | Posted | False positive | Accepted | Fixed by a push | FP share |",
        "|---|---|---:|---:|---:|---:|---:|",
        *(
            f"| {code_span(r.rule)} | {r.agent} | {r.posted} | {r.false_positive} | "
            f"{r.accepted} | {r.fixed} | {r.false_positive_rate:.0%} |"
            for r in rows
        ),
    ]
    agents = sorted({r.agent for r in rows})
    per_agent = [
        "| Agent | Posted | False positive | Accepted | Fixed by a push |",
        "|---|---:|---:|---:|---:|",
    ]
    for agent in agents:
        own = [r for r in rows if r.agent == agent]
        per_agent.append(
            f"| {agent} | {sum(r.posted for r in own)} | {sum(r.false_positive for r in own)} "
            f"| {sum(r.accepted for r in own)} | {sum(r.fixed for r in own)} |"
        )
    parts = ["\n".join(head), "\n".join(table), "\n".join(per_agent)]
    noisy = noisiest(rows)
    if noisy:
        lines = [
            f"- {code_span(r.rule)} ({r.agent}): {r.false_positive} of {r.posted} dismissed "
            "as false positives"
            for r in noisy
        ]
        parts.append(
            "#### Noisiest rules\n\n"
            + "\n".join(lines)
            + "\n\nThe review has no switch that turns off a single rule yet; dismiss its "
            "findings one by one, or keep them in `.code-guard/dismissals.yml`."
        )
    # Every value is a count, an agent's name or a rule in a code span: nothing to escape.
    return "\n\n".join(parts) + "\n"


def render_feedback_json(rows: Sequence[RuleStats], pulls: int, since: str) -> str:
    """The same numbers as JSON: the period, and one object per rule and agent."""
    data = {
        "since": since,
        "pull_requests": pulls,
        "rules": [
            {**asdict(r), "false_positive_rate": round(r.false_positive_rate, 4)} for r in rows
        ],
        "noisiest": [r.rule for r in noisiest(rows)],
    }
    return json.dumps(data, indent=2) + "\n"
