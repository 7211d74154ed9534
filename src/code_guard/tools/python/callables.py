"""The functions of a file the taint check summarises, and the keys a call reaches them by.

Every ``def`` is one, under its name; so is a name bound to a lambda (``fetch = lambda u:
requests.get(u)``), read as a ``def`` of that name whose body returns the lambda's value. A
name bound several ways may be any of them when called: every function bound to a name is a
member of its key, and the summary under the key is the union of theirs (taint.py).

A method of a class of the file (defined once, at the top level) is filed too under
``Class().method``, the key a call reaches on an instance whose class is known
(``Client().fetch(u)``, or a name bound once to ``Client()``; sources.py): two classes that
share a method's name are told apart. A method the class does not bind itself comes from its
bases: along a chain of single bases of the file, the first that binds it; with several bases
anywhere above, every class of the file above it that does (Python's order is not worked out,
and the union reports more, never less). A base from outside the file may hold the method as
well: what the file's classes give is still followed, and nothing is silenced for want of it.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from weakref import WeakKeyDictionary

from code_guard.tools.python.nodes import walk, within

Function = ast.FunctionDef | ast.AsyncFunctionDef

# The statements and expressions that may bind a name to a lambda (``_named_lambdas``).
_BINDINGS = frozenset({ast.Assign, ast.AnnAssign, ast.NamedExpr})
# The def each lambda bound to a name is read as, by the lambda and the name: made once per
# lambda, so that the check keys its facts about a function (by id) the same on every read.
_AS_DEF: WeakKeyDictionary[ast.Lambda, dict[str, ast.FunctionDef]] = WeakKeyDictionary()


def functions_of(tree: ast.Module) -> tuple[list[Function], list[Function]]:
    """The functions of ``tree`` to summarise (every ``def``, and every name bound to a lambda,
    as a ``def``), and those whose own flows to check: the same, but for a lambda inside a
    ``def`` (checked with it) or inside another bound lambda."""
    defs: list[Function] = []
    named: list[tuple[str, ast.Lambda]] = []
    for node in walk(tree):
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            defs.append(node)  # type: ignore[arg-type]
        elif kind in _BINDINGS and isinstance(getattr(node, "value", None), ast.Lambda):
            named.extend(_named_lambdas(node))
    if not named:
        return defs, defs
    made = [as_def(name, value) for name, value in named]
    holders = [*defs, *(value for _, value in named)]
    outside = [
        func for func, (_, value) in zip(made, named, strict=True)
        if not any(h is not value and within(value, h) for h in holders)
    ]  # fmt: skip
    return [*defs, *made], [*defs, *outside]


def as_def(name: str, value: ast.Lambda) -> ast.FunctionDef:
    """The lambda ``value`` bound to ``name``, as ``def name(<its parameters>): return <its
    body>`` (the lambda's own nodes, at their lines)."""
    known = _AS_DEF.setdefault(value, {})
    if name not in known:
        body = ast.copy_location(ast.Return(value=value.body), value.body)
        func = ast.FunctionDef(
            name=name, args=value.args, body=[body], decorator_list=[], returns=None,
            type_comment=None,
        )  # fmt: skip
        known[name] = ast.copy_location(func, value)
    return known[name]


def _named_lambdas(node: ast.AST) -> Iterator[tuple[str, ast.Lambda]]:
    """The names ``node`` binds to a lambda: ``f = lambda: ...``, ``f = g = ...``, ``f: T =
    ...``, ``(f := ...)``."""
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
        targets: list[ast.expr] = node.targets
        value = node.value
    elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and isinstance(node.value, ast.Lambda):
        targets, value = [node.target], node.value
    else:
        return
    for target in targets:
        if isinstance(target, ast.Name):
            yield target.id, value


def method_keys(tree: ast.Module, once: Collection[str]) -> dict[int, tuple[str, ...]]:
    """The ``Class().method`` keys each method of the file's classes is filed under, by the
    method's id: its own class's, and those of the classes below it that take it from it."""
    classes = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name in once
    }
    bound = {name: _bound_in_body(node) for name, node in classes.items()}
    own = {name: _methods(node) for name, node in classes.items()}
    keys: dict[int, list[str]] = {}
    for name, node in classes.items():
        above = _ancestors(node, classes)
        # along a chain of single bases, the first that binds a name is the one Python takes
        chain = _chain(node, classes)
        lookup = [name, *(above if chain is None else chain)]
        for method in {m for c in lookup for m in bound[c]}:
            holders = [c for c in lookup if method in bound[c]]
            if holders[0] == name or chain is not None:
                holders = holders[:1]
            for func in (f for c in holders for f in own[c].get(method, [])):
                keys.setdefault(id(func), []).append(f"{name}().{method}")
    return {func: tuple(found) for func, found in keys.items()}


def _bases(node: ast.ClassDef) -> list[str]:
    """The bases of ``node`` as written: a name, or "" for anything else (an attribute, a
    call), which may be any class."""
    return [base.id if isinstance(base, ast.Name) else "" for base in node.bases]


def _chain(node: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[str] | None:
    """The classes of the file above ``node`` in the order Python looks a name up in them, when
    each class on the way has one base (None when one has several); the chain stops at a base
    from outside the file, which may hold any name."""
    found: list[str] = []
    while True:
        bases = _bases(node)
        if len(bases) > 1:
            return None
        if not bases or bases[0] not in classes or bases[0] in found:
            return found
        found.append(bases[0])
        node = classes[bases[0]]


def _ancestors(node: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[str]:
    """Every class of the file above ``node``, each once."""
    found: list[str] = []
    todo = [b for b in _bases(node) if b in classes]
    while todo:
        name = todo.pop(0)
        if name not in found and name != node.name:
            found.append(name)
            todo.extend(b for b in _bases(classes[name]) if b in classes)
    return found


def _bound_in_body(node: ast.ClassDef) -> set[str]:
    """The names the class's body binds itself (a ``def``, an assignment, an import...): a
    name a base binds too is the class's own, whatever it holds."""
    found: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            found.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        else:
            found.update(
                n.id for n in walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
    return found


def _methods(node: ast.ClassDef) -> dict[str, list[Function]]:
    """The functions the class's body binds, by name: its ``def``s, and names bound to a
    lambda (as ``def``s)."""
    found: dict[str, list[Function]] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            found.setdefault(stmt.name, []).append(stmt)
        for name, value in _named_lambdas(stmt):
            found.setdefault(name, []).append(as_def(name, value))
    return found
