"""The rules files of one Semgrep run go side by side (one semgrep-core per language at once,
docs/performance.md): run one after the other, every agent waited on the sum of them. The hits
come back in the same order as before, and a failure is still raised."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from code_guard.errors import ToolError
from code_guard.findings import Category
from code_guard.tools.base import DEADLINE, ToolHit
from code_guard.tools.semgrep import tool as semgrep_tool
from code_guard.tools.semgrep.tool import SemgrepTool

FILES = ("a.go", "b.js", "c.py")


def _workspace(tmp_path: Path) -> Path:
    for name in FILES:
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    return tmp_path


def test_each_language_runs_while_the_others_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every run waits until all three have started: run one after the other, the first would
    # wait alone and the barrier would break.
    barrier = threading.Barrier(3, timeout=20)

    def together(workspace: Path, paths: Sequence[str], rules: Path, **_: object) -> list[ToolHit]:
        barrier.wait()
        return [ToolHit("semgrep", "py-weak-crypto-hash", paths[0], 1, 1, rules.name)]

    monkeypatch.setattr(semgrep_tool, "run_rules", together)
    hits = SemgrepTool(tuple(Category)).run(_workspace(tmp_path), list(FILES))
    # In the order of the rules files' names, as when they ran one after the other.
    assert [h.message for h in hits] == ["go.yml", "javascript.yml", "python.yml"]


def test_a_failing_rules_file_still_fails_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(workspace: Path, paths: Sequence[str], rules: Path, **_: object) -> list[ToolHit]:
        if rules.name == "javascript.yml":
            raise ToolError("semgrep rule error: broken")
        return []

    monkeypatch.setattr(semgrep_tool, "run_rules", failing)
    with pytest.raises(ToolError, match="broken"):
        SemgrepTool(tuple(Category)).run(_workspace(tmp_path), list(FILES))


def test_each_run_keeps_the_reviews_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The time budget reaches an analyser through a context variable: a run in a thread of
    # its own must still see it, or a multi-language review would outlive its budget.
    seen: list[float | None] = []

    def recording(workspace: Path, paths: Sequence[str], rules: Path, **_: object) -> list[ToolHit]:
        seen.append(DEADLINE.get())
        return []

    monkeypatch.setattr(semgrep_tool, "run_rules", recording)
    token = DEADLINE.set(123.0)
    try:
        SemgrepTool(tuple(Category)).run(_workspace(tmp_path), list(FILES))
    finally:
        DEADLINE.reset(token)
    assert seen == [123.0, 123.0, 123.0]
