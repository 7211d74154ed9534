"""Guards for the taint check: the tests in a function that vet a value before it reaches a
sink, the categories each one proves the value safe for, and the statements they dominate.

A guard counts only when its result controls the path to the sink: the sink sits in the
branch where the check passed, or after an ``if`` whose failing branch returns, raises or
aborts (``flask.abort``, ``sys.exit``: the real ones, not a function of that name the file
defines), and nothing assigns the value between the check and the sink. A function called
as a statement of its own guards only when its body proves that it returns only for a vetted
value. An ``assert`` is no guard: ``python -O`` drops it.

Each check proves its value safe for some categories (CodeQL calls these barrier guards):

- an allow-list (``x in ALLOWED``, ``x == "literal"``; not a list the request chose): all;
- a host allow-list on the parsed URL (``urlparse(x).hostname in HOSTS``): forged hosts and
  redirects; a scheme check proves nothing;
- a containment check of a normalised path (``realpath(p).startswith(BASE + os.sep)``,
  ``resolve().is_relative_to(BASE)``, ``commonpath([BASE, realpath(p)]) == BASE``): traversal;
- a format check (``x.isdigit()``, ``isinstance(x, int)``, a regular expression matched in
  full): what the characters it admits cannot do (formats.py);
- a validator: one of the library's, by its qualified name (``url_has_allowed_host_and_scheme``),
  or a function of the file whose body proves it returns true only for a vetted value.

A test's operands combine as logic says: ``a or b`` passes only what both vet, ``a and b``
what either does; its failing side vets the names a false test proves (``if not x: return``
leaves a non-empty ``x``; ``x`` falsy is harmless).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from code_guard.tools.python.formats import (
    DIGIT_TESTS,
    NUMBER_TYPES,
    WORD_TESTS,
    digit_test,
    pattern_proves,
    word_test,
)
from code_guard.tools.python.nodes import walk
from code_guard.tools.python.sanitisers import CATEGORIES, VALIDATORS, Names

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

Kinds = frozenset[str]
Vetted = dict[str, Kinds]  # a name (or an expression's key) -> the categories it is safe for
Test = tuple[Vetted, Vetted]  # what a test vets when it is true, and when it is false
Function = ast.FunctionDef | ast.AsyncFunctionDef

_HOSTS = frozenset({"ssrf", "open_redirect"})
_PATH = frozenset({"path_traversal"})
_URL_HOST_PARTS = frozenset({"netloc", "hostname", "host"})
_URL_PARSERS = frozenset({"urllib.parse.urlparse", "urllib.parse.urlsplit"})
_NORMALISERS = frozenset(
    {"os.path.realpath", "os.path.abspath", "os.path.normpath", "posixpath.realpath",
     "posixpath.abspath", "posixpath.normpath"}
)  # fmt: skip
# Calls that end a request handler on the spot: what a failing guard branch does.
_TERMINATORS = frozenset(
    {"flask.abort", "werkzeug.exceptions.abort", "sys.exit", "os._exit", "exit", "quit"}
)
# Request attributes that name the application's own host, not a value the client chose.
_OWN_HOST = frozenset({"host", "host_url", "url_root", "get_host", "server_name"})
_SEPARATORS = ("/", "\\")


def key(node: ast.AST) -> str:
    """The key a checked value is vetted under: a name, or an expression's shape."""
    return node.id if isinstance(node, ast.Name) else "expr:" + ast.dump(node)


@dataclass
class Validators:
    """Functions of the file whose bodies prove they vet a parameter: ``truthy``, those that
    return a true value only for a vetted one; ``exits``, those that return at all only for
    a vetted one (they raise otherwise). Name -> parameter (position or name) -> categories."""

    truthy: dict[str, dict[int | str, Kinds]] = field(default_factory=dict)
    exits: dict[str, dict[int | str, Kinds]] = field(default_factory=dict)

    @classmethod
    def of(cls, tree: ast.Module, names: Names) -> Validators:
        """The validating functions defined (once) in ``tree``."""
        found = cls()
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


