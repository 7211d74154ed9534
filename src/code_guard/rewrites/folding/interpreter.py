"""The abstract run of one scope, statement by statement, and what it found (``Folding``):
the dead code, the element reads of literals and the calls with a literal-built argument.
"""

from __future__ import annotations

import ast
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from code_guard.rewrites.folding.bindings import (
    _Everything,
    _foldable,
    _module_facts,
    _ModuleFacts,
    _untracked,
)
from code_guard.rewrites.folding.values import (
    _CODEC_METHODS,
    _COMPARE,
    _LIST_MUTATORS,
    _PURE_CALLS,
    _PURE_METHODS,
    _PURE_MODULES,
    _SCOPES,
    STATIC,
    TOP,
    Env,
    Val,
    _builtin_codec,
    _const,
    _decided,
    _fold_binop,
    _join,
    _join_envs,
    _Kind,
)
from code_guard.rewrites.python_parse import dotted, parse_python


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
