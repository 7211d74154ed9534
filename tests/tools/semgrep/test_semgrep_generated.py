"""The Semgrep request taint rules of python.yml, javascript.yml and go.yml are generated from
the security model of their language (``scripts/semgrep_rules.py``): the committed rules are the
ones the model produces today, each keeps its record, and each takes only the sanitisers and
guards of its own kind (issue 27)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from code_guard.knowledge.security import load_model
from code_guard.tools.semgrep.command import core_rules, rules_file

ROOT = Path(__file__).resolve().parents[3]
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
    """None of the JavaScript and Go value sanitisers trusts a helper for a word in its name
    either (`sanitizePath`, `isSafeRedirect`)."""
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


# --- JavaScript and TypeScript, Go ------------------------------------------------------------

GENERATED = ("python", "javascript", "go")


def _split(language: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The generated rules of a rules file, and the ones written by hand after the marker."""
    text = rules_file(f"{language}.yml").read_text(encoding="utf-8")
    head, hand = text.split(gen.END)
    generated = yaml.safe_load(head)["rules"]
    written = yaml.safe_load("rules:\n" + hand)["rules"]
    return generated, written


@pytest.mark.parametrize("language", GENERATED)
def test_each_committed_rules_file_is_the_generated_one(language: str) -> None:
    current = rules_file(f"{language}.yml").read_text(encoding="utf-8")
    assert gen.render(language, current) == current


@pytest.mark.parametrize("language", GENERATED)
def test_each_generated_rule_keeps_its_record(language: str) -> None:
    model = load_model(language)
    generated, _ = _split(language)
    by_id = {r["id"]: r for r in generated}
    assert list(by_id) == [r.id for r in model.rules]
    for rule in model.rules:
        assert by_id[rule.id]["metadata"] == rule.metadata
        assert by_id[rule.id]["message"] == rule.message
        assert by_id[rule.id]["severity"] == rule.severity
        assert by_id[rule.id]["languages"] == list(model.languages or (model.language,))


@pytest.mark.parametrize("language", GENERATED)
def test_sources_sinks_and_sanitisers_are_listed_once(language: str) -> None:
    model = load_model(language)
    sinks = [s for found in model.sinks.values() for s in found]
    for names, shapes in (
        ([s.name for s in model.sources], [yaml.safe_dump(s.pattern()) for s in model.sources]),
        ([s.name for s in sinks], [yaml.safe_dump(s.pattern()) for s in sinks]),
    ):
        assert len(set(names)) == len(names), language
        assert len(set(shapes)) == len(shapes), language
    calls = [c for s in model.sanitisers for c in s.calls]
    assert len(set(calls)) == len(calls), language
    names = [s.name for s in model.sanitisers] + [g.name for g in model.guards]
    assert len(set(names)) == len(names), language


@pytest.mark.parametrize("language", GENERATED)
def test_no_hand_written_rule_copies_a_source_or_guard(language: str) -> None:
    """The rules after the marker share no source, sanitiser or guard with the model: a
    request source or a guard is written once, in the model, and nowhere else."""
    model = load_model(language)
    sources = {yaml.safe_dump(s.pattern()) for s in model.sources}
    guard_tests = {t for g in model.guards for t in (*g.fails, g.holds) if t}
    _, written = _split(language)
    for rule in written:
        for source in rule.get("pattern-sources") or []:
            assert yaml.safe_dump(source) not in sources, rule["id"]
        text = yaml.safe_dump(rule.get("pattern-sanitizers") or [])
        for test in guard_tests:
            assert f"if ({test})" not in text and f"if {test} " not in text, (rule["id"], test)


@pytest.mark.parametrize("language", GENERATED)
def test_each_source_entry_appears_only_in_generated_rules(language: str) -> None:
    """Each rule lists each of its sources exactly once, as the model gives it."""
    model = load_model(language)
    generated, _ = _split(language)
    by_id = {r["id"]: r for r in generated}
    for rule in model.rules:
        listed = [yaml.safe_dump(s) for s in by_id[rule.id]["pattern-sources"]]
        assert listed == [yaml.safe_dump(s.pattern()) for s in model.sources_of(rule)]


def _js_rule(rule_id: str) -> str:
    generated, _ = _split("javascript")
    (rule,) = [r for r in generated if r["id"] == rule_id]
    return yaml.safe_dump(rule["pattern-sanitizers"], width=10_000)


def test_a_javascript_rule_takes_only_the_protections_of_its_kind() -> None:
    path = _js_rule("js-path-traversal-request-path")
    assert "path.basename(...)" in path
    assert "encodeURIComponent" not in path and "new URL" not in path
    ssrf = _js_rule("js-ssrf-request-url")
    assert "path.basename" not in ssrf and 'includes("..")' not in ssrf
    assert "new URL($X, ...)" in ssrf
    xss = _js_rule("js-xss-html-from-input")
    assert "$EXIT" not in xss  # no guard proves markup safe
    redirect = _js_rule("js-open-redirect-request-url")
    assert "parseInt" not in redirect


def test_every_javascript_guard_requires_a_leaving_branch() -> None:
    """A guard is written only as the `if` of its failure whose branch is `$EXIT`, and every
    such entry constrains `$EXIT` to return or throw: a check whose failing branch goes on
    proves nothing."""
    model = load_model("javascript")
    generated, _ = _split("javascript")
    for rule in generated:
        for entry in rule.get("pattern-sanitizers", []):
            text = yaml.safe_dump(entry, width=10_000)
            # a sanitiser bound by an import or a require is no guard: it has no `if`
            if "pattern-inside" not in text or "if (" not in text:
                continue
            assert "$EXIT" in text, rule["id"]
            assert model.exit_regex in _regexes(entry), rule["id"]


