"""Which files of a change the review can show are tests, for the rules quiet in test files.

A path that looks like a test (``knowledge/placeholders.is_test_path``) is the author's word:
``svc/testing/proxy.py`` may be a Flask blueprint the app registers. So a file counts as a
test only when the review can show that no production code of the change loads it:

- a Go ``_test.go`` file always is one: the Go toolchain never builds it into a program;
- any other test-looking file is one unless a production file of the change (one whose path
  does not look like a test) imports it, names it or may load it, directly or through test
  files it loads in turn. What names a file is over-approximated, never guessed down:

  - its path or dotted module name, with two parts or more (``svc/testing/proxy.py``,
    ``testing.proxy``, ``svc.testing``) or its own test name (``test_proxy.py``), anywhere
    in the text of any production file: code, a Dockerfile, ``pyproject.toml``,
    ``package.json``;
  - a Python import, anywhere in the file, absolute (every suffix of the module's path is a
    name it may be imported by: the project's roots are not known) or relative, of the
    module, of a package it lies in below its test folder, or ``from`` a package ``*``;
    a string that is exactly a test folder's dotted name (``INSTALLED_APPS = ["testing"]``,
    ``sys.path.insert(0, "tests")``), unless it is compared;
  - a JavaScript or TypeScript ``require``/``import``/``export ... from`` whose specifier
    resolves to it (relative, with or without its suffix, an ``index`` file, a folder), or a
    bare one whose parts end its path (an alias or ``baseUrl`` path);
  - a Go import path that ends with its folder's name, or ``package main`` in the file itself
    (a program of its own, which no import needs);
  - a loader the review cannot read to its end (``importlib.import_module(name)``,
    ``__import__``, ``exec``/``eval`` of a computed value, ``require(name)``,
    ``import(`./${x}`)``): every file of that language its constant prefix allows; and a
    production file whose text the review does not have (unreadable, or a binary that may
    hold code): every file.

A path or Python name holds a part that makes the file look like a test (a test folder, or
its own test name): ``orders.helpers`` does not name ``tests/orders/helpers.py``, which only
a test folder on the import path or as the working folder would load, and putting it there
names the folder.

Code the change does not touch is not read: an unchanged file that already imported a
test-looking module, or discovers modules by walking a folder, is beyond this decision.
"""

from __future__ import annotations

import ast
import bisect
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from code_guard.knowledge.placeholders import is_test_dir, is_test_path
from code_guard.languages import suffixes_of
from code_guard.rewrites.python_parse import parse_python

