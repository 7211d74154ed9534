"""Constant folding over a function's own constants: the branches that cannot run and the
container elements that are known literals.

A taint engine that joins every branch reports ``bar = "x" if 7 * 18 + num > 200 else param``
as tainted, though ``num = 106`` makes the condition always true, and reports
``values.append("x"); values.append(param); bar = values[0]`` as tainted, though element 0 is
the literal. Both CodeQL and Semgrep propagate constants; this module does the same, small and
conservative, so that the analysers see only code that can run:

- values are tracked per function, statement by statement, for names the function assigns:
  literals, arithmetic, comparisons, ``and``/``or``/``not`` and conditional expressions over
  them, f-strings and a few pure string calls over literals (their value unknown but built
  from literals only), and lists and dicts the function builds itself with literal indices
  and keys (``append``, ``insert``, ``pop``, ``x[k] = v``, ``x[k]``, ``x.get(k)``);
- an ``if`` or conditional expression whose test folds to a constant has a dead branch;
  an ``and``/``or`` decided by its left operand has a dead right one;
- anything else forgets what it touches: a name assigned in a loop, a ``try``, a ``with``
  (its manager may swallow what the body raises), a ``match``; a container read anywhere but
  in the forms above (it may be aliased or changed there).

The pull request's author writes the code folded, so a branch is pruned only on proof
(``_untracked``): a name is followed only when every binding of it in its scope is a plain
``=``, annotated or augmented assignment; any other form (a walrus, an import, a ``def`` or
``class``, a loop, ``with`` or ``except`` target, an unpacking, ``del``, a ``match`` capture,
``global``/``nonlocal``, a mention in a nested scope) leaves it unknown, and so does the whole
scope where a namespace may be written another way (``globals()``, ``setattr``, ``exec``, a
star import, ``sys.modules``, a frame's ``f_locals``, ``locals()`` in a function). At module
level, any statement that may run code written elsewhere (a call, an import, a decorator, a
class body, an attribute, operator or truth test of a value not built from literals) forgets
every name first (``_Scope._inert``). ``is`` folds only against None, True or False; a
repeated dict key keeps its last value; a call counts as pure only when the file does not
rebind its name.

``Folding.of(tree)`` gives the dead code, the element reads that fold to a literal, and the
calls whose first argument is built from literals only. ``pruned_source`` rewrites a source
for an analyser that reads text (Semgrep), with every line and column kept; ``pruned_tree``
does the same to a tree (our own taint check).
"""

from __future__ import annotations

import ast
import copy
import operator
import re
import threading
import weakref
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from code_guard.rewrites.edits import Edit, apply_edit, char_col
from code_guard.rewrites.python_parse import parse_python
from code_guard.tools.python.checker import dotted

