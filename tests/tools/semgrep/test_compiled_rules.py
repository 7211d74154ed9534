"""semgrep-core reads each bundled rules file from its compiled JSON twin (``core_rules``):
the same rules, read faster, and never a twin of other text than the rules file's own."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from code_guard.tools.semgrep.command import (
    command,
    compiled_path,
    core_rules,
    language_of,
    rules_file,
    targets_json,
)

TARGETS = Path(__file__).parent / "targets"


@pytest.mark.parametrize("name", ["python.yml", "javascript.yml", "go.yml"])
def test_each_bundled_rules_file_is_read_from_its_twin(name: str) -> None:
    path = rules_file(name)
    twin = core_rules(path)
    assert twin.suffix == ".json" and twin.parent.name == "compiled"
    assert twin == compiled_path(path, path.read_bytes())


@pytest.mark.parametrize("name", ["python.yml", "javascript.yml", "go.yml"])
def test_the_twin_gives_what_the_rules_file_gives(name: str, tmp_path: Path) -> None:
    paths = sorted(
        str(p.relative_to(TARGETS))
        for p in TARGETS.rglob("*")
        if p.is_file() and (found := language_of(str(p))) is not None and found[1] == name
    )
    assert paths, "no annotated target of this rules file"
    targets = tmp_path / "targets.json"
    targets.write_text(targets_json(paths), encoding="utf-8")
    argv = command(rules_file(name), targets)
    outputs = []
    for rules in (rules_file(name), core_rules(rules_file(name))):
        argv[argv.index("-rules") + 1] = str(rules)
        run = subprocess.run(argv, cwd=TARGETS, capture_output=True, text=True, check=True)  # noqa: S603
        report = json.loads(run.stdout[run.stdout.find("{") :])
        outputs.append((report["results"], report["errors"]))
    assert outputs[0][0], "the targets must give results for the comparison to mean anything"
    assert outputs[0] == outputs[1]


def test_a_twin_of_other_text_is_never_read(tmp_path: Path) -> None:
    rules = tmp_path / "mine.yml"
    rules.write_text("rules: []\n", encoding="utf-8")
    stale = compiled_path(rules, b"rules: []\n# an older text\n")
    stale.parent.mkdir()
    stale.write_text('{"rules": []}\n', encoding="utf-8")
    assert core_rules(rules) == rules
    fresh = compiled_path(rules, rules.read_bytes())
    fresh.write_text('{"rules": []}\n', encoding="utf-8")
    assert core_rules(rules) == fresh
    rules.write_text("rules: []\n# edited\n", encoding="utf-8")
    assert core_rules(rules) == rules
