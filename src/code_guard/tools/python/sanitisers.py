"""What each sanitiser neutralises, for the taint check: read from the security model of
Python (knowledge/security/python.yml), whose library calls Semgrep's rules take as well.

A call cleans a tainted value only for the categories this table gives it, by the call's
qualified name, resolved through the file's imports (``from html import escape`` makes
``escape(x)`` ``html.escape``). A name the file binds in any other way (a ``def``, a
lambda, an assignment) is not the library's: it is judged by its body (taint.py), never by
its name. The model's entries follow the reference models: CodeQL's Python sanitizers, Bandit and
the OWASP cheat sheets.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Mapping

from code_guard.knowledge.security.model import load_model
from code_guard.rewrites.python_parse import dotted
from code_guard.tools.python.nodes import walk

_MODEL = load_model("python")
CATEGORIES = frozenset(
    {"sql_injection", "command_injection", "code_injection", "path_traversal", "ssrf",
     "open_redirect", "xss"}
)  # fmt: skip

# Qualified name -> the categories its result is safe for: the library calls of the model's
# sanitisers (knowledge/security/python.yml, the list Semgrep's rules take too), each for the
# kinds the model says it neutralises. A number, a UUID or a boolean carries none of the
# characters any injection needs; an escape is safe only where its escaping is the one the
# sink parses (HTML escaping is no shell quoting, and a quoted URL still holds "/" and "..",
# so urllib's quote stops no traversal and no forged host).
SANITISERS: Mapping[str, frozenset[str]] = {
    call: _MODEL.expand(sanitiser.neutralises) & CATEGORIES
    for sanitiser in _MODEL.sanitisers
    for call in sanitiser.calls
}

# Library validators by qualified name, from the model's guards that name them (`slots`): the
# argument slots they vet when they return true, the slots that must hold the application's
# own values (the allowed hosts), and what they vet for.
VALIDATORS: Mapping[str, tuple[tuple[int | str, ...], tuple[int | str, ...], frozenset[str]]] = {
    guard.call(): (guard.slots, guard.trusted, _MODEL.expand(guard.proves) & CATEGORIES)
    for guard in _MODEL.guards
    if guard.slots
}
# Library checks that two URLs share scheme, host and port (the model's `same_origin` guards):
# true vets the one derived from the checked value (``request.build_absolute_uri(x)``: ``x``)
# when the other holds no request data but the application's own host.
SAME_ORIGIN: Mapping[str, frozenset[str]] = {
    guard.call(): _MODEL.expand(guard.proves) & CATEGORIES
    for guard in _MODEL.guards
    if guard.same_origin
}

# Escapes whose options choose what is left unescaped: trusted only with none given.
_ONE_ARGUMENT = frozenset(call for sanitiser in _MODEL.sanitisers for call in sanitiser.alone)
# Options that let dangerous markup through a sanitiser (bleach's allowed URL schemes).
_DISARMING: Mapping[str, frozenset[str]] = {
    call: frozenset(keywords)
    for sanitiser in _MODEL.sanitisers
    for call, keywords in sanitiser.disarming.items()
}
_MUTATORS = frozenset(
    {"add", "append", "extend", "update", "insert", "setdefault", "__setitem__", "__ior__"}
)

# Calls that undo an escape (the model's decoders): whatever reached them, sanitised or not,
# comes out raw.
DECODERS = frozenset(_MODEL.decoders)


class Names:
    """The qualified names a file's calls resolve to: its imports (local name -> module
    path), and which names it binds otherwise, so that a shadowed name is nobody's."""

    def __init__(self, tree: ast.AST) -> None:
        bindings: dict[str, set[str]] = {}
        counts: dict[str, int] = {}
        assigned: list[tuple[str, ast.expr]] = []
        made: list[tuple[str, str]] = []
        for node in walk(tree):
            for name, qualified in _bindings(node):
                bindings.setdefault(name, set()).add(qualified)
                counts[name] = counts.get(name, 0) + 1
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                if dotted(node.value) or getattr_name(node.value):
                    assigned.append((node.targets[0].id, node.value))
                elif isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
                    made.append((node.targets[0].id, node.value.func.id))
        # names the file binds once, anywhere: a function defined once is that function
        self.once = {name for name, count in counts.items() if count == 1}
        # module names bound once, and their values
        self.module_values: dict[str, ast.expr] = {
            stmt.targets[0].id: stmt.value
            for stmt in getattr(tree, "body", ())
            if isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in self.once
        }
        # names bound once, anywhere, to what a call of a bare name made (`client =
        # Client()`) -> that name: an instance, when it is one of the file's classes
        self.instances = {name: maker for name, maker in made if name in self.once}
        # the functions and modules assigned to a name anywhere, as values (`getter =
        # requests.get`, `run = getattr(os, "system")`): a call of the name may call any of
        # them (``resolved``), whatever else the name is bound to
        self.aliases: dict[str, list[ast.expr]] = {}
        for name, value in assigned:
            self.aliases.setdefault(name, []).append(value)
        # every import a name is bound by, whatever else binds it
        self.imports_of = {name: found - {""} for name, found in bindings.items() if found - {""}}
        # module names bound once, to a literal: immutable values no request can reach
        self.constants = {
            stmt.targets[0].id
            for stmt in getattr(tree, "body", ())
            if isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Constant)
            and stmt.targets[0].id in self.once
        }
        # a name bound once as an import (however often it is imported): the import's; one
        # also bound otherwise (imported, then redefined) is not known to be anything
        self.imported = {
            name: next(iter(found))
            for name, found in bindings.items()
            if found != {""}
            if len(found) == 1
        }
        self.shadowed = {name for name, found in bindings.items() if len(found) > 1}
        self.bound = set(bindings)
        # `from m import *` may bind any name, a builtin's too: no unbound name is known
        self.star = any(
            isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
            for n in walk(tree)
        )
        # names whose value the file changes in place: `ALLOWED.add(x)`, `ALLOWED[k] = v`
        self.mutated = {changed for node in walk(tree) if (changed := _mutated(node))}

    def qualified(self, call: ast.Call) -> str | None:
        """The qualified name of the function ``call`` calls, or None when the file binds
        its first name in a way that says nothing about what it is."""
        name = dotted(call.func)
        if not name or "()" in name:
            return None
        head, _, rest = name.partition(".")
        if head in self.shadowed:
            return None
        if head in self.imported:
            return f"{self.imported[head]}.{rest}" if rest else self.imported[head]
        if head in self.bound or self.star:
            return None  # a def, a lambda, an assignment, a parameter: not the library's
        return name if rest or hasattr(builtins, name) else None

    def resolved(self, func: ast.expr, depth: int = 0) -> frozenset[str]:
        """The qualified names of the functions or modules ``func`` may name: through the
        file's imports (``fetch`` of ``from requests import get as fetch``: ``requests.get``),
        every function or module assigned to its name anywhere in the file (``getter =
        requests.get``), and ``getattr`` of a literal name (``getattr(os, "system")``). A name
        bound several ways may be any of them: an author cannot hide a call behind a second
        binding of the name."""
        if depth > 8:
            return frozenset()  # a chain of aliases this long is not followed
        if isinstance(func, ast.Call):
            attribute = getattr_name(func) if "getattr" not in self.bound else ""
            owners = self.resolved(func.args[0], depth + 1) if attribute else frozenset()
            return frozenset(f"{owner}.{attribute}" for owner in owners)
        name = dotted(func)
        if not name or "()" in name:
            return frozenset()
        head, _, rest = name.partition(".")
        bases = set(self.imports_of.get(head, ()))
        for value in self.aliases.get(head, ()):
            bases |= self.resolved(value, depth + 1)
        if head not in self.bound and not self.star and (rest or hasattr(builtins, name)):
            bases.add(head)
        return frozenset(f"{base}.{rest}" if rest else base for base in bases)

    def cleans(self, call: ast.Call) -> frozenset[str]:
        """The categories the result of ``call`` is safe for (empty: not a sanitiser, or
        one given an option that turns its escaping off: ``html.escape(x, quote=False)``)."""
        name = self.qualified(call) or ""
        if name in _ONE_ARGUMENT and (len(call.args) != 1 or call.keywords):
            return frozenset()
        if any(k.arg in _DISARMING.get(name, ()) for k in call.keywords):
            return frozenset()
        return SANITISERS.get(name, frozenset())

    def decodes(self, call: ast.Call) -> bool:
        """Whether ``call`` undoes an escape (``html.unescape``, ``unquote``...)."""
        return (self.qualified(call) or "") in DECODERS


def _mutated(node: ast.AST) -> str | None:
    """The name ``node`` changes in place, if any."""
    target: ast.AST | None = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        target = node.func.value if node.func.attr in _MUTATORS else None
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        target = node.value
    elif isinstance(node, ast.AugAssign):
        target = node.target
    while isinstance(target, ast.Attribute | ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def getattr_name(node: ast.expr) -> str:
    """The attribute ``getattr(x, "name")`` reads ("name"), or "" for any other node."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) == 2
        and not node.keywords
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return node.args[1].value
    return ""


def _bindings(node: ast.AST) -> list[tuple[str, str]]:
    """The names ``node`` binds, each with its qualified name when it is an import."""
    if isinstance(node, ast.Import):
        # `import a.b` binds `a`, and calls spell `a.b.f()`
        return [
            (alias.asname, alias.name)
            if alias.asname
            else ((head := alias.name.split(".")[0]), head)
            for alias in node.names
        ]
    if isinstance(node, ast.ImportFrom):
        module = "." * node.level + (node.module or "")
        return [(a.asname or a.name, f"{module}.{a.name}") for a in node.names if a.name != "*"]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [(node.name, "")]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [(node.id, "")]
    if isinstance(node, ast.arg):
        return [(node.arg, "")]
    return []
