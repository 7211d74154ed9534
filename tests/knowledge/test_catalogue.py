"""The rule catalogue (``knowledge/``): one record per rule, and nothing else.

The rules the analysers can emit are enumerated from the analysers themselves, not listed
here: Bandit's plugin registry, ruff's own rule list filtered by what the agents select,
detect-secrets' default plugins, the bundled Semgrep rules, the rule ids our AST checkers'
source yields, and the protections of the regression detector. Every one of them must have
a record, and every record must belong to one of them.
"""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from code_guard.agents import AGENTS
from code_guard.findings import Category
from code_guard.knowledge.catalogue import (
    SEMGREP_RULES,
    CatalogueError,
    entries,
    parse_categories,
    parse_rules,
    records,
    semgrep_metadata,
    semgrep_records,
    table,
    tools,
)
from code_guard.knowledge.fixes import REWRITES
from code_guard.knowledge.mapping import UNMAPPED, UNPARSABLE_RULE, lookup
from code_guard.knowledge.protections import DERIVE, catalogue
from code_guard.knowledge.records import LEVELS, RuleRecord
from code_guard.knowledge.regressions import TOOL as REGRESSION_TOOL
from code_guard.tools.access.detector import RULES as ACCESS_RULES
from code_guard.tools.access.tool import TOOL as ACCESS_TOOL
from code_guard.tools.python import taint
from code_guard.tools.python.checker import PythonChecker
from code_guard.tools.regressions.detector import GENERIC_ID
from code_guard.tools.ruff.tool import RuffTool

Rule = tuple[str, str]


def _bandit() -> set[Rule]:
    """Every test of the installed Bandit: the worker runs them all."""
    with warnings.catch_warnings():  # stevedore, which Bandit loads its plugins with, warns
        warnings.simplefilter("ignore", DeprecationWarning)
        from bandit.core import extension_loader

    manager = extension_loader.MANAGER
    return {("bandit", i) for i in (*manager.plugins_by_id, *manager.blacklist_by_id)}


