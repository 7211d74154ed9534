"""The bundled evaluation dataset is sound, covers the vocabulary, and its checker bites."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build_dataset.py"
CLASSICS = ("sql_injection_basic", "n_plus_one_query", "hardcoded_secret")

TINY_SOURCE = """A tiny PR used to exercise the checker.

=== modified: app/db.py
 import sqlite3


 def get(conn, user_id):
-    return conn.execute("SELECT * FROM users WHERE id = ?", (user_id,)).fetchone()
+    query = f"SELECT * FROM users WHERE id = {user_id}"  # expect: sql_injection
+    return conn.execute(query).fetchone()
=== new: app/util.js
+module.exports = { ok: true };  // expect: other
\\
"""


def _load_checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_dataset", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


bd = _load_checker()


def _tiny_case() -> dict[str, Any]:
    case: dict[str, Any] = bd.build_case("tiny", bd.parse_source(TINY_SOURCE, "tiny.case"))
    return case


def test_bundled_dataset_passes_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    status = bd.main(["--check"])
    assert status == 0, capsys.readouterr().out


def test_bundled_dataset_size_and_coverage() -> None:
    problems, cases = bd.check_dataset(bd.DATASET_DIR, bd.DATASET_DIR / "sources")
    assert problems == []
    ids = {case["pr_id"] for case in cases}
    assert len(cases) >= 40
    assert sum(1 for case in cases if not case["expected_findings"]) >= 10
    assert set(CLASSICS) <= ids
    counts = bd.category_counts(cases)
    assert {cat: counts[cat] for cat in bd.CATEGORIES if counts[cat] < 2} == {}
    languages = [lang for case in cases for lang in bd.case_languages(case)]
    assert languages.count("JavaScript/TypeScript") >= 5
    assert languages.count("Go") >= 4


def test_only_cases_at_the_dataset_top_level() -> None:
    stems = {path.stem for path in bd.DATASET_DIR.glob("*.json")}
    sources = {path.stem for path in (bd.DATASET_DIR / "sources").glob("*.case")}
    assert stems == sources


def test_categories_match_the_model_vocabulary() -> None:
    models = pytest.importorskip("code_guard.findings")
    assert set(bd.CATEGORIES) == {member.value for member in models.Category}


def test_tiny_case_is_sound_and_markers_are_stripped() -> None:
    case = _tiny_case()
    assert bd.check_case("tiny", case) == []
    assert case["expected_findings"] == [
        {"file_path": "app/db.py", "line_start": 5, "category": "sql_injection"},
        {"file_path": "app/util.js", "line_start": 1, "category": "other"},
    ]
    assert "expect:" not in json.dumps(case["file_contents"])
    assert case["file_contents"]["app/util.js"] == "module.exports = { ok: true };"
    assert "\\ No newline at end of file" in case["diff"]
    assert "--- /dev/null\n+++ b/app/util.js" in case["diff"]


def test_checker_flags_an_expected_line_on_a_context_line() -> None:
    case = _tiny_case()
    case["expected_findings"][0]["line_start"] = 1  # "import sqlite3" is unchanged
    assert bd.check_case("tiny", case) == [
        "tiny: app/db.py:1 (sql_injection) is not a line the diff adds"
    ]


def test_checker_flags_contents_that_disagree_with_the_diff() -> None:
    case = _tiny_case()
    case["file_contents"]["app/db.py"] = case["file_contents"]["app/db.py"].replace(
        "{user_id}", "?"
    )
    case["file_contents"]["app/util.js"] += "\n"
    problems = bd.check_case("tiny", case)
    assert "tiny: app/db.py: hunk @@ +2 does not match file_contents" in problems
    assert "tiny: app/util.js: new file differs from file_contents" in problems


def test_checker_flags_bad_ids_categories_and_keys() -> None:
    case = _tiny_case()
    case["expected_findings"][1]["category"] = "style"
    assert bd.check_case("other_name", case) == [
        "other_name: pr_id 'tiny' differs from the file name",
        "other_name: unknown category 'style'",
    ]
    assert len(bd.check_case("tiny", {**case, "severity": "high"})) == 1


def test_check_cli_fails_on_a_broken_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "tiny.case").write_text(TINY_SOURCE, encoding="utf-8")
    assert bd.main(["--dataset-dir", str(tmp_path)]) == 1  # builds, but categories are thin
    assert (tmp_path / "tiny.json").exists()
    broken = _tiny_case()
    broken["expected_findings"][0]["line_start"] = 2
    (tmp_path / "tiny.json").write_text(bd.case_json(broken), encoding="utf-8")
    (tmp_path / "stray.json").write_text("{}", encoding="utf-8")
    capsys.readouterr()
    assert bd.main(["--check", "--dataset-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "tiny: app/db.py:2 (sql_injection) is not a line the diff adds" in out
    assert "tiny: JSON is stale (run the build)" in out
    assert any(line.startswith("stray: a case must be an object") for line in out)
    assert "category 'xss' is expected only 0 time(s); needs 2" in out


def test_marker_on_an_unchanged_line_is_rejected() -> None:
    text = "=== modified: a.py\n x = 1  # expect: other\n+y = 2\n"
    with pytest.raises(bd.SourceError, match="does not add"):
        bd.parse_source(text, "bad.case")
