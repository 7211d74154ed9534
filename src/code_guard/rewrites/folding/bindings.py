"""Which scopes can fold at all, and which names a scope may track: those that no binding form
the abstract run does not follow can rebind (the pull request's author may rebind a name to
fool the folding).
"""

from __future__ import annotations

import ast
from collections.abc import Container, Iterator
from dataclasses import dataclass

from code_guard.rewrites.folding.values import (
    _NESTED,
    _PURE_CALLS,
    _PURE_METHODS,
    _PURE_MODULES,
)
from code_guard.rewrites.python_parse import dotted

# ---------------------------------------------------------------------------------------------
# Which scopes can fold at all

# Fields that hold no expression or statement (contexts and operators): not walked.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})


class _Candidates:
    """What one walk learns of a scope: the values its names are assigned, the tests and
    operands that could fold, and the names whose elements it reads."""

    __slots__ = ("assigned", "containers_read", "node", "tests")

    def __init__(self, node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.node = node
        self.assigned: dict[str, list[ast.expr]] = {}
        self.tests: list[ast.expr] = []
        self.containers_read: set[str] = set()

    def may_fold(self) -> bool:
        """False only when folding the scope cannot find anything (see ``_foldable``)."""
        if not self.tests and not self.containers_read:
            return False
        try:
            maybe: set[str] = set()
            grown = True
            while grown:  # a name may take its value from one assigned later in the text
                grown = False
                for name, values in self.assigned.items():
                    if name not in maybe and any(_may_be_static(v, maybe) for v in values):
                        maybe.add(name)
                        grown = True
            if self.containers_read & maybe:
                return True
            return any(_may_be_static(t, maybe) for t in self.tests)
        except RecursionError:
            return True  # an expression nested thousands deep: let the run decide (and give up)


def _foldable(tree: ast.AST) -> list[ast.Module | ast.FunctionDef | ast.AsyncFunctionDef]:
    """The scopes of ``tree`` (functions and the module's own statements) where folding may
    find something, in one walk of the tree.

    Most functions test parameters, attributes and call results, none of which folds, and
    their abstract run (``_Scope``) walks each statement several times to learn nothing. The
    walk notes, per scope, the names an assignment may give a literal-built value or a
    container (the only way a name gets a value ``_Scope`` knows), the tests and operands, and
    the names whose elements are read; a scope may fold when some test may fold or some read
    may read such a container. ``_may_be_static`` answers "maybe" wherever ``_Scope.expr``
    can return anything but ``TOP``, so a scope left out has nothing to find.
    """
    found: list[_Candidates] = []
    todo: list[tuple[ast.AST, _Candidates | None]] = [(tree, None)]
    while todo:
        node, scope = todo.pop()
        kind = type(node)
        if kind is ast.Module or kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            scope = _Candidates(node)  # type: ignore[arg-type]
            found.append(scope)
        elif kind is ast.ClassDef:
            scope = None  # a class body is never run by a scope; its methods are scopes
        elif scope is None:
            pass
        elif kind is ast.Assign:
            targets = node.targets  # type: ignore[attr-defined]
            if len(targets) == 1 and type(targets[0]) is ast.Name:
                scope.assigned.setdefault(targets[0].id, []).append(node.value)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign or kind is ast.AugAssign:
            target, value = node.target, node.value  # type: ignore[attr-defined]
            if type(target) is ast.Name and value is not None:
                scope.assigned.setdefault(target.id, []).append(value)
        elif kind is ast.If or kind is ast.IfExp:
            scope.tests.append(node.test)  # type: ignore[attr-defined]
        elif kind is ast.BoolOp:
            scope.tests.extend(node.values)  # type: ignore[attr-defined]
        elif kind is ast.Subscript:
            if type(node.value) is ast.Name:  # type: ignore[attr-defined]
                scope.containers_read.add(node.value.id)  # type: ignore[attr-defined]
        elif kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and type(func.value) is ast.Name:
                scope.containers_read.add(func.value.id)  # ``x.get(k)``, and its mutators
        for name in node._fields:
            if name in _LEAF_FIELDS:
                continue
            value = getattr(node, name, None)
            if type(value) is list:
                todo.extend((item, scope) for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append((value, scope))
    return [scope.node for scope in found if scope.may_fold()]


def _may_be_static(node: ast.expr, maybe: set[str]) -> bool:
    """Whether ``_Scope.expr`` may give ``node`` a value other than ``TOP`` when only the
    names in ``maybe`` can hold one: over-approximates, never under."""
    if isinstance(node, ast.Constant | ast.List | ast.Tuple | ast.Dict):
        return True  # a literal, or a container whose elements are followed one by one
    if isinstance(node, ast.Name):
        return node.id in maybe
    if isinstance(node, ast.BinOp):
        return _may_be_static(node.left, maybe) and _may_be_static(node.right, maybe)
    if isinstance(node, ast.UnaryOp):
        return _may_be_static(node.operand, maybe)
    if isinstance(node, ast.BoolOp):
        return any(_may_be_static(v, maybe) for v in node.values)
    if isinstance(node, ast.Compare):
        return _may_be_static(node.left, maybe) and all(
            _may_be_static(c, maybe) for c in node.comparators
        )
    if isinstance(node, ast.IfExp):
        return _may_be_static(node.body, maybe) or _may_be_static(node.orelse, maybe)
    if isinstance(node, ast.JoinedStr):
        return all(
            _may_be_static(v.value, maybe) for v in node.values if isinstance(v, ast.FormattedValue)
        )
    if isinstance(node, ast.FormattedValue):
        return _may_be_static(node.value, maybe)
    if isinstance(node, ast.Subscript):
        return _may_be_static(node.value, maybe)
    if isinstance(node, ast.Call):
        func = node.func
        arguments = all(_may_be_static(a, maybe) for a in node.args) and all(
            _may_be_static(k.value, maybe) for k in node.keywords
        )
        if isinstance(func, ast.Attribute):
            receiver = func.value
            if func.attr == "get" and isinstance(receiver, ast.Name) and receiver.id in maybe:
                return True  # an element of a dict the scope built
            if func.attr in _PURE_METHODS:
                return arguments and _may_be_static(receiver, maybe)
        name = dotted(func)
        return arguments and (name in _PURE_CALLS or name.startswith(_PURE_MODULES))
    return False  # attributes, lambdas, comprehensions and the rest: ``TOP``


# ---------------------------------------------------------------------------------------------
# Which names a scope may track: those no binding form the abstract run does not follow can
# rebind (the pull request's author may rebind a name to fool the folding)

# Builtins through which code writes a module's namespace without a binding the tree shows,
# and attributes that reach a namespace or a frame's locals: a module that uses any of them
# anywhere has no module-level name folding can vouch for.
_NAMESPACE_WRITERS = frozenset(
    {"globals", "vars", "locals", "exec", "eval", "setattr", "delattr", "__import__", "compile"}
)
_NAMESPACE_ATTRS = frozenset({"__dict__", "modules", "f_globals", "f_locals", "__setattr__"})
# A function's own locals change only through its bindings, or through its frame's
# ``f_locals``, which writes through since Python 3.13 (PEP 667).
_FRAME_ATTRS = frozenset({"f_locals"})
# ``locals()`` and ``vars()`` in a function cannot rebind its names, but hand out its
# containers, which may then change through the dict.
_LOCALS_READERS = frozenset({"locals", "vars"})


class _Everything:
    """Every name: the untracked names of a scope that cannot vouch for any."""

    def __contains__(self, name: object) -> bool:
        return True


def bound_by(node: ast.AST) -> Iterator[str]:
    """The names ``node`` binds by a form other than an ``ast.Name`` target: an import, a
    ``def`` or ``class``, an ``except ... as``, a ``match`` capture, a ``global`` or
    ``nonlocal`` declaration, a parameter, a type parameter (3.12)."""
    if isinstance(node, ast.alias):
        yield (node.asname or node.name).split(".")[0]
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        if node.name:
            yield node.name
    elif isinstance(node, ast.MatchMapping):
        if node.rest:
            yield node.rest
    elif isinstance(node, ast.Global | ast.Nonlocal):
        yield from node.names
    elif isinstance(node, ast.arg):
        yield node.arg
    elif type(node).__name__ in ("TypeVar", "ParamSpec", "TypeVarTuple"):
        yield node.name  # type: ignore[attr-defined]


def _followed_targets(node: ast.AST) -> Iterator[ast.Name]:
    """The name ``node`` assigns in a form ``_Scope`` follows statement by statement: one
    plain target of ``=``, an annotated one with a value, an augmented one."""
    if isinstance(node, ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            yield node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        if node.value is not None and isinstance(node.target, ast.Name):
            yield node.target
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        yield node.target


def _writes_namespace(node: ast.AST, attrs: frozenset[str], names: frozenset[str]) -> bool:
    """Whether ``node`` is a name in ``names``, an attribute in ``attrs`` or a star import."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return node.attr in attrs
    return isinstance(node, ast.alias) and node.name == "*"


def _untracked(scope: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) -> Container[str]:
    """The names of ``scope`` whose value ``_Scope`` must not track, in one walk of it.

    A whitelist: a name is tracked only when every binding of it in the scope is one the run
    follows in order (``_followed_targets``). Any other form (a walrus, a loop, ``with`` or
    ``except`` target, an unpacking, ``del``, an import, a ``def`` or ``class``, a ``match``
    capture, ``global``/``nonlocal``), and any mention in a nested scope (which may rebind it
    with ``nonlocal`` or ``global``), leaves it untracked. A module that may write its
    namespace by other means (``globals()``, ``setattr``, ``exec``, a star import,
    ``sys.modules``) tracks nothing, nor does a function that reaches a frame's locals."""
    module = isinstance(scope, ast.Module)
    attrs = _NAMESPACE_ATTRS if module else _FRAME_ATTRS
    writers = _NAMESPACE_WRITERS if module else _LOCALS_READERS
    untracked: set[str] = set()
    followed: set[int] = set()
    todo: list[tuple[ast.AST, bool]] = [(stmt, False) for stmt in scope.body]
    while todo:
        node, nested = todo.pop()
        if _writes_namespace(node, attrs, writers):
            return _Everything()
        untracked.update(bound_by(node))
        if isinstance(node, ast.Name) and (
            nested or (not isinstance(node.ctx, ast.Load) and id(node) not in followed)
        ):
            untracked.add(node.id)
        elif not nested:
            followed.update(id(target) for target in _followed_targets(node))
        inner = nested or isinstance(node, _NESTED)
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
    return untracked


@dataclass(frozen=True)
class _ModuleFacts:
    """What every scope of a module must know of the whole module."""

    # names that may not be the builtin or module function they look like
    shadowed: Container[str] = frozenset()
    # whether some code reaches a frame's locals (``f_locals``): any function's names and
    # containers may change through it
    frames: bool = False


def _module_facts(tree: ast.AST) -> _ModuleFacts:
    """The names bound anywhere in ``tree`` (every name, after a star import), and whether it
    reaches a frame's locals. ``import base64`` binds ``base64`` to itself, shadowing nothing."""
    shadowed: set[str] = set()
    itself: set[int] = set()  # the aliases of ``import x`` (ast.walk meets them after it)
    star = frames = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            itself.update(id(alias) for alias in node.names if alias.asname is None)
        elif isinstance(node, ast.alias) and node.name == "*":
            star = True
        elif isinstance(node, ast.Attribute) and node.attr in _FRAME_ATTRS:
            frames = True
        elif id(node) in itself:
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            shadowed.add(node.id)
        shadowed.update(bound_by(node))
    return _ModuleFacts(_Everything() if star else frozenset(shadowed), frames)
