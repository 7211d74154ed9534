"""What request data is, for the taint check: the request attributes that hold it, the
parameters a web framework fills from the URL, the functions of the change that return it,
and the facts of one file the check reads them from.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from code_guard.knowledge.security.model import load_model
from code_guard.rewrites.python_parse import dotted
from code_guard.tools.python.guards import Validators
from code_guard.tools.python.nodes import walk
from code_guard.tools.python.sanitisers import Names, getattr_name

_MODEL = load_model("python")
# The model's sources (knowledge/security/python.yml), the list Semgrep's rules start from
# too: the request attributes that hold what the client sent, on any receiver whose last name
# is one of the model's (``self.request.args`` as well as ``request.args``); the calls and
# subscripts that return it; and the parameters of handlers that receive it.
SOURCE_ATTRS = frozenset(a for s in _MODEL.sources for a in s.attributes)
_RECEIVERS = frozenset(r.rsplit(".", 1)[-1] for s in _MODEL.sources for r in s.receivers)
_SOURCE_CALLS = frozenset(c for s in _MODEL.sources for c in s.calls)
_SOURCE_SUBSCRIPTS = frozenset(c for s in _MODEL.sources for c in s.subscripts)
_HANDLERS = frozenset(s.parameters for s in _MODEL.sources if s.parameters)
_ROUTE_DECORATORS = frozenset({"route", "get", "post", "put", "patch", "delete", "api_view"})
_HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
_INJECTED_PARAMS = frozenset(
    {"self", "cls", "request", "req", "db", "session", "response", "background_tasks",
     "current_user", "user", "settings", "conn", "cursor"}
)  # fmt: skip
_SAFE_ANNOTATIONS = frozenset({"int", "float", "bool", "UUID", "uuid.UUID", "datetime", "date"})
# Sink call name (exact or final attribute) -> category, and whether only `shell=True` counts.

Function = ast.FunctionDef | ast.AsyncFunctionDef
# The categories a tainted value is still dangerous for (empty: it came from request data,
# and every category it could reach was neutralised on the way).
Kinds = frozenset[str]
# Where a parameter ends: category, the sink's name, its line, and its file ("": this one).
Sink = tuple[str, str, int, str]


@dataclass
class FileFacts:
    """What the functions of one file tell the others: validators, functions that return
    request data, and the parameters that reach a sink inside a function."""

    validators: Validators
    names: Names
    django_views: bool = False
    path: str = ""
    # the HTTP-verb methods of Tornado handlers, whose parameters are the URL's captures
    handlers: set[int] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    # function name -> parameter position (or name) -> the sink it reaches
    sinks: dict[str, dict[int | str, Sink]] = field(default_factory=dict)
    # the names in ``sinks`` and ``sources`` that call a function of another file (as calls
    # spell them: ``helper``, ``m.helper``) -> the file the function is defined in
    where: dict[str, str] = field(default_factory=dict)
    # whether ``sinks`` summarises every function (False: skipped, nothing read request data)
    full: bool = False
    # whether request data can enter each function (by id), once the sources are known
    reading: dict[int, bool] = field(default_factory=dict)
    # the file's own functions a call may name, and what each one's result is proved safe for
    defs: dict[str, Function] = field(default_factory=dict)
    cleans: dict[tuple[str, str], Kinds] = field(default_factory=dict)
    # the functions of the change's other files a call may name (``f``, ``m.f``, imports
    # the file never rebinds) -> the facts of their file and their name there
    foreign: dict[str, tuple[FileFacts, str]] = field(default_factory=dict)
    # the ``Class().method`` keys each method of the file's classes (defined once, at the top
    # level) is summarised under as well as its name, by the method's id; and every such key
    keys: dict[int, tuple[str, ...]] = field(default_factory=dict)
    methods: frozenset[str] = frozenset()

    def keys_of(self, func: Function) -> tuple[str, ...]:
        """The keys ``func``'s summary is filed under: its name, and for a method of one of
        the file's classes, ``Class().method`` of its class and of the classes taking it
        from it (callables.py)."""
        return (func.name, *self.keys.get(id(func), ()))


def handler_methods(tree: ast.Module) -> set[int]:
    """The ``get``/``post``/... methods of classes built on Tornado's ``RequestHandler``."""
    found: set[int] = set()
    for node in walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            dotted(base).rsplit(".", 1)[-1] == "RequestHandler" for base in node.bases
        ):
            found.update(
                id(item)
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and item.name in _HTTP_VERBS
            )
    return found


