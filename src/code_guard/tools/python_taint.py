"""A small intra-function taint check: request data reaching a dangerous call.

Sources are web-request attributes (``request.args``, ``request.GET``...) and the parameters of
route handlers. Taint flows through assignments in the same function; a sanitiser call
(``int``, ``secure_filename``, ``shlex.quote``...) cleans it. A tainted value reaching a sink
(``cursor.execute``, ``os.system``, ``open``, ``requests.get``, ``redirect``...) is a hit whose
rule names the category, e.g. ``taint-sql_injection``. Deliberately simple: no inter-function
flow, so it misses some issues but rarely cries wolf.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from code_guard.tools.python_checker import Check, PythonChecker, dotted
from code_guard.tools.python_nodes import walk

_SOURCE_ATTRS = frozenset(
    {"args", "form", "values", "json", "data", "cookies", "headers", "files", "GET", "POST",
     "query_params", "path_params", "body", "get_json", "query", "params"}
)  # fmt: skip
_ROUTE_DECORATORS = frozenset({"route", "get", "post", "put", "patch", "delete", "api_view"})
_INJECTED_PARAMS = frozenset(
    {"self", "cls", "request", "req", "db", "session", "response", "background_tasks",
     "current_user", "user", "settings", "conn", "cursor"}
)  # fmt: skip
_SAFE_ANNOTATIONS = frozenset({"int", "float", "bool", "UUID", "uuid.UUID", "datetime", "date"})
_SANITIZERS = frozenset(
    {"int", "float", "bool", "len", "secure_filename", "shlex.quote", "quote", "escape",
     "html.escape", "markupsafe.escape", "bleach.clean", "os.path.basename", "basename",
     "urllib.parse.quote", "uuid.UUID", "UUID", "url_for"}
)  # fmt: skip

_SANITIZER_WORDS = ("safe", "sanitiz", "sanitis", "escape", "validate", "clean", "allowed")

# Sink call name (exact or final attribute) -> category, and whether only `shell=True` counts.
_SINKS: dict[str, str] = {
    "execute": "sql_injection", "executemany": "sql_injection", "raw": "sql_injection",
    "text": "sql_injection", "executescript": "sql_injection",
    "os.system": "command_injection", "os.popen": "command_injection",
    "eval": "code_injection", "exec": "code_injection",
    "open": "path_traversal", "send_file": "path_traversal", "FileResponse": "path_traversal",
    "os.remove": "path_traversal", "os.unlink": "path_traversal", "shutil.rmtree": "path_traversal",
    "requests.get": "ssrf", "requests.post": "ssrf", "requests.request": "ssrf",
    "httpx.get": "ssrf", "httpx.post": "ssrf", "urlopen": "ssrf", "urllib.request.urlopen": "ssrf",
    "redirect": "open_redirect", "RedirectResponse": "open_redirect",
    "HttpResponseRedirect": "open_redirect",
    # User input as a Jinja template is server-side template injection: code runs.
    "render_template_string": "code_injection", "Markup": "xss", "mark_safe": "xss",
    "make_response": "xss", "HttpResponse": "xss", "HTMLResponse": "xss",
}  # fmt: skip
_SHELL_SINKS = ("subprocess.run", "subprocess.call", "subprocess.Popen",
                "subprocess.check_output", "subprocess.check_call")  # fmt: skip
# Calls whose presence in a function shows the author validated a redirect or a path.
_GUARDS = {
    "open_redirect": ("url_has_allowed_host_and_scheme", "is_safe_url", "urlparse", "urlsplit"),
    "path_traversal": ("startswith", "is_relative_to", "safe_join", "commonpath"),
}


class PythonTaintTool(PythonChecker):
    """Flags request data flowing, within one function, into an injection-prone call."""

    name = "python-taint"

    def check(self, tree: ast.Module, path: str) -> Iterator[Check]:
        """Check every function; the rule names the category, e.g. ``taint-ssrf``."""
        for func in walk(tree):
            if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                for category, node, message in _function_hits(func):
                    yield f"taint-{category}", node, message


def _is_route(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if dotted(target).rsplit(".", 1)[-1] in _ROUTE_DECORATORS:
            return True
    return False


def _initial_taint(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    if not _is_route(func):
        return set()
    return {
        arg.arg
        for arg in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)
        if arg.arg not in _INJECTED_PARAMS
        and not (arg.annotation is not None and dotted(arg.annotation) in _SAFE_ANNOTATIONS)
    }


def _is_source(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in _SOURCE_ATTRS:
        return dotted(node.value).rsplit(".", 1)[-1] in ("request", "req", "self.request")
    return False


def is_sanitizer(call: ast.Call) -> bool:
    """Known sanitisers, and project helpers whose names say they sanitise (``_safe_join``)."""
    name = dotted(call.func)
    last = name.rsplit(".", 1)[-1].lower()
    return name in _SANITIZERS or any(word in last for word in _SANITIZER_WORDS)


def tainted(node: ast.AST, names: set[str]) -> bool:
    """True when ``node`` reads request data or a tainted name, outside any sanitiser."""
    if isinstance(node, ast.Call) and is_sanitizer(node):
        return False
    if _is_source(node) or (isinstance(node, ast.Name) and node.id in names):
        return True
    return any(tainted(child, names) for child in ast.iter_child_nodes(node))


# Where a tainted value came from: how to name it, and its line.
Origin = tuple[str, int]


def _propagate(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Origin]:
    """Tainted names, each with the origin of its taint (the first source that reached it)."""
    origins: dict[str, Origin] = {
        name: (f"route parameter `{name}`", func.lineno) for name in _initial_taint(func)
    }
    assigns = [n for n in walk(func) if isinstance(n, ast.Assign | ast.AnnAssign)]
    for _ in range(3):  # a few passes reach a fixed point for straight-line handler code
        for node in assigns:
            if node.value is not None and tainted(node.value, set(origins)):
                origin = origin_of(node.value, origins, node.lineno)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        origins.setdefault(target.id, origin)
    return origins


def _reads_source(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and is_sanitizer(node):
        return False
    return _is_source(node) or any(_reads_source(c) for c in ast.iter_child_nodes(node))


def origin_of(node: ast.AST, origins: dict[str, Origin], line: int) -> Origin:
    """The origin of the taint in ``node`` (on ``line``): request data read right there, or
    the origin of the tainted name it uses."""
    if _reads_source(node):
        text = ast.unparse(node)
        return f"`{text if len(text) <= 60 else text[:57] + '...'}`", line
    for child in walk(node):
        if isinstance(child, ast.Name) and child.id in origins:
            return origins[child.id]
    return "request data", line


def _sink_category(call: ast.Call) -> str | None:
    name = dotted(call.func)
    if name in _SHELL_SINKS:
        shell = any(
            k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in call.keywords
        )
        return "command_injection" if shell else None
    if name in _SINKS:
        return _SINKS[name]
    last = name.rsplit(".", 1)[-1]
    return _SINKS.get(last) if last in ("execute", "executemany", "raw", "executescript") else None


def _function_hits(
    func: ast.FunctionDef | ast.AsyncFunctionDef,
) -> Iterator[tuple[str, ast.Call, str]]:
    origins = _propagate(func)
    names = set(origins)
    called = {dotted(n.func).rsplit(".", 1)[-1] for n in walk(func) if isinstance(n, ast.Call)}
    for node in walk(func):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        category = _sink_category(node)
        if category is None or not tainted(node.args[0], names):
            continue
        if any(guard in called for guard in _GUARDS.get(category, ())):
            continue
        source, line = origin_of(node.args[0], origins, node.lineno)
        yield (
            category,
            node,
            f"{source} (line {line}) reaches `{dotted(node.func)}()` (line {node.lineno}): "
            f"{category.replace('_', ' ')}; validate or parameterise it first.",
        )
