"""What a review held back on proof, end to end through ``code-guard review``: each mechanism
counted in the JSON, each candidate listed with its proof under ``--show-silenced`` (text,
markdown, JSON), and sent to SARIF as a suppressed result that still validates.

One pull request plants one candidate per mechanism: an XML parse the change only re-indents
(pre-existing), a call without a timeout in a test file (test-file policy, Bandit's B113 and
B101), a medium B113 the pull request marks ``# nosec`` (an honoured suppression), and an XML
parse of a variable folding proves holds a literal (folding). Beside them, an adversarial
look-alike: a high ``verify=False`` the pull request marks ``# nosec`` is still reported. (Not
``eval`` or ``pickle.loads``: production code that evaluates or unpickles a computed value may
import any module, so the test-file policy could not show the test file is no production
code; ``tests/change/test_testfiles.py`` has those.)
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator  # type: ignore[import-untyped]  # no stubs pinned

from code_guard.cli import main
from code_guard.findings import Review, Silencing
from code_guard.trust.escaping import code_span

SCHEMA = Path(__file__).parents[1] / "fixtures" / "sarif-schema-2.1.0.json"
PARSE = "xml.etree.ElementTree.fromstring"
OLD_RUN = f"def run(data):\n    return {PARSE}(data)\n\n\ndef other():\n    return 1\n"
FOLDED = """\
def run(text):
    limit = 86
    if 7 * 42 - limit > 200:
        code = "1 + 1"
    else:
        code = text
    return xml.etree.ElementTree.fromstring(code)
