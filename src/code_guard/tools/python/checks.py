"""What a condition vets, for the taint check's guards: the values a test proves safe when it
is true and when it is false, and for which categories (CodeQL calls these barrier guards).

- an allow-list (``x in ALLOWED``, ``x == "literal"``; not a list the request chose): all;
- a host allow-list on the parsed URL (``urlparse(x).hostname in HOSTS``): forged hosts and
  redirects; a scheme check proves nothing;
- a containment check of a normalised path (``realpath(p).startswith(BASE + os.sep)``,
  ``resolve().is_relative_to(BASE)``, ``commonpath([BASE, realpath(p)]) == BASE``): traversal;
- a format check (``x.isdigit()``, ``isinstance(x, int)``, a regular expression matched in
  full): what the characters it admits cannot do (formats.py);
- a validator: one of the library's, by its qualified name (``url_has_allowed_host_and_scheme``),
  or a function of the file whose body proves it returns true only for a vetted value
  (guards.py).

A test's operands combine as logic says: ``a or b`` passes only what both vet, ``a and b``
what either does; its failing side vets the names a false test proves (``if not x: return``
leaves a non-empty ``x``; ``x`` falsy is harmless).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from code_guard.tools.python.formats import (
    DIGIT_TESTS,
    NUMBER_TYPES,
    WORD_TESTS,
    digit_test,
    pattern_proves,
    word_test,
)
from code_guard.tools.python.nodes import walk
from code_guard.tools.python.sanitisers import CATEGORIES, SAME_ORIGIN, VALIDATORS, Names

if TYPE_CHECKING:
    from code_guard.tools.python.guards import Validators

Kinds = frozenset[str]
Vetted = dict[str, Kinds]  # a name (or an expression's key) -> the categories it is safe for
Test = tuple[Vetted, Vetted]  # what a test vets when it is true, and when it is false
Function = ast.FunctionDef | ast.AsyncFunctionDef

_HOSTS = frozenset({"ssrf", "open_redirect"})
_PATH = frozenset({"path_traversal"})
_URL_HOST_PARTS = frozenset({"netloc", "hostname", "host"})
_SERVER_HOSTS = frozenset({"ssrf"})
_URL_PARSERS = frozenset({"urllib.parse.urlparse", "urllib.parse.urlsplit"})
_NORMALISERS = frozenset(
    {"os.path.realpath", "os.path.abspath", "os.path.normpath", "posixpath.realpath",
     "posixpath.abspath", "posixpath.normpath"}
)  # fmt: skip
# Request attributes that name the application's own host, not a value the client chose.
_OWN_HOST = frozenset({"host", "host_url", "url_root", "get_host", "server_name"})
_SEPARATORS = ("/", "\\")
_LITERAL_WRAPPERS = frozenset({"set", "frozenset", "tuple", "list"})


@dataclass(frozen=True)
class _Mark:
    """Punctuation in an expression's key, apart from any value the expression holds."""

    text: str


