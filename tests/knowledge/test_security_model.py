"""The security model of a language is data, validated where it is loaded: each sanitiser
neutralises and each guard proves only the kinds it names, and names must be known (issue 27)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from code_guard.findings import Category
from code_guard.knowledge.mapping import lookup
from code_guard.knowledge.security import SecurityModel, load_model

ROOT = Path(__file__).resolve().parents[2]


MODEL = load_model("python")


def _neutralised_by(call: str) -> frozenset[str]:
    found = [s for s in MODEL.sanitisers if call in s.calls]
    assert len(found) == 1, call
    return MODEL.expand(found[0].neutralises)


def _proven_by(guard: str) -> frozenset[str]:
    (found,) = [g for g in MODEL.guards if g.name == guard]
    return MODEL.expand(found.proves)


def test_the_model_is_loaded_once_and_frozen() -> None:
    assert load_model("python") is MODEL
    with pytest.raises(ValidationError):
        MODEL.language = "go"


@pytest.mark.parametrize(
    ("call", "kinds"),
    [
        ("html.escape", {"xss"}),
        ("markupsafe.escape", {"xss"}),
        ("shlex.quote", {"command_injection"}),
        ("os.path.basename", {"path_traversal"}),
        ("werkzeug.utils.secure_filename", {"path_traversal"}),
    ],
)
def test_a_sanitiser_neutralises_only_its_kinds(call: str, kinds: set[str]) -> None:
    assert _neutralised_by(call) == kinds


def test_a_cast_neutralises_every_injection_but_no_url() -> None:
    kinds = _neutralised_by("int")
    assert MODEL.expand(["injection"]) <= kinds
    assert not kinds & {"ssrf", "open_redirect", "trust_boundary"}


def test_percent_encoding_keeps_paths_and_hosts() -> None:
    """`quote` keeps `.` and `/`: `../` and `//host` pass through it."""
    kinds = _neutralised_by("urllib.parse.quote")
    assert "sql_injection" in kinds
    assert not kinds & {"path_traversal", "open_redirect", "ssrf"}


@pytest.mark.parametrize(
    ("guard", "kinds"),
    [
        ("normalised-prefix", {"path_traversal"}),
        ("common-path", {"path_traversal"}),
        ("host-allow-list", {"ssrf", "open_redirect"}),
        ("parsed-host-equals", {"ssrf", "open_redirect"}),
        ("scheme", set()),
        ("dot-dot", set()),
    ],
)
def test_a_guard_proves_only_its_kinds(guard: str, kinds: set[str]) -> None:
    assert _proven_by(guard) == kinds


@pytest.mark.parametrize(
    ("pattern", "proven"),
    [
        ('r"[a-f0-9]{32}"', {"word-pattern", "name-pattern"}),
        ('r"^[\\w-]+$"', {"word-pattern", "name-pattern", "word-pattern-anchored",
                          "name-pattern-anchored"}),
        ('r"[a-z0-9.-]+"', {"name-pattern"}),
        ('r"[^/]+"', set()),  # a negated class lets everything else through
        ('r".*"', set()),
        ('r"[\\w/]+"', set()),
        ('r"[0-z]+"', set()),  # a range from 0 to z holds quotes and brackets
        ('r"[\\w-]+"', {"word-pattern", "name-pattern"}),  # re.match without `$` checks a prefix
    ],
)  # fmt: skip
def test_a_pattern_guard_reads_the_pattern(pattern: str, proven: set[str]) -> None:
    """A regex proves a value safe only when its one character class leaves out what the
    kinds need (quotes, `/`, and for a path `.`), and, with re.match, it is anchored."""
    guards = [g for g in MODEL.guards if g.name.endswith(("-pattern", "-pattern-anchored"))]
    assert len(guards) == 4
    found = {g.name for g in guards if re.match(g.where[0].regex, pattern)}
    assert found == proven


def test_each_source_is_listed_once() -> None:
    names = [s.name for s in MODEL.sources]
    shapes = [yaml.safe_dump(s.pattern()) for s in MODEL.sources]
    assert len(set(names)) == len(names)
    assert len(set(shapes)) == len(shapes)


def test_every_kind_has_a_rule_and_a_category() -> None:
    assert {r.kind for r in MODEL.rules} == set(MODEL.kinds)
    for rule in MODEL.rules:
        info = lookup("semgrep", rule.id)
        assert info is not None
        assert info.category is MODEL.kinds[rule.kind]


def _data() -> dict[str, object]:
    data = yaml.safe_load((ROOT / "src/code_guard/knowledge/security/python.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_an_unknown_kind_is_refused() -> None:
    data = _data()
    sanitisers = data["sanitisers"]
    assert isinstance(sanitisers, list)
    sanitisers.append({"name": "x", "neutralises": ["sqli"], "calls": ["f"]})
    with pytest.raises(ValidationError, match="unknown kind sqli"):
        SecurityModel.model_validate(data)


def test_an_unknown_field_is_refused() -> None:
    data = _data()
    data["sanitizers"] = []
    with pytest.raises(ValidationError):
        SecurityModel.model_validate(data)


def test_categories_are_review_categories() -> None:
    assert set(MODEL.kinds.values()) <= set(Category)


def _model_data(language: str) -> dict[str, object]:
    path = ROOT / f"src/code_guard/knowledge/security/{language}.yml"
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("language", ["javascript", "go"])
def test_the_javascript_and_go_models_load(language: str) -> None:
    model = load_model(language)
    assert model.language == language
    assert {r.kind for r in model.rules} == set(model.kinds)
    for rule in model.rules:
        info = lookup("semgrep", rule.id)
        assert info is not None
        assert info.category is model.kinds[rule.kind]


def test_a_rule_naming_an_unknown_source_is_refused() -> None:
    data = _model_data("go")
    rules = data["rules"]
    assert isinstance(rules, list)
    rules[1]["sources"] = ["tar-header", "no-such-source"]
    with pytest.raises(ValidationError, match="unknown source no-such-source"):
        SecurityModel.model_validate(data)


def test_a_guard_needs_a_test() -> None:
    data = _model_data("javascript")
    guards = data["guards"]
    assert isinstance(guards, list)
    guards.append({"name": "empty", "proves": ["ssrf"]})
    with pytest.raises(ValidationError, match="neither `holds` nor `fails`"):
        SecurityModel.model_validate(data)


def test_a_model_needs_a_way_to_leave() -> None:
    data = _model_data("javascript")
    del data["exit_regex"]
    with pytest.raises(ValidationError, match="`exits` or `exit_regex`"):
        SecurityModel.model_validate(data)


def test_no_javascript_or_go_check_is_trusted_for_its_name() -> None:
    """A check known only by a word in its name proves nothing in either model, and its note
    says why: the pull request can define it as `return true`."""
    for language in ("javascript", "go"):
        named = [g for g in load_model(language).guards if g.name.startswith("named-")]
        assert named, language
        for guard in named:
            assert guard.proves == (), guard.name
            assert "proves nothing" in guard.note, guard.name
