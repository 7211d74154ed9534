"""Performance checks on Python's AST that linters lack: N+1 queries, blocking calls in
``async def``, and module-level caches that only ever grow."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from code_guard.rewrites.python_parse import dotted
from code_guard.tools.python.checker import Check, PythonChecker
from code_guard.tools.python.nodes import walk

# Calls that hit the database: ORM managers and query builders, DB-API cursors.
_QUERY_METHODS = frozenset(
    {"get", "filter", "exclude", "all", "first", "last", "count", "exists", "create",
     "get_or_create", "update_or_create", "aggregate", "values", "values_list", "filter_by",
     "one", "one_or_none", "scalar", "scalars", "execute", "executemany", "fetchone",
     "fetchall", "fetchmany", "query", "find", "find_one", "select"}
)  # fmt: skip
_QUERY_RECEIVERS = frozenset({"objects", "query", "session", "cursor", "cur", "db", "conn"})

_BLOCKING_CALLS = frozenset(
    {"time.sleep", "requests.get", "requests.post", "requests.put", "requests.patch",
     "requests.delete", "requests.head", "requests.request", "urllib.request.urlopen",
     "urlopen", "subprocess.run", "subprocess.call", "subprocess.check_call",
     "subprocess.check_output", "subprocess.Popen", "os.system", "os.popen",
     "socket.create_connection", "sqlite3.connect", "psycopg2.connect", "pymysql.connect",
     "input", "open", "shutil.copyfile", "shutil.copy", "shutil.rmtree"}
)  # fmt: skip
_GROWING_METHODS = frozenset({"append", "add", "extend", "setdefault", "update", "insert"})
_SHRINKING_METHODS = frozenset({"pop", "popitem", "remove", "discard", "clear", "popleft"})


class PythonAstTool(PythonChecker):
    """N+1 queries, blocking calls in ``async def``, module-level caches that only grow, and
    linear scans of lists inside loops."""

    name = "python-ast"

    def check(self, tree: ast.Module, path: str) -> Iterator[Check]:
        """Run the performance checks."""
        yield from _n_plus_one(tree)
        yield from _blocking_in_async(tree)
        yield from _unbounded_caches(tree)
        yield from _linear_scans_in_loops(tree)


def _is_query_call(call: ast.Call) -> bool:
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in _QUERY_METHODS:
        return False
    chain = dotted(call.func.value).replace("()", "").split(".")
    return any(part in _QUERY_RECEIVERS for part in chain)


def _loop_bodies(tree: ast.AST) -> Iterator[ast.AST]:
    for node in walk(tree):
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            yield from node.body
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            yield node.elt
        elif isinstance(node, ast.DictComp):
            yield node.value


def _n_plus_one(tree: ast.Module) -> Iterator[Check]:
    seen: set[int] = set()
    for body in _loop_bodies(tree):
        for node in walk(body):
            if isinstance(node, ast.Call) and _is_query_call(node) and id(node) not in seen:
                # Nested loops walk the same call twice; report it once, at the innermost.
                seen.add(id(node))
                yield (
                    "n-plus-one",
                    node,
                    f"Database query `{dotted(node.func)}(...)` runs once per loop iteration "
                    "(N+1 queries); fetch in bulk before the loop (select_related, "
                    "prefetch_related, a join or an IN query).",
                )


def _blocking_in_async(tree: ast.Module) -> Iterator[Check]:
    for func in walk(tree):
        if not isinstance(func, ast.AsyncFunctionDef):
            continue
        awaited = {id(n.value) for n in walk(func) if isinstance(n, ast.Await)}
        for node in _own_nodes(func):
            if not isinstance(node, ast.Call) or id(node) in awaited:
                continue
            name = dotted(node.func)
            if name in _BLOCKING_CALLS or (_is_query_call(node) and ".objects." in f".{name}"):
                yield (
                    "blocking-in-async",
                    node,
                    f"`{name}(...)` blocks the event loop inside `async def {func.name}`; "
                    "use an async client or `await asyncio.to_thread(...)`.",
                )


def _own_nodes(func: ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """Walk a function's body without entering nested function definitions."""
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(
            child
            for child in ast.iter_child_nodes(node)
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        )