"""
IMPORT = "import requests\n\n\n"
FILES = {
    # path: (base text, or "" for a new file; head text)
    "app/run.py": (OLD_RUN, OLD_RUN.replace("return xml", "if data:\n        return xml")),
    "app/calc.py": ("", FOLDED),
    "app/fetch.py": ("", f"{IMPORT}def fetch(url):\n    return requests.get(url)  # nosec\n"),
    "app/evil.py": (
        "",
        "def run(u):\n    return requests.get(u, verify=False, timeout=5)  # nosec\n",
    ),
    "tests/test_fetch.py": (
        "",
        f'{IMPORT}def test_fetch():\n    assert requests.get("http://localhost")\n',
    ),
}
# (mechanism, source, place) of every candidate the pull request above has silenced.
EXPECTED = {
    ("pre-existing", "bandit:B314", "app/run.py:3"),
    ("folding", "bandit:B314", "app/calc.py:7"),
    ("suppression", "bandit:B113", "app/fetch.py:5"),
    ("test-file", "bandit:B113", "tests/test_fetch.py:5"),
    ("test-file", "bandit:B101", "tests/test_fetch.py:5"),
}
COUNT_LINE = (
    "5 candidate(s) silenced on proof (test-file 2, folding 1, pre-existing 1, suppression 1)"
)


def _diff(root: Path) -> Path:
    """Write the head files under ``root`` and the pull request's diff beside them."""
    text = ""
    for path, (old, new) in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(new, encoding="utf-8")
        before = f"a/{path}" if old else "/dev/null"
        hunks = difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), before, f"b/{path}"
        )
        text += f"diff --git a/{path} b/{path}\n" + ("" if old else "new file mode 100644\n")
        text += "".join(hunks)
    diff = root / "change.diff"
    diff.write_text(text, encoding="utf-8")
    return diff


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The review's output in every format, without and with ``--show-silenced``: one run
    each, shared by the tests (a review runs every analyser)."""
    root = tmp_path_factory.mktemp("pr")
    diff = _diff(root)
    out: dict[str, str] = {}
    for fmt in ("text", "json", "markdown", "sarif"):
        for shown in (False, True):
            name = f"{fmt}{'-shown' if shown else ''}"
            target = root / f"{name}.out"
            flags = ["--show-silenced"] if shown else []
            argv = ["review", str(diff), "--root", str(root), "--format", fmt, "-q"]
            assert main([*argv, "--output", str(target), *flags]) == 0
            out[name] = target.read_text(encoding="utf-8")
    return out


def _places(review: Review) -> set[tuple[str, str, str]]:
    return {
        (s.mechanism.value, f"{s.tool}:{s.rule}", f"{s.file_path}:{s.line}")
        for s in review.silenced_candidates
    }


def test_json_counts_each_mechanism_and_lists_nothing_by_default(
    outputs: dict[str, str],
) -> None:
    data = json.loads(outputs["json"])
    assert list(data["silenced"]) == sorted(m.value for m in Silencing)  # stable keys
    expected = Counter(mechanism for mechanism, _, _ in EXPECTED)
    assert data["silenced"] == {m.value: expected[m.value] for m in Silencing}
    assert data["preexisting"] == data["silenced"]["pre-existing"] == 1
    assert data["silenced_candidates"] == []
    # the high verify=False the pull request marks `# nosec` is not silenced: it stays a finding
    review = Review.model_validate_json(outputs["json"])
    assert [(f.file_path, f.line_start, f.suppressed_in_pr) for f in review.findings] == [
        ("app/evil.py", 2, "# nosec")
    ]


def test_show_silenced_lists_each_candidate_with_its_proof(outputs: dict[str, str]) -> None:
    review = Review.model_validate_json(outputs["json-shown"])
    assert _places(review) == EXPECTED
    assert len(review.silenced_candidates) == len(EXPECTED)
    counted = Counter(s.mechanism for s in review.silenced_candidates)
    assert review.silenced == {m: counted[m] for m in Silencing}
    reason = {(s.mechanism, s.file_path): s.reason for s in review.silenced_candidates}
    assert reason[Silencing.FOLDING, "app/calc.py"] == (
        "first argument `code` holds a value built from literals only (constant folding)"
    )
    assert "`# nosec`" in reason[Silencing.SUPPRESSION, "app/fetch.py"]
    assert "pull request adds" in reason[Silencing.SUPPRESSION, "app/fetch.py"]
    assert f"`return {PARSE}(data)`" in reason[Silencing.PRE_EXISTING, "app/run.py"]
    assert "test file" in reason[Silencing.TEST_FILE, "tests/test_fetch.py"]
    # the findings are the same whether or not the silenced candidates are listed
    default = Review.model_validate_json(outputs["json"])
    assert review.findings == default.findings


def test_text_counts_on_one_line_by_default_and_lists_on_request(
    outputs: dict[str, str],
) -> None:
    default, shown = outputs["text"].splitlines(), outputs["text-shown"].splitlines()
    assert f"{COUNT_LINE}; --show-silenced lists them" in default
    start = shown.index(f"{COUNT_LINE}:")
    listed = shown[start + 1 : start + 1 + len(EXPECTED)]
    assert all(line.startswith("    ") and " — " in line for line in listed)
    assert "    app/calc.py:7 folding bandit:B314 — first argument `code` holds a value" in (
        "\n".join(listed)
    )
    # apart from the silenced lines, the output is the same
    assert [x for x in shown if x not in listed and x != f"{COUNT_LINE}:"] == [
        x for x in default if not x.startswith(COUNT_LINE)
    ]


def test_markdown_folds_the_list_and_otherwise_counts(outputs: dict[str, str]) -> None:
    default, shown = outputs["markdown"], outputs["markdown-shown"]
    assert "🔕 5 candidate(s) silenced on proof" in default
    place, source = code_span("app/calc.py:7"), code_span("bandit:B314")
    assert "`show-silenced` lists them" in default and place not in default
    details = shown.split("<summary>🔕 5 candidate(s) silenced on proof", 1)[1]
    details = details.split("</details>", 1)[0]
    assert details.count("\n- ") == len(EXPECTED)
    assert f"- {place} folding {source} — first argument" in details


def _results(log: dict[str, Any]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = log["runs"][0]["results"]
    return results


def test_sarif_sends_silenced_candidates_as_suppressed_results_only_on_request(
    outputs: dict[str, str],
) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    default, shown = json.loads(outputs["sarif"]), json.loads(outputs["sarif-shown"])
    for log in (default, shown):
        assert list(Draft4Validator(schema).iter_errors(log)) == []
    assert all("suppressions" not in r for r in _results(default))
    assert default["runs"][0]["properties"]["silenced"]["folding"] == 1
    suppressed = [r for r in _results(shown) if "suppressions" in r]
    assert len(suppressed) == len(EXPECTED)
    # the live results are the same ones, in the same order
    assert [r for r in _results(shown) if "suppressions" not in r] == _results(default)
    rules = [rule["id"] for rule in shown["runs"][0]["tool"]["driver"]["rules"]]
    by_place = {}
    for result in suppressed:
        [suppression] = result["suppressions"]
        assert suppression["status"] == "accepted"
        assert rules[result["ruleIndex"]] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]
        place = f"{region['artifactLocation']['uri']}:{region['region']['startLine']}"
        by_place[result["properties"]["mechanism"], place] = suppression
    assert by_place["suppression", "app/fetch.py:5"]["kind"] == "inSource"
    assert by_place["folding", "app/calc.py:7"]["kind"] == "external"
    assert by_place["folding", "app/calc.py:7"]["justification"] == (
        "folding: first argument `code` holds a value built from literals only (constant folding)"
    )


INJECTION = """\
import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/run")
def run():
    name = request.args.get("name")
    return subprocess.check_output("ls " + name, shell=True)
