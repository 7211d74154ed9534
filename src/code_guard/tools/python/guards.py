"""Guards for the taint check: the tests in a function that vet a value before it reaches a
sink, and the statements they dominate.

A guard is a check of a value (CodeQL calls these barrier guards): a validator called on it
(``is_safe_url(x)``, ``url_has_allowed_host_and_scheme(x, ...)``, a same-file helper whose
body returns such a test), an allow-list (``x in ALLOWED``), a format test (``x.isdigit()``,
``re.fullmatch(...)``), a containment test (``path.startswith(base)``, ``is_relative_to``,
``os.path.commonpath``, ``".." in x``) or a URL's host or scheme (``urlparse(x).netloc in
HOSTS``). A sink is guarded when it sits in the branch where the check passed, or after an
``if`` whose failing branch returns, raises, aborts or redirects, after an ``assert`` of the
check, or after a validator called as a statement of its own (it raises on failure).

Each check has a polarity: ``+`` when the test is true for a vetted value (``is_safe(x)``,
``x in ALLOWED``), ``-`` when it is true for a bad one (``not is_safe(x)``, ``".." in x``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from code_guard.tools.python.checker import dotted
from code_guard.tools.python.nodes import walk

# Names of calls that vet their argument (the same list as the Semgrep rules' guards).
# Each alternative looks ahead for its word, then takes the rest of the name possessively:
# the same names as a plain `\w*word\w*`, without its backtracking (quadratic on long names).
CHECK_NAME = re.compile(
    r"(?i)^([\w.]*\.)?((?=is_?\w*?(?:safe|valid|allowed|trusted|permitted|allowlist|whitel"
    r"ist|within|inside|subpath|relative|local))\w*+|(?=\w*?(?:validat|saniti[sz]))\w*+|(?"
    r"=(?:check|verify|ensure|assert|require)_?\w*?(?:safe|valid|allowed|trusted|permitted"
    r"|path|url|host|domain|file|dir|scheme|redirect|origin|within|inside))\w*+|(?=(?:\w+?"
    r"_)?(?:inside|within|under)_\w)\w*+|same_(?:origin|host|site|domain)\w*+|url_has_allo"
    r"wed_host_and_scheme)$"
)
_FORMAT_TESTS = frozenset(
    {"isdigit", "isdecimal", "isnumeric", "isalnum", "isalpha", "isidentifier"}
)
_URL_PARTS = frozenset({"netloc", "hostname", "scheme", "host", "port"})
_URL_PARSERS = frozenset({"urlparse", "urlsplit"})
# Calls that end a request handler on the spot: what a failing guard branch does.
_TERMINATORS = frozenset({"abort", "exit", "sys.exit", "os._exit", "flask.abort"})
# A prefix too short to name a base directory ("/" or "." says nothing about containment).
_TRIVIAL_PREFIXES = frozenset({"", "/", ".", "\\", "~"})

Checked = dict[str, int]  # name -> polarity (+1: true when vetted, -1: true when bad)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


@dataclass
class Validators:
    """Same-file functions whose body shows they validate: they return a check of a
    parameter, or raise when a check of one fails. Calls to them are guards, whatever
    their names."""

    names: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, tree: ast.AST) -> Validators:
        """The validating functions defined in ``tree``."""
        found = cls()
        # candidates: functions with parameters that return a test or raise
        candidates = [
            node
            for node in walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and (node.args.args or node.args.posonlyargs or node.args.kwonlyargs)
            and any(_is_test_or_raise(n) for n in walk(node))
        ]
        for _ in range(2):  # a validator may call another one
            for node in candidates:
                if node.name not in found.names and found._validates(node):
                    found.names.add(node.name)
        return found

    def _validates(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        params.discard("self")
        if not params:
            return False
        aliases: dict[str, Checked] = {}
        for node in walk(func):
            if isinstance(node, ast.Return) and node.value is not None:
                test: ast.AST | None = node.value
            elif isinstance(node, ast.If) and _terminates(node.body, raising_only=True):
                test = node.test
            else:
                test = None
            if test is not None and set(checked(test, self, aliases)) & params:
                return True
        return False

    def is_check(self, call: ast.Call) -> bool:
        """True for a call to a validator, by its name or by its body."""
        name = dotted(call.func)
        return bool(CHECK_NAME.match(name)) or name.rsplit(".", 1)[-1] in self.names


def _is_test_or_raise(node: ast.AST) -> bool:
    if isinstance(node, ast.Raise):
        return True
    return isinstance(node, ast.Return) and isinstance(
        node.value, ast.Compare | ast.BoolOp | ast.UnaryOp | ast.Call
    )


def checked(test: ast.AST, validators: Validators, aliases: dict[str, Checked]) -> Checked:
    """The names ``test`` checks, each with its polarity."""
    out: Checked = {}
    _collect(test, 1, validators, aliases, out)
    return out


def _add(out: Checked, names: Iterable[str], polarity: int) -> None:
    for name in names:
        out.setdefault(name, polarity)


def _collect(
    node: ast.AST, sign: int, validators: Validators, aliases: dict[str, Checked], out: Checked
) -> None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _collect(node.operand, -sign, validators, aliases, out)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            _collect(value, sign, validators, aliases, out)
    elif isinstance(node, ast.Name) and node.id in aliases:
        for name, polarity in aliases[node.id].items():
            out.setdefault(name, polarity * sign)
    elif isinstance(node, ast.Compare):
        _compare(node, sign, validators, aliases, out)
    elif isinstance(node, ast.Call):
        _add(out, _call_checks(node, validators), sign)


def _compare(
    node: ast.Compare, sign: int, validators: Validators, aliases: dict[str, Checked], out: Checked
) -> None:
    op, right = node.ops[0], node.comparators[0]
    negated = isinstance(op, ast.NotIn | ast.NotEq | ast.IsNot)
    polarity = -sign if negated else sign
    left = node.left
    if isinstance(op, ast.In | ast.NotIn):
        if isinstance(left, ast.Constant) and left.value == "..":
            _add(out, _names(right), -polarity)  # ".." in x is true for a bad path
            return
        if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
            _add(out, _names(left), polarity)  # x in ALLOWED (not a substring of a literal)
            return
    if isinstance(op, ast.Eq | ast.NotEq):  # x == "literal": an allow-list of one
        for side, other in ((left, right), (right, left)):
            if isinstance(other, ast.Constant) and other.value is not None:
                _add(out, _names(side), polarity)
    for side in (left, right):
        # urlparse(x).netloc == HOST, parsed.hostname in HOSTS
        if isinstance(side, ast.Attribute) and side.attr in _URL_PARTS:
            _add(out, _names(side.value), polarity)
        # os.path.commonpath([base, path]) == base, and checks compared to True
        elif isinstance(side, ast.Call):
            _add(out, _call_checks(side, validators), polarity)


def _call_checks(call: ast.Call, validators: Validators) -> set[str]:
    """The names a call vets when it returns true."""
    func = call.func
    name = dotted(func)
    last = name.rsplit(".", 1)[-1]
    if validators.is_check(call):
        return set().union(*(_names(a) for a in (*call.args, *(k.value for k in call.keywords))))
    if isinstance(func, ast.Attribute):
        if last == "startswith" and call.args and not _trivial_prefix(call.args[0]):
            return _names(func.value)
        if last == "is_relative_to" or last in _FORMAT_TESTS:
            return _names(func.value)
    if name == "re.fullmatch" or (name == "re.match" and call.args and _anchored(call.args[0])):
        return _names(call.args[1]) if len(call.args) >= 2 else set()
    if isinstance(func, ast.Attribute) and last == "fullmatch" and call.args:
        return _names(call.args[0])  # a compiled pattern: PATTERN.fullmatch(x)
    # commonprefix is a weak check (py-path-traversal-commonprefix says why), but a check:
    # the flow past it is reported there, once
    if last in ("commonpath", "commonprefix"):
        return set().union(*(_names(a) for a in call.args))
    return set()


def _trivial_prefix(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in _TRIVIAL_PREFIXES


def _anchored(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
        and node.value.startswith("^") and node.value.endswith("$")
    )  # fmt: skip


def _terminates(body: list[ast.stmt], raising_only: bool = False) -> bool:
    """True when a block ends the handler: its last statement returns, raises, aborts or
    leaves the loop (``raising_only``: raises or aborts)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Raise):
        return True
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        return dotted(last.value.func) in _TERMINATORS
    if raising_only:
        return False
    return isinstance(last, ast.Return | ast.Continue | ast.Break)


