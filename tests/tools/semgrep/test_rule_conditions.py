"""Every condition in the bundled Semgrep rules names a metavariable that every alternative
beside it binds.

Semgrep drops a match when a ``metavariable-regex``, ``metavariable-pattern``,
``metavariable-comparison`` or ``focus-metavariable`` names a metavariable the match did not
bind. A condition written beside a ``pattern-either`` for the sake of one alternative therefore
silences all the others: ``js-xss-dom-source`` once reported none of its sinks but jQuery's
(``innerHTML``, ``document.write``, ``eval`` and ``setTimeout`` matched nothing), and
``py-command-injection-taint`` none of ``os.exec*`` or ``os.spawn*``. No test target covered
those sinks, so nothing failed. This test reads every rule of every bundled rules file, the
generated ones included, and fails on any condition that can silence an alternative that way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from code_guard.tools.semgrep.command import rules_file

RULES_FILES = ("python.yml", "javascript.yml", "go.yml")
_METAVARIABLE = re.compile(r"\$(?:\.\.\.)?[A-Z_][A-Z0-9_]*")
# The keys that add a match (and the metavariables it binds); pattern-not* only take away.
_POSITIVE = ("pattern", "pattern-inside", "pattern-regex", "pattern-either", "patterns")
_CONDITIONS = (
    "metavariable-regex",
    "metavariable-pattern",
    "metavariable-comparison",
    "focus-metavariable",
)


def bound(node: Any) -> set[str]:
    """The metavariables every match of ``node`` binds: an either binds only what all its
    alternatives bind; a conjunction binds what any of its positive parts binds."""
    if not isinstance(node, dict):
        return set()
    if "pattern" in node:
        return set(_METAVARIABLE.findall(str(node["pattern"])))
    if "pattern-inside" in node:
        return set(_METAVARIABLE.findall(str(node["pattern-inside"])))
    if "pattern-regex" in node:  # named groups bind $NAME
        return {"$" + name for name in re.findall(r"\(\?P<(\w+)>", str(node["pattern-regex"]))}
    if "pattern-either" in node:
        alternatives = [bound(a) for a in node["pattern-either"]]
        return set.intersection(*alternatives) if alternatives else set()
    if "patterns" in node:
        found: set[str] = set()
        for part in node["patterns"]:
            if isinstance(part, dict) and any(k in part for k in _POSITIVE):
                found |= bound(part)
        return found
    return set()


def named(condition: str, value: Any) -> list[str]:
    """The metavariables a condition names."""
    if condition == "focus-metavariable":
        return list(value) if isinstance(value, list) else [str(value)]
    if condition == "metavariable-comparison" and "metavariable" not in value:
        return _METAVARIABLE.findall(str(value.get("comparison", "")))
    return [str(value["metavariable"])]


def unbound_conditions(node: Any, where: str = "") -> Iterator[str]:
    """Each condition under ``node`` that names a metavariable its ``patterns`` may leave
    unbound, as ``where: condition $X``."""
    if isinstance(node, dict):
        if isinstance(node.get("patterns"), list):
            binds = bound(node)
            for part in node["patterns"]:
                for condition in _CONDITIONS:
                    if isinstance(part, dict) and condition in part:
                        for name in named(condition, part[condition]):
                            if name not in binds:
                                yield f"{where}: {condition} {name}"
        for key, value in node.items():
            yield from unbound_conditions(value, f"{where}/{key}" if where else str(key))
    elif isinstance(node, list):
        for item in node:
            yield from unbound_conditions(item, where)


@pytest.mark.parametrize("name", RULES_FILES)
def test_every_condition_names_a_metavariable_every_alternative_binds(name: str) -> None:
    rules = yaml.safe_load(rules_file(name).read_text(encoding="utf-8"))["rules"]
    found = [f for rule in rules for f in unbound_conditions(rule, str(rule["id"]))]
    assert found == []


def test_a_condition_beside_an_either_for_one_alternative_is_found() -> None:
    """The shape js-xss-dom-source's sink had: jQuery's method condition beside the either."""
    rule = yaml.safe_load(
        """
        id: shape
        patterns:
          - pattern-either:
              - pattern: $EL.innerHTML = $X
              - pattern: $(...).$JQ($X)
          - metavariable-regex:
              metavariable: $JQ
              regex: ^html$
          - focus-metavariable: $X
        """
    )
    assert list(unbound_conditions(rule, "shape")) == ["shape: metavariable-regex $JQ"]


def test_a_condition_with_its_own_alternative_or_bound_by_all_is_not_found() -> None:
    rule = yaml.safe_load(
        """
        id: shape
        patterns:
          - pattern-either:
              - pattern: $EL.innerHTML = $X
              - patterns:
                  - pattern: $(...).$JQ($X)
                  - metavariable-regex:
                      metavariable: $JQ
                      regex: ^html$
          - pattern-inside: function $F(...) { ... }
          - metavariable-regex:
              metavariable: $F
              regex: ^render
          - focus-metavariable: $X
        """
    )
    assert list(unbound_conditions(rule, "shape")) == []


def test_a_focus_on_a_value_one_alternative_leaves_unbound_is_found() -> None:
    """``py-sql-injection-taint`` had ``$M.objects.extra(...)`` beside sinks binding $Q."""
    rule = yaml.safe_load(
        """
        id: shape
        patterns:
          - pattern-either:
              - pattern: $C.execute($Q, ...)
              - pattern: $M.objects.extra(...)
          - focus-metavariable: $Q
        """
    )
    assert list(unbound_conditions(rule, "shape")) == ["shape: focus-metavariable $Q"]
