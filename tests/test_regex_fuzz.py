"""Every regex in ``src/`` runs in linear time on inputs built to make it backtrack.

Pull request text (file names, contents, a model's answer to them) reaches these patterns, so
a pattern that backtracks over a long run is a way to stall the action: ``_URL_CREDENTIALS``
once took 3.8 s on 100 long dotted imports. The patterns are found, not listed: every module
of the package is imported and searched for compiled patterns (module globals, containers,
class attributes, closures of functions, so the rewrites ``knowledge.fixes`` builds count),
every ``re.*(r"literal")`` call in the source is compiled too, and so is every pattern the
rule catalogue holds as data (a record's ``ignore_line``).

Each pattern is then run (``finditer``: every start position, as ``search``, ``sub`` and
``findall`` do) on strings repeated from its own literal characters, words and pairs of them,
at two sizes ten times apart. Linear work grows about 10x; quadratic work grows about 100x.
A pattern fails when its time grows more than 30x *and* the larger run took long enough to
measure well (a fast run proves nothing is quadratic at that size, whatever the ratio). CPU
time of this process, best of three, keeps other work on a shared machine out of it; an
alarm stops a run past a few seconds (exponential backtracking) and fails it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import os
import pkgutil
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import pytest
from cputime import OverBudget, cpu_budget, cpu_seconds

import code_guard
from code_guard.knowledge.catalogue import records

SRC = Path(code_guard.__file__).resolve().parent
SMALL, BIG = 1_000, 10_000
MAX_GROWTH = 30.0  # linear is ~10x, quadratic ~100x
MEASURABLE_S = 0.02  # below this at BIG, no pattern is quadratic at BIG whatever the ratio
ALARM_S = 5.0
TAILS = ("\x00", "\n", "!")  # end the run with something most patterns cannot match
MAX_UNITS = 80  # per pattern, so that the whole sweep stays a few seconds

Pattern = re.Pattern[str]


def _modules() -> Iterator[ModuleType]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network on import
    yield code_guard
    for info in pkgutil.walk_packages(code_guard.__path__, "code_guard."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            yield importlib.import_module(info.name)


def _found_in(value: Any, module: str, depth: int = 0) -> Iterator[Pattern]:
    """The str patterns reachable from ``value`` that belong to ``module``."""
    if depth > 4:
        return
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _found_in(item, module, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _found_in(item, module, depth + 1)
    elif isinstance(value, FunctionType) and value.__module__ == module:
        for cell in value.__closure__ or ():
            with contextlib.suppress(ValueError):  # an empty cell
                yield from _found_in(cell.cell_contents, module, depth + 1)
        yield from _found_in(value.__defaults__ or (), module, depth + 1)
    elif inspect.isclass(value) and value.__module__ == module:
        for item in vars(value).values():
            yield from _found_in(item, module, depth + 1)


def _flags(node: ast.expr | None) -> int | None:
    """The value of a flags argument made of ``re.X`` names and ``|``, or None."""
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        value = getattr(re, node.attr, None) if node.value.id == "re" else None
        return int(value) if isinstance(value, re.RegexFlag) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return None if left is None or right is None else left | right
    return None


_ANCHORED = frozenset({"match", "fullmatch"})


def _literal_calls(path: Path) -> Iterator[tuple[Pattern, bool]]:
    """``re.<function>("literal", ..., flags)`` calls in ``path``, compiled, and whether the
    call only tries the start of the string (``match``, ``fullmatch``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            continue
        name = node.func.attr
        position = {"compile": 1, "sub": 4, "subn": 4, "split": 3}.get(name, 2)
        given = node.args[position] if len(node.args) > position else None
        keyword = next((k.value for k in node.keywords if k.arg == "flags"), given)
        flags = _flags(keyword)
        if flags is not None:
            yield re.compile(node.args[0].value, flags), name in _ANCHORED


def _anchored_names(module: ModuleType) -> set[str]:
    """The module's names that are only ever used as ``NAME.match(...)`` or
    ``NAME.fullmatch(...)``: patterns tried at the start of a string, never searched."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return set()
    loads: dict[str, int] = {}
    anchored: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.attr in _ANCHORED
        ):
            anchored[node.func.value.id] = anchored.get(node.func.value.id, 0) + 1
    return {name for name, count in anchored.items() if loads.get(name) == count}


def all_patterns() -> dict[str, tuple[Pattern, bool]]:
    """Every str pattern in the package, by ``pattern@module`` (deduplicated), and whether
    it is only ever matched at the start of a string."""
    found: dict[tuple[str, int], tuple[str, Pattern, bool]] = {}
    for module in _modules():
        anchored = _anchored_names(module)
        for name, value in vars(module).items():
            for pattern in _found_in(value, module.__name__):
                key = (pattern.pattern, pattern.flags)
                found.setdefault(key, (module.__name__, pattern, name in anchored))
    for path in sorted(SRC.rglob("*.py")):
        for pattern, at_start in _literal_calls(path):
            where = str(path.relative_to(SRC))
            found.setdefault((pattern.pattern, pattern.flags), (where, pattern, at_start))
    # Patterns the rule catalogue holds as data, each matched in full against a source line.
    for record in records():
        if record.ignore_line is not None:
            pattern = re.compile(record.ignore_line)
            where = f"{record.tool} {record.id}"
            found.setdefault((pattern.pattern, pattern.flags), (where, pattern, True))
    return {f"{p.pattern[:60]!r}@{where}": (p, at_start) for where, p, at_start in found.values()}


# --- inputs built from the pattern's own pieces -----------------------------------------------

_CATEGORY_CHARS = {"DIGIT": "0", "WORD": "a_", "SPACE": " \t", "LINEBREAK": "\n"}
_PROBES = "a0 ._-:/@=\"'`<>!\\\n"


def _pieces(pattern: Pattern) -> tuple[set[str], set[str]]:
    """The characters the pattern names (one or two from each class) and its literal words."""
    parser = importlib.import_module("re._parser")  # the stdlib's own parse of the pattern

    chars: set[str] = set()
    words: set[str] = set()

    def walk(items: Any) -> None:
        word = ""
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                word += chr(arg)
                chars.add(chr(arg))
                continue
            if len(word) > 1:
                words.add(word)
            word = ""
            if name in ("IN", "NOT_LITERAL", "ANY"):
                chars.update(_class_chars(pattern, name, arg))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                walk(arg[2])
            elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
                walk(arg[-1])
            elif name == "BRANCH":
                for branch in arg[1]:
                    walk(branch)
            elif name in ("ASSERT", "ASSERT_NOT"):
                walk(arg[1])
            elif name == "GROUPREF_EXISTS":
                walk(arg[1])
                if arg[2] is not None:
                    walk(arg[2])
        if len(word) > 1:
            words.add(word)

    walk(parser.parse(pattern.pattern, pattern.flags))
    return chars, words


def _class_chars(pattern: Pattern, op: str, arg: Any) -> set[str]:
    """One or two characters each item of a class matches (``.`` and negated literals: none
    of their own; the probes stand in)."""
    chars: set[str] = set()
    if op == "IN":
        for kind, value in arg:
            name = str(kind)
            if name == "LITERAL":
                chars.add(chr(value))
            elif name == "RANGE":
                chars.update({chr(value[0]), chr(value[1])})
            elif name == "CATEGORY":
                chars.update(_CATEGORY_CHARS.get(str(value).rsplit("_", 1)[-1], ""))
    return chars


def units(pattern: Pattern) -> list[str]:
    """Short strings whose repetition may make ``pattern`` backtrack: each of its characters
    and words, each pair of them, then common characters and pairs with those (the first
    ``MAX_UNITS``, in a fixed order)."""
    chars, words = _pieces(pattern)
    own = sorted(chars) + sorted(words)
    probes = [c for c in _PROBES if c not in chars]
    ordered = [
        *own,
        *(a + b for a in own for b in own if a != b),
        *probes,
        *(a + b for a in own for b in probes),
    ]
    return list(dict.fromkeys(ordered))[:MAX_UNITS]


# --- timing --------------------------------------------------------------------------------------


def growth(pattern: Pattern, unit: str, tail: str, at_start: bool) -> tuple[float, float]:
    """CPU seconds of running ``pattern`` on ``unit`` repeated to SMALL and to BIG characters,
    then ``tail``: from every position, or (``at_start``) as ``match`` and ``fullmatch``."""

    def scan(size: int) -> Callable[[], object]:
        text = unit * (size // len(unit)) + tail
        if at_start:
            return lambda: (pattern.match(text), pattern.fullmatch(text))
        return lambda: sum(1 for _ in pattern.finditer(text))

    with cpu_budget(ALARM_S):
        big = cpu_seconds(scan(BIG))
        if big < MEASURABLE_S:
            return 0.0, big
        return cpu_seconds(scan(SMALL), 3), cpu_seconds(scan(BIG), 3)


def grows_too_fast(small: float, big: float) -> bool:
    """True when the BIG run was long enough to measure and grew more than MAX_GROWTH times."""
    return big >= MEASURABLE_S and big > MAX_GROWTH * max(small, 1e-6)


PATTERNS = all_patterns()


def test_the_sweep_finds_the_patterns_it_is_meant_to() -> None:
    from code_guard.github import comments
    from code_guard.knowledge import fixes

    found = dict(PATTERNS.values())
    assert comments._FP_LINE in found  # a module global
    rewrite = next(iter(fixes.REWRITES.values()))  # a closure's
    closure = [c.cell_contents for c in rewrite.__closure__ or ()]
    assert any(isinstance(c, re.Pattern) and c in found for c in closure)
    literals = {p.pattern: at_start for p, at_start in PATTERNS.values()}
    assert literals[r"\n\s*\n"] is False  # a re.split(r"...") call in trust/escaping.py
    assert any(literals.values())  # re.fullmatch(r"...") calls in knowledge/fixes.py
    assert any(name.endswith("@bandit B608") for name in PATTERNS)  # the catalogue's data
    assert len(PATTERNS) >= 30


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_runs_in_linear_time(name: str) -> None:
    pattern, at_start = PATTERNS[name]
    for unit in units(pattern):
        for tail in TAILS:
            try:
                small, big = growth(pattern, unit, tail, at_start)
            except OverBudget:
                pytest.fail(f"{name}: over {ALARM_S} s of CPU on {unit!r} * {BIG // len(unit)}")
            if grows_too_fast(small, big):  # one is enough, and each costs a second
                pytest.fail(
                    f"{name} grows faster than linearly on {unit!r} * n + {tail!r}: "
                    f"{small * 1e3:.1f} ms at n={SMALL}, {big * 1e3:.1f} ms at n={BIG}"
                )


def test_a_quadratic_pattern_is_caught() -> None:
    """The sweep itself: the old ``_URL_CREDENTIALS`` fails it."""
    old = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@")
    assert "a." in units(old) or "." in units(old)
    assert grows_too_fast(*growth(old, "a.", "\x00", at_start=False))