def _is_route(func: Function) -> bool:
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if dotted(target).rsplit(".", 1)[-1] in _ROUTE_DECORATORS:
            return True
    return False


def initial_taint(func: Function, facts: FileFacts) -> set[str]:
    args = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    if tuple(a.arg for a in args) in _HANDLERS:  # a Lambda handler's event
        return {args[0].arg}
    # a Django view: view(request, slug) gets the URL's parameters after the request
    view = facts.django_views and bool(args) and args[0].arg == "request"
    if not (_is_route(func) or view or id(func) in facts.handlers):
        return set()
    return {
        arg.arg
        for arg in args
        if arg.arg not in _INJECTED_PARAMS
        and not (arg.annotation is not None and dotted(arg.annotation) in _SAFE_ANNOTATIONS)
    }


def is_source(node: ast.AST, facts: FileFacts | None) -> bool:
    """Whether ``node`` reads request data: a request attribute (``request.args``, also of
    the request under another name the file's imports or assignments give it, ``from flask
    import request as rq``), a source call or subscript of the model, or a call of a
    function of the file that returns request data."""
    if isinstance(node, ast.Attribute) and node.attr in SOURCE_ATTRS:
        return _is_request(node.value, facts)
    if isinstance(node, ast.Call) and getattr_name(node) in SOURCE_ATTRS:
        # getattr(request, "args"): the attribute by its literal name
        return _is_request(node.args[0], facts) and (
            facts is None or "getattr" not in facts.names.bound
        )
    if isinstance(node, ast.Call) and dotted(node.func) in _SOURCE_CALLS:
        return True
    if isinstance(node, ast.Subscript) and dotted(node.value) in _SOURCE_SUBSCRIPTS:
        return True
    if facts is not None and facts.sources and isinstance(node, ast.Call):
        return callee_name(node, facts) in facts.sources
    return False


def _is_request(node: ast.expr, facts: FileFacts | None) -> bool:
    """Whether ``node`` is the request: by its name as written, or by a name the file's
    imports or assignments give it (``from flask import request as rq``)."""
    if dotted(node).rsplit(".", 1)[-1] in _RECEIVERS:
        return True
    return facts is not None and any(
        name.rsplit(".", 1)[-1] in _RECEIVERS for name in facts.names.resolved(node)
    )


def callee_name(call: ast.Call, facts: FileFacts) -> str | None:
    """The name under which ``facts`` may summarise the function ``call`` reaches: a
    same-file function or method (``f()``, ``self.f()``), a method of a class of the file on
    an instance of it (``Client().fetch``), or one imported from another file of the change
    (``f()``, ``m.f()``; not ``self.f()``)."""
    name = local_callee(call) or _method_of_own_class(call, facts)
    if not facts.where:
        return name
    if name is not None:
        return None if name in facts.where and not isinstance(call.func, ast.Name) else name
    text = dotted(call.func)
    return text if text in facts.where else None


def _method_of_own_class(call: ast.Call, facts: FileFacts) -> str | None:
    """The key (``Client().fetch``) of the method a call reaches on an instance of a class of
    the file, where the receiver's class is known: made there (``Client().fetch(url)``) or a
    name bound once, anywhere in the file, to one made (``client = Client()``, then
    ``client.fetch(url)``), and the class or a base of the file binds the method."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name):
        made = facts.names.instances.get(receiver.id)
    elif isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name):
        made = receiver.func.id
    else:
        made = None
    # by the class and the method: another class's method of the same name is another key
    key = f"{made}().{func.attr}" if made is not None else ""
    return key if key in facts.methods else None


def local_callee(call: ast.Call) -> str | None:
    """The name of the same-file function or method a call may reach: ``f()``, ``self.f()``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr if func.value.id in ("self", "cls") else None
    return None
