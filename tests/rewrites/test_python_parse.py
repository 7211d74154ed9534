"""The shared parse cache (``python_parse.py``): every reader of a file's text gets the one
tree, however many files a review has, and what it keeps stays within its budget."""

from __future__ import annotations

import ast

import pytest

from code_guard.rewrites import python_parse
from code_guard.rewrites.python_parse import parse_count, parse_failure, parse_python


def _module(index: int, lines: int = 200) -> str:
    body = "".join(f"def f_{index}_{n}(x):\n    return x + {n}\n\n" for n in range(lines // 3))
    return f"# module {index}\n{body}"


def test_three_readers_of_forty_files_in_turn_parse_each_file_once() -> None:
    """The checkers, the scopes and the Semgrep copy each read every file of a review in
    turn: with room for 16 trees, 20 files or more were each parsed again by every reader."""
    sources = [_module(i) for i in range(40)]
    before = parse_count()
    for _reader in range(3):
        trees = [parse_python(source) for source in sources]
    assert parse_count() - before == len(sources)
    assert all(isinstance(tree, ast.Module) for tree in trees)


def test_a_text_that_does_not_parse_is_remembered_as_such() -> None:
    source = "def broken(:\n    pass\n" + _module(99)
    before = parse_count()
    assert parse_python(source) is None
    assert parse_failure(source) is None
    assert parse_python(source) is None
    assert parse_count() - before == 1


def test_the_least_recently_read_trees_go_past_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Memory stays bounded: past the budget the oldest tree is parsed again when asked,
    and the most recent one is kept."""
    sources = [_module(1000 + i) for i in range(6)]
    weight = len(sources[0]) * python_parse._TREE_WEIGHT
    monkeypatch.setattr(python_parse, "_BUDGET", 3 * weight + weight // 2)
    for source in sources:
        parse_python(source)
    assert python_parse._kept_cost <= 3 * weight + weight // 2
    before = parse_count()
    parse_python(sources[-1])  # kept
    assert parse_count() == before
    parse_python(sources[0])  # dropped: parsed again, and the same tree as a fresh parse
    assert parse_count() == before + 1
    again = parse_python(sources[0])
    assert again is not None
    assert ast.dump(again) == ast.dump(ast.parse(sources[0]))
