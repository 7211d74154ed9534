"""Guards for the taint check: the statements a check dominates, and the functions of the file
(or imported from another file of the change) whose bodies prove they validate.

A guard counts only when its result controls the path to the sink: the sink sits in the
branch where the check passed, or after an ``if`` whose failing branch returns, raises or
aborts (``flask.abort``, ``sys.exit``: the real ones, not a function of that name the file
defines), and nothing assigns the value between the check and the sink. A function called
as a statement of its own guards only when its body proves that it returns only for a vetted
value. An ``assert`` is no guard: ``python -O`` drops it. What each check vets, and for which
categories, is checks.py's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from code_guard.tools.python.checks import (
    Function,
    Kinds,
    Scope,
    Vetted,
    arguments,
    derived,
    names_in,
    stored,
    test,
    union,
    validator_name,
)
from code_guard.tools.python.nodes import walk
from code_guard.tools.python.sanitisers import CATEGORIES, Names

# The name test the Semgrep rules' guards still use (tools/semgrep/rules); the taint check
# no longer trusts a name: a validator counts by its qualified name or by its body.
CHECK_NAME = re.compile(
    r"(?i)^([\w.]*\.)?((?=is_?\w*?(?:safe|valid|allowed|trusted|permitted|allowlist|whitel"
    r"ist|within|inside|subpath|relative|local))\w*+|(?=\w*?(?:validat|saniti[sz]))\w*+|(?"
    r"=(?:check|verify|ensure|assert|require)_?\w*?(?:safe|valid|allowed|trusted|permitted"
    r"|path|url|host|domain|file|dir|scheme|redirect|origin|within|inside))\w*+|(?=(?:\w+?"
    r"_)?(?:inside|within|under)_\w)\w*+|same_(?:origin|host|site|domain)\w*+|url_has_allo"
    r"wed_host_and_scheme)$"
)


# Calls that end a request handler on the spot: what a failing guard branch does.
_TERMINATORS = frozenset(
    {"flask.abort", "werkzeug.exceptions.abort", "sys.exit", "os._exit", "exit", "quit"}
)


@dataclass
class Validators:
    """Functions of the file whose bodies prove they vet a parameter: ``truthy``, those that
    return a true value only for a vetted one; ``exits``, those that return at all only for
    a vetted one (they raise otherwise). Name -> parameter (position or name) -> categories."""

    truthy: dict[str, dict[int | str, Kinds]] = field(default_factory=dict)
    exits: dict[str, dict[int | str, Kinds]] = field(default_factory=dict)

    @classmethod
    def of(cls, tree: ast.Module, names: Names, imported: Validators | None = None) -> Validators:
        """The validating functions defined (once) in ``tree``, after those it imports from
        the change's other files (``imported``: proved there by their bodies, by the same
        rules, under the names this file calls them by)."""
        found = cls()
        if imported is not None:
            found.truthy.update(imported.truthy)
            found.exits.update(imported.exits)
        candidates = [
            node
            for node in walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name in names.once
            and not node.decorator_list
            and any(isinstance(n, ast.Return | ast.Raise) for n in walk(node))
        ]
        for _ in range(2):  # a validator may call another one
            for func in candidates:
                params = _fixed_parameters(func)
                if not params:
                    continue
                # what the caller passes may be anything: no allow-list of theirs counts
                scope = Scope.of(func, found, names, derived(func, set(params.values())))
                truthy = _truthy_proof(func, scope, params)
                if truthy:
                    found.truthy[func.name] = truthy
                exits = _exits_proof(func, scope, params)
                if exits:
                    found.exits[func.name] = exits
        return found


def _fixed_parameters(func: Function) -> dict[int | str, str]:
    """The parameters of ``func`` the body never rebinds (by position after self, and name)."""
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    out: dict[int | str, str] = dict(enumerate(positional))
    out.update({a.arg: a.arg for a in (*func.args.args, *func.args.kwonlyargs)})
    rebound = {n for node in walk(func) for n in stored(node)}
    return {k: v for k, v in out.items() if v not in rebound and v not in ("self", "cls")}


def _falsy(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and not node.value


def _truthy_proof(
    func: Function, scope: Scope, params: dict[int | str, str]
) -> dict[int | str, Kinds]:
    """The parameters every true value ``func`` returns vouches for: each ``return`` gives
    a false constant, or runs where the parameter is vetted (its own test included)."""
    proofs: list[Vetted] = []
    for ret in walk(func):
        if not isinstance(ret, ast.Return) or ret.value is None or _falsy(ret.value):
            continue
        proofs.append(union(guarded_names(func, ret, scope), test(ret.value, scope)[0]))
    return _per_parameter(proofs, params)


def _exits_proof(
    func: Function, scope: Scope, params: dict[int | str, str]
) -> dict[int | str, Kinds]:
    """The parameters vetted wherever ``func`` returns (or ends): called as a statement of
    its own, it lets only vetted values past."""
    proofs = [guarded_names(func, ret, scope) for ret in walk(func) if isinstance(ret, ast.Return)]
    if not _terminates(func.body, scope):
        proofs.append(_fold(func.body, scope))  # falling off the end
    return _per_parameter(proofs, params)


def _per_parameter(proofs: list[Vetted], params: dict[int | str, str]) -> dict[int | str, Kinds]:
    if not proofs:
        return {}
    out: dict[int | str, Kinds] = {}
    for slot, name in params.items():
        kinds = frozenset.intersection(*(p.get(name, frozenset()) for p in proofs))
        if kinds:
            out[slot] = kinds
    return out


def _terminates(body: list[ast.stmt], scope: Scope) -> bool:
    """True when a block ends the handler: its last statement returns, raises, aborts or
    leaves the loop."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Raise | ast.Return | ast.Continue | ast.Break):
        return True
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        return scope.names.qualified(last.value) in _TERMINATORS
    return False