def check_aliases(func: ast.AST, validators: Validators) -> dict[str, Checked]:
    """Names bound to a check (``ok = is_safe(x)``), so that ``if not ok:`` guards ``x``."""
    aliases: dict[str, Checked] = {}
    for node in walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                found = checked(node.value, validators, aliases)
                if found:
                    aliases[target.id] = found
    return aliases


def _statement_guards(
    stmt: ast.stmt, validators: Validators, aliases: dict[str, Checked]
) -> set[str]:
    """Names vetted for the statements that follow ``stmt`` in its block."""
    if isinstance(stmt, ast.If):
        found = checked(stmt.test, validators, aliases)
        if _terminates(stmt.body):  # the code after runs when the test was false
            return {name for name, polarity in found.items() if polarity < 0}
        if stmt.orelse and _terminates(stmt.orelse):
            return {name for name, polarity in found.items() if polarity > 0}
        # the failing branch replaces the value with a fixed one: `if not ok(x): x = "/"`
        replaced = _reset_names(stmt.body)
        if replaced:
            return {n for n, polarity in found.items() if polarity < 0 and n in replaced}
        return _inner_guards(stmt.body, validators, aliases) | _inner_guards(
            stmt.orelse, validators, aliases
        )
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return _inner_guards(stmt.body, validators, aliases)
    if isinstance(stmt, ast.Try):
        # a check in the try block holds after it when every handler leaves
        if all(_terminates(h.body) for h in stmt.handlers):
            vetted: set[str] = set()
            for inner in stmt.body:
                vetted |= _statement_guards(inner, validators, aliases)
            return vetted
        return _inner_guards(stmt.body, validators, aliases)
    if isinstance(stmt, ast.Assert):
        return {n for n, p in checked(stmt.test, validators, aliases).items() if p > 0}
    if (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and validators.is_check(stmt.value)  # a validator called for the exception it raises
    ):
        return set(checked(stmt.value, validators, aliases))
    return set()