# The files a module may be, by the import machinery of each family (the one language
# registry's rows: a module is found whatever analysers read it).
PY_SUFFIXES = suffixes_of("Python")
JS_SUFFIXES = suffixes_of("JavaScript", "TypeScript", "Vue", "Svelte")
_GO = ".go"
# What may load a module named by a value, or run code or a program given as one: the import
# machinery and code evaluators by their own names (``import_module``, ``exec``), and the
# deserialisers and process starters of these modules (unpickling imports by name; a process
# may be ``python -m module``).
_PY_LOADERS = frozenset(
    {
        "import_module",
        "__import__",
        "import_string",
        "run_module",
        "run_path",
        "spec_from_file_location",
        "spec_from_loader",
        "find_spec",
        "module_from_spec",
        "exec_module",
        "SourceFileLoader",
        "SourcelessFileLoader",
        "ExtensionFileLoader",
        "load_source",
        "load_module",
        "load_compiled",
        "load_dynamic",
        "load_package",
        "walk_packages",
        "resolve_name",
        "exec",
        "eval",
        "compile",
        "execfile",
        "Unpickler",
    }
)
# Builtins that are loaders only by their bare name (``re.compile`` is no loader).
_BUILTIN_ONLY = frozenset({"exec", "eval", "compile", "execfile"})
_UNPICKLE = frozenset({"load", "loads", "Unpickler"})
_PY_LOADER_MODULES: Mapping[str, frozenset[str]] = {
    "subprocess": frozenset(
        {"run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput"}
    ),
    "pty": frozenset({"spawn"}),
    "pickle": _UNPICKLE,
    "_pickle": _UNPICKLE,
    "cPickle": _UNPICKLE,
    "dill": _UNPICKLE,
    "cloudpickle": _UNPICKLE,
    "joblib": _UNPICKLE,
    "marshal": _UNPICKLE,
    "jsonpickle": frozenset({"decode", "loads"}),
    "shelve": frozenset({"open", "Shelf", "DbfilenameShelf"}),
}
# Keyword arguments that never name what is loaded or run.
_INERT_KEYWORDS = frozenset(
    {
        "stdin",
        "stdout",
        "stderr",
        "timeout",
        "check",
        "text",
        "universal_newlines",
        "capture_output",
        "encoding",
        "errors",
        "bufsize",
        "close_fds",
        "start_new_session",
        "Loader",
    }
)
_OS_LOADERS = re.compile(r"(system|popen|startfile|posix_spawnp?|exec[lv]p?e?|spawn[lv]p?e?)")
_YAML_LOADERS = frozenset({"load", "load_all", "unsafe_load", "unsafe_load_all", "full_load"})
_YAML_SAFE = ("SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader")
_LITERALS = (str, bytes, int, float, bool, type(None))
_JS_LITERAL_LOAD = re.compile(
    r"""(?:\brequire(?:\.resolve)?|\bimport)\s*\(\s*(['"`])(?P<a>[^'"`$\n]*)\1\s*\)"""
    r"""|\b(?:from|import)\s*(['"])(?P<b>[^'"\n]*)\3"""
)
_JS_ANY_LOAD = re.compile(
    r"\b(?:require(?:\.resolve|\.context)?|import|eval|Function)\s*\(\s*(?P<arg>)"
)
# A call's one literal argument: a quoted string, or a template without a substitution.
_JS_CALL_LITERAL = re.compile(r"""(['"])[^'"\n]*\1\s*\)|`[^`$]*`\s*\)""")
# The literal start of a computed argument: `'./x/' + name`, `./x/${name}`.
_JS_PREFIX = re.compile(r"""(['"`])(?P<prefix>[^'"`$\n]*)""")
_GO_LITERAL = re.compile(r'"([^"\n]*)"|`([^`]*)`')
_GO_MAIN = re.compile(r"^package\s+main\b", re.MULTILINE)
# A run of text that may spell a path or a module name (quotes, brackets, separators and
# operators of code and configuration end it).
_TOKEN = re.compile(r"""[^\s"'`()\[\]{}<>,;:=|&*!?#$%^\\]+""")


@dataclass(frozen=True, slots=True)
class TestFiles:
    """The change's files that are tests for the rules quiet in tests, decided once."""

    quiet: frozenset[str]
    # Test-looking files that production code of the change loads, with what loads them.
    loaded: Mapping[str, str]

    def is_test(self, path: str) -> bool:
        """Whether ``path`` is a test file the review can show no production code loads."""
        if not is_test_path(path):
            return False
        return path.endswith("_test.go") or path in self.quiet

    def why(self, path: str) -> str:
        """Why ``path`` is a test file (for a silenced candidate's proof)."""
        if path.endswith("_test.go"):
            return "a Go _test.go file, which the Go toolchain never builds into a program"
        return "a test file that no production file of the change imports or names"

    @classmethod
    def of(cls, files: Iterable[tuple[str, str | None]]) -> TestFiles:
        """Decide for the change's files, given as (path, new text; None when the review
        does not have it). Deleted files are left out by the caller."""
        texts = dict(files)
        candidates = {p for p in texts if is_test_path(p) and not p.endswith("_test.go")}
        index = _Index(candidates)
        loaded: dict[str, str] = {}
        queue: list[str] = []

        def mark(targets: Iterable[str], why: str) -> None:
            for target in targets:
                if target in candidates and target not in loaded:
                    loaded[target] = why
                    queue.append(target)

        for path in sorted(candidates):
            text = texts[path]
            if path.endswith(_GO) and text is not None and _GO_MAIN.search(text):
                mark([path], "it is a Go program of its own (package main)")
        queue.extend(p for p in sorted(texts) if not is_test_path(p))
        seen: set[str] = set()
        while queue:
            root = queue.pop()
            if root in seen:
                continue
            seen.add(root)
            text = texts.get(root)
            if text is None:
                mark(candidates, f"{root} is not readable: it may load any file")
                continue
            for target in _loads(root, text, index):
                mark([target], f"{root} loads or names it")
        return cls(quiet=frozenset(candidates - loaded.keys()), loaded=loaded)


