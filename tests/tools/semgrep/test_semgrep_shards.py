"""A rules file's files over ``SHARD_BYTES`` are cut into consecutive runs (``shards``) that
use every core; joined, their hits are one run's, in one run's order."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from code_guard.findings import Category
from code_guard.knowledge.mapping import UNPARSABLE_RULE
from code_guard.tools.semgrep import tool as semgrep_tool
from code_guard.tools.semgrep.command import language_of
from code_guard.tools.semgrep.tool import MAX_SHARDS, SHARD_BYTES, SemgrepTool, shards

TARGETS = Path(__file__).parent / "targets"


def _files(root: Path, sizes: list[int]) -> list[str]:
    names = [f"f{index:03}.js" for index in range(len(sizes))]
    for name, size in zip(names, sizes, strict=True):
        (root / name).write_bytes(b"x" * size)
    return names


def test_files_within_the_size_are_one_run(tmp_path: Path) -> None:
    names = _files(tmp_path, [SHARD_BYTES // 4] * 4)
    assert shards(tmp_path, names) == [(tuple(names), SHARD_BYTES)]


def test_files_over_the_size_are_cut_into_runs_of_about_that_size(tmp_path: Path) -> None:
    names = _files(tmp_path, [SHARD_BYTES // 4] * 10)
    cut = shards(tmp_path, names)
    assert [len(files) for files, _ in cut] == [4, 3, 3]
    assert [f for files, _ in cut for f in files] == names
    assert sum(size for _, size in cut) == SHARD_BYTES // 4 * 10


@given(st.lists(st.integers(0, 3 * SHARD_BYTES), min_size=1, max_size=40))
def test_every_file_is_in_exactly_one_run_in_order(sizes: list[int]) -> None:
    cut = semgrep_tool.cut(sizes)
    assert [i for run in cut for i in run] == list(range(len(sizes)))  # none lost, none twice
    assert all(cut), "no empty run"
    wanted = max(1, min(len(sizes), MAX_SHARDS, -(-sum(sizes) // SHARD_BYTES)))
    assert len(cut) == wanted
    share = sum(sizes) / wanted
    # A run ends on the first file that brings the runs so far to their share, no later.
    for number, run in enumerate(cut[:-1], start=1):
        assert sum(sizes[: run[-1]]) < share * number or len(run) == 1


def _copy(tmp_path: Path, name: str) -> tuple[Path, list[str]]:
    root = tmp_path / name
    shutil.copytree(TARGETS, root)
    # A file semgrep-core cannot parse, among the others: its note comes first either way.
    (root / "m_broken.js").write_text("function (( {\n", encoding="utf-8")
    paths = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and language_of(str(p))
    )
    return root, paths


def test_shards_find_what_one_run_finds_in_the_same_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Real semgrep-core on the annotated targets: once as one run per rules file, once with
    # every rules file cut into as many runs as it has files (each workspace its own copy,
    # so the run cache cannot answer one from the other).
    whole_root, paths = _copy(tmp_path, "whole")
    whole = SemgrepTool(tuple(Category)).run(whole_root, paths)
    cut_root, _ = _copy(tmp_path, "cut")
    monkeypatch.setattr(semgrep_tool, "SHARD_BYTES", 1)
    assert len(shards(cut_root, paths)) == min(len(paths), MAX_SHARDS) > 3
    sharded = SemgrepTool(tuple(Category)).run(cut_root, paths)
    assert any(h.rule == UNPARSABLE_RULE for h in whole)
    assert len([h for h in whole if h.rule != UNPARSABLE_RULE]) > 5, "results to compare"
    assert sharded == whole