def _reset_names(block: list[ast.stmt]) -> set[str]:
    """Names a block sets to a literal (a fixed fallback value)."""
    return {
        target.id
        for stmt in block
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)
        for target in stmt.targets
        if isinstance(target, ast.Name)
    }


def _inner_guards(
    block: list[ast.stmt], validators: Validators, aliases: dict[str, Checked]
) -> set[str]:
    """Names a block assigns and then vets: on the path that skips the block they keep their
    earlier (clean) value, on the path through it they were checked."""
    assigned = {
        target.id
        for stmt in block
        if isinstance(stmt, ast.Assign | ast.AnnAssign)
        for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        if isinstance(target, ast.Name)
    }
    vetted: set[str] = set()
    for stmt in block:
        vetted |= _statement_guards(stmt, validators, aliases)
    return vetted & assigned


def guarded_names(
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    target: ast.AST,
    validators: Validators,
    aliases: dict[str, Checked],
) -> set[str]:
    """The names vetted by a guard that dominates ``target`` (a node inside ``func``)."""
    found: set[str] = set()
    for block, index, branch in _path_to(func, target):
        for stmt in block[:index]:
            found |= _statement_guards(stmt, validators, aliases)
        if branch is not None:
            owner, in_body = branch
            tests = checked(owner.test, validators, aliases)
            want = 1 if in_body else -1
            found |= {name for name, polarity in tests.items() if polarity == want}
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
