"""Local variables a function reads through code it evaluates.

Pyflakes and ruff do not report an unused local in a function that calls ``locals()``: the
call may read any of them. A function that builds a string of code and hands it to ``eval``
or ``exec`` reads its locals the same way (``eval("collection.find(spec)")`` uses ``spec``),
yet the rule still fires on every variable that only the string names. Such a report is
wrong, and it sits on the lines a reviewer needs to see for the real problem, the ``eval``.
"""

from __future__ import annotations

import ast
import re

from code_guard.rewrites.python_parse import parse_python
from code_guard.tools.python.nodes import walk

_EVALUATORS = frozenset({"eval", "exec"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _innermost_function(tree: ast.AST, line: int) -> ast.AST | None:
    found: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None = None
    for node in walk(tree):
        if not isinstance(node, _FUNCTIONS) or not node.lineno <= line <= (node.end_lineno or 0):
            continue
        if found is None or node.lineno >= found.lineno:
            found = node
    return found


def read_by_evaluated_code(source: str, line: int, name: str) -> bool:
    """Whether local ``name``, assigned on ``line`` of ``source``, is read by code the
    function evaluates: the function calls ``eval`` or ``exec`` and one of its string
    literals names ``name`` as an identifier."""
    tree = parse_python(source)
    if tree is None or not name.isidentifier():
        return False
    func = _innermost_function(tree, line)
    if func is None:
        return False
    nodes = list(walk(func))
    if not any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _EVALUATORS
        for n in nodes
    ):
        return False
    word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and word.search(n.value)
        for n in nodes
    )