class _Index:
    """The test-looking files by every name that may load them."""

    def __init__(self, candidates: Iterable[str]) -> None:
        self.files = frozenset(candidates)
        # a spelling in any text (two parts or more, or a file name) -> files
        self.spelled: dict[str, set[str]] = {}
        # a Python module name (any suffix of its dotted path) -> files
        self.modules: dict[str, set[str]] = {}
        # a test folder (at or below the part that makes it one) -> the files below it
        self.folders: dict[str, set[str]] = {}
        # a test folder's dotted names and its own name -> the folder
        self.folder_names: dict[str, set[str]] = {}
        for path in self.files:
            self._add(path)
        self.longest = max(map(len, self.spelled), default=0)

    def _add(self, path: str) -> None:
        parts = path.split("/")
        stem_parts = [*parts[:-1], PurePosixPath(parts[-1]).stem]
        # Every name given to it holds a part that makes it a test (a test folder, or its
        # own test name): one without (``orders.helpers`` for ``tests/orders/helpers.py``)
        # loads it only from a test folder put on the import path or made the working
        # folder, which names that folder.
        marks = [i for i, part in enumerate(parts[:-1]) if is_test_dir(part)]
        if is_test_path(parts[-1]):
            marks.append(len(parts) - 1)
        last = max(marks, default=-1)
        spell = self.spelled.setdefault
        if last == len(parts) - 1:
            spell(parts[-1], set()).add(path)
        for start in range(min(len(parts) - 1, last + 1)):
            spell("/".join(parts[start:]), set()).add(path)
            spell("/".join(stem_parts[start:]), set()).add(path)
            spell(".".join(stem_parts[start:]), set()).add(path)
        module = stem_parts[:-1] if stem_parts[-1] == "__init__" else stem_parts
        for start in range(min(len(module), last + 1)):
            self.modules.setdefault(".".join(module[start:]), set()).add(path)
        first = marks[0] if marks else len(parts) - 1
        for end in range(first + 1, len(parts)):
            folder = "/".join(parts[:end])
            self.folders.setdefault(folder, set()).add(path)
            for start in range(end):
                if not any(start <= i < end for i in marks):
                    continue
                self.folder_names.setdefault(".".join(parts[start:end]), set()).add(folder)
                if end - start >= 2:
                    spell("/".join(parts[start:end]), set()).add(path)
                    spell(".".join(parts[start:end]), set()).add(path)

    def below(self, folder: str) -> set[str]:
        return self.folders.get(folder, set())

    def module(self, name: str) -> set[str]:
        """The files an absolute import of ``name`` may load: the module, or a test
        package's files (its ``__init__`` when the change has it, else all below it)."""
        found = set(self.modules.get(name, set()))
        for folder in self.folder_names.get(name, set()):
            found |= self._package(folder)
        return found

    def _package(self, folder: str) -> set[str]:
        init = f"{folder}/__init__.py"
        return {init} if init in self.files else self.below(folder)

    def at_path(self, stem: str, suffixes: tuple[str, ...]) -> set[str]:
        """The files a path without suffix (``svc/testing/proxy``) may load: a module with
        one of ``suffixes``, a package's ``__init__``/``index``, or a test folder."""
        stem = posixpath.normpath(stem)
        found = {stem} & self.files
        found |= {f"{stem}{s}" for s in suffixes} & self.files
        if stem in self.folders:
            init = {f"{stem}/__init__{s}" for s in suffixes} | {
                f"{stem}/index{s}" for s in suffixes
            }
            found |= (init & self.files) or self.below(stem)
        return found

    def with_prefix(self, prefix: str, suffixes: tuple[str, ...]) -> set[str]:
        """The files of a language whose path or dotted name may start with ``prefix``."""
        return {
            f
            for f in self.files
            if f.endswith(suffixes) and any(_starts_part(s, prefix) for s in _names_of(f))
        }

    def in_text(self, text: str) -> set[str]:
        """The files ``text`` spells out: a spelling is a stretch of a token that begins
        and ends at the token's ends or beside a character that is neither a word
        character nor ``-`` (``/app/svc/testing/proxy.py:app`` spells
        ``svc/testing/proxy.py``, ``testing/proxy`` and ``proxy.py``)."""
        found: set[str] = set()
        if not self.spelled:
            return found
        for token in _TOKEN.finditer(text):
            word = token.group()
            cuts = [i for i, c in enumerate(word) if not (c.isalnum() or c in "_-")]
            ends = [*cuts, len(word)]
            for start in (0, *(i + 1 for i in cuts)):
                at = bisect.bisect_right(ends, start)
                while at < len(ends) and ends[at] - start <= self.longest:
                    found |= self.spelled.get(word[start : ends[at]], set())
                    at += 1
        return found