def _statement_guards(stmt: ast.stmt, scope: Scope) -> Vetted:
    """What is vetted for the statements that follow ``stmt`` in its block."""
    if isinstance(stmt, ast.If):
        true, false = test(stmt.test, scope)
        if _terminates(stmt.body, scope):  # the code after runs when the test was false
            return false
        if stmt.orelse and _terminates(stmt.orelse, scope):
            return true
        # the failing branch replaces the value with a fixed one: `if not ok(x): x = "/"`
        reset = _reset_names(stmt.body)
        if reset:
            return {n: k for n, k in false.items() if n in reset}
        return _branch_guards(stmt, scope)
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return _fold(stmt.body, scope)
    if isinstance(stmt, ast.Try) and all(_terminates(h.body, scope) for h in stmt.handlers):
        return _fold([*stmt.body, *stmt.orelse], scope)  # every statement ran, or we left
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        name = validator_name(call)
        if name in scope.validators.exits:
            return arguments(call, scope.validators.exits[name])
    return {}


def _branch_guards(stmt: ast.If, scope: Scope) -> Vetted:
    """Names an ``if`` assigns and vets in its branches, when nothing else in the function
    gives them more than a literal: on a path through a branch they were checked, on a path
    around it they hold a literal (``name = ""`` / ``if "name" in args: name = ...; check``)."""
    out: Vetted = {}
    branches = [_fold(stmt.body, scope), _fold(stmt.orelse, scope)]
    bound = [{n for s in block for node in walk(s) for n in stored(node)} for block in
              (stmt.body, stmt.orelse)]  # fmt: skip
    for name in bound[0] | bound[1]:
        if name in scope.params or not all(
            id(node) in scope.constant or _within(node, stmt)
            for node in scope.assigned.get(name, ())
        ):
            continue
        kinds = CATEGORIES
        for vetted, assigned in zip(branches, bound, strict=True):
            kinds &= vetted.get(name, frozenset()) if name in assigned else CATEGORIES
        if kinds:
            out[name] = kinds
    return out


def _within(node: ast.AST, stmt: ast.stmt) -> bool:
    line = getattr(node, "lineno", 0)
    return stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)


def _reset_names(block: list[ast.stmt]) -> set[str]:
    """Names a block sets to a literal (a fixed fallback value), if it does nothing else."""
    names: set[str] = set()
    for stmt in block:
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Constant):
            return set()
        names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return names


def _fold(block: list[ast.stmt], scope: Scope, found: Vetted | None = None) -> Vetted:
    """What is vetted after running ``block``: each statement's guards, less what a later
    statement assigns again."""
    vetted = dict(found or {})
    for stmt in block:
        vetted = _killed(vetted, stmt)
        vetted = union(vetted, _statement_guards(stmt, scope))
    return vetted


def _killed(vetted: Vetted, stmt: ast.AST) -> Vetted:
    """``vetted`` without the names ``stmt`` assigns (and the expressions that read them)."""
    bound = {n for node in walk(stmt) for n in stored(node)}
    if not bound:
        return vetted
    return {k: v for k, v in vetted.items() if not _mentions(k, bound)}


def _mentions(name_key: str, names: set[str]) -> bool:
    return any(n in names for n in names_in(name_key))


def guarded_names(func: Function, target: ast.AST, scope: Scope) -> Vetted:
    """What is vetted by the guards that dominate ``target`` (a node inside ``func``)."""
    found: Vetted = {}
    for block, index, branch in _path_to(func, target):
        found = _fold(block[:index], scope, found)
        if isinstance(block[index], ast.For | ast.AsyncFor | ast.While):
            found = _killed(found, block[index])  # a later turn of the loop may assign it
        if branch is not None:
            owner, in_body = branch
            true, false = test(owner.test, scope)
            found = union(found, true if in_body else false)
    return found


def _path_to(
    func: ast.AST, target: ast.AST
) -> Iterator[tuple[list[ast.stmt], int, tuple[ast.If, bool] | None]]:
    """The blocks from ``func`` down to ``target``: each block, the index of the statement
    that holds ``target``, and (for an ``if`` branch) the ``if`` and whether it is the body."""
    node: ast.AST = func
    while True:
        for name, owner_branch in (("body", True), ("orelse", False), ("finalbody", None)):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            for index, stmt in enumerate(block):
                if _contains(stmt, target):
                    branch = (
                        (node, owner_branch)
                        if isinstance(node, ast.If) and owner_branch is not None
                        else None
                    )
                    yield block, index, branch
                    if stmt is target or not isinstance(stmt, ast.stmt):
                        return
                    node = stmt
                    break
            else:
                continue
            break
        else:
            handlers = getattr(node, "handlers", None)
            for handler in handlers or ():
                if _contains(handler, target):
                    node = handler
                    break
            else:
                return


def _contains(node: ast.AST, target: ast.AST) -> bool:
    start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    line = getattr(target, "lineno", None)
    if start is not None and end is not None and line is not None and not start <= line <= end:
        return False
    return any(child is target for child in walk(node))