# Bounds on folded values: a constant condition never needs more, and a crafted file must not
# make the reviewer build a huge string or number.
_MAX_INT = 10**12
_MAX_STR = 10_000

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_NESTED = (*_SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Kind:
    CONST = "const"  # a known literal value
    STATIC = "static"  # built from literals only, value unknown
    LIST = "list"  # a list the function built, element by element
    DICT = "dict"  # a dict the function built, literal key by literal key
    TOP = "top"  # anything


@dataclass(frozen=True)
class Val:
    """An abstract value."""

    kind: str
    value: Any = None  # CONST: the value; LIST: tuple of Val; DICT: tuple of (key, Val)

    @property
    def static(self) -> bool:
        """Built from literals only."""
        return self.kind in (_Kind.CONST, _Kind.STATIC)


TOP = Val(_Kind.TOP)
STATIC = Val(_Kind.STATIC)


def _const(value: object) -> Val:
    if isinstance(value, bool | type(None) | float):
        return Val(_Kind.CONST, value)
    if isinstance(value, int) and abs(value) <= _MAX_INT:
        return Val(_Kind.CONST, value)
    if isinstance(value, str | bytes) and len(value) <= _MAX_STR:
        return Val(_Kind.CONST, value)
    return STATIC


def _join(a: Val, b: Val) -> Val:
    if a == b:
        return a
    if a.static and b.static:
        return STATIC
    if a.kind == b.kind == _Kind.LIST and len(a.value) == len(b.value):
        return Val(_Kind.LIST, tuple(_join(x, y) for x, y in zip(a.value, b.value, strict=True)))
    if a.kind == b.kind == _Kind.DICT and [k for k, _ in a.value] == [k for k, _ in b.value]:
        joined = tuple((k, _join(x, y)) for (k, x), (_, y) in zip(a.value, b.value, strict=True))
        return Val(_Kind.DICT, joined)
    return TOP


Env = dict[str, Val]


def _join_envs(envs: Sequence[Env]) -> Env:
    if not envs:
        return {}
    names = set(envs[0]).intersection(*envs[1:])
    out: Env = {}
    for name in names:
        value = envs[0][name]
        for env in envs[1:]:
            value = _join(value, env[name])
        out[name] = value
    return out


_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
# Calls whose result is built from their arguments alone: literals in, literal-built out.
_PURE_CALLS = frozenset({"str", "int", "float", "bool", "len", "repr", "bytes"})
_PURE_MODULES = ("base64.", "urllib.parse.", "html.", "string.")
_PURE_METHODS = frozenset(
    {
        "lower", "upper", "strip", "lstrip", "rstrip", "replace", "format", "join", "encode",
        "decode", "title", "capitalize", "casefold", "removeprefix", "removesuffix", "zfill",
    }
)  # fmt: skip
# ``encode`` and ``decode`` run a codec and an error handler looked up by name, and code may
# register its own (``codecs.register``): only those Python builds in stay pure.
_CODEC_METHODS = frozenset({"encode", "decode"})
_BUILTIN_CODECS = frozenset(
    {"utf-8", "utf8", "ascii", "latin-1", "latin1", "iso-8859-1", "strict", "ignore", "replace"}
)
_LIST_MUTATORS = frozenset({"append", "insert", "pop", "extend", "clear"})


def _decided(ops: Sequence[ast.cmpop], values: Sequence[Val]) -> bool:
    """Whether Python itself fixes each answer of a chain of comparisons of literals. An
    ``is`` is fixed only against None, True or False, the singletons; any other identity is
    the interpreter's choice (``"ab" * 2 is "abab"`` is true compiled, false computed)."""
    return all(
        not isinstance(op, ast.Is | ast.IsNot) or _singleton(a) or _singleton(b)
        for op, a, b in zip(ops, values, values[1:], strict=False)
    )


def _singleton(value: Val) -> bool:
    return value.value is None or type(value.value) is bool


def _builtin_codec(call: ast.Call) -> bool:
    """Whether each argument of ``call`` (an ``encode`` or ``decode``) names a built-in codec
    or error handler, as a literal."""
    values = [*call.args, *(k.value for k in call.keywords)]
    return all(
        isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value in _BUILTIN_CODECS
        for v in values
    )


# ``"%0999999999d" % 1`` builds a gigabyte before its length can be checked: a ``%`` format
# with a width or precision this long is not folded.
_WIDE_FORMAT = re.compile(r"%[^%a-zA-Z]*\d{5,}")


def _fold_binop(op: ast.operator, left: Any, right: Any) -> Val:
    fn = _BINOPS.get(type(op))
    if fn is None:
        return STATIC
    for text, times in ((left, right), (right, left)):
        repeated = isinstance(text, str | bytes) and type(times) is int
        if repeated and len(text) * max(times, 0) > _MAX_STR:
            return STATIC
    if isinstance(op, ast.Mod) and isinstance(left, str | bytes):
        spec = left if isinstance(left, str) else left.decode("latin-1")
        if _WIDE_FORMAT.search(spec):
            return STATIC
    try:
        return _const(fn(left, right))
    except Exception:  # noqa: BLE001 - a type error or a division by zero: not folded
        return STATIC


@dataclass
class Folding:
    """What constant folding found in one tree."""

    dead: list[ast.AST] = field(default_factory=list)  # statements and operands never run
    literal_reads: list[ast.expr] = field(default_factory=list)  # element reads of literals
    static_calls: set[tuple[int, int]] = field(default_factory=set)  # (line, col) of calls

    @classmethod
    def of(cls, tree: ast.AST) -> Folding:
        """Fold every function (and the module's own statements) of ``tree``."""
        found = cls()
        scopes = _foldable(tree)
        facts = _module_facts(tree) if scopes else _ModuleFacts()
        for node in scopes:
            dead, reads = len(found.dead), len(found.literal_reads)
            try:
                _Scope(found, node, facts).run()
            except RecursionError:
                # an expression nested thousands deep (a generated sum): leave the scope
                # unfolded rather than half folded
                del found.dead[dead:], found.literal_reads[reads:]
        return found

    def static_first_argument(self, line: int, col: int) -> bool:
        """Whether the call at ``line``/``col`` (as the AST counts columns) has a variable
        for its first argument, holding a value built from literals only, in a function where
        folding resolved a branch or an element."""
        return (line, col) in self.static_calls


# What folding found in each tree still in use: Semgrep's copy, our taint check and Bandit's
# call checks all read the one tree ``python_parse`` keeps per source, and fold it once.
_FOLDINGS: weakref.WeakKeyDictionary[ast.AST, Folding] = weakref.WeakKeyDictionary()
_FOLDINGS_LOCK = threading.Lock()


def folded(tree: ast.AST) -> Folding:
    """``Folding.of(tree)``, worked out once per tree (trees are only read, never changed)."""
    with _FOLDINGS_LOCK:
        known = _FOLDINGS.get(tree)
    if known is not None:
        return known
    folding = Folding.of(tree)
    with _FOLDINGS_LOCK:
        _FOLDINGS[tree] = folding
    return folding


def folding_of(source: str) -> Folding | None:
    """What folding finds in the tree of ``source`` (None when it does not parse)."""
    tree = parse_python(source)
    return folded(tree) if tree is not None else None


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


def _bound_by(node: ast.AST) -> Iterator[str]:
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
        untracked.update(_bound_by(node))
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
        shadowed.update(_bound_by(node))
    return _ModuleFacts(_Everything() if star else frozenset(shadowed), frames)


# Module-level code that runs nothing written elsewhere (see ``_Scope._inert``): names,
# literals and containers of them, and operations whose operands are built from literals.
_INERT_PARTS = (
    ast.Constant, ast.Name, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.JoinedStr,
    ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop,
)  # fmt: skip
_INERT_OPERATIONS = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.FormattedValue)


