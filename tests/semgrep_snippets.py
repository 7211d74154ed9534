"""Snippet files run through the bundled Semgrep rules, and the lines their markers are on:
the shared steps of the guard tests for each language."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from code_guard.findings import Category
from code_guard.knowledge.mapping import lookup
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool


def run_snippets(root: Path, sources: Mapping[str, str]) -> dict[str, list[ToolHit]]:
    """Write each snippet under ``root`` and return every hit of the bundled rules on it."""
    for name, text in sources.items():
        (root / name).write_text(text, encoding="utf-8")
    return {name: SemgrepTool(tuple(Category)).run(root, [name]) for name in sources}


def line_containing(text: str, marker: str) -> int:
    """The line of ``text`` that holds ``marker``, which must occur once."""
    assert text.count(marker) == 1, f"marker {marker!r} is not unique"
    return text[: text.index(marker)].count("\n") + 1


def assert_reported(hits: list[ToolHit], line: int, rule: str, category: Category) -> None:
    """``rule`` hit ``line``, and the mapping files it under ``category``."""
    found = {(h.rule, h.line) for h in hits}
    assert (rule, line) in found, f"{rule} not on line {line}; hits: {sorted(found)}"
    info = lookup("semgrep", rule)
    assert info is not None
    assert info.category is category
