"""From a tool's rule to its record: the one lookup every finding's facts come from.

Every rule a tool can report is looked up in the catalogue (``catalogue.py``): by exact rule
id, then by the longest listed prefix, then the analyser's fallback. A rule listed as ignored
is deliberately not reported (noise such as "imports subprocess"); a rule with no record at
all is still reported, as ``UNMAPPED``, so a new tool version can never make a finding vanish
silently.
"""

from __future__ import annotations

import functools

from code_guard.findings import Category, Severity
from code_guard.knowledge.catalogue import table
from code_guard.knowledge.records import LEVELS, IgnoredRule, RuleRecord

# The facts of a rule nobody has described yet.
UNMAPPED = RuleRecord(
    tool="any", id="", category=Category.OTHER, severity=Severity.LOW, confidence=LEVELS["low"]
)
# The rule ruff reports for a file it cannot parse, which semgrep's parse errors borrow
# (ignored in both tables, but noted by the agent).
UNPARSABLE_RULE = "invalid-syntax"


@functools.lru_cache(maxsize=4096)
def lookup(tool: str, rule: str) -> RuleRecord | None:
    """The record of ``rule`` of ``tool``: exact id, else the longest listed prefix, else the
    tool's fallback, else ``UNMAPPED``.

    Returns None only for rules the catalogue deliberately ignores.
    """
    known = table(tool)
    if known is None:
        return UNMAPPED
    found = known.rules.get(rule)
    if found is None:
        prefixes = [key for key in known.rules if key and rule.startswith(key)]
        if not prefixes:
            return known.fallback or UNMAPPED
        found = known.rules[max(prefixes, key=len)]
    return None if isinstance(found, IgnoredRule) else found
