"""The bundled Semgrep rules against their annotated target files, as semgrep-rules tests its
rules: one runner for every target under ``tools/semgrep/targets/``.

A target is a source file of a language the rules read. A comment ``ruleid: <id>[, <id>...]``
says the next code line is reported by each rule named, ``ok: <id>[, <id>...]`` that no hit of
those rules covers it; as in semgrep-rules, ``todook:`` marks a line reported today that should
not be (a known false positive, expected as a ``ruleid:`` until the rule is fixed), and
``todoruleid:`` one that should be and is not (expected as an ``ok:``). As ``semgrep --test``
does, a hit on a line no ``ruleid`` names is a failure too, so a target says everything its
rules report in it. Each target runs through the real ``SemgrepTool`` and semgrep-core, so the
rewrites and folding before semgrep-core count.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from code_guard.findings import Category
from code_guard.knowledge.mapping import lookup
from code_guard.tools.semgrep.tool import SemgrepTool

TARGETS = Path(__file__).resolve().parents[2] / "tools" / "semgrep" / "targets"
_ANNOTATION = re.compile(
    r"^\s*(?:#|//)\s*(?P<kind>ruleid|ok|todook|todoruleid):\s*(?P<ids>[\w-]+(?:\s*,\s*[\w-]+)*)\s*$"
)


@dataclass
class Expected:
    """What a target's annotations say: (rule, line) pairs reported, and not."""

    reported: set[tuple[str, int]] = field(default_factory=set)
    quiet: set[tuple[str, int]] = field(default_factory=set)


def read_annotations(text: str) -> Expected:
    """The annotations of a target's ``text``, each on the code line after it."""
    expected = Expected()
    pending: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        found = _ANNOTATION.match(line)
        if found:
            ids = [i.strip() for i in found.group("ids").split(",")]
            pending.extend((found.group("kind"), rule) for rule in ids)
            continue
        for kind, rule in pending:
            reported = kind in ("ruleid", "todook")
            (expected.reported if reported else expected.quiet).add((rule, number))
        pending = []
    assert not pending, "an annotation ends the file"
    return expected


def _targets() -> list[Path]:
    return sorted(p for p in TARGETS.rglob("*") if p.is_file())


@pytest.mark.parametrize("target", _targets(), ids=lambda p: str(p.relative_to(TARGETS)))
def test_the_rules_report_what_the_target_says(tmp_path: Path, target: Path) -> None:
    expected = read_annotations(target.read_text(encoding="utf-8"))
    assert expected.reported or expected.quiet, "a target without annotations tests nothing"
    shutil.copy(target, tmp_path / target.name)
    hits = SemgrepTool(tuple(Category)).run(tmp_path, [target.name])
    reported = {(h.rule, h.line) for h in hits}
    assert sorted(reported - expected.reported) == [], "reported, and no ruleid says so"
    assert sorted(expected.reported - reported) == [], "a ruleid line is not reported"
    covered = sorted(
        (rule, line)
        for rule, line in expected.quiet
        for h in hits
        if h.rule == rule and h.line <= line <= h.end_line
    )
    assert covered == [], "an ok line is covered by a hit"


def test_every_annotated_rule_is_a_bundled_rule_with_a_record() -> None:
    named = {
        rule
        for target in _targets()
        for rule, _ in (
            read_annotations(target.read_text(encoding="utf-8")).reported
            | read_annotations(target.read_text(encoding="utf-8")).quiet
        )
    }
    assert named
    assert sorted(rule for rule in named if lookup("semgrep", rule) is None) == []


def test_the_annotations_read_as_semgrep_rules_writes_them() -> None:
    text = "a = 1\n# ruleid: r-one, r-two\nsink(a)\n// ok: r-one\nsafe(a)\n"
    expected = read_annotations(text)
    assert expected.reported == {("r-one", 3), ("r-two", 3)}
    assert expected.quiet == {("r-one", 5)}
    todo = read_annotations("# todook: r-one\nfp()\n# todoruleid: r-two\nfn()\n")
    assert (todo.reported, todo.quiet) == ({("r-one", 2)}, {("r-two", 4)})
    with pytest.raises(AssertionError, match="ends the file"):
        read_annotations("x = 1\n# ruleid: r-one\n")