def _names_of(path: str) -> Iterator[str]:
    parts = path.split("/")
    stem = [*parts[:-1], PurePosixPath(parts[-1]).stem]
    for start in range(len(parts)):
        yield "/".join(parts[start:])
        yield ".".join(stem[start:])


def _starts_part(name: str, prefix: str) -> bool:
    """Whether a computed name beginning with ``prefix`` may be ``name`` or a suffix of it."""
    starts = [0, *(i + 1 for i, c in enumerate(name) if c in "./")]
    return any(name.startswith(prefix, i) for i in starts)


def _loads(root: str, text: str, index: _Index) -> set[str]:
    """The test-looking files ``root``'s text may load or names."""
    found = index.in_text(text)
    if root.endswith(PY_SUFFIXES):
        found |= _python_loads(root, text, index)
    elif root.endswith(JS_SUFFIXES):
        found |= _js_loads(root, text, index)
    elif root.endswith(_GO):
        found |= _go_loads(text, index)
    return found


def _python_loads(root: str, text: str, index: _Index) -> set[str]:
    tree = parse_python(text)  # the shared tree, parsed under the lock every parse takes
    if tree is None:  # the review cannot tell what it imports
        return {f for f in index.files if f.endswith(PY_SUFFIXES)}
    found: set[str] = set()
    folder = posixpath.dirname(root)
    nodes = list(ast.walk(tree))
    compared: set[int] = set()
    # a loader passed on or kept (``f = importlib.import_module``, ``runner = subprocess``):
    # its calls are out of sight
    used: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.Compare):
            compared.update(id(n) for n in (node.left, *node.comparators))
        elif isinstance(node, ast.Call):
            used.add(id(node.func))
        elif isinstance(node, ast.Attribute):
            used.add(id(node.value))
    aliases = _aliases(nodes)
    for node in nodes:
        if (
            isinstance(node, ast.Name | ast.Attribute)
            and id(node) not in used
            and _is_loader_reference(_qualname(node, aliases))
        ):
            return {f for f in index.files if f.endswith(PY_SUFFIXES)}
        if isinstance(node, ast.Import):
            for alias in node.names:
                found |= _absolute(alias.name, index)
        elif isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
            if node.level:
                base = folder
                for _ in range(node.level - 1):
                    base = posixpath.dirname(base)
                parts = node.module.split(".") if node.module else []
                # the packages on the way are run too
                for end in range(len(parts) + 1):
                    found |= index.at_path(posixpath.join(base, *parts[:end]), PY_SUFFIXES)
                stem = posixpath.join(base, *parts)
                found |= _star(stem, names, index)
                for name in names:
                    found |= index.at_path(posixpath.join(stem, name), PY_SUFFIXES)
            elif node.module:
                found |= _absolute(node.module, index)
                for folder_ in index.folder_names.get(node.module, set()):
                    found |= _star(folder_, names, index)
                for name in names:
                    found |= index.module(f"{node.module}.{name}")
        elif isinstance(node, ast.Call) and _is_loader(_qualname(node.func, aliases), node):
            loaded = _python_loader(node, index)
            if loaded is None:
                return {f for f in index.files if f.endswith(PY_SUFFIXES)}
            found |= loaded
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in compared
        ):
            value = node.value.strip().strip("/").replace("/", ".")
            for named in index.folder_names.get(value, set()):
                found |= index.below(named)
    return found