class _Scope:
    """The abstract run of one function body (or a module's statements)."""

    def __init__(
        self,
        found: Folding,
        node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef,
        facts: _ModuleFacts,
    ) -> None:
        self.found = found
        self.node = node
        self.module = isinstance(node, ast.Module)
        # names a form the run does not follow may rebind (every name, where a frame's
        # locals are reached from anywhere in the module)
        self.untracked = _Everything() if facts.frames else _untracked(node)
        self.shadowed = facts.shadowed  # names that may not be the builtin they look like
        self.future_annotations = self.module and any(
            isinstance(stmt, ast.ImportFrom)
            and stmt.module == "__future__"
            and any(alias.name == "annotations" for alias in stmt.names)
            for stmt in node.body
        )

    def run(self) -> None:
        found = self.found
        before = len(found.dead) + len(found.literal_reads)
        self.static_calls: set[tuple[int, int]] = set()
        self.block(self.node.body, {})
        # A call's literal data counts only where folding resolved something in the function
        # (a branch that cannot run, a literal element): there data that looks as if it may
        # come from outside is shown not to. ``x = "ls"; os.system(x)`` keeps its result, as
        # ``os.system("ls")`` does.
        if len(found.dead) + len(found.literal_reads) > before:
            found.static_calls |= self.static_calls

    # statements ---------------------------------------------------------------------------

    def block(self, stmts: Sequence[ast.stmt], env: Env) -> tuple[Env, bool]:
        """Run ``stmts`` from ``env``; the env after them and whether they always leave."""
        for stmt in stmts:
            env, left = self.stmt(stmt, env)
            if left:
                return env, True
        return env, False

    def stmt(self, stmt: ast.stmt, env: Env) -> tuple[Env, bool]:
        if self.module and not self._inert(stmt, env):
            # Code that runs at module level may rebind the module's names from elsewhere: a
            # callee, an import (of a module that imports this one back), a decorator, a
            # class body, an attribute, operator or truth test of an object made elsewhere.
            env = {}
        if isinstance(stmt, _SCOPES):
            return env, False
        if isinstance(stmt, ast.If):
            return self.if_(stmt, env)
        env = dict(env)
        if isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            self._calls(stmt.iter if not isinstance(stmt, ast.While) else stmt.test, env)
            env = self._forget(stmt, env, containers=True)
            self.block(stmt.body, dict(env))
            self.block(stmt.orelse, dict(env))
            return env, False
        if isinstance(stmt, ast.Try | ast.TryStar):
            self.block(stmt.body, dict(env))
            env = self._forget(stmt, env, containers=True)
            for handler in stmt.handlers:
                self.block(handler.body, dict(env))
            self.block(stmt.orelse, dict(env))
            self.block(stmt.finalbody, dict(env))
            return env, False
        if isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                self._calls(item.context_expr, env)
            env = self._forget_targets([i.optional_vars for i in stmt.items], env)
            self.block(stmt.body, dict(env))
            # A context manager may swallow an exception from anywhere in the body: the
            # block never surely leaves, and after it each name the body assigns may hold
            # any of its values (as after a ``try``).
            return self._forget(stmt, env, containers=True), False
        if isinstance(stmt, ast.Match):
            return self._forget(stmt, env, containers=True), False
        return self.simple(stmt, env)

    def _inert(self, stmt: ast.stmt, env: Env) -> bool:
        """Whether ``stmt`` (at module level) runs nothing but built-in operations on values
        built from literals: it binds plain names, defines an undecorated function, or tests
        a literal-built value."""
        if isinstance(stmt, ast.Pass):
            return True
        if isinstance(stmt, ast.If):
            test = self.expr(stmt.test, env, record=False)
            return test.static and self._inert_expr(stmt.test, env)
        if isinstance(stmt, ast.Expr):
            return self._inert_expr(stmt.value, env)
        if isinstance(stmt, ast.Assign):
            named = all(isinstance(t, ast.Name) for t in stmt.targets)
            return named and self._inert_expr(stmt.value, env)
        if isinstance(stmt, ast.AnnAssign):
            annotation = self.future_annotations or self._inert_expr(stmt.annotation, env)
            value = stmt.value is None or self._inert_expr(stmt.value, env)
            return isinstance(stmt.target, ast.Name) and annotation and value
        if isinstance(stmt, ast.AugAssign):
            target = stmt.target
            held = isinstance(target, ast.Name) and self.expr(target, env, record=False).static
            value = self.expr(stmt.value, env, record=False).static
            return held and value and self._inert_expr(stmt.value, env)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and not stmt.decorator_list:
            run = [*stmt.args.defaults, *(d for d in stmt.args.kw_defaults if d is not None)]
            if not self.future_annotations:
                arguments = [*stmt.args.posonlyargs, *stmt.args.args, *stmt.args.kwonlyargs]
                arguments += [a for a in (stmt.args.vararg, stmt.args.kwarg) if a is not None]
                run += [a.annotation for a in arguments if a.annotation is not None]
                run += [stmt.returns] if stmt.returns is not None else []
            return all(self._inert_expr(e, env) for e in run)
        return False

    def _inert_expr(self, node: ast.expr, env: Env) -> bool:
        """Whether evaluating ``node`` reads names and builds literals only, each operator,
        comparison and truth test applied to values built from literals."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Dict) and None in sub.keys:
                return False  # ``**x`` reads a mapping made elsewhere
            if isinstance(sub, _INERT_PARTS):
                continue
            if not isinstance(sub, _INERT_OPERATIONS):
                return False
            operands = [o for o in ast.iter_child_nodes(sub) if isinstance(o, ast.expr)]
            if not all(self.expr(o, env, record=False).static for o in operands):
                return False
        return True

    def if_(self, stmt: ast.If, env: Env) -> tuple[Env, bool]:
        test = self.expr(stmt.test, env)
        self._calls(stmt.test, env)
        if test.kind == _Kind.CONST:
            live, dead = (stmt.body, stmt.orelse) if test.value else (stmt.orelse, stmt.body)
            self.found.dead.extend(dead)
            return self.block(live, dict(env))
        body_env, body_left = self.block(stmt.body, dict(env))
        else_env, else_left = self.block(stmt.orelse, dict(env))
        if body_left and else_left:
            return env, True
        if body_left:
            return else_env, False
        if else_left:
            return body_env, False
        return _join_envs([body_env, else_env]), False

    def simple(self, stmt: ast.stmt, env: Env) -> tuple[Env, bool]:
        self._calls(stmt, env)
        recognised: set[int] = set()
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                recognised.add(id(target.value))  # ``x[k] = v``: followed, not an escape
            value = self.expr(stmt.value, env, recognised)
            self._escape(stmt, env, recognised)
            if isinstance(target, ast.Name) and target.id not in self.untracked:
                env[target.id] = value
            elif not self._store_element(target, value, env):
                env = self._forget_targets([target], env)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            value = self.expr(stmt.value, env, recognised)
            self._escape(stmt, env, recognised)
            if isinstance(stmt.target, ast.Name) and stmt.target.id not in self.untracked:
                env[stmt.target.id] = value
            else:
                env = self._forget_targets([stmt.target], env)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            value = self.expr(stmt.value, env, recognised)
            self._escape(stmt, env, recognised)
            old = env.get(name, TOP)
            if old.kind == value.kind == _Kind.CONST:
                env[name] = _fold_binop(stmt.op, old.value, value.value)
            else:
                env[name] = STATIC if old.static and value.static else TOP
            if name in self.untracked:
                env.pop(name, None)
        elif isinstance(stmt, ast.Expr) and self._mutation(stmt.value, env, recognised):
            self._escape(stmt, env, recognised)
        else:
            if isinstance(stmt, ast.Return | ast.Expr) and stmt.value is not None:
                self.expr(stmt.value, env, recognised)
            self._escape(stmt, env, recognised)
            env = self._forget(stmt, env)
        left = isinstance(stmt, ast.Return | ast.Raise | ast.Continue | ast.Break)
        return env, left

    def _store_element(self, target: ast.expr, value: Val, env: Env) -> bool:
        """``x[k] = v`` on a container the function built: one element changes."""
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return False
        name = target.value.id
        box = env.get(name, TOP)
        key = self.expr(target.slice, env)
        if box.kind == _Kind.DICT and key.kind == _Kind.CONST:
            entries = dict(box.value)
            entries[key.value] = value
            env[name] = Val(_Kind.DICT, tuple(entries.items()))
            return True
        if box.kind == _Kind.LIST and key.kind == _Kind.CONST and isinstance(key.value, int):
            items = list(box.value)
            if -len(items) <= key.value < len(items):
                items[key.value] = value
                env[name] = Val(_Kind.LIST, tuple(items))
                return True
        env[name] = TOP
        return True

    def _mutation(self, call: ast.expr, env: Env, recognised: set[int]) -> bool:
        """``x.append(v)`` and the other list changes we follow, on a list the function
        built; any other method call on a tracked container forgets it."""
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
        ):
            return False
        name, method = call.func.value.id, call.func.attr
        box = env.get(name, TOP)
        if box.kind not in (_Kind.LIST, _Kind.DICT):
            return False
        recognised.add(id(call.func.value))
        args = [self.expr(a, env, recognised) for a in call.args]
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            env[name] = TOP
            return True
        items = list(box.value)
        if box.kind == _Kind.LIST and method in _LIST_MUTATORS:
            env[name] = _list_change(items, method, args)
        elif box.kind == _Kind.DICT and method == "pop" and args and args[0].kind == _Kind.CONST:
            env[name] = Val(_Kind.DICT, tuple((k, v) for k, v in items if k != args[0].value))
        else:
            env[name] = TOP
        return True

    def _escape(self, node: ast.AST, env: Env, recognised: set[int]) -> None:
        """A tracked container read anywhere but in a followed form may be aliased or
        changed there: forget it."""
        for sub in _walk_scope(node):
            if (
                isinstance(sub, ast.Name)
                and id(sub) not in recognised
                and env.get(sub.id, TOP).kind in (_Kind.LIST, _Kind.DICT)
            ):
                env[sub.id] = TOP

    def _forget(self, stmt: ast.AST, env: Env, *, containers: bool = False) -> Env:
        """Forget every name ``stmt`` assigns or deletes (and, with ``containers``, every
        container it mentions: a loop or a ``try`` may change one any number of times)."""
        out = dict(env)
        for sub in _walk_scope(stmt):
            if isinstance(sub, ast.Name) and (
                isinstance(sub.ctx, ast.Store | ast.Del)
                or (containers and out.get(sub.id, TOP).kind in (_Kind.LIST, _Kind.DICT))
            ):
                out.pop(sub.id, None)
        return out

    def _forget_targets(self, targets: Sequence[ast.AST | None], env: Env) -> Env:
        out = dict(env)
        for target in targets:
            if target is None:
                continue
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    out.pop(sub.id, None)
        return out

    def _calls(self, node: ast.AST, env: Env) -> None:
        """Note each call in ``node`` whose first argument is a variable that holds a value
        built from literals only. A literal written in the call itself is left out: that is
        the API use a call rule is about (``yaml.load("{}")``), and its advice still holds."""
        for sub in _walk_scope(node, into_blocks=False):
            if not (isinstance(sub, ast.Call) and sub.args):
                continue
            if (
                isinstance(sub.args[0], ast.Name)
                and self.expr(sub.args[0], env, record=False).static
            ):
                self.static_calls.add((sub.lineno, sub.col_offset))

    # expressions --------------------------------------------------------------------------

    def expr(
        self,
        node: ast.expr,
        env: Env,
        recognised: set[int] | None = None,
        *,
        record: bool = True,
        in_fstring: bool = False,
    ) -> Val:
        """The abstract value of ``node``; dead operands and literal element reads are
        recorded (when ``record``)."""
        recognised = set() if recognised is None else recognised

        def ev(sub: ast.expr, *, fstring: bool = in_fstring) -> Val:
            return self.expr(sub, env, recognised, record=record, in_fstring=fstring)

        def dead(sub: ast.expr) -> None:
            if record and not in_fstring:
                self.found.dead.append(sub)

        if isinstance(node, ast.Constant):
            return _const(node.value)
        if isinstance(node, ast.Name):
            value = env.get(node.id, TOP) if node.id not in self.untracked else TOP
            return value if value.static else TOP
        if isinstance(node, ast.BinOp):
            left, right = ev(node.left), ev(node.right)
            if left.kind == right.kind == _Kind.CONST:
                return _fold_binop(node.op, left.value, right.value)
            return STATIC if left.static and right.static else TOP
        if isinstance(node, ast.UnaryOp):
            operand = ev(node.operand)
            if operand.kind == _Kind.CONST:
                try:
                    if isinstance(node.op, ast.Not):
                        return _const(not operand.value)
                    if isinstance(node.op, ast.USub):
                        return _const(-operand.value)
                    if isinstance(node.op, ast.UAdd):
                        return _const(+operand.value)
                except TypeError:
                    return STATIC
            return STATIC if operand.static else TOP
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, ev, dead)
        if isinstance(node, ast.Compare):
            values = [ev(node.left), *(ev(c) for c in node.comparators)]
            if all(v.kind == _Kind.CONST for v in values) and _decided(node.ops, values):
                try:
                    result = all(
                        _COMPARE[type(op)](a.value, b.value)
                        for op, a, b in zip(node.ops, values, values[1:], strict=False)
                    )
                except Exception:  # noqa: BLE001 - a type error: not folded
                    return STATIC
                return _const(bool(result))
            return STATIC if all(v.static for v in values) else TOP
        if isinstance(node, ast.IfExp):
            test = ev(node.test)
            if test.kind == _Kind.CONST:
                live, gone = (node.body, node.orelse) if test.value else (node.orelse, node.body)
                dead(gone)
                return ev(live)
            return _join(ev(node.body), ev(node.orelse))
        if isinstance(node, ast.JoinedStr):
            parts = [ev(v, fstring=True) for v in node.values]
            return STATIC if all(p.static for p in parts) else TOP
        if isinstance(node, ast.FormattedValue):
            return ev(node.value)
        if isinstance(node, ast.List | ast.Tuple):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return TOP
            return Val(_Kind.LIST, tuple(ev(e) for e in node.elts))
        if isinstance(node, ast.Dict):
            keys = [ev(k) if k is not None else TOP for k in node.keys]
            values = [ev(v) for v in node.values]
            if all(k.kind == _Kind.CONST for k in keys):
                # through a real dict: a repeated key keeps its last value (and its first
                # spelling, ``{1: a, True: b}`` is ``{1: b}``), as Python builds it
                built = dict(zip((k.value for k in keys), values, strict=True))
                return Val(_Kind.DICT, tuple(built.items()))
            return TOP
        if isinstance(node, ast.Subscript):
            return self._element(node, env, recognised, ev, record and not in_fstring)
        if isinstance(node, ast.Call):
            return self._call(node, env, recognised, ev, record and not in_fstring)
        for sub in ast.iter_child_nodes(node):
            if isinstance(sub, ast.expr):
                ev(sub)
        return TOP

    def _boolop(
        self, node: ast.BoolOp, ev: Callable[[ast.expr], Val], dead: Callable[[ast.expr], None]
    ) -> Val:
        is_or = isinstance(node.op, ast.Or)
        values: list[Val] = []
        for index, operand in enumerate(node.values):
            value = ev(operand)
            values.append(value)
            if value.kind == _Kind.CONST and bool(value.value) == is_or:
                for rest in node.values[index + 1 :]:
                    dead(rest)
                return value if len(values) == 1 or all(v.static for v in values) else TOP
        last = values[-1]
        if all(v.kind == _Kind.CONST for v in values[:-1]):
            return last  # every earlier operand let it through
        return STATIC if all(v.static for v in values) else TOP

    def _element(
        self,
        node: ast.Subscript,
        env: Env,
        recognised: set[int],
        ev: Callable[[ast.expr], Val],
        record: bool,
    ) -> Val:
        key = ev(node.slice)
        if isinstance(node.value, ast.Name) and node.value.id not in self.untracked:
            box = env.get(node.value.id, TOP)
            if box.kind in (_Kind.LIST, _Kind.DICT):
                recognised.add(id(node.value))
                item = _item(box, key)
                if item.static and record:
                    self.found.literal_reads.append(node)
                return item if item.static else TOP
        base = ev(node.value)
        return STATIC if base.static and key.static else TOP

    def _call(
        self,
        node: ast.Call,
        env: Env,
        recognised: set[int],
        ev: Callable[[ast.expr], Val],
        record: bool,
    ) -> Val:
        func = node.func
        args = [ev(a) for a in node.args]
        kwargs = [ev(k.value) for k in node.keywords]
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr == "get"
            and func.value.id not in self.untracked
            and env.get(func.value.id, TOP).kind == _Kind.DICT
            and args
            and not kwargs
        ):
            recognised.add(id(func.value))
            box = env[func.value.id]
            items = dict(box.value)
            if args[0].kind == _Kind.CONST:
                item = items.get(args[0].value, args[1] if len(args) > 1 else _const(None))
                if item.static and record:
                    self.found.literal_reads.append(node)
                return item if item.static else TOP
            return TOP
        everything_static = all(v.static for v in (*args, *kwargs))
        name = dotted(func)
        if isinstance(func, ast.Attribute) and func.attr in _PURE_METHODS:
            receiver = ev(func.value)
            pure = func.attr not in _CODEC_METHODS or _builtin_codec(node)
            return STATIC if receiver.static and everything_static and pure else TOP
        if (
            everything_static
            and (name in _PURE_CALLS or name.startswith(_PURE_MODULES))
            and name.split(".")[0] not in self.shadowed  # ``def str(x): ...`` is not ``str``
        ):
            return STATIC
        if not isinstance(func, ast.Name):
            ev(func)
        return TOP


def _item(box: Val, key: Val) -> Val:
    if key.kind != _Kind.CONST:
        return TOP
    if box.kind == _Kind.LIST:
        index = key.value
        if isinstance(index, int) and not isinstance(index, bool):
            items: tuple[Val, ...] = box.value
            if -len(items) <= index < len(items):
                return items[index]
        return TOP
    for k, v in box.value:
        if k == key.value:
            return v  # type: ignore[no-any-return]
    return TOP


def _list_change(items: list[Val], method: str, args: list[Val]) -> Val:
    def index(at: Val) -> int | None:
        i = at.value if at.kind == _Kind.CONST else None
        return i if isinstance(i, int) and not isinstance(i, bool) else None

    if method == "append" and len(args) == 1:
        return Val(_Kind.LIST, (*items, args[0]))
    if method == "clear" and not args:
        return Val(_Kind.LIST, ())
    if method == "pop" and not args and items:
        return Val(_Kind.LIST, tuple(items[:-1]))
    i = index(args[0]) if len(args) == 1 else None
    if method == "pop" and i is not None and -len(items) <= i < len(items):
        del items[i]
        return Val(_Kind.LIST, tuple(items))
    if method == "insert" and len(args) == 2 and (i := index(args[0])) is not None:
        items.insert(i, args[1])
        return Val(_Kind.LIST, tuple(items))
    if method == "extend" and len(args) == 1 and args[0].kind == _Kind.LIST:
        return Val(_Kind.LIST, (*items, *args[0].value))
    return TOP


def _walk_scope(node: ast.AST, *, into_blocks: bool = True) -> Iterator[ast.AST]:
    """``node`` and what it holds, without entering nested scopes (and, unless
    ``into_blocks``, without entering the statements of a compound statement)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if isinstance(child, _SCOPES):
                continue
            if not into_blocks and isinstance(child, ast.stmt):
                continue
            todo.append(child)