@dataclass
class Scope:
    """What the guards of one function are read with: the file's validators and imports,
    names bound once to a check (``ok = is_safe(x)``), the assignments of each name, and the
    names that hold request data (a list the request chose allows nothing)."""

    validators: Validators
    names: Names
    untrusted: set[str]
    assigned: dict[str, list[ast.AST]] = field(default_factory=dict)  # each binding of a name
    values: dict[str, ast.expr] = field(default_factory=dict)  # its value, if bound by `=`
    constant: set[int] = field(default_factory=set)  # bindings (by id) to a literal
    params: set[str] = field(default_factory=set)
    # names bound once to a check: the check, and the lines of the binding
    aliases: dict[str, tuple[Test, tuple[int, int]]] = field(default_factory=dict)
    loops: list[tuple[int, int]] = field(default_factory=list)  # the lines of each loop

    @classmethod
    def of(cls, func: Function, validators: Validators, names: Names, untrusted: set[str]) -> Scope:
        """The scope of ``func``."""
        scope = cls(validators, names, untrusted)
        scope.params = {a.arg for a in walk(func.args) if isinstance(a, ast.arg)}
        for node in walk(func):
            for stored in _stored(node):
                scope.assigned.setdefault(stored, []).append(node)
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                scope.values[node.targets[0].id] = node.value
                if isinstance(node.value, ast.Constant):
                    scope.constant.add(id(node.targets[0]))
        scope.loops = [
            (n.lineno, n.end_lineno or n.lineno)
            for n in walk(func)
            if isinstance(n, ast.For | ast.AsyncFor | ast.While)
        ]
        for node in walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and len(scope.assigned[target.id]) == 1:
                    found = test(node.value, scope)
                    if found[0] or found[1]:
                        lines = (node.lineno, node.end_lineno or node.lineno)
                        scope.aliases[target.id] = (found, lines)
        return scope

    def alias(self, name: ast.Name) -> Test | None:
        """The check ``name`` was bound to, if what it checked is unchanged where it is read:
        nothing it vetted is bound again after the check and before ``name``, nor anywhere
        in a loop that holds ``name`` and not the check (a later turn rebinds it)."""
        if name.id not in self.aliases:
            return None
        found, (start, end) = self.aliases[name.id]
        spans = [(end + 1, name.lineno)] + [
            (first, last)
            for first, last in self.loops
            if first <= name.lineno <= last and not first <= start <= last
        ]
        checked = {n for part in found for k in part for n in _names_in(k)}
        for other in checked:
            for binding in self.assigned.get(other, ()):
                line = getattr(binding, "lineno", 0)
                if any(first <= line <= last for first, last in spans):
                    return None
        return found

    def single(self, name: str) -> ast.expr | None:
        """The value of a name assigned exactly once (by ``=``), or None."""
        return self.values.get(name) if len(self.assigned.get(name, ())) == 1 else None

    def trusted(self, node: ast.AST) -> bool:
        """Whether ``node`` holds no request data: no tainted name, and of the request at
        most the application's own host."""
        for child in walk(node):
            if not isinstance(child, ast.Name):
                continue
            if child.id in self.untrusted:
                return False
            if child.id in ("request", "req") and not _own_host(child, node):
                return False
        return True


def _own_host(name: ast.Name, root: ast.AST) -> bool:
    """Whether ``name`` (``request``) is read in ``root`` only as ``request.host`` and kin."""
    return any(
        isinstance(n, ast.Attribute) and n.value is name and n.attr in _OWN_HOST for n in walk(root)
    )


def _names_in(name_key: str) -> list[str]:
    """The names a vetted key reads."""
    if not name_key.startswith("expr:"):
        return [name_key]
    return re.findall(r"Name\(id='(\w+)'", name_key)