def key(node: ast.AST) -> str:
    """The key a checked value is vetted under: a name, or an expression's shape (written out
    from a list, not by recursion: an expression may be thousands of levels deep)."""
    if isinstance(node, ast.Name):
        return node.id
    parts: list[str] = []
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, _Mark):
            parts.append(item.text)
        elif isinstance(item, ast.Name):
            parts.append(f"Name(id={item.id!r})")
        elif isinstance(item, ast.AST):
            parts.append(type(item).__name__ + "(")
            stack.append(_Mark(")"))
            for name in reversed(item._fields):
                if name != "ctx":
                    stack.extend((getattr(item, name, None), _Mark(f"{name}=")))
        elif isinstance(item, list):
            parts.append("[")
            stack.append(_Mark("]"))
            stack.extend(reversed(item))
        else:
            parts.append(repr(item) + ",")
    return "expr:" + "".join(parts)


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
            for name in stored(node):
                scope.assigned.setdefault(name, []).append(node)
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
        checked = {n for part in found for k in part for n in names_in(k)}
        for other in checked:
            for binding in self.assigned.get(other, ()):
                line = getattr(binding, "lineno", 0)
                if any(first <= line <= last for first, last in spans):
                    return None
        return found

    def resolved(self, node: ast.AST, module: bool = False) -> ast.AST:
        """``node``, or for a name bound once (in the function, or ``module``-level too) the
        value it was bound to, followed through such names (not round a cycle)."""
        seen: set[str] = set()
        while isinstance(node, ast.Name) and node.id not in seen:
            seen.add(node.id)
            value = self.single(node.id)
            if value is None and module and node.id not in self.assigned:
                value = self.names.module_values.get(node.id)
            if value is None:
                break
            node = value
        return node

    def single(self, name: str) -> ast.expr | None:
        """The value of a name assigned exactly once (by ``=``), or None."""
        return self.values.get(name) if len(self.assigned.get(name, ())) == 1 else None

    def trusted(self, node: ast.AST, seen: frozenset[str] = frozenset()) -> bool:
        """Whether ``node`` holds no request data: no tainted name, of the request at most
        the application's own host, and a name of the function only when it is bound once,
        by ``=``, to such a value (``host = urlparse(request.host_url)``; not one bound to
        ``request.args``, nor one bound twice)."""
        for child in walk(node):
            if not isinstance(child, ast.Name):
                continue
            if child.id in self.untrusted or child.id in seen:
                return False
            if child.id in ("request", "req") and not _own_host(child, node):
                return False
            if child.id in self.assigned and child.id not in self.params:
                value = self.single(child.id)
                if value is None or not self.trusted(value, seen | {child.id}):
                    return False
        return True

    def allow_list(self, node: ast.AST) -> bool:
        """Whether ``node`` is a list of values the application fixed: literals (``{"a",
        "b"}``, ``frozenset(("a",))``), a name bound to such a literal and never changed in
        the file, or the application's configuration (an imported name, ``settings.HOSTS``);
        not a list built at run time (a folder's files, rows: what users can add to)."""
        if not self.trusted(node) or isinstance(node, ast.Constant | ast.JoinedStr):
            return False  # request data, or a string: `x in "abc"` admits any substring
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            return all(isinstance(e, ast.Constant) for e in node.elts)
        if isinstance(node, ast.Dict):
            return all(isinstance(k, ast.Constant) for k in node.keys)
        if isinstance(node, ast.Call):
            literal = self.names.qualified(node) in _LITERAL_WRAPPERS and len(node.args) == 1
            return literal and not node.keywords and self.allow_list(node.args[0])
        root = node
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if not isinstance(root, ast.Name) or root.id in self.names.mutated:
            return False
        if root.id in self.assigned:  # a name of the function: only a literal
            value = self.single(root.id)
            return root is node and value is not None and self.allow_list(value)
        value = self.names.module_values.get(root.id)
        if value is not None and root is node:
            return self.allow_list(value)
        return root.id in self.names.imported or value is not None


def _own_host(name: ast.Name, root: ast.AST) -> bool:
    """Whether ``name`` (``request``) is read in ``root`` only as ``request.host`` and kin."""
    return any(
        isinstance(n, ast.Attribute) and n.value is name and n.attr in _OWN_HOST for n in walk(root)
    )


def names_in(name_key: str) -> list[str]:
    """The names a vetted key reads."""
    if not name_key.startswith("expr:"):
        return [name_key]
    return re.findall(r"Name\(id='(\w+)'", name_key)


def stored(node: ast.AST) -> list[str]:
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


def union(a: Vetted, b: Vetted) -> Vetted:
    out = dict(a)
    for name, kinds in b.items():
        out[name] = out.get(name, frozenset()) | kinds
    return out


def meet(a: Vetted, b: Vetted) -> Vetted:
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
            return _fold_with(union, trues), _fold_with(meet, falses)
        return _fold_with(meet, trues), _fold_with(union, falses)
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
    if isinstance(op, ast.In | ast.NotIn) and scope.allow_list(right):
        vetted = _allowed(left, scope)
    elif isinstance(op, ast.Eq | ast.NotEq):
        for side, other in ((left, right), (right, left)):
            if _non_empty_constant(other, scope):
                vetted = union(vetted, _allowed(side, scope))
            if isinstance(side, ast.Call):
                vetted = union(vetted, _common_path(side, other, scope))
        if isinstance(right, ast.Constant) and right.value is True:
            vetted = union(vetted, test(left, scope)[0])
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
        # Only the whole netloc proves a redirect's host: Python takes the host of
        # `https://evil.example\\@good.example` after the `@`, a browser before the `\\`.
        # A server-side client parses as Python does, so the host proves an SSRF target.
        kinds = _HOSTS if value.attr == "netloc" else _SERVER_HOSTS
        return {key(url): kinds, key(value.value): kinds} if url is not None else {}
    if isinstance(value, ast.Name):
        return {value.id: CATEGORIES}
    return {}


def _parsed_url(node: ast.AST, scope: Scope) -> ast.AST | None:
    """The value a URL parser was given, for ``urlparse(x)`` or a name bound once to it
    (``urlparse(urljoin(BASE, x))``: the joined URL, not ``x``; ``joined_target``)."""
    node = scope.resolved(node)
    if isinstance(node, ast.Call) and node.args and scope.names.qualified(node) in _URL_PARSERS:
        return joined_target(node.args[0], scope)
    return None


