"""docs/coverage.md is generated from the rules: the generator counts what it is given, and
the committed page is the one the rules produce today."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "coverage.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("coverage_page", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


cov = _load()

# Rule ids the catalogue knows (their category comes from their record), with patterns
# written for this test.
RULES = """\
rules:
  - id: py-xss-taint
    languages: [python]
    severity: ERROR
    message: test
    mode: taint
    pattern-sources:
      - patterns:
          - pattern: request.$ATTR
          - metavariable-regex:
              metavariable: $ATTR
              regex: ^(args|form)$
    pattern-sanitizers:
      - pattern: html.escape(...)
    pattern-sinks:
      - pattern: Markup($X)
  - id: py-weak-crypto-hash
    languages: [python]
    severity: WARNING
    message: test
    patterns:
      - pattern: hashlib.$H(...)
      - metavariable-regex:
          metavariable: $H
          regex: ^(md5|sha1)$
      - pattern-not: hashlib.$H(..., usedforsecurity=False)
"""

REFERENCE = """\
python:
  tainted: [xss]
  sources:
    - ref: a framework
      names: [request.args, request.form, request.cookies]
  categories:
    xss:
      sinks:
        - ref: sinks
          names: [Markup, mark_safe]
      sanitizers:
        - ref: escaping
          names: [html.escape]
    weak_crypto:
      sinks:
        - ref: hashes
          names: [hashlib.md5, hashlib.sha1, hashlib.sha256]
"""


def page(tmp_path: Path, rules: str) -> str:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "python.yml").write_text(rules, encoding="utf-8")
    reference = tmp_path / "reference.yml"
    reference.write_text(REFERENCE, encoding="utf-8")
    text: str = cov.generate(tmp_path / "rules", reference, tools=False)
    return text


def test_the_generator_counts_the_rules_it_is_given(tmp_path: Path) -> None:
    text = page(tmp_path, RULES)
    # One source pattern covering two of three names; one sink of two; one sanitiser of one.
    assert "| xss | python | 1 · 2/3 | 1 · 1/2 | 1 · 1/1 |" in text
    # A pattern rule: its pattern is a sink; its pattern-not branch counts as a sanitiser.
    assert "| weak_crypto | python | — | 1 · 2/3 | 1 · — |" in text
    assert "- sources, a framework: `request.cookies`" in text
    assert "- sinks, sinks: `mark_safe`" in text
    assert "- sinks, hashes: `hashlib.sha256`" in text
    assert "| xss | javascript | — | — | — |" in text  # nothing on either side


def test_without_the_rules_nothing_is_covered(tmp_path: Path) -> None:
    text = page(tmp_path, "rules: []\n")
    assert "| xss | python | 0 · 0/3 | 0 · 0/2 | 0 · 0/1 |" in text
    assert "| weak_crypto | python | — | 0 · 0/3 | — |" in text


@pytest.mark.parametrize(
    ("pattern", "regexes", "name", "covered"),
    [
        ("$C.execute($Q, ...)", (), "cursor.execute", True),
        ("$C.execute($Q, ...)", (), "cursor.executemany", False),
        ("$C.$GET(...)", (("$GET", "^(Query|Param)$"),), "c.Query", True),
        ("$C.$GET(...)", (("$GET", "^(Query|Param)$"),), "c.Cookie", False),
        ("$R.URL.Query().Get(...)", (), "r.URL.Query.Get", True),
        ("$SAFE(...)", (("$SAFE", "(?i)^([\\w.]*\\.)?\\w*escape\\w*$"),), "html.escape", True),
        ("$F($X)", (), "os.system", False),  # a bare metavariable names no API
        ("$EL.innerHTML = $X", (), "document.write", False),
        ('os.system("$X")', (), "X", False),  # a string is not a name
        ("prisma.$queryRawUnsafe(...)", (), "prisma.$queryRawUnsafe", True),  # a name, not a var
    ],
)
def test_a_pattern_covers_the_names_it_spells(
    pattern: str, regexes: tuple[tuple[str, str], ...], name: str, covered: bool
) -> None:
    assert cov.Unit(pattern, regexes).covers(name) is covered


def test_a_source_covers_the_fields_it_reads_through() -> None:
    unit = cov.Unit("$R.URL.Query()")
    assert unit.covers("r.URL", leading=True)
    assert not unit.covers("r.URL")  # a sink must be named whole


def test_the_committed_page_is_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    status = cov.main(["--check"])
    assert status == 0, capsys.readouterr().out


def test_a_stale_page_fails_the_check_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "coverage.md"
    stale.write_text("# an old page\n", encoding="utf-8")
    assert cov.main(["--check", "--output", str(stale)]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "out of date" in out and "--write" in out
    assert cov.main(["--write", "--output", str(stale)]) == 0
    assert cov.main(["--check", "--output", str(stale)]) == 0