# ---------------------------------------------------------------------------------------------
# Rewriting: what the analysers read


def _edits(tree: ast.AST, lines: Sequence[str]) -> list[Edit]:
    folding = folded(tree)
    edits: list[Edit] = []
    for node in [*folding.dead, *folding.literal_reads]:
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            continue
        line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        # A decorated ``def`` or ``class`` starts at its first ``@`` (its own line is that of
        # the keyword): a decorator left in front of ``pass`` would not parse.
        decorators = getattr(node, "decorator_list", None) or []
        line = min([line, *(d.lineno for d in decorators)])
        if not (0 < line <= end_line <= len(lines)):
            continue
        start = (line, char_col(lines[line - 1], col))  # the ``@`` is at the keyword's column
        end = (end_line, char_col(lines[end_line - 1], end_col))
        edits.append(Edit(start, end, isinstance(node, ast.stmt)))
    edits.sort(key=lambda e: (e.start, (-e.end[0], -e.end[1])))
    out: list[Edit] = []
    for edit in edits:  # drop an edit inside an earlier one
        if out and edit.start < out[-1].end:
            continue
        out.append(edit)
    return out


def pruned_source(source: str, onto: str | None = None) -> str | None:
    """``source`` with its dead statements replaced by ``pass``, its dead operands and its
    element reads of literals by a literal, every line and column kept; None when constant
    folding finds nothing (or the source does not parse). With ``onto`` (a rewrite of
    ``source`` that kept every line and column), the edits are made to ``onto`` instead.

    A file our Python cannot parse only for its f-strings (Python 3.12 lets one reuse its
    quotes inside, ``f'{', '.join(xs)}'``, which Semgrep reads) is folded with every f-string
    masked as an unknown value, character for character."""
    parsed = source
    tree = parse_python(source)
    if tree is None:
        if not _FSTRING_START.search(source):
            return None  # nothing to mask: the masked text would not parse either
        masked = _masked_fstrings(source)
        tree = parse_python(masked) if masked is not None else None
        if tree is None or masked is None:
            return None
        parsed = masked
    lines = (source if onto is None else onto).split("\n")
    applied = False
    for edit in reversed(_edits(tree, parsed.split("\n"))):
        applied = apply_edit(lines, edit) or applied
    return "\n".join(lines) if applied else None


