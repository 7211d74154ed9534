"""The one language registry: which language a file is written in, and which analysers read it.

Every question about a file's language is answered here: the review order (``risk.py``),
whether a changed file's code was analysed at all (``unread.py``), and whether a file git
calls binary is source that must be read (``binary.py``). A new language is one row.

Kinds, and why only ``code`` must be analysed for a review to be complete:
- ``code`` is what a runtime executes: a flaw in it is a flaw in the product. A code file no
  analyser reads is named, and the review is partial unless a model read it.
- ``markup`` (HTML, CSS), ``build`` (Dockerfile, Makefile) and ``config`` (YAML, JSON...)
  describe content or settings; a CI workflow's YAML runs commands as a Makefile does, and is
  config all the same. The secret scan reads them all, as it reads every text file.
- ``prose`` (Markdown, text) is for people.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import Literal


class Kind(StrEnum):
    """What a file of a language is for."""

    CODE = "code"
    MARKUP = "markup"
    BUILD = "build"
    CONFIG = "config"
    PROSE = "prose"


# The analysers that look for flaws in code. The secret scan reads every text file, and the
# regression check only compares protections the change removed: neither is a code analyser.
CODE_ANALYSERS = frozenset(
    {"bandit", "ruff", "semgrep", "python-taint", "python-settings", "python-ast",
     "python-correctness"}
)  # fmt: skip
SECRET_SCAN = "detect-secrets"
REGRESSIONS = "security-regression"
# Python's own analysers read stubs too; semgrep and the regression check read .py only.
_PYTHON_STUB_TOOLS = tuple(sorted(CODE_ANALYSERS - {"semgrep"}))
_PYTHON_TOOLS = (*_PYTHON_STUB_TOOLS, "semgrep", REGRESSIONS)

# The rule family a language's code is read with: the regression catalogue's language and the
# bundled Semgrep rules file (``tools/semgrep/rules/<family>.yml``). TypeScript and a .vue
# file's script are read with the JavaScript rules.
RuleFamily = Literal["python", "javascript", "go"]


@dataclass(frozen=True, slots=True)
class Language:
    """One language: its name, kind, the suffixes and file names that mark it, and the
    analysers (besides the secret scan, which reads every text file) that read it."""

    name: str
    kind: Kind
    suffixes: tuple[str, ...]
    analysers: tuple[str, ...] = ()
    file_names: tuple[str, ...] = ()
    family: RuleFamily | None = None

    @property
    def code_analysed(self) -> bool:
        """True when some code analyser looks for flaws in this language's files."""
        return bool(CODE_ANALYSERS.intersection(self.analysers))


def _code(
    name: str, *suffixes: str, analysers: tuple[str, ...] = (), family: RuleFamily | None = None
) -> Language:
    return Language(name, Kind.CODE, suffixes, analysers, family=family)