def joined_target(node: ast.AST, scope: Scope) -> ast.AST:
    """The value whose host a check of ``node``'s host proves: ``node`` itself. A URL joined
    to the application's own (``urljoin(BASE, x)``, ``request.build_absolute_uri(x)``)
    proves nothing about ``x``: Python's parser keeps ``\\`` in the path, so
    ``urljoin(BASE, "/\\evil.example")`` has the application's host, while a browser sent
    ``/\\evil.example`` reads it as ``//evil.example`` and leaves (Werkzeug sends a
    redirect's location as given since 2.1; Django too)."""
    return node


def own_url(node: ast.AST, scope: Scope) -> bool | None:
    """True for the URL of the request itself (``request.build_absolute_uri()``), whose
    host is the application's own; False for ``request.build_absolute_uri(x)``; else None."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "build_absolute_uri"):
        return None
    if not (isinstance(func.value, ast.Name) and func.value.id in ("request", "req")):
        return None
    if func.value.id in scope.assigned:
        return None  # a `request` the function made itself
    return not node.args


def _normalised(node: ast.AST, scope: Scope) -> ast.AST | None:
    """The path a normalising call was given (``realpath(p)``, ``Path(p).resolve()``), for
    the call or a name bound once to it: ``..`` is gone from its result."""
    node = scope.resolved(node)
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
    return union(*(_contained(i, scope) for i in items))


def _call(call: ast.Call, scope: Scope) -> Vetted:
    """What a call vets when it returns true."""
    func = call.func
    qualified = scope.names.qualified(call) or ""
    if qualified in VALIDATORS:
        slots, trusted, kinds = VALIDATORS[qualified]
        # the allowed hosts must be the application's, not the request's
        given = arguments(call, dict.fromkeys(trusted, CATEGORIES))
        if any(not scope.trusted(_value(call, k)) for k in given):
            return {}
        return arguments(call, dict.fromkeys(slots, kinds))
    if qualified in SAME_ORIGIN:
        return _same_origin(call, SAME_ORIGIN[qualified], scope)
    if qualified == "bool" and len(call.args) == 1:
        return test(call.args[0], scope)[0]
    name = validator_name(call)
    if name in scope.validators.truthy:
        return arguments(call, scope.validators.truthy[name])
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


def _same_origin(call: ast.Call, kinds: Kinds, scope: Scope) -> Vetted:
    """``same_origin(request.build_absolute_uri(x), request.build_absolute_uri())``: ``x``
    names the application's own origin, or none. One URL must be the application's own,
    the other not: two URLs of the request's choosing may share any origin."""
    if len(call.args) != 2 or call.keywords:
        return {}
    out: Vetted = {}
    first, second = call.args
    for checked, other in ((first, second), (second, first)):
        if _own(other, scope) and not _own(checked, scope):
            target = joined_target(checked, scope)
            out = union(out, {key(checked): kinds, key(target): kinds})
    return out


def _own(node: ast.AST, scope: Scope) -> bool:
    """Whether the URL ``node`` is the application's own: no request data in it."""
    return own_url(scope.resolved(node), scope) is True or scope.trusted(node)


def validator_name(call: ast.Call) -> str:
    """The name a validator of the change is known by where ``call`` calls it: ``f`` for
    ``f(x)``, ``m.f`` for ``m.f(x)`` (a module of the change imported as ``m``)."""
    parts: list[str] = []
    node: ast.AST = call.func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])


def arguments(call: ast.Call, slots: dict[int | str, Kinds]) -> Vetted:
    """The arguments of ``call`` in the vetted ``slots``, by position or keyword."""
    out: Vetted = {}
    passed: list[tuple[int | str, ast.AST]] = list(enumerate(call.args))
    passed += [(k.arg, k.value) for k in call.keywords if k.arg]
    for slot, value in passed:
        if slot in slots and not isinstance(value, ast.Starred):
            out = union(out, {key(value): slots[slot]})
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
    resolved = scope.resolved(node)
    return resolved is not node and _ends_with_separator(resolved, scope)


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
    value = scope.resolved(node, module=True)
    if not isinstance(value, ast.Call) or scope.names.qualified(value) != "re.compile":
        return frozenset()
    return _pattern(value.args[0], full, scope) if value.args else frozenset()


def _literal(node: ast.AST, scope: Scope) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    resolved = scope.resolved(node, module=True)
    if resolved is not node:
        return _literal(resolved, scope)
    return None
