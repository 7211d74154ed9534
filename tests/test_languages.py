"""The language registry: one row per suffix, and what it says each analyser reads is what
the analysers select (until they read the registry themselves)."""

from __future__ import annotations

import pytest

from code_guard.languages import LANGUAGES, Kind, interpreted_language, language_of
from code_guard.regressions.tool import RegressionTool
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import Tool
from code_guard.tools.ruff import RuffTool
from code_guard.tools.semgrep.tool import SemgrepTool

SUFFIXES = [suffix for language in LANGUAGES for suffix in language.suffixes]


def test_each_suffix_names_one_language() -> None:
    assert len(SUFFIXES) == len(set(SUFFIXES))


@pytest.mark.parametrize(
    "tool", [BanditTool(), RuffTool(()), SemgrepTool(()), RegressionTool()], ids=lambda t: t.name
)
def test_the_registry_says_what_each_analyser_reads(tool: Tool) -> None:
    for suffix in SUFFIXES:
        language = language_of(f"src/x{suffix}")
        assert language is not None
        claimed = tool.name in language.analysers
        assert tool.applies_to(f"src/x{suffix}") is claimed, (tool.name, suffix)


@pytest.mark.parametrize(
    ("path", "name", "kind"),
    [("App.JAVA", "Java", Kind.CODE), ("Dockerfile", "Dockerfile", Kind.BUILD),
     (".github/workflows/ci.yml", "YAML", Kind.CONFIG), ("README.md", "Markdown", Kind.PROSE),
     ("index.html", "HTML", Kind.MARKUP)],
)  # fmt: skip
def test_language_of(path: str, name: str, kind: Kind) -> None:
    language = language_of(path)
    assert language is not None
    assert (language.name, language.kind) == (name, kind)


def test_interpreted_language() -> None:
    lines = ["#!/usr/bin/env python3", "#!/bin/bash -e", "#!/usr/bin/env -S node --flag", "# x"]
    assert [interpreted_language(line) for line in lines] == ["Python", "Shell", "JavaScript", None]