class _Pruner(ast.NodeTransformer):
    def __init__(self, gone: set[int]) -> None:
        self.gone = gone  # the ids of the nodes to replace

    def visit(self, node: ast.AST) -> Any:
        if id(node) in self.gone:
            if isinstance(node, ast.stmt):
                return ast.copy_location(ast.Pass(), node)
            return ast.copy_location(ast.Constant(value=""), node)
        return self.generic_visit(node)


def pruned_tree(tree: ast.Module) -> ast.Module:
    """``tree`` with its dead statements replaced by ``pass`` and its dead operands and
    element reads of literals by a literal (a copy; ``tree`` itself when there is none)."""
    folding = folded(tree)
    if not folding.dead and not folding.literal_reads:
        return tree
    try:
        copies: dict[int, Any] = {}  # deepcopy's memo: the copy of each node, by its id
        twin = copy.deepcopy(tree, copies)
        gone = {id(copies[id(n)]) for n in [*folding.dead, *folding.literal_reads]}
        result = _Pruner(gone).visit(twin)
    except RecursionError:
        return tree  # copying or rewriting a tree nested too deeply: read it as it is
    assert isinstance(result, ast.Module)
    return result


# ---------------------------------------------------------------------------------------------
# f-strings of Python 3.12, masked for an older parser

