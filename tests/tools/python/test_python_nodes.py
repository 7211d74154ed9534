"""``walk`` over an indexed tree visits exactly what ``ast.walk`` does, in the same order."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import code_guard
from code_guard.tools.python.nodes import indexed, walk

SOURCES = sorted(Path(code_guard.__file__).parent.rglob("*.py"))


def ids(nodes: object) -> list[int]:
    return [id(node) for node in nodes]  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", SOURCES[:12], ids=lambda p: p.name)
def test_every_subtree_walks_as_ast_walk_does(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    with indexed(tree):
        for node in ast.walk(tree):
            assert ids(walk(node)) == ids(ast.walk(node))


def test_the_whole_package_walks_the_same() -> None:
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        expected = ids(ast.walk(tree))
        with indexed(tree):
            assert ids(walk(tree)) == expected, path
        assert ids(walk(tree)) == expected, path  # without the index


def test_a_node_of_another_tree_is_walked_without_the_index() -> None:
    tree = ast.parse("x = 1\n")
    other = ast.parse("def f(a):\n    return [a for a in range(3)]\n")
    with indexed(tree):
        assert ids(walk(other)) == ids(ast.walk(other))


def test_the_index_ends_with_its_block() -> None:
    tree = ast.parse("if a:\n    b = [c, d]\n")
    with indexed(tree):
        inside = ids(walk(tree.body[0]))
    assert inside == ids(walk(tree.body[0])) == ids(ast.walk(tree.body[0]))
