"""Functions of the change proved to sanitise, for the taint check: by their bodies, never by
their names.

A call to a function the analysed file defines (once, undecorated, not a generator) cleans
the one tainted argument it is given for the categories every ``return`` of the function is
proved safe for when that parameter holds anything and the others hold the caller's own
values: each returned value is a constant, a sanitiser's result (sanitisers.py; directly,
through a name bound once to one, or joined and formatted with such values), or a value a
guard that dominates the ``return`` vets (guards.py: ``return None`` unless the path is
inside the folder, then ``return path``). Any other name or call may carry anything. A call
given more than one tainted argument is cleaned of nothing: each proof trusted the others.
"""

from __future__ import annotations

import ast

from code_guard.tools.python.checks import Scope, derived, key
from code_guard.tools.python.guards import Validators, guarded_names
from code_guard.tools.python.nodes import walk
from code_guard.tools.python.sanitisers import CATEGORIES, Names
from code_guard.tools.python.sources import SOURCE_ATTRS

Kinds = frozenset[str]
Function = ast.FunctionDef | ast.AsyncFunctionDef

_JOINS = (ast.BinOp, ast.JoinedStr, ast.FormattedValue, ast.IfExp)
# Objects that hold what the client sent (the request, its session) or what a handler kept
# of it for the request (``flask.g``).
_REQUEST_STATE = frozenset({"request", "req", "session", "g"})
# Calls whose result carries what their arguments carry, and nothing else.
_PRESERVING = frozenset({"str", "format"})


def parameter_slot(func: Function, call: ast.Call, argument: ast.AST) -> str | None:
    """The parameter of ``func`` that ``argument`` of ``call`` fills, or None."""
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    for index, value in enumerate(call.args):
        if value is argument:
            if isinstance(value, ast.Starred) or index >= len(positional):
                return None
            return positional[index]
    for keyword in call.keywords:
        if keyword.value is argument:
            return keyword.arg
    return None


def proved_clean(func: Function, param: str, names: Names, validators: Validators) -> Kinds:
    """The categories every value ``func`` returns is safe for, whatever ``param`` holds."""
    if func.decorator_list or any(isinstance(n, ast.Yield | ast.YieldFrom) for n in walk(func)):
        return frozenset()
    scope = Scope.of(func, validators, names, derived(func, {param}))
    kept = _kept(func, names)
    carried: list[Kinds] = []
    for ret in walk(func):
        if not isinstance(ret, ast.Return) or ret.value is None:
            continue
        kinds = _strict(ret.value, kept, names, set())
        if kinds:
            kinds = kinds - guarded_names(func, ret, scope).get(key(ret.value), frozenset())
        if kinds:
            carried.append(kinds)
    return CATEGORIES - frozenset().union(*carried)


def _kept(func: Function, names: Names) -> dict[str, ast.Call]:
    """Names ``func`` binds once, from a sanitiser: each holds an immutable str or number."""
    once: dict[str, ast.Call] = {}
    counts: dict[str, int] = {}
    for node in walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Call):
                once[target.id] = node.value
    return {n: v for n, v in once.items() if counts.get(n) == 1 and names.cleans(v)}


def _application_state(node: ast.AST, names: Names) -> bool:
    """An attribute of an object the file imports and never rebinds, read without a call
    (``current_app.appbuilder.index_url``): the application's state, which no request
    attribute the check knows reaches; not the request, its session or ``g`` (nor
    ``flask.request.referrer``)."""
    if not isinstance(node, ast.Attribute):
        return False
    attrs: list[str] = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in names.imported:
        return False
    root = names.imported[node.id].rsplit(".", 1)[-1]
    return not {root, node.id, *attrs} & _REQUEST_STATE and not set(attrs) & SOURCE_ATTRS


def _strict(node: ast.AST, kept: dict[str, ast.Call], names: Names, seen: set[str]) -> Kinds | None:
    """What ``node`` may carry (None: nothing from outside): every name may hold anything,
    but for a module constant and a name kept from a sanitiser (``kept``)."""
    if isinstance(node, ast.Constant) or _application_state(node, names):
        return None
    if isinstance(node, ast.Name):
        if node.id in names.constants:
            return None
        if node.id in kept and node.id not in seen:
            return _strict(kept[node.id], kept, names, seen | {node.id})
        return CATEGORIES
    inner = [
        k for c in ast.iter_child_nodes(node) if (k := _strict(c, kept, names, seen)) is not None
    ]
    kinds: Kinds | None = frozenset().union(*inner) if inner else None
    if isinstance(node, ast.Call):
        cleaned = names.cleans(node)
        if cleaned:
            return None if kinds is None else kinds - cleaned
        if names.qualified(node) in _PRESERVING:
            return kinds
        return CATEGORIES  # an unknown call may return anything, or undo what came before
    if isinstance(node, _JOINS):
        return kinds
    return CATEGORIES if kinds is not None else None