_PREFIX = frozenset("rRbBuUfF")
# Where an f-string may start: an ``f`` of its prefix, then at most one more prefix letter
# and its quote. A text without one has nothing to mask.
_FSTRING_START = re.compile(r"[fF][rRbBuUfF]?['\"]")


def _string_at(source: str, i: int) -> tuple[int, str, bool] | None:
    """When a string literal starts at ``i``: where its body starts, its quote, and whether it
    is an f-string."""
    j = i
    while j < len(source) and j - i < 2 and source[j] in _PREFIX:
        j += 1
    if j >= len(source) or source[j] not in "'\"":
        return None
    if i > 0 and (source[i - 1].isalnum() or source[i - 1] == "_") and j > i:
        return None  # the end of a name, not a prefix
    quote = source[j] * 3 if source.startswith(source[j] * 3, j) else source[j]
    return j + len(quote), quote, "f" in source[i:j].lower()


def _string_end(source: str, i: int, quote: str, fstring: bool) -> int | None:
    """The index just after the literal whose body starts at ``i``."""
    n = len(source)
    while i < n:
        if source.startswith(quote, i):
            return i + len(quote)
        c = source[i]
        if c == "\\":
            i += 2
        elif c == "\n" and len(quote) == 1:
            return None
        elif fstring and c == "{":
            if source.startswith("{{", i):
                i += 2
            else:
                end = _replacement_end(source, i + 1)
                if end is None:
                    return None
                i = end
        else:
            i += 1
    return None