# The category each rule the targets name is filed under (there is no XPath category).
RULE_CATEGORIES = {
    "py-xpath-injection-taint": Category.OTHER,
    "py-ssrf-taint": Category.SSRF,
    "py-xxe-taint": Category.XXE,
    "py-insecure-deserialization-taint": Category.INSECURE_DESERIALIZATION,
    "py-command-injection-taint": Category.COMMAND_INJECTION,
    "py-xss-taint": Category.XSS,
    "py-open-redirect-taint": Category.OPEN_REDIRECT,
    "py-sql-injection-taint": Category.SQL_INJECTION,
    "js-path-traversal-request-path": Category.PATH_TRAVERSAL,
    "js-xss-html-from-input": Category.XSS,
    "js-ssrf-request-url": Category.SSRF,
    "js-open-redirect-request-url": Category.OPEN_REDIRECT,
    "js-xss-jquery-html-string": Category.XSS,
    "js-xss-jquery-html-property": Category.XSS,
    "go-path-traversal-request-path": Category.PATH_TRAVERSAL,
    "go-path-traversal-archive-entry": Category.PATH_TRAVERSAL,
    "go-xss-unescaped-html": Category.XSS,
    "go-ssrf-request-url": Category.SSRF,
    "go-open-redirect-request-url": Category.OPEN_REDIRECT,
    "go-sql-injection-formatted-query": Category.SQL_INJECTION,
    "go-xss-html-format-parameter": Category.XSS,
    "go-command-injection-shell": Category.COMMAND_INJECTION,
    "js-open-redirect-request-location": Category.OPEN_REDIRECT,
    "go-weak-crypto-math-rand-secret": Category.WEAK_CRYPTO,
    "go-xss-template-trusted-type": Category.XSS,
    "go-hardcoded-secret-flag-default": Category.HARDCODED_SECRET,
    "py-code-injection-taint": Category.CODE_INJECTION,
    "py-path-traversal-taint": Category.PATH_TRAVERSAL,
    "py-ldap-injection-taint": Category.OTHER,
    "py-trust-boundary-session-key": Category.OTHER,
    "py-weak-crypto-random-secret": Category.WEAK_CRYPTO,
    "py-weak-crypto-hash": Category.WEAK_CRYPTO,
    "py-sql-injection-formatted-query": Category.SQL_INJECTION,
    "py-path-traversal-commonprefix": Category.PATH_TRAVERSAL,
    "py-insecure-transport-cleartext-url": Category.INSECURE_CONFIG,
    "py-insecure-deserialization-yaml": Category.INSECURE_DESERIALIZATION,
    "py-jwt-unverified-signature": Category.INSECURE_CONFIG,
    "py-jwt-none-algorithm": Category.WEAK_CRYPTO,
    "py-csrf-protection-disabled": Category.INSECURE_CONFIG,
    "py-insecure-cookie-authtkt": Category.INSECURE_CONFIG,
    "py-cors-wildcard-with-credentials": Category.INSECURE_CONFIG,
    "py-cors-origin-regex-prefix-match": Category.INSECURE_CONFIG,
    "py-ssl-unverified-default-context": Category.INSECURE_CONFIG,
    "py-weak-crypto-hashids-secret-key": Category.WEAK_CRYPTO,
    "py-command-injection-shell-argv": Category.COMMAND_INJECTION,
    "py-mass-assignment-request-data": Category.OTHER,
    "py-sql-injection-query-builder-text": Category.SQL_INJECTION,
    "py-code-injection-globals-template-context": Category.CODE_INJECTION,
    "py-xss-django-autoescape-off": Category.XSS,
    "py-xss-safestring-subclass": Category.XSS,
    "py-xss-formatted-html-response": Category.XSS,
    "py-orm-filter-python-operator": Category.OTHER,
    "py-cached-generator": Category.OTHER,
    "py-debugger-left-in": Category.OTHER,
    "py-code-injection-eval-built-string": Category.CODE_INJECTION,
    "py-insecure-cookie-set-cookie-header": Category.INSECURE_CONFIG,
    "py-hardcoded-secret-app-config": Category.HARDCODED_SECRET,
    "js-insecure-deserialization-eval": Category.INSECURE_DESERIALIZATION,
    "js-code-injection-eval": Category.CODE_INJECTION,
    "js-weak-crypto-pbkdf2-low-iterations": Category.WEAK_CRYPTO,
    "js-weak-crypto-math-random-bytes": Category.WEAK_CRYPTO,
    "js-insecure-config-cors-reflected-origin": Category.INSECURE_CONFIG,
    "js-xss-html-template-property": Category.XSS,
    "js-xss-url-attribute-unchecked": Category.XSS,
    "js-xss-dom-source": Category.XSS,
    "js-open-redirect-dom-source": Category.OPEN_REDIRECT,
    "go-sql-injection-request-taint": Category.SQL_INJECTION,
    "go-command-injection-request-taint": Category.COMMAND_INJECTION,
    "go-insecure-config-cors": Category.INSECURE_CONFIG,
    "go-sql-injection-builder-concat": Category.SQL_INJECTION,
    "go-hardcoded-secret-default-credential": Category.HARDCODED_SECRET,
    "go-weak-crypto-pbkdf2-low-iterations": Category.WEAK_CRYPTO,
}


@pytest.mark.parametrize(("rule", "category"), sorted(RULE_CATEGORIES.items()))
def test_a_targets_rule_is_filed_under_its_category(rule: str, category: Category) -> None:
    record = lookup("semgrep", rule)
    assert record is not None
    assert record.category is category