def _absolute(name: str, index: _Index) -> set[str]:
    """What ``import a.b.c`` loads: ``a``, ``a.b`` and ``a.b.c``."""
    parts = name.split(".")
    return {f for end in range(1, len(parts) + 1) for f in index.module(".".join(parts[:end]))}


def _star(folder: str, names: list[str], index: _Index) -> set[str]:
    """``from package import *`` may load every module its ``__all__`` lists."""
    return index.below(posixpath.normpath(folder)) if "*" in names else set()


def _aliases(nodes: Iterable[ast.AST]) -> dict[str, str]:
    """What each name an import binds stands for (``import a.b as c``: ``c`` is ``a.b``)."""
    found: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    found[head] = head
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _qualname(node: ast.expr, aliases: Mapping[str, str]) -> str:
    """The dotted name ``node`` refers to, through the file's imports (``?`` for a part
    that is no name: a call's result, a subscript)."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        return f"{_qualname(node.value, aliases)}.{node.attr}"
    return "?"


def _is_loader_reference(name: str) -> bool:
    """Whether a name used as a value is a loader or a module of them."""
    return name in _PY_LOADER_MODULES or _is_loader(name)


def _is_loader(name: str, call: ast.Call | None = None) -> bool:
    """Whether the dotted ``name`` (called by ``call``, when it is a call) may load a module
    or start a program named by a value."""
    root, _, last = name.rpartition(".")
    head = name.split(".", 1)[0]
    if last in _BUILTIN_ONLY:
        return root in {"", "builtins", "__builtins__"}
    if last in _PY_LOADERS:
        return True
    starts = (
        (root == "subprocess" and last in _PY_LOADER_MODULES["subprocess"])
        or (root == "pty" and last == "spawn")
        or (root in {"os", "posix", "nt"} and _OS_LOADERS.fullmatch(last) is not None)
        or (root in {"asyncio", "asyncio.subprocess"} and last.startswith("create_subprocess"))
    )
    if starts:
        return call is None or not _runs_named_program(call)
    if last in _PY_LOADER_MODULES.get(root, ()):
        return True
    if head in {"yaml", "ruamel"} and last in _YAML_LOADERS:
        safe = call is not None and any(
            k.arg == "Loader" and ast.unparse(k.value).endswith(_YAML_SAFE) for k in call.keywords
        )
        return not safe
    return False


# Programs that run code a value names: interpreters, shells and launchers. Any other program
# written as a literal (``["git", "add", path]``) runs itself, whatever its arguments are; a
# path it is handed in a literal is still seen, as every production file's text is read.
_LAUNCHERS = re.compile(
    r"(?i)(?:.*/)?(?:python[\d.]*|pypy[\d.]*|node(?:js)?|deno|bun|ts-node|tsx|npx|sh|bash|zsh|"
    r"dash|ksh|fish|cmd(?:\.exe)?|powershell|pwsh|env|sudo|doas|xargs|exec|nohup|time|nice|"
    r"timeout|uv|uvx|poetry|pipenv|pipx|hatch|tox|nox|pdm|rye|conda|pytest|py\.test|coverage|"
    r"gunicorn|uvicorn|hypercorn|daphne|celery|flask|django-admin|manage\.py|make|just|invoke|"
    r"fab|ansible\S*|docker|podman|kubectl|ssh)"
)


def _runs_named_program(call: ast.Call) -> bool:
    """Whether a call that starts a process runs a program written as a literal that is no
    interpreter, shell or launcher: the first argument a list or tuple led by such a name."""
    if not call.args or not isinstance(call.args[0], ast.List | ast.Tuple):
        return False
    items = call.args[0].elts
    if not items or not isinstance(items[0], ast.Constant) or not isinstance(items[0].value, str):
        return False
    return _LAUNCHERS.fullmatch(items[0].value.strip()) is None


def _python_loader(call: ast.Call, index: _Index) -> set[str] | None:
    """What a call that loads code by a value may load: what its literal arguments name;
    every Python file its first argument's literal prefix allows when that is the one
    argument the review cannot read; None when it may load any."""
    found: set[str] = set()
    computed: list[ast.expr] = []
    keywords = (k.value for k in call.keywords if k.arg not in _INERT_KEYWORDS)
    for arg in (*call.args, *keywords):
        literals = _literal_strings(arg)
        if literals is None:
            computed.append(arg)
            continue
        for name in (s.strip() for s in literals):
            found |= index.module(name) | index.at_path(name.removesuffix(".py"), PY_SUFFIXES)
    if not computed:
        return found
    if len(computed) > 1 or not call.args or computed[0] is not call.args[0]:
        return None
    prefix = _constant_prefix(computed[0])
    return found | index.with_prefix(prefix, PY_SUFFIXES) if prefix else None


def _literal_strings(node: ast.expr) -> list[str] | None:
    """The strings of a literal (a constant, or a list or tuple of them); None when it is
    no literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, _LITERALS):
        value = node.value
        if isinstance(value, bytes):
            return [value.decode("latin-1")]
        return [value] if isinstance(value, str) else []
    if isinstance(node, ast.List | ast.Tuple):
        found: list[str] = []
        for item in node.elts:
            inner = _literal_strings(item)
            if inner is None:
                return None
            found += inner
        return found
    return None