def _stored(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [node.id]
    return []


def derived(func: Function, seeds: set[str]) -> set[str]:
    """``seeds`` and the names of ``func`` computed from them, however indirectly."""
    found = set(seeds)
    assigns = [n for n in walk(func) if isinstance(n, ast.Assign | ast.AnnAssign | ast.AugAssign)]
    for _ in range(len(assigns) + 1):
        grown = False
        for node in assigns:
            if node.value is None or not any(
                isinstance(n, ast.Name) and n.id in found for n in walk(node.value)
            ):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for n in walk(target):
                    if isinstance(n, ast.Name) and n.id not in found:
                        found.add(n.id)
                        grown = True
        if not grown:
            break
    return found


def _fixed_parameters(func: Function) -> dict[int | str, str]:
    """The parameters of ``func`` the body never rebinds (by position after self, and name)."""
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    out: dict[int | str, str] = dict(enumerate(positional))
    out.update({a.arg: a.arg for a in (*func.args.args, *func.args.kwonlyargs)})
    rebound = {n for node in walk(func) for n in _stored(node)}
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
        proofs.append(_union(guarded_names(func, ret, scope), test(ret.value, scope)[0]))
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


def _union(a: Vetted, b: Vetted) -> Vetted:
    out = dict(a)
    for name, kinds in b.items():
        out[name] = out.get(name, frozenset()) | kinds
    return out


def _meet(a: Vetted, b: Vetted) -> Vetted:
    return {n: k for n in a.keys() & b.keys() if (k := a[n] & b[n])}


def test(node: ast.AST, scope: Scope) -> Test:
    """What ``node``, as a condition, vets when it is true and when it is false."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        true, false = test(node.operand, scope)
        return false, true
    if isinstance(node, ast.BoolOp):
        parts = [test(value, scope) for value in node.values]
        trues, falses = [p[0] for p in parts], [p[1] for p in parts]
        if isinstance(node.op, ast.And):  # true: every operand held; false: one failed
            return _fold_with(_union, trues), _fold_with(_meet, falses)
        return _fold_with(_meet, trues), _fold_with(_union, falses)
    if isinstance(node, ast.Name):
        alias = scope.alias(node)
        if alias is not None:
            return alias
        return {}, {node.id: CATEGORIES}  # false: empty or None, harmless anywhere
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _compare(node, scope)
    if isinstance(node, ast.Call):
        return _call(node, scope), {}
    return {}, {}


def _fold_with(join: Callable[[Vetted, Vetted], Vetted], parts: list[Vetted]) -> Vetted:
    out = parts[0]
    for part in parts[1:]:
        out = join(out, part)
    return out


def _compare(node: ast.Compare, scope: Scope) -> Test:
    op, left, right = node.ops[0], node.left, node.comparators[0]
    vetted: Vetted = {}
    if isinstance(op, ast.In | ast.NotIn) and scope.trusted(right):
        vetted = _allowed(left, scope)
    elif isinstance(op, ast.Eq | ast.NotEq):
        for side, other in ((left, right), (right, left)):
            if _non_empty_constant(other, scope):
                vetted = _union(vetted, _allowed(side, scope))
            if isinstance(side, ast.Call):
                vetted = _union(vetted, _common_path(side, other, scope))
        if isinstance(right, ast.Constant) and right.value is True:
            vetted = _union(vetted, test(left, scope)[0])
    elif (
        isinstance(op, ast.Is | ast.IsNot)
        and isinstance(right, ast.Constant)
        and (right.value is None)
    ):
        # re.match(...) is not None: the match's own test; x is None: harmless
        found = test(left, scope)[0]
        if isinstance(left, ast.Name):
            return ({left.id: CATEGORIES}, found) if isinstance(op, ast.Is) else (found, {})
        return ({}, found) if isinstance(op, ast.Is) else (found, {})
    if isinstance(op, ast.NotIn | ast.NotEq):
        return {}, vetted
    return vetted, {}


def _non_empty_constant(node: ast.AST, scope: Scope) -> bool:
    """A trusted value other than "" and None (``netloc == ""`` lets ``/\\\\evil.com`` by)."""
    if isinstance(node, ast.Constant):
        return node.value not in ("", None)
    return scope.trusted(node) and not isinstance(node, ast.JoinedStr)


def _allowed(value: ast.AST, scope: Scope) -> Vetted:
    """What ``value`` being one of a trusted set of values vets: the value itself, or the
    URL whose host it is."""
    if isinstance(value, ast.Attribute) and value.attr in _URL_HOST_PARTS:
        url = _parsed_url(value.value, scope)
        return {key(url): _HOSTS, key(value.value): _HOSTS} if url is not None else {}
    if isinstance(value, ast.Name):
        return {value.id: CATEGORIES}
    return {}


def _parsed_url(node: ast.AST, scope: Scope) -> ast.AST | None:
    """The value a URL parser was given, for ``urlparse(x)`` or a name bound once to it."""
    if isinstance(node, ast.Name):
        value = scope.single(node.id)
        return _parsed_url(value, scope) if value is not None else None
    if isinstance(node, ast.Call) and node.args and scope.names.qualified(node) in _URL_PARSERS:
        return node.args[0]
    return None


def _normalised(node: ast.AST, scope: Scope) -> ast.AST | None:
    """The path a normalising call was given (``realpath(p)``, ``Path(p).resolve()``), for
    the call or a name bound once to it: ``..`` is gone from its result."""
    if isinstance(node, ast.Name):
        value = scope.single(node.id)
        return _normalised(value, scope) if value is not None else None
    if not isinstance(node, ast.Call):
        return None
    if node.args and scope.names.qualified(node) in _NORMALISERS:
        return node.args[0]
    if isinstance(node.func, ast.Attribute) and node.func.attr == "resolve" and not node.args:
        return node.func.value
    return None


def _contained(path: ast.AST, scope: Scope) -> Vetted:
    """What a containment check on ``path`` vets: the normalised path and what it was made
    from; nothing for a path that was not normalised (``BASE/../..`` starts with ``BASE``)."""
    inner = _normalised(path, scope)
    if inner is None:
        return {}
    return {key(path): _PATH, key(inner): _PATH}


def _common_path(call: ast.Call, other: ast.AST, scope: Scope) -> Vetted:
    """``os.path.commonpath([BASE, realpath(p)]) == BASE``: ``p`` is inside ``BASE``."""
    if scope.names.qualified(call) != "os.path.commonpath" or not scope.trusted(other):
        return {}
    if len(call.args) != 1 or not isinstance(call.args[0], ast.List | ast.Tuple):
        return {}
    items = call.args[0].elts
    if len(items) != 2 or not any(ast.dump(i) == ast.dump(other) for i in items):
        return {}
    return _union(*(_contained(i, scope) for i in items))


def _call(call: ast.Call, scope: Scope) -> Vetted:
    """What a call vets when it returns true."""
    func = call.func
    qualified = scope.names.qualified(call) or ""
    if qualified in VALIDATORS:
        slots, trusted, kinds = VALIDATORS[qualified]
        # the allowed hosts must be the application's, not the request's
        given = _arguments(call, dict.fromkeys(trusted, CATEGORIES))
        if any(not scope.trusted(_value(call, k)) for k in given):
            return {}
        return _arguments(call, dict.fromkeys(slots, kinds))
    if qualified == "bool" and len(call.args) == 1:
        return test(call.args[0], scope)[0]
    if isinstance(func, ast.Name) and func.id in scope.validators.truthy:
        return _arguments(call, scope.validators.truthy[func.id])
    if qualified == "isinstance" and len(call.args) == 2:
        return _isinstance(call, scope)
    if qualified in ("re.fullmatch", "re.match") and len(call.args) >= 2:
        proves = _pattern(call.args[0], qualified == "re.fullmatch", scope)
        return {key(call.args[1]): proves} if proves else {}
    if not isinstance(func, ast.Attribute):
        return {}
    receiver = func.value
    if func.attr in DIGIT_TESTS | WORD_TESTS and not call.args:
        return {key(receiver): digit_test() if func.attr in DIGIT_TESTS else word_test()}
    if func.attr in ("startswith", "is_relative_to") and len(call.args) == 1:
        return _prefix(func.attr, receiver, call.args[0], scope)
    if func.attr in ("fullmatch", "match") and call.args:
        proves = _compiled(receiver, func.attr == "fullmatch", scope)
        return {key(call.args[0]): proves} if proves else {}
    return {}


def _arguments(call: ast.Call, slots: dict[int | str, Kinds]) -> Vetted:
    """The arguments of ``call`` in the vetted ``slots``, by position or keyword."""
    out: Vetted = {}
    passed: list[tuple[int | str, ast.AST]] = list(enumerate(call.args))
    passed += [(k.arg, k.value) for k in call.keywords if k.arg]
    for slot, value in passed:
        if slot in slots and not isinstance(value, ast.Starred):
            out = _union(out, {key(value): slots[slot]})
    return out


def _value(call: ast.Call, name_key: str) -> ast.AST:
    """The argument of ``call`` vetted under ``name_key``."""
    for value in (*call.args, *(k.value for k in call.keywords)):
        if key(value) == name_key:
            return value
    return call


def _isinstance(call: ast.Call, scope: Scope) -> Vetted:
    kinds = call.args[1]
    types = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    if all(_qualified_name(t, scope) in NUMBER_TYPES for t in types):
        return {key(call.args[0]): CATEGORIES}
    return {}


def _qualified_name(node: ast.expr, scope: Scope) -> str:
    return scope.names.qualified(ast.Call(func=node, args=[], keywords=[])) or ""


def _prefix(method: str, receiver: ast.AST, prefix: ast.AST, scope: Scope) -> Vetted:
    """``realpath(p).startswith(BASE + os.sep)``, ``p.resolve().is_relative_to(BASE)``; and
    for a URL, ``url.startswith("https://api.example.com/")``: its host is that one."""
    if not scope.trusted(prefix):
        return {}
    if method == "startswith" and _url_with_host(prefix):
        return {key(receiver): _HOSTS}
    if method == "startswith" and not _ends_with_separator(prefix, scope):
        return {}  # BASE alone lets BASE + "_private" by
    return _contained(receiver, scope)


def _url_with_host(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    scheme, sep, rest = node.value.partition("://")
    return bool(sep and scheme.isalpha() and "/" in rest and rest.index("/") > 0)


def _ends_with_separator(node: ast.AST, scope: Scope) -> bool:
    """Whether ``node`` ends with a path separator: ``"/srv/"``, ``BASE + os.sep``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.endswith(_SEPARATORS) and (
            node.value not in _SEPARATORS
        )  # fmt: skip
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        last = node.right
        sep = _qualified_name(last, scope) in ("os.sep", "os.path.sep")
        return sep or (isinstance(last, ast.Constant) and last.value in _SEPARATORS)
    if isinstance(node, ast.Name):
        value = scope.single(node.id)
        return value is not None and _ends_with_separator(value, scope)
    return False


def _pattern(node: ast.AST, full: bool, scope: Scope) -> Kinds:
    """What a value matched by the pattern ``node`` is safe for; a pattern that is no
    literal of the file proves nothing."""
    text = _literal(node, scope)
    if text is None:
        return frozenset()
    if not full and not text.endswith(("$", "\\Z")):
        return frozenset()  # re.match only anchors the start
    return pattern_proves(text)


def _compiled(node: ast.AST, full: bool, scope: Scope) -> Kinds:
    """``PATTERN.fullmatch(x)``, PATTERN bound once in the file to ``re.compile(literal)``."""
    if not isinstance(node, ast.Name):
        return frozenset()
    value = scope.single(node.id) or scope.names.module_values.get(node.id)
    if not isinstance(value, ast.Call) or scope.names.qualified(value) != "re.compile":
        return frozenset()
    return _pattern(value.args[0], full, scope) if value.args else frozenset()


def _literal(node: ast.AST, scope: Scope) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        value = scope.single(node.id) or scope.names.module_values.get(node.id)
        return _literal(value, scope) if value is not None else None
    return None


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
        if isinstance(call.func, ast.Name) and call.func.id in scope.validators.exits:
            return _arguments(call, scope.validators.exits[call.func.id])
    return {}


def _branch_guards(stmt: ast.If, scope: Scope) -> Vetted:
    """Names an ``if`` assigns and vets in its branches, when nothing else in the function
    gives them more than a literal: on a path through a branch they were checked, on a path
    around it they hold a literal (``name = ""`` / ``if "name" in args: name = ...; check``)."""
    out: Vetted = {}
    branches = [_fold(stmt.body, scope), _fold(stmt.orelse, scope)]
    stored = [{n for s in block for node in walk(s) for n in _stored(node)} for block in
              (stmt.body, stmt.orelse)]  # fmt: skip
    for name in stored[0] | stored[1]:
        if name in scope.params or not all(
            id(node) in scope.constant or _within(node, stmt)
            for node in scope.assigned.get(name, ())
        ):
            continue
        kinds = CATEGORIES
        for vetted, assigned in zip(branches, stored, strict=True):
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
        vetted = _union(vetted, _statement_guards(stmt, scope))
    return vetted


def _killed(vetted: Vetted, stmt: ast.AST) -> Vetted:
    """``vetted`` without the names ``stmt`` assigns (and the expressions that read them)."""
    stored = {n for node in walk(stmt) for n in _stored(node)}
    if not stored:
        return vetted
    return {k: v for k, v in vetted.items() if not _mentions(k, stored)}


def _mentions(name_key: str, names: set[str]) -> bool:
    return any(n in names for n in _names_in(name_key))


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
            found = _union(found, true if in_body else false)
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
