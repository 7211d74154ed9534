"""The one language registry: which language a file is written in, and which analysers read it.

Every question about a file's language is answered here: the review order (``risk.py``),
whether a changed file's code was analysed at all (``engine.py``), and whether a file git
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

from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath
from types import MappingProxyType


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
REGRESSIONS = "regressions"
_PYTHON_TOOLS = (*sorted(CODE_ANALYSERS), REGRESSIONS)


@dataclass(frozen=True, slots=True)
class Language:
    """One language: its name, kind, the suffixes and file names that mark it, and the
    analysers (besides the secret scan, which reads every text file) that read it."""

    name: str
    kind: Kind
    suffixes: tuple[str, ...]
    analysers: tuple[str, ...] = ()
    file_names: tuple[str, ...] = ()

    @property
    def code_analysed(self) -> bool:
        """True when some code analyser looks for flaws in this language's files."""
        return bool(CODE_ANALYSERS.intersection(self.analysers))


def _code(name: str, *suffixes: str, analysers: tuple[str, ...] = ()) -> Language:
    return Language(name, Kind.CODE, suffixes, analysers)


_SEMGREP = ("semgrep", REGRESSIONS)
LANGUAGES: tuple[Language, ...] = (
    _code("Python", ".py", ".pyi", analysers=_PYTHON_TOOLS),
    _code("JavaScript", ".js", ".jsx", ".mjs", ".cjs", analysers=_SEMGREP),
    _code("TypeScript", ".ts", ".tsx", ".mts", ".cts", analysers=_SEMGREP),
    _code("Go", ".go", analysers=_SEMGREP),
    # The regression check reads a .vue file's script; no code analyser reads Vue.
    _code("Vue", ".vue", analysers=(REGRESSIONS,)),
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


def unread_code(path: str) -> Language | None:
    """The language of ``path`` when it is code that no code analyser reads, else None."""
    language = language_of(path)
    if language is None or language.kind is not Kind.CODE or language.code_analysed:
        return None
    return language


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
