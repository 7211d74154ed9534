"""The keywords a call passes by unpacking a mapping whose keys it spells, for the taint check.

``requests.get(**{"url": u})`` passes ``url=u`` as surely as ``requests.get(url=u)`` does, and
so does ``**dict(url=u)`` (the builtin ``dict``, which the file does not rebind), a mapping
unpacked inside another (``**{**other, "url": u}``: the keys it spells), one bound by a walrus
there (``**(options := {"url": u})``), and a name the function binds once, to such a mapping
(``options = {"url": u}``, then ``**options``). A key that is not a literal string (``{key:
u}``), or a mapping the check cannot read (a parameter, a name bound twice), gives no keyword
here: those are left to Semgrep's rules, which read the call as well; so is a mapping changed
in place (``options["url"] = u``, ``options.update(...)``): the check reads a mapping as it
was made. Reading more keywords only ever adds a flow: the taint check reads them only where
the call's keywords as written match no sink (taint.py), and a value read from a mapping made
on another line is never excused by a guard at the call (what the guard checked may have been
rebound since).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from code_guard.rewrites.folding.bindings import bound_by
from code_guard.tools.python.nodes import walk
from code_guard.tools.python.sanitisers import Names

Function = ast.FunctionDef | ast.AsyncFunctionDef

# A mapping unpacked into another this deep is not followed (nor a name's mapping that unpacks
# the name's own).
_DEPTH = 8


class Mappings:
    """The names one function binds once, to a mapping whose keys it spells (``options =
    {"url": u}``, ``options = dict(url=u)``), worked out when first asked: most functions
    unpack none."""

    def __init__(self, func: Function | None) -> None:
        self._func = func
        self._found: dict[str, ast.expr] | None = None

    def get(self, name: str) -> ast.expr | None:
        """The mapping ``name`` is bound to, if the function binds it once, to one."""
        if self._found is None:
            self._found = _bound_once(self._func) if self._func is not None else {}
        return self._found.get(name)


def unpacks(call: ast.Call) -> bool:
    """Whether ``call`` unpacks a mapping into its keywords (``f(**options)``)."""
    return any(k.arg is None for k in call.keywords)


def unpacked(call: ast.Call, names: Names | None, local: Mappings | None) -> dict[str, ast.expr]:
    """The keywords ``call`` passes by unpacking mappings whose keys it spells, by name (a
    later one wins, as in Python); empty when it unpacks none."""
    found: dict[str, ast.expr] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            found.update(_spelled(keyword.value, names, local, 0))
    return found


def _spelled(
    value: ast.expr, names: Names | None, local: Mappings | None, depth: int
) -> dict[str, ast.expr]:
    """The keys ``value`` is known to hold, each with the value it is given."""
    if depth > _DEPTH:
        return {}
    if isinstance(value, ast.NamedExpr):  # `**(options := {...})`: the mapping bound there
        value = value.value
    if isinstance(value, ast.Name) and local is not None:
        bound = local.get(value.id)
        return _spelled(bound, names, local, depth + 1) if bound is not None else {}
    found: dict[str, ast.expr] = {}
    if isinstance(value, ast.Dict):
        for key, item in zip(value.keys, value.values, strict=True):
            if key is None:  # `**other` inside the literal: the keys it spells, in place
                found.update(_spelled(item, names, local, depth + 1))
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                found[key.value] = item
    elif _is_dict(value, names):
        assert isinstance(value, ast.Call)
        for argument in value.args:  # dict(mapping, **keywords): the mapping first
            found.update(_spelled(argument, names, local, depth + 1))
        for keyword in value.keywords:
            if keyword.arg is None:
                found.update(_spelled(keyword.value, names, local, depth + 1))
            else:
                found[keyword.arg] = keyword.value
    return found


def _is_dict(value: ast.expr, names: Names | None) -> bool:
    """Whether ``value`` calls the builtin ``dict``: a name the file never binds."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "dict"
        and names is not None
        and "dict" not in names.bound
        and not names.star
    )


def _bound_once(func: Function) -> dict[str, ast.expr]:
    """The names ``func`` (with the functions inside it) binds once, by an assignment of a
    mapping literal or a call of a bare name (which ``_spelled`` reads only when it is the
    builtin ``dict``), and never changes in place nor declares ``global`` or ``nonlocal``."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for node in walk(func):
        for name in _binds(node):
            counts[name] = counts.get(name, 0) + 1
        target, value = _simple_assignment(node)
        if target and isinstance(value, ast.Dict | ast.Call):
            values[target] = value
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _simple_assignment(node: ast.AST) -> tuple[str, ast.expr | None]:
    """The name and value of ``name = value`` or ``name: T = value``; ("", None) else."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (target.id, node.value) if isinstance(target, ast.Name) else ("", None)
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    return "", None


def _binds(node: ast.AST) -> Iterator[str]:
    """The names ``node`` binds (a plain target, or any other binding form folding knows:
    ``bound_by``), changes in place (``options["url"] = v``, ``options.update(...)``) or
    deletes: each counts as a binding, so a name any of them touches is not bound once."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        yield node.id
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        if isinstance(node.value, ast.Name):
            yield node.value.id
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.attr in _MUTATORS
    ):
        yield node.func.value.id
    else:
        yield from bound_by(node)


# Methods that change a mapping in place.
_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__"})
