"""Fixtures of the eval tests: case files written under ``tmp_path``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from evalfakes import WriteCase, new_file_diff

from code_guard.findings import Category


@pytest.fixture
def write_case(tmp_path: Path) -> WriteCase:
    """Write a valid case ``<pr_id>.json`` under ``tmp_path / "cases"``.

    ``expected`` is a list of ``(line, category)`` on the case's one file, ``app_<pr_id>.py``
    of 20 lines; ``overrides`` replace top-level keys (to build malformed cases).
    """
    directory = tmp_path / "cases"
    directory.mkdir(exist_ok=True)

    def write(
        pr_id: str,
        expected: Sequence[tuple[int, Category]] = (),
        **overrides: Any,
    ) -> Path:
        path = f"app_{pr_id}.py"
        text = "".join(f"x{n} = {n}\n" for n in range(1, 21))
        case: dict[str, Any] = {
            "pr_id": pr_id,
            "diff": new_file_diff(path, text),
            "file_contents": {path: text},
            "expected_findings": [
                {"file_path": path, "line_start": line, "category": category.value}
                for line, category in expected
            ],
        }
        case.update(overrides)
        target = directory / f"{pr_id}.json"
        target.write_text(json.dumps(case), encoding="utf-8")
        return target

    return write