def _constant_prefix(node: ast.expr) -> str:
    """The literal text a computed string starts with (empty when none is known)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _constant_prefix(node.values[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _constant_prefix(node.left)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _constant_prefix(node.left).split("%", 1)[0]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        return _constant_prefix(node.func.value).split("{", 1)[0]
    return ""


def _js_loads(root: str, text: str, index: _Index) -> set[str]:
    found: set[str] = set()
    folder = posixpath.dirname(root)
    for match in _JS_LITERAL_LOAD.finditer(text):
        found |= _js_specifier(match.group("a") or match.group("b") or "", folder, index)
    js_files = {f for f in index.files if f.endswith(JS_SUFFIXES)}
    for match in _JS_ANY_LOAD.finditer(text):
        at = match.start("arg")
        if _JS_CALL_LITERAL.match(text, at):
            continue  # one literal: read above
        prefix = _JS_PREFIX.match(text, at)
        if prefix is None or not prefix.group("prefix").startswith("."):
            return js_files  # a value the review cannot read: it may load any file
        base = posixpath.normpath(posixpath.join(folder, prefix.group("prefix")))
        found |= {f for f in js_files if f.startswith(base)}
    return found


def _js_specifier(spec: str, folder: str, index: _Index) -> set[str]:
    if spec.startswith("."):
        return index.at_path(posixpath.join(folder, spec), JS_SUFFIXES)
    parts = [p for p in spec.split("/") if p]
    if not parts:
        return set()
    found: set[str] = set()
    for path in index.files:
        if not path.endswith(JS_SUFFIXES):
            continue
        stem = path.rsplit(".", 1)[0].split("/")
        options = [path.split("/"), stem]
        if stem[-1] == "index":
            options.append(stem[:-1])
        if any(o[-len(parts) :] == parts for o in options if len(o) >= len(parts)):
            found.add(path)
    for folder_path, below in index.folders.items():
        if folder_path.split("/")[-len(parts) :] == parts:
            found |= {f for f in below if f.endswith(JS_SUFFIXES)}
    return found


def _go_loads(text: str, index: _Index) -> set[str]:
    found: set[str] = set()
    go_files = [f for f in index.files if f.endswith(_GO)]
    if not go_files:
        return found
    for match in _GO_LITERAL.finditer(text):
        literal = (match.group(1) or match.group(2) or "").strip("/")
        parts = literal.split("/")
        for path in go_files:
            folder = path.split("/")[:-1]
            if folder and parts[-1] == folder[-1] and (len(parts) >= 2 or len(folder) == 1):
                found.add(path)
    return found
