"""Tests of the AST's correctness checks (tools/python/correctness.py), through the real tool:
each mistake is flagged on its line, and each correct look-alike is not. Lines are found by a
marker, never by number."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_guard.findings import Category
from code_guard.knowledge.mapping import lookup
from code_guard.tools.base import ToolHit
from code_guard.tools.python.correctness import PythonCorrectnessTool

MODULE = """\
def branch(ref, cache, flag):
    if "detached HEAD" or "master" in ref:
        return 1
    if ref in ("detached HEAD", "master"):
        return 2
    if ref is (not None):
        return 3
    if ref is not None:
        return 4
    for key in cache.keys():
        del cache[key]
    for key in list(cache):
        del cache[key]
    for key, value in cache.items():
        print(key, value)
    if flag:
        mode = "fast"
    else:
        mode = "fast"
    if flag == 1:
        mode = "a"
    elif flag == 1:
        mode = "b"
    if flag == 2:
        mode = "c"
    else:
        mode = "d"
    return mode


LIMITS = {"cpu": 2, "memory": 4, "cpu": 4}
SIZES = {"cpu": 2, "memory": 4, **LIMITS}


def fill(target, source, i):
    target[i] = source[i]
    target[i] = source[i]
    target[i + 1] = source[i]
    counter = 0
    counter = 0


COLUMNS = [
    "id",
    "name"
    "email",
]
HELP = [
    "short",
    ("a long line that goes on "
     "and on"),
    '''two
lines''',
]
"""


def line_of(marker: str) -> int:
    """The 1-based number of the one line of the module that contains ``marker``."""
    found = [n for n, line in enumerate(MODULE.splitlines(), start=1) if marker in line]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> list[ToolHit]:
    """Every hit of the checker on the module."""
    root = tmp_path_factory.mktemp("python-correctness")
    (root / "m.py").write_text(MODULE, encoding="utf-8")
    return PythonCorrectnessTool().run(root, ["m.py"])


@pytest.mark.parametrize(
    ("marker", "rule", "category"),
    [
        ('if "detached HEAD" or', "constant-condition", Category.OTHER),
        ("if ref is (not None)", "is-not-precedence", Category.OTHER),
        ("for key in cache.keys()", "dict-modified-while-iterating", Category.OTHER),
        ('LIMITS = {"cpu": 2', "duplicate-dict-key", Category.UNUSED_CODE),
        ("if flag:", "identical-branches", Category.UNUSED_CODE),
        ("if flag == 1:", "identical-branches", Category.UNUSED_CODE),
        ("    target[i] = source[i]", "duplicate-assignment", Category.UNUSED_CODE),
        ('    "name"', "implicit-concatenation-in-collection", Category.OTHER),
    ],
)
def test_mistake_is_flagged(
    hits: list[ToolHit], marker: str, rule: str, category: Category
) -> None:
    found = [n for n, line in enumerate(MODULE.splitlines(), start=1) if marker in line]
    lines = {(h.rule, n) for h in hits for n in range(h.line, h.end_line + 1)}
    assert any((rule, n) in lines for n in found), f"{rule} not on {found}; hits: {sorted(lines)}"
    info = lookup("python-correctness", rule)
    assert info is not None
    assert info.category is category


@pytest.mark.parametrize(
    "marker",
    [
        'if ref in ("detached HEAD", "master")',
        "if ref is not None",
        "for key in list(cache)",
        "for key, value in cache.items()",
        "if flag == 2:",
        'SIZES = {"cpu": 2',
        "target[i + 1] = source[i]",
        "counter = 0",
        '("a long line that goes on "',
        "'''two",
    ],
)
def test_correct_look_alike_is_not_flagged(hits: list[ToolHit], marker: str) -> None:
    found = [n for n, line in enumerate(MODULE.splitlines(), start=1) if marker in line]
    assert [h for h in hits for n in found if h.line <= n <= h.end_line] == []


def test_a_file_that_does_not_parse_yields_nothing(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n", encoding="utf-8")
    assert PythonCorrectnessTool().run(tmp_path, ["broken.py"]) == []