def _unbounded_caches(tree: ast.Module) -> Iterator[Check]:
    containers = {
        target.id: stmt
        for stmt in tree.body
        if isinstance(stmt, ast.Assign | ast.AnnAssign)
        and stmt.value is not None
        and _is_empty_container(stmt.value)
        for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        if isinstance(target, ast.Name)
    }
    if not containers:
        return
    grown: dict[str, ast.stmt | ast.expr] = {}
    shrunk: set[str] = set()
    for func in walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in walk(func):
            name, grows = _mutation(node)
            if name in containers:
                if grows:
                    grown.setdefault(name, node)  # type: ignore[arg-type]
                else:
                    shrunk.add(name)
    for name, node in grown.items():
        if name not in shrunk:
            yield (
                "unbounded-cache",
                node,
                f"Module-level `{name}` grows on every call and is never evicted: memory "
                "grows without bound in a long-running process; bound it (LRU, TTL) or scope it.",
            )


def _is_empty_container(value: ast.expr) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set):
        return not getattr(value, "keys", None) and not getattr(value, "elts", None)
    return (
        isinstance(value, ast.Call)
        and dotted(value.func)
        in (
            "dict",
            "list",
            "set",
            "collections.defaultdict",
            "defaultdict",
            "collections.OrderedDict",
            "OrderedDict",
        )
        and not value.args[1:]
    )


def _mutation(node: ast.AST) -> tuple[str, bool]:
    """Return (container name, grows?) for a mutation of a plain name, else ('', False)."""
    if isinstance(node, ast.Assign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                return target.value.id, True
    if isinstance(node, ast.Delete):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                return target.value.id, False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        receiver = node.func.value
        if isinstance(receiver, ast.Name):
            if node.func.attr in _GROWING_METHODS:
                return receiver.id, True
            if node.func.attr in _SHRINKING_METHODS:
                return receiver.id, False
    return "", False


def _list_names(scope: ast.AST) -> set[str]:
    """Names bound in ``scope`` to a list: ``[]``, ``[...]``, ``list(...)``, a comprehension."""
    names: set[str] = set()
    for node in walk(scope):
        if isinstance(node, ast.Assign) and (
            isinstance(node.value, ast.List | ast.ListComp)
            or (isinstance(node.value, ast.Call) and dotted(node.value.func) == "list")
        ):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _scanned_list(node: ast.AST, lists: set[str]) -> str | None:
    """The list a membership test or ``next(...)`` search walks, if ``node`` is one."""
    if isinstance(node, ast.Compare) and any(isinstance(o, ast.In | ast.NotIn) for o in node.ops):
        right = node.comparators[-1]
        if isinstance(right, ast.ListComp):
            return "a list built by a comprehension"
        if isinstance(right, ast.Name) and right.id in lists:
            return f"list `{right.id}`"
    if isinstance(node, ast.Call) and dotted(node.func) == "next" and node.args:
        gen = node.args[0]
        if isinstance(gen, ast.GeneratorExp) and gen.generators:
            source = gen.generators[0].iter
            if isinstance(source, ast.Name) and source.id in lists:
                return f"list `{source.id}`"
    return None


def _linear_scans_in_loops(tree: ast.Module) -> Iterator[Check]:
    """``x in some_list`` or ``next(... for r in some_list ...)`` inside a loop: O(n*m)."""
    scopes = [n for n in walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    seen: set[int] = set()
    for scope in scopes:
        lists = _list_names(scope)
        for body in _loop_bodies(scope):
            for node in walk(body):
                if not isinstance(node, ast.expr) or id(node) in seen:
                    continue
                what = _scanned_list(node, lists)
                if what is None:
                    continue
                seen.add(id(node))
                yield (
                    "linear-scan-in-loop",
                    node,
                    f"Searching {what} on every loop iteration is quadratic; "
                    "index it once in a set or dict before the loop.",
                )
