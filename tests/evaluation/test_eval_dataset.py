"""Tests of the case format, the dataset listing and sharding."""

from __future__ import annotations

from pathlib import Path

import pytest
from evalfakes import WriteCase

from code_guard.errors import ConfigError, DatasetError
from code_guard.evaluation.dataset import CaseError, Shard, list_case_files, load_case
from code_guard.findings import Category


def test_valid_case_loads(write_case: WriteCase) -> None:
    case = load_case(write_case("ok", [(5, Category.SQL_INJECTION)]))
    assert case.pr_id == "ok"
    assert case.expected_findings[0].line_start == 5
    assert case.expected_findings[0].category is Category.SQL_INJECTION


def _reason(path: Path) -> str:
    with pytest.raises(CaseError) as info:
        load_case(path)
    assert info.value.file == path.name
    return info.value.reason


def test_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"pr_id": "x",\n  "diff": }', encoding="utf-8")
    assert _reason(path) == "invalid JSON at line 2 column 11: Expecting value"


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"pr_id": "caf\xe9"}')
    assert _reason(path) == "not UTF-8 at byte 14"


def test_missing_field(write_case: WriteCase, tmp_path: Path) -> None:
    path = write_case("nodiff")
    text = path.read_text(encoding="utf-8").replace('"diff"', '"dif"')
    path.write_text(text, encoding="utf-8")
    assert _reason(path) == "diff: Field required; dif: Extra inputs are not permitted"


def test_unknown_category(write_case: WriteCase) -> None:
    path = write_case(
        "cat",
        expected_findings=[{"file_path": "app_cat.py", "line_start": 3, "category": "rce"}],
    )
    reason = _reason(path)
    assert reason.startswith("expected_findings.0.category: Input should be 'sql_injection', ")


@pytest.mark.parametrize("line", ["5", 5.0, 0, None])
def test_line_must_be_a_positive_int(write_case: WriteCase, line: object) -> None:
    path = write_case(
        "line",
        expected_findings=[{"file_path": "app_line.py", "line_start": line, "category": "xss"}],
    )
    assert _reason(path).startswith("expected_findings.0.line_start: ")


def test_expected_file_must_be_in_contents(write_case: WriteCase) -> None:
    path = write_case(
        "where",
        expected_findings=[{"file_path": "other.py", "line_start": 3, "category": "xss"}],
    )
    assert _reason(path) == ("Value error, expected_findings.0: 'other.py' is not in file_contents")


def test_expected_line_must_exist(write_case: WriteCase) -> None:
    path = write_case("past", [(21, Category.XSS)])
    assert _reason(path) == (
        "Value error, expected_findings.0: line 21 is past the end of app_past.py"
    )


def test_top_level_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[]", encoding="utf-8")
    assert _reason(path) == "Input should be a valid dictionary or instance of EvalCase"


def test_listing_is_sorted_top_level_json_only(write_case: WriteCase, tmp_path: Path) -> None:
    for name in ("b", "a", "c"):
        write_case(name)
    directory = tmp_path / "cases"
    (directory / "sources").mkdir()
    (directory / "sources" / "nested.json").write_text("{}", encoding="utf-8")
    (directory / "README.md").write_text("notes", encoding="utf-8")
    assert [p.name for p in list_case_files(directory)] == ["a.json", "b.json", "c.json"]


def test_missing_dataset_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"^dataset directory .*nope does not exist"):
        list_case_files(tmp_path / "nope")


def test_dataset_that_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "file.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(DatasetError, match="is not a directory"):
        list_case_files(path)


def test_empty_dataset(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"holds no case files \(\*\.json\)"):
        list_case_files(tmp_path)


class TestShard:
    def test_case_k_goes_to_shard_k_mod_n(self) -> None:
        files = [Path(f"{k}.json") for k in range(7)]
        picked = {i: [p.stem for p in Shard(i, 3).select(files)] for i in (1, 2, 3)}
        assert picked == {1: ["0", "3", "6"], 2: ["1", "4"], 3: ["2", "5"]}

    def test_shards_partition_the_files(self) -> None:
        files = [Path(f"{k}.json") for k in range(10)]
        chosen = [p for i in range(1, 5) for p in Shard(i, 4).select(files)]
        assert sorted(chosen) == sorted(files)

    def test_parse(self) -> None:
        assert Shard.parse("2/4") == Shard(2, 4)
        assert str(Shard.parse(" 1/1 ")) == "1/1"

    @pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "2/0", "-1/4", ""])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ConfigError, match="invalid shard"):
            Shard.parse(text)
