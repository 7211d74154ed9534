"""The reviewer's precision on a repository's own code, per rule and agent: pure renderers
from what the action posted and what people decided about it.

For each rule (the tool's rule, else the finding's category) and agent: how many findings
were posted inline, how many a trusted person dismissed as false positives, how many they
accepted (``accepted-risk`` or ``wont-fix``), and how many the next push fixed (the comment
went outdated, the finding was not dismissed, and the rule did not comment on that file again
in the pull request). The noisiest rules are those with the highest share of false positives;
each is named with the ``disable-rules`` line, for the config file and as the action's input,
that would turn it off (``options.rule_id_problem`` says which rules can be).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import yaml

from code_guard.findings import DismissalKind
from code_guard.options import rule_id_problem
from code_guard.trust.escaping import code_span

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


# What a rule id may hold to be written into a fenced block verbatim (markers allow less).
_VERBATIM = re.compile(r"[\w.:/ -]{1,200}")
DISABLE_KEY = "disable-rules"


def can_disable(rule: str) -> bool:
    """Whether ``disable-rules`` takes ``rule``: a ``tool:rule`` id of the rule catalogue
    (not a model finding's category, nor a rule this version does not know)."""
    return _VERBATIM.fullmatch(rule) is not None and rule_id_problem(rule) is None


def _scalar(text: str, line: str) -> str:
    """``text`` as YAML reads it back in ``line`` (``{}`` its place): plain when that round-
    trips, else quoted (JSON's quoting is YAML's too)."""
    try:
        plain = yaml.safe_load(line.format(text))
    except yaml.YAMLError:
        plain = None
    return text if plain in ({DISABLE_KEY: text}, {DISABLE_KEY: [text]}) else json.dumps(text)


def config_line(rules: Sequence[str]) -> str:
    """The config file's line that turns ``rules`` off: ``disable-rules: [bandit:B113]``."""
    items = ", ".join(_scalar(r, DISABLE_KEY + ": [{}]") for r in rules)
    return f"{DISABLE_KEY}: [{items}]"


def input_line(rules: Sequence[str]) -> str:
    """The action input that turns ``rules`` off, as a workflow's ``with:`` gives it:
    ``disable-rules: bandit:B113, ruff:F401``."""
    return f"{DISABLE_KEY}: {_scalar(', '.join(rules), DISABLE_KEY + ': {}')}"


def _noisy_line(row: RuleStats) -> str:
    said = (
        f"- {code_span(row.rule)} ({row.agent}): {row.false_positive} of {row.posted} "
        "dismissed as false positives"
    )
    if not can_disable(row.rule):
        return (
            f"{said}; not a rule id of this version's catalogue (a model's own finding is "
            "named by its category), so no switch turns it off"
        )
    return (
        f"{said}; off with {code_span(config_line([row.rule]))} in the config file, or the "
        f"action input {code_span(input_line([row.rule]))}"
    )


def _noisiest_section(noisy: Sequence[RuleStats]) -> str:
    """The noisiest rules, each with the line that turns it off, then those lines for all of
    them at once, verbatim in fenced blocks to copy."""
    parts = ["#### Noisiest rules", "\n".join(_noisy_line(r) for r in noisy)]
    off = list(dict.fromkeys(r.rule for r in noisy if can_disable(r.rule)))
    if off:
        parts += [
            "To turn them off, in the config file (`--config`, or the file the action's "
            "`config` input names; it comes from the workflow and the base branch, which the "
            "repository's owner controls):",
            f"```yaml\n{config_line(off)}\n```",
            "or as the action's input:",
            f"```yaml\nwith:\n  {input_line(off)}\n```",
            "Their hits are then no findings; each review counts them as silenced "
            "(`disabled`). To keep a rule that is right elsewhere, dismiss its findings one by "
            "one, or keep them in `.code-guard/dismissals.yml`.",
        ]
    else:
        parts.append(
            "Dismiss their findings one by one, or keep them in `.code-guard/dismissals.yml`."
        )
    return "\n\n".join(parts)


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
        parts.append(_noisiest_section(noisy))
    # Every value is a count, an agent's name or a rule in a code span, or a catalogue rule
    # id (``can_disable``) in a fenced block: nothing to escape.
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
        # The noisiest that ``disable-rules`` can turn off, as its config line lists them.
        "disable_rules": list(dict.fromkeys(r.rule for r in noisiest(rows) if can_disable(r.rule))),
    }
    return json.dumps(data, indent=2) + "\n"