_SEMGREP = ("semgrep", REGRESSIONS)
LANGUAGES: tuple[Language, ...] = (
    # The analysers select files by these rows (tools/base.py, tools/semgrep/tool.py,
    # tools/regressions, tools/access); the same language under another suffix is a row of
    # its own, which no analyser reads.
    _code("Python", ".py", analysers=_PYTHON_TOOLS, family="python"),
    _code("Python", ".pyi", analysers=_PYTHON_STUB_TOOLS, family="python"),
    _code("Python", ".pyw"),
    _code("JavaScript", ".js", ".jsx", ".mjs", ".cjs", analysers=_SEMGREP, family="javascript"),
    _code("TypeScript", ".ts", ".tsx", analysers=_SEMGREP, family="javascript"),
    _code("TypeScript", ".mts", ".cts"),
    _code("Go", ".go", analysers=_SEMGREP, family="go"),
    # The regression check reads a .vue file's script; no code analyser reads Vue.
    _code("Vue", ".vue", analysers=(REGRESSIONS,), family="javascript"),
    _code("Svelte", ".svelte"),
    _code("Java", ".java", ".jsp"),
    _code("Kotlin", ".kt", ".kts"),
    _code("Scala", ".scala", ".sc"),
    _code("Groovy", ".groovy", ".gradle"),
    _code("C#", ".cs", ".cshtml", ".razor"),
    _code("F#", ".fs", ".fsx"),
    _code("Visual Basic", ".vb"),
    _code("PHP", ".php", ".phtml"),
    _code("Ruby", ".rb", ".erb", ".rake"),
    _code("Swift", ".swift"),
    _code("Objective-C", ".m", ".mm"),
    _code("C", ".c", ".h"),
    _code("C++", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"),
    _code("Rust", ".rs"),
    _code("Dart", ".dart"),
    _code("Elixir", ".ex", ".exs"),
    _code("Erlang", ".erl"),
    _code("Haskell", ".hs"),
    _code("Clojure", ".clj", ".cljs"),
    _code("Lua", ".lua"),
    _code("Perl", ".pl", ".pm"),
    _code("R", ".r"),
    _code("Julia", ".jl"),
    _code("Shell", ".sh", ".bash", ".zsh", ".ksh"),
    _code("PowerShell", ".ps1", ".psm1"),
    _code("Batch", ".bat", ".cmd"),
    _code("SQL", ".sql"),
    _code("Solidity", ".sol"),
    Language("HTML", Kind.MARKUP, (".html", ".htm", ".xhtml")),
    Language("CSS", Kind.MARKUP, (".css", ".scss", ".sass", ".less")),
    Language("Dockerfile", Kind.BUILD, (".dockerfile",), file_names=("dockerfile",)),
    Language("Makefile", Kind.BUILD, (".mk",), file_names=("makefile", "gnumakefile")),
    Language("YAML", Kind.CONFIG, (".yml", ".yaml")),
    Language("JSON", Kind.CONFIG, (".json", ".jsonc", ".json5")),
    Language("TOML", Kind.CONFIG, (".toml",)),
    Language("INI", Kind.CONFIG, (".ini", ".cfg", ".conf", ".properties")),
    Language("XML", Kind.CONFIG, (".xml", ".plist")),
    Language("dotenv", Kind.CONFIG, (".env",), file_names=(".env",)),
    Language("Terraform", Kind.CONFIG, (".tf", ".tfvars", ".hcl")),
    Language("Markdown", Kind.PROSE, (".md", ".markdown", ".mdx")),
    Language("reStructuredText", Kind.PROSE, (".rst",)),
    Language("Text", Kind.PROSE, (".txt",)),
)


def _index() -> tuple[MappingProxyType[str, Language], MappingProxyType[str, Language]]:
    by_suffix: dict[str, Language] = {}
    by_name: dict[str, Language] = {}
    for language in LANGUAGES:
        for suffix in language.suffixes:
            assert suffix not in by_suffix, f"{suffix} is claimed twice"
            by_suffix[suffix] = language
        by_name.update(dict.fromkeys(language.file_names, language))
    return MappingProxyType(by_suffix), MappingProxyType(by_name)


_BY_SUFFIX, _BY_NAME = _index()


def language_of(path: str) -> Language | None:
    """The language of the file at ``path``, by its name or suffix (case-insensitive)."""
    name = PurePosixPath(path).name.lower()
    return _BY_NAME.get(name) or _BY_SUFFIX.get(PurePosixPath(name).suffix)


def read_by(analyser: str, path: str) -> Language | None:
    """The language of ``path`` when ``analyser`` reads files of it, else None."""
    language = language_of(path)
    return language if language is not None and analyser in language.analysers else None


def suffixes_read_by(analyser: str) -> tuple[str, ...]:
    """Every suffix whose files ``analyser`` reads, in the registry's order."""
    return tuple(
        suffix
        for language in LANGUAGES
        if analyser in language.analysers
        for suffix in language.suffixes
    )


def suffixes_of(*names: str) -> tuple[str, ...]:
    """Every suffix of the languages called ``names`` (``"Python"``: .py, .pyi, .pyw), in the
    registry's order: the files a module of those languages may be, analysed or not."""
    return tuple(
        suffix for language in LANGUAGES if language.name in names for suffix in language.suffixes
    )


# Interpreters a ``#!`` line may name, by the language they run (``python3.12`` is python).
_INTERPRETERS = {
    "python": "Python", "node": "JavaScript", "nodejs": "JavaScript", "deno": "TypeScript",
    "bun": "JavaScript", "ruby": "Ruby", "perl": "Perl", "php": "PHP", "lua": "Lua",
    "sh": "Shell", "bash": "Shell", "zsh": "Shell", "dash": "Shell", "ksh": "Shell",
    "pwsh": "PowerShell", "rscript": "R", "julia": "Julia", "elixir": "Elixir",
    "groovy": "Groovy", "kotlin": "Kotlin", "scala": "Scala", "swift": "Swift",
}  # fmt: skip
_SHEBANG = re.compile(r"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?(?:\S*/)?([A-Za-z]+)")


def interpreted_language(first_line: str) -> str | None:
    """The language a ``#!`` first line runs the file as (``#!/usr/bin/env python3``:
    Python), or None. Such a file runs whatever its name, and no analyser selects files by
    this line, so its code is read by none."""
    found = _SHEBANG.match(first_line)
    return _INTERPRETERS.get(found.group(1).lower()) if found else None


# Formats that are binary by design: images, archives, fonts, media, compiled objects. A file
# git calls binary with one of these suffixes is an asset, not source whose text was hidden.
BINARY_ASSET_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".icns", ".tif", ".tiff",
        ".avif", ".heic", ".psd", ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z",
        ".rar", ".tar", ".jar", ".war", ".whl", ".egg", ".woff", ".woff2", ".ttf", ".otf",
        ".eot", ".mp3", ".mp4", ".m4a", ".wav", ".ogg", ".flac", ".webm", ".mov", ".avi",
        ".mkv", ".so", ".dll", ".dylib", ".exe", ".o", ".a", ".lib", ".class", ".pyc",
        ".wasm", ".db", ".sqlite", ".sqlite3", ".parquet", ".npy", ".pkl", ".bin",
    }
)  # fmt: skip


def is_binary_asset(path: str) -> bool:
    """True when ``path``'s suffix names a binary format (an image, archive, font...)."""
    return PurePosixPath(path.lower()).suffix in BINARY_ASSET_SUFFIXES
