"""The language registry: one row per suffix, and what it says each analyser reads is what
the analysers select, as they read it (the security-regression and access checks, Semgrep and
the Python analysers)."""

from __future__ import annotations

import pytest

from code_guard.change.testfiles import JS_SUFFIXES, PY_SUFFIXES
from code_guard.languages import LANGUAGES, Kind, interpreted_language, language_of
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import Tool
from code_guard.tools.regressions.tool import RegressionTool
from code_guard.tools.ruff.tool import RuffTool
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


# The tables each analyser kept before the registry was its one source; a change to which files
# an analyser reads must be made on purpose, here and in languages.py.
_REGRESSION_FAMILIES = {
    ".py": "python", ".go": "go", ".js": "javascript", ".jsx": "javascript",
    ".mjs": "javascript", ".cjs": "javascript", ".ts": "javascript", ".tsx": "javascript",
    ".vue": "javascript",
}  # fmt: skip
_SEMGREP_CORE = {
    ".js": ("js", "javascript.yml"), ".jsx": ("js", "javascript.yml"),
    ".mjs": ("js", "javascript.yml"), ".cjs": ("js", "javascript.yml"),
    ".ts": ("ts", "javascript.yml"), ".tsx": ("ts", "javascript.yml"),
    ".go": ("go", "go.yml"), ".py": ("python", "python.yml"),
}  # fmt: skip
_EVERY_SUFFIX = sorted(
    {suffix for language in LANGUAGES for suffix in language.suffixes} | {".PY", ".Vue", ".txt"}
)


@pytest.mark.parametrize("suffix", _EVERY_SUFFIX)
def test_each_analyser_reads_what_its_own_table_read(suffix: str) -> None:
    from code_guard.tools.access.tool import language_of as access_language
    from code_guard.tools.base import is_python
    from code_guard.tools.regressions.detector import language_of as regression_language
    from code_guard.tools.semgrep.command import language_of as semgrep_language
    from code_guard.tools.semgrep.tool import SemgrepTool

    path = f"src/app/x{suffix}"
    family = _REGRESSION_FAMILIES.get(suffix.lower())
    assert regression_language(path) == family
    assert access_language(path) == family
    assert semgrep_language(path) == _SEMGREP_CORE.get(suffix.lower())
    assert SemgrepTool(()).applies_to(path) is (suffix.lower() in _SEMGREP_CORE)
    assert is_python(path) is (suffix in (".py", ".pyi"))


def test_the_registry_names_each_analysers_suffixes_once() -> None:
    from code_guard.languages import REGRESSIONS, suffixes_read_by

    assert set(suffixes_read_by("semgrep")) == set(_SEMGREP_CORE)
    assert set(suffixes_read_by(REGRESSIONS)) == set(_REGRESSION_FAMILIES)
    assert suffixes_read_by("bandit") == (".py", ".pyi")


def test_the_module_files_a_test_import_may_load_are_the_registrys() -> None:
    # The test-file policy resolves imports by these suffixes; they were a table of their own
    # (.py, .pyw, .pyi; every JavaScript-family suffix), now the registry's rows.
    assert sorted(PY_SUFFIXES) == [".py", ".pyi", ".pyw"]
    assert sorted(JS_SUFFIXES) == sorted(
        [".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte"]
    )