def _ruff() -> set[Rule]:
    """Every ruff rule the agents' selections (by code prefix) take in, and its parse error."""
    from ruff.__main__ import find_ruff_bin

    selected = tuple(
        prefix
        for agent in AGENTS
        for tool in agent().tools()
        if isinstance(tool, RuffTool)
        for prefix in tool.select
    )
    out = subprocess.run(
        [find_ruff_bin(), "rule", "--all", "--output-format", "json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    codes = {str(r["code"]) for r in json.loads(out) if r["code"]}
    assert {"F401", "PERF401", "C901"} <= codes  # the listing is ruff's, not empty
    return {("ruff", c) for c in codes if c.startswith(selected)} | {("ruff", UNPARSABLE_RULE)}


def _secrets() -> set[Rule]:
    """The secret types of detect-secrets' default plugins, the ones a review enables."""
    from detect_secrets.settings import default_settings, get_plugins

    with default_settings():
        return {("detect-secrets", p.secret_type) for p in get_plugins()}


def _semgrep_ids() -> dict[str, dict[str, object]]:
    """Every bundled Semgrep rule, by id, from a full parse of its file."""
    rules: dict[str, dict[str, object]] = {}
    for path in sorted(Path(str(SEMGREP_RULES)).glob("*.yml")):
        for rule in yaml.safe_load(path.read_text(encoding="utf-8"))["rules"]:
            rules[str(rule["id"])] = rule
    assert len(rules) > 50
    return rules


def _yielded(module: str) -> Iterator[str]:
    """The rule ids a checker module yields: the string that starts each yielded tuple."""
    tree = ast.parse(inspect.getsource(sys.modules[module]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Yield) and isinstance(node.value, ast.Tuple):
            first = node.value.elts[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def _checkers() -> set[Rule]:
    """The rules of our AST checkers, read from their source; the taint check names its rule
    after its sink's category (``taint-<category>``)."""
    found: set[Rule] = set()
    for checker in PythonChecker.registered:
        if checker is taint.PythonTaintTool:
            found |= {(checker.name, f"taint-{c}") for c in set(taint._SINKS.values())}
            continue
        rules = set(_yielded(checker.__module__))
        assert rules, f"no rule found in {checker.__module__}"
        found |= {(checker.name, r) for r in rules}
    assert {t for t, _ in found} >= {"python-ast", "python-taint", "python-settings"}
    return found


def _regressions() -> set[Rule]:
    """Every rule the regression detector can report: a protection of a named category, or of
    one its sink or its name gives (``derive``), strong or weak."""
    protections = catalogue()
    derived = {s.category for s in protections.sinks} | {h.category for h in protections.name_hints}
    pairs = [(p.id, p.category) for p in protections.protections] + [(GENERIC_ID, DERIVE)]
    found: set[Rule] = set()
    for ident, category in pairs:
        for cat in derived if category == DERIVE else {Category(category)}:
            found |= {(REGRESSION_TOOL, f"{ident}.{cat.value}{weak}") for weak in ("", ".weak")}
    return found


def _access() -> set[Rule]:
    """Every rule the access-control detector reports (``detector.RULES``)."""
    return {(ACCESS_TOOL, rule) for rule in ACCESS_RULES}


@pytest.fixture(scope="module")
def emitted() -> set[Rule]:
    semgrep = {("semgrep", r) for r in _semgrep_ids()} | {("semgrep", UNPARSABLE_RULE)}
    found = _bandit() | _ruff() | _secrets() | semgrep | _checkers() | _regressions()
    return found | _access()


def _listed(tool: str, rule: str) -> bool:
    """Whether ``rule`` has an entry of its own in ``tool``'s table (exactly, or by a prefix)."""
    found = table(tool)
    return found is not None and any(rule.startswith(key) for key in found.rules if key)


def test_every_rule_an_analyser_can_emit_has_a_record(emitted: set[Rule]) -> None:
    missing = sorted(f"{tool}:{rule}" for tool, rule in emitted if not _listed(tool, rule))
    assert missing == []
    # Each analyser's secret types, Semgrep rules and checks are listed by their exact id.
    exact = {"detect-secrets", "semgrep", "python-taint", REGRESSION_TOOL}
    for tool, rule in emitted:
        found = table(tool)
        assert found is not None
        assert tool not in exact or rule in found.rules, f"{tool}:{rule}"


def test_no_record_is_orphaned(emitted: set[Rule]) -> None:
    """A record whose rule nothing can emit (renamed, dropped by a new analyser version)
    fails, so no rule's knowledge is left behind unnoticed."""
    orphans = sorted(
        f"{e.tool}:{e.id}"
        for e in entries()
        if not any(tool == e.tool and rule.startswith(e.id) for tool, rule in emitted)
    )
    assert orphans == []


def test_every_named_rewrite_exists_and_every_rewrite_is_named() -> None:
    named = {r.rewrite for r in records() if r.rewrite is not None}
    assert named <= REWRITES.keys()
    assert REWRITES.keys() <= named, "a rewrite no rule uses"
    assert len(named) >= 15


def test_every_table_loads_once_and_every_category_has_its_text() -> None:
    assert set(tools()) >= {"bandit", "ruff", "detect-secrets", "semgrep", REGRESSION_TOOL}
    for tool in tools():
        assert table(tool) is table(tool)
    assert table("no-such-analyser") is None
    for record in records():
        assert record.confidence in LEVELS.values() or 0 < record.confidence <= 1


def test_unknown_rules_still_map_to_the_unmapped_default() -> None:
    """A new analyser version's rule must never make a finding vanish."""
    assert lookup("bandit", "B9999") == UNMAPPED
    assert lookup("semgrep", "a-rule-added-tomorrow") == UNMAPPED
    assert lookup("an-analyser-added-tomorrow", "R1") == UNMAPPED
    assert UNMAPPED.category is Category.OTHER and UNMAPPED.confidence == LEVELS["low"]
    # detect-secrets' fallback: a new token format is a secret all the same.
    new = lookup("detect-secrets", "A Token Format Added Tomorrow")
    assert new is not None and new.category is Category.HARDCODED_SECRET


def test_the_semgrep_metadata_read_alone_is_what_a_full_parse_gives() -> None:
    rules = _semgrep_ids()
    for path in sorted(Path(str(SEMGREP_RULES)).glob("*.yml")):
        fast = semgrep_metadata(path.read_text(encoding="utf-8"), path.name)
        assert fast == {rule: rules[rule]["metadata"] for rule in fast}
    assert {"py-sql-injection-taint", "js-xss-dom-source", "go-ssrf-request-url"} <= rules.keys()


RULE = "  - {id: B1, category: xss, severity: high, confidence: medium, cwe: CWE-79}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (RULE.replace("category: xss, ", ""), r"x\.yml: rule 'B1': category: Field required"),
        (RULE.replace("medium", "sure"), r"rule 'B1': confidence: .*high, medium, low"),
        (RULE.replace("CWE-79", "CWE79"), r"rule 'B1': cwe: String should match"),
        (RULE.replace("}", ", quiet_in_test: true}"), r"rule 'B1': quiet_in_test: Extra inputs"),
        (RULE.replace("}", ", rewrite: no-such-fix}"), r"rule 'B1': rewrite: no rewrite is named"),
        (RULE.replace("}", ", why: because}"), r"rule 'B1': record: Value error, `why` and `fix`"),
        (RULE.replace("}", ", ignore_line: '('}"), r"rule 'B1': ignore_line: .*bad regular"),
        (RULE + RULE, r"x\.yml: rule 'B1' is listed twice"),
        ("  - {id: B2, ignored: true}\n", r"rule 'B2': reason: Field required"),
    ],
)
def test_a_record_missing_or_mistaking_a_fact_fails_loading_naming_file_and_rule(
    text: str, message: str
) -> None:
    with pytest.raises(CatalogueError, match=message):
        parse_rules("bandit", "rules:\n" + text, "rules/x.yml")


def test_a_semgrep_rule_without_its_facts_fails_loading() -> None:
    rule = "rules:\n  - id: {id}\n    languages: [python]\n    message: m\n{meta}    pattern: x\n"
    bare = rule.format(id="js-new-rule", meta="")
    with pytest.raises(CatalogueError, match=r"python\.yml: rule 'js-new-rule' has no `metadata:`"):
        list(semgrep_records(bare, "python.yml"))
    partial = rule.format(id="js-new-rule", meta="    metadata:\n      category: xss\n")
    with pytest.raises(CatalogueError, match=r"rule 'js-new-rule': severity: Field required"):
        list(semgrep_records(partial, "python.yml"))
    meta = "    metadata:\n      category: xss\n      severity: low\n      confidence: HIGH\n"
    (record,) = semgrep_records(rule.format(id="js-new-rule", meta=meta), "python.yml")
    assert isinstance(record, RuleRecord) and record.confidence == LEVELS["high"]


def test_the_category_texts_cover_every_category() -> None:
    with pytest.raises(CatalogueError, match="no text for category"):
        parse_categories("xss: {why: w, fix: f, link: 'https://x.example'}\n", "categories.yml")


def test_the_catalogue_is_read_on_first_use_not_at_import() -> None:
    """Starting the command line reads no rule table, not even the regression detector's
    protections; the first lookup of a rule reads its analyser's table alone."""
    code = (
        "import code_guard.cli, code_guard.review.engine\n"
        "from code_guard.knowledge import catalogue\n"
        "from code_guard.knowledge import protections\n"
        "assert catalogue._TABLES == {}, catalogue._TABLES\n"
        "assert protections.catalogue.cache_info().currsize == 0\n"
        "from code_guard.knowledge.mapping import lookup\n"
        "assert lookup('bandit', 'B602') is not None\n"
        "assert set(catalogue._TABLES) == {'bandit'}\n"
        "assert protections.catalogue.cache_info().currsize == 0\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_semgrep_metadata_reader_keeps_comments_and_stops_at_the_next_key() -> None:
    text = (
        "rules:\n  - id: a-rule\n    message: m\n    metadata:\n      category: xss\n"
        "    # a comment at the rule's indentation does not end the block\n"
        "      severity: low\n    pattern: x  # not metadata\n  - id: b-rule\n    pattern: y\n"
    )
    assert semgrep_metadata(text, "x.yml") == {
        "a-rule": {"category": "xss", "severity": "low"},
        "b-rule": None,
    }
    assert semgrep_metadata(text, "x.yml") == {
        r["id"]: r.get("metadata") for r in yaml.safe_load(text)["rules"]
    }
