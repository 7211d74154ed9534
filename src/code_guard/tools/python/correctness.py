"""Correctness mistakes on Python's AST: code that runs but does not do what it reads as.

Conditions that are constant (a string literal as an operand of ``or``), ``x is (not y)``,
keys deleted from a dict while iterating over it, a dict literal that repeats a key, an
``if``/``else`` whose branches are the same, the same assignment twice in a row, and a list
item that is two string literals joined across a line break (a missing comma). Each
shape has no name semgrep-core could skip a file by, and the AST is parsed here anyway
(``tools/python/checker.py``), so they cost next to nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from code_guard.tools.python.checker import Check, PythonChecker
from code_guard.tools.python.nodes import walk


class PythonCorrectnessTool(PythonChecker):
    """Constant conditions, ``is (not ...)``, dicts changed while iterated, repeated dict keys,
    identical branches, repeated assignments and missing commas between string items."""

    name = "python-correctness"

    def check(self, tree: ast.Module, path: str) -> Iterator[Check]:
        """Run the correctness checks."""
        for node in walk(tree):
            if isinstance(node, ast.If | ast.While):
                yield from _constant_condition(node)
            if isinstance(node, ast.If):
                yield from _identical_branches(node)
            elif isinstance(node, ast.Compare):
                yield from _is_not_precedence(node)
            elif isinstance(node, ast.For):
                yield from _dict_changed_while_iterating(node)
            elif isinstance(node, ast.Dict):
                yield from _duplicate_keys(node)
            elif isinstance(node, ast.List | ast.Set | ast.Tuple):
                yield from _implicit_concatenation(node)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.For):
                yield from _duplicate_assignments(node.body)


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _constant_condition(node: ast.If | ast.While) -> Iterator[Check]:
    test = node.test
    constant = _is_str(test) or (
        isinstance(test, ast.BoolOp) and any(_is_str(value) for value in test.values)
    )
    if constant:
        yield (
            "constant-condition",
            test,
            "A string literal is always true (an empty one always false), so this condition "
            'does not test what it reads as; compare each value, e.g. `x in ("a", "b")`.',
        )


def _is_not_precedence(node: ast.Compare) -> Iterator[Check]:
    for op, right in zip(node.ops, node.comparators, strict=True):
        if isinstance(op, ast.Is | ast.IsNot) and (
            isinstance(right, ast.UnaryOp) and isinstance(right.op, ast.Not)
        ):
            yield (
                "is-not-precedence",
                node,
                "`x is (not y)` compares x with the boolean `not y`; write `x is not y`.",
            )


def _iterated_dict(loop: ast.For) -> str | None:
    """``d`` for ``for k in d``, ``for k in d.keys()`` and ``for k, v in d.items()``."""
    target = loop.iter
    if isinstance(target, ast.Call) and not target.args and isinstance(target.func, ast.Attribute):
        if target.func.attr not in ("keys", "items", "values"):
            return None
        target = target.func.value
    return ast.dump(target) if isinstance(target, ast.Name | ast.Attribute) else None


def _dict_changed_while_iterating(loop: ast.For) -> Iterator[Check]:
    iterated = _iterated_dict(loop)
    if iterated is None:
        return
    for stmt in loop.body:
        for node in walk(stmt):
            removed = (
                isinstance(node, ast.Delete)
                and any(
                    isinstance(t, ast.Subscript) and ast.dump(t.value) == iterated
                    for t in node.targets
                )
            ) or (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("pop", "popitem", "clear")
                and ast.dump(node.func.value) == iterated
            )
            if removed:
                yield (
                    "dict-modified-while-iterating",
                    loop.iter,
                    "Removing keys from a dict while iterating over it raises RuntimeError "
                    "(dictionary changed size during iteration); iterate over list(d) or "
                    "build a new dict.",
                )
                return


def _duplicate_keys(node: ast.Dict) -> Iterator[Check]:
    seen: set[object] = set()
    for key in node.keys:
        if not isinstance(key, ast.Constant) or isinstance(key.value, float):
            continue  # **spread, computed keys; 1.0 == 1 would be a false alarm
        marker = (type(key.value), key.value)
        if marker in seen:
            yield (
                "duplicate-dict-key",
                key,
                f"The key {key.value!r} appears twice in this dict literal, so its first "
                "value is silently dropped; remove one, or fix the key.",
            )
        seen.add(marker)


def _identical_branches(node: ast.If) -> Iterator[Check]:
    same_body = bool(node.orelse) and _dump(node.body) == _dump(node.orelse)
    orelse = node.orelse
    repeated = (
        len(orelse) == 1
        and isinstance(orelse[0], ast.If)
        and ast.dump(orelse[0].test) == ast.dump(node.test)
    )
    if same_body or repeated:
        yield (
            "identical-branches",
            node.test,
            "Both branches do the same thing (or the condition repeats the one before), so "
            "the test is pointless or one branch is a copy-paste mistake.",
        )


def _duplicate_assignments(body: list[ast.stmt]) -> Iterator[Check]:
    for first, second in zip(body, body[1:], strict=False):
        if (
            isinstance(first, ast.Assign)
            and isinstance(first.targets[0], ast.Subscript)
            and ast.dump(first) == ast.dump(second)
        ):
            yield (
                "duplicate-assignment",
                second,
                "The same value is assigned twice in a row; remove the copy, or assign what "
                "was meant.",
            )


def _dump(body: list[ast.stmt]) -> list[str]:
    return [ast.dump(stmt) for stmt in body]


def _implicit_concatenation(node: ast.List | ast.Set | ast.Tuple) -> Iterator[Check]:
    """A string item spanning more lines than it has line breaks: literals on consecutive
    lines joined into one, as a missing comma does (a triple-quoted string keeps its line
    breaks; literals joined on one line cannot be told apart from the tree, and are left)."""
    columns = [item.col_offset for item in node.elts]
    for item in node.elts:
        text = _literal_text(item)
        if text is None or item.end_lineno is None:
            continue
        # A parenthesised continuation starts one column right of its siblings.
        aligned = columns.count(item.col_offset) > 1
        if aligned and text.count("\n") < item.end_lineno - item.lineno:
            yield (
                "implicit-concatenation-in-collection",
                item,
                "Two string literals on consecutive lines are joined into one item, so this "
                "collection is missing a comma; add it, or wrap a deliberate continuation in "
                "parentheses.",
            )


def _literal_text(node: ast.expr) -> str | None:
    """The literal text of a string constant or f-string (fields left out)."""
    if _is_str(node):
        assert isinstance(node, ast.Constant)
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
    return None