def _replacement_end(source: str, i: int) -> int | None:
    """The index just after the ``}`` closing the replacement field whose body starts at
    ``i``, strings of any quote nested inside (Python 3.12)."""
    depth, n = 0, len(source)
    while i < n:
        c = source[i]
        start = _string_at(source, i) if c in _PREFIX or c in "'\"" else None
        if start is not None:
            end = _string_end(source, start[0], start[1], start[2])
            if end is None:
                return None
            i = end
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i + 1
            depth -= 1
        elif c == ":" and depth == 0 and not source.startswith(":=", i):
            return _string_end(source, i + 1, "}", True)  # the format spec, to its ``}``
        i += 1
    return None


def _masked_fstrings(source: str) -> str | None:
    """``source`` with every f-string replaced, character for character, by a name (an
    unknown value): ``f'{a}'`` becomes ``______``, one over several lines ``(___ ... )``.
    None when a literal does not end."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "#":
            end_of_line = source.find("\n", i)
            i = n if end_of_line < 0 else end_of_line
            continue
        start = _string_at(source, i) if c in _PREFIX or c in "'\"" else None
        if start is None:
            i += 1
            continue
        end = _string_end(source, start[0], start[1], start[2])
        if end is None:
            return None
        if start[2]:
            _mask(out, source, i, end)
        i = end
    return "".join(out)


def _mask(out: list[str], source: str, start: int, end: int) -> None:
    multiline = "\n" in source[start:end]
    for k in range(start, end):
        if source[k] != "\n":
            out[k] = " " if multiline else "_"
    if multiline:
        out[start], out[start + 1], out[end - 1] = "(", "_", ")"