def _go_rule(rule_id: str) -> list[Any]:
    generated, _ = _split("go")
    (rule,) = [r for r in generated if r["id"] == rule_id]
    sanitisers: list[Any] = rule["pattern-sanitizers"]
    return sanitisers


def test_a_go_rule_takes_only_the_protections_of_its_kind() -> None:
    path = yaml.safe_dump(_go_rule("go-path-traversal-request-path"), width=10_000)
    assert "filepath.Base(...)" in path and "filepath.IsLocal" in path
    assert "url.Parse" not in path and "url.QueryEscape" not in path
    ssrf = yaml.safe_dump(_go_rule("go-ssrf-request-url"), width=10_000)
    assert "filepath.IsLocal" not in ssrf and "filepath.Base" not in ssrf
    assert "url.Parse($X)" in ssrf
    redirect = yaml.safe_dump(_go_rule("go-open-redirect-request-url"), width=10_000)
    assert "strconv" not in redirect and "url.QueryEscape" not in redirect
    command = yaml.safe_dump(_go_rule("go-command-injection-request-taint"), width=10_000)
    assert "strconv.ParseUint" not in command and "$EXIT" not in command
    # the archive rule takes the path protections, and the archive sources, not the request's
    archive = _go_rule("go-path-traversal-archive-entry")
    assert archive == _go_rule("go-path-traversal-request-path")
    generated, _ = _split("go")
    (rule,) = [r for r in generated if r["id"] == "go-path-traversal-archive-entry"]
    assert "FormValue" not in yaml.safe_dump(rule["pattern-sources"])


def _insides(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["pattern-inside"]] if isinstance(node.get("pattern-inside"), str) else []
        return own + [i for value in node.values() for i in _insides(value)]
    if isinstance(node, list):
        return [i for item in node for i in _insides(item)]
    return []


def test_every_go_guard_requires_a_leaving_branch() -> None:
    """Each `if` of a Go guard ends its failing branch in an exit of the model (or the open
    redirect rule's fall-back to a literal); an `if` whose later `||` operand is the check
    clears only the uses after it, never by side effect."""
    model = load_model("go")
    generated, _ = _split("go")
    for rule in generated:
        exits = [*model.exits, *next(r.exits for r in model.rules if r.id == rule["id"])]
        for entry in rule.get("pattern-sanitizers", []):
            # a sanitiser bound by its constructor (a bluemonday policy) is no guard: no `if`
            insides = [i for i in _insides(entry) if "if " in i]
            for inside in insides:
                last = inside.rstrip("\n").removesuffix("\n...").rstrip("\n").split("\n")
                assert last[-1] == "}" and last[-2].strip() in exits, (rule["id"], inside)
            later = [i for i in insides if "if $OTHER || " in i]
            if later:
                assert len(later) == len(insides), rule["id"]
                assert not entry.get("by-side-effect"), rule["id"]
                assert all(i.endswith("}\n...\n") for i in later), rule["id"]


@pytest.mark.parametrize("language", ["python", "javascript", "go"])
def test_check_fails_in_one_line_naming_the_stale_file(
    language: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("python", "javascript", "go"):
        text = rules_file(f"{name}.yml").read_text(encoding="utf-8")
        if name == language:
            text = text.replace("focus-metavariable: $X", "focus-metavariable: $Y", 1)
        (tmp_path / f"{name}.yml").write_text(text, encoding="utf-8")
    shutil.copytree(rules_file("python.yml").parent / "compiled", tmp_path / "compiled")
    monkeypatch.setattr(gen, "RULES_DIR", tmp_path)
    monkeypatch.setattr(sys, "argv", ["semgrep_rules.py", "--check"])
    assert gen.main() == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"{language}.yml out of date")
    monkeypatch.setattr(sys, "argv", ["semgrep_rules.py", "--write"])
    assert gen.main() == 0
    monkeypatch.setattr(sys, "argv", ["semgrep_rules.py", "--check"])
    assert gen.main() == 0


@pytest.mark.parametrize("language", ["javascript", "go"])
def test_every_javascript_and_go_taint_rule_is_generated(language: str) -> None:
    """No taint rule of JavaScript or Go is written by hand: request, archive-entry, DOM and
    markup-parameter rules all come from the model."""
    _, written = _split(language)
    assert [r["id"] for r in written if r.get("mode") == "taint"] == []


def test_check_fails_on_a_missing_or_stray_compiled_twin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("python", "javascript", "go"):
        shutil.copy(rules_file(f"{name}.yml"), tmp_path / f"{name}.yml")
    shutil.copytree(rules_file("python.yml").parent / "compiled", tmp_path / "compiled")
    twin = core_rules(tmp_path / "go.yml")
    assert twin.parent == tmp_path / "compiled"
    twin.unlink()
    (tmp_path / "compiled" / "old-0000000000000000.json").write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(gen, "RULES_DIR", tmp_path)
    monkeypatch.setattr(sys, "argv", ["semgrep_rules.py", "--check"])
    assert gen.main() == 1
    err = capsys.readouterr().err
    assert f"compiled/{twin.name}" in err and "old-0000000000000000.json" in err
    monkeypatch.setattr(sys, "argv", ["semgrep_rules.py", "--write"])
    assert gen.main() == 0
    assert core_rules(tmp_path / "go.yml") == twin and twin.is_file()
    assert not (tmp_path / "compiled" / "old-0000000000000000.json").exists()