"""
INJECTION_SOURCES = (
    "bandit:B602",
    "python-taint:taint-command_injection",
    "semgrep:py-command-injection-taint",
)


def _review_injection(root: Path, *flags: str) -> tuple[Review, dict[str, Any]]:
    (root / "app").mkdir(parents=True, exist_ok=True)
    (root / "app" / "run.py").write_text(INJECTION, encoding="utf-8")
    hunk = "".join(f"+{line}\n" for line in INJECTION.splitlines())
    diff = root / "change.diff"
    diff.write_text(
        "diff --git a/app/run.py b/app/run.py\nnew file mode 100644\n--- /dev/null\n"
        f"+++ b/app/run.py\n@@ -0,0 +1,11 @@\n{hunk}",
        encoding="utf-8",
    )
    out = root / "review.json"
    sarif = root / "review.sarif"
    argv = ["review", str(diff), "--root", str(root), "-q", "--show-silenced", *flags]
    assert main([*argv, "--format", "json", "--output", str(out)]) == 0
    assert main([*argv, "--format", "sarif", "--output", str(sarif)]) == 0
    review = Review.model_validate_json(out.read_text(encoding="utf-8"))
    return review, json.loads(sarif.read_text(encoding="utf-8"))


def test_a_disabled_rule_leaves_a_merged_finding_its_other_sources(tmp_path: Path) -> None:
    """Three analysers find one command injection; turning one rule off removes that hit,
    counted as ``disabled``, not the finding the other two still report."""
    review, _ = _review_injection(tmp_path / "all")
    [finding] = review.findings
    assert set(finding.sources) == set(INJECTION_SOURCES)
    assert review.silenced[Silencing.DISABLED] == 0

    off = "semgrep:py-command-injection-taint"
    review, sarif = _review_injection(tmp_path / "one", "--disable-rule", off)
    [kept] = review.findings
    assert set(kept.sources) == set(INJECTION_SOURCES) - {off}
    assert (kept.file_path, kept.line_start, kept.severity) == (
        finding.file_path, finding.line_start, finding.severity,
    )  # fmt: skip
    assert review.silenced[Silencing.DISABLED] == sum(review.silenced.values()) == 1
    [held] = review.silenced_candidates
    assert (held.mechanism, f"{held.tool}:{held.rule}", held.line) == (Silencing.DISABLED, off, 11)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert list(Draft4Validator(schema).iter_errors(sarif)) == []
    [suppressed] = [r for r in _results(sarif) if "suppressions" in r]
    assert suppressed["properties"]["mechanism"] == "disabled"
    assert suppressed["suppressions"][0]["kind"] == "external"

    flags = [part for rule in INJECTION_SOURCES for part in ("--disable-rule", rule)]
    review, _ = _review_injection(tmp_path / "every", *flags)
    assert review.findings == () and review.silenced[Silencing.DISABLED] == 3
