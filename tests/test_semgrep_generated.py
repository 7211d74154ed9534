"""The Semgrep taint rules of python.yml are generated from the security model
(``scripts/semgrep_rules.py``): the committed rules are the ones the model produces today, each
keeps its record, and each takes only the sanitisers and guards of its own kind (issue 27)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import yaml

from code_guard.knowledge.security import load_model
from code_guard.tools.semgrep.tool import rules_file

ROOT = Path(__file__).resolve().parent.parent
MODEL = load_model("python")


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "semgrep_rules", ROOT / "scripts" / "semgrep_rules.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


gen = _load_script()


def test_the_committed_rules_are_the_generated_ones() -> None:
    """`python scripts/semgrep_rules.py --check` passes: the model and python.yml agree."""
    current = rules_file("python.yml").read_text(encoding="utf-8")
    assert gen.render("python", current) == current


def _taint_rules() -> dict[str, dict[str, object]]:
    rules = yaml.safe_load(rules_file("python.yml").read_text(encoding="utf-8"))["rules"]
    ids = {r.id for r in MODEL.rules}
    return {r["id"]: r for r in rules if r["id"] in ids}


def test_the_generated_rules_keep_their_records() -> None:
    rules = _taint_rules()
    for rule in MODEL.rules:
        assert rules[rule.id]["metadata"] == rule.metadata
        assert rules[rule.id]["message"] == rule.message


def _regexes(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["regex"]] if isinstance(node.get("regex"), str) else []
        return own + [r for value in node.values() for r in _regexes(value)]
    if isinstance(node, list):
        return [r for item in node for r in _regexes(item)]
    return []


def test_no_sanitiser_or_guard_trusts_a_name() -> None:
    """No metavariable-regex of a sanitiser or guard accepts a name by a word in it: the
    sanitisers are library calls, and a guard's name (django's) is spelled in full."""
    for rule in _taint_rules().values():
        for regex in _regexes(rule["pattern-sanitizers"]):
            assert not re.search(r"(?i)saniti|valid|safe|clean|allow|escape", regex), regex


def test_a_rule_takes_only_the_protections_of_its_kind() -> None:
    rules = _taint_rules()
    path = yaml.safe_dump(rules["py-path-traversal-taint"]["pattern-sanitizers"])
    assert "html.escape(...)" not in path
    assert "urllib.parse.quote(...)" not in path
    assert "os.path.basename(...)" in path
    ssrf = yaml.safe_dump(rules["py-ssrf-taint"]["pattern-sanitizers"])
    assert ".scheme" not in ssrf
    assert "int(...)" not in ssrf


def test_the_yaml_writer_round_trips() -> None:
    rules = [{"id": "r", "a": "x: y", "b": "it's", "c": "one\ntwo\n", "d": [], "e": {"f": 1}}]
    text = "rules:\n" + gen.dump_rules(list(rules))
    assert yaml.safe_load(text) == {"rules": rules}


def _value_sanitisers(rule: dict[str, object]) -> list[object]:
    found = rule.get("pattern-sanitizers")
    items = found if isinstance(found, list) else []
    # a guard is written as the `if` around the value (pattern-inside); the rest clear a value
    return [
        s
        for s in items
        if isinstance(s, dict)
        and not s.get("by-side-effect")
        and "pattern-inside" not in yaml.safe_dump(s)
    ]


def test_no_taint_rule_of_any_language_clears_a_value_by_its_name() -> None:
    """The JavaScript and Go rules are still written by hand; none of their value sanitisers
    trusts a helper for a word in its name either (`sanitizePath`, `isSafeRedirect`)."""
    for language in ("javascript", "go"):
        rules = yaml.safe_load(rules_file(f"{language}.yml").read_text(encoding="utf-8"))
        for rule in rules["rules"]:
            if rule.get("mode") != "taint":
                continue
            for regex in _regexes(_value_sanitisers(rule)):
                assert not re.search(r"(?i)saniti|safe|escape|clean|purif|valid", regex), (
                    rule["id"],
                    regex,
                )
