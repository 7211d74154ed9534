"""Request data within one function, for the taint check: what each name carries (the
categories it is still dangerous for), where it came from, and which names it was computed
from. A sanitiser takes away only what its table entry gives (sanitisers.py), a function of
the file only what its body proves (cleaners.py), and a decoder undoes both.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from code_guard.tools.python.checks import validator_name
from code_guard.tools.python.cleaners import parameter_slot, proved_clean
from code_guard.tools.python.nodes import child_nodes, walk
from code_guard.tools.python.sanitisers import CATEGORIES, Names
from code_guard.tools.python.sources import FileFacts, Function, Kinds, initial_taint, is_source


def tainted(
    node: ast.AST,
    names: Mapping[str, Kinds],
    facts: FileFacts | None = None,
    category: str | None = None,
) -> bool:
    """True when ``node`` carries request data still dangerous for ``category`` (None: for
    some category): read here or through a tainted name, and not neutralised on the way."""
    kinds = live(node, names, facts)
    return kinds is not None and (category in kinds if category else bool(kinds))


def live(node: ast.AST, names: Mapping[str, Kinds], facts: FileFacts | None) -> Kinds | None:
    """The categories request data in ``node`` is still dangerous for; None when none reaches
    it. A sanitiser takes away only the categories its table entry gives (sanitisers.py), a
    function of the file only those its body proves (``_cleans``), and a decoder
    (``html.unescape``...) undoes whatever was neutralised before it. Children first, on a
    list rather than Python's stack: a sum of a thousand terms is no deeper to follow."""
    done: dict[int, Kinds | None] = {}
    # each node still to combine, with its children (listed once, when it was expanded)
    stack: list[tuple[ast.AST, list[ast.AST] | None]] = [(node, None)]
    while stack:
        current, children = stack.pop()
        if children is not None:
            lives = {id(c): done[id(c)] for c in children}
            done[id(current)] = _combined(current, lives, facts)
        elif is_source(current, facts):
            done[id(current)] = CATEGORIES
        elif isinstance(current, ast.Name):
            done[id(current)] = names.get(current.id)
        else:
            below = child_nodes(current)
            stack.append((current, below))
            stack.extend((c, None) for c in below)
    return done[id(node)]


def _combined(
    node: ast.AST, children: Mapping[int, Kinds | None], facts: FileFacts | None
) -> Kinds | None:
    """What ``node`` carries, given what each of its children (by id) carries."""
    found = [k for k in children.values() if k is not None]
    if not found:
        return None
    kinds: Kinds = frozenset().union(*found)
    if isinstance(node, ast.Call) and facts is not None:
        if facts.names.decodes(node):
            return CATEGORIES
        return kinds - facts.names.cleans(node) - _cleans(node, children, facts)
    if isinstance(node, ast.Call):
        return kinds - _NO_FILE.cleans(node)
    return kinds


_NO_FILE = Names(ast.Module(body=[], type_ignores=[]))


def _cleans(call: ast.Call, lives: Mapping[int, Kinds | None], facts: FileFacts) -> Kinds:
    """What a call to a function of the file cleans, by its body (never by its name;
    cleaners.py): only a call given one tainted argument, for what the function's returns
    are proved safe for whatever that parameter holds. ``lives``: what each child of the
    call carries (``live``), by id."""
    if isinstance(call.func, ast.Name) and call.func.id in facts.defs:
        home, func = facts, facts.defs[call.func.id]
    elif (name := validator_name(call)) in facts.foreign:
        # a function of another file of the change: proved there, with that file's imports
        home, defined = facts.foreign[name]
        func = home.defs[defined]
    else:
        return frozenset()
    values = [(a, a) for a in call.args] + [(k.value, k) for k in call.keywords]
    carrying = [value for value, child in values if lives.get(id(child)) is not None]
    param = parameter_slot(func, call, carrying[0]) if len(carrying) == 1 else None
    if param is None:
        return frozenset()
    if (func.name, param) not in home.cleans:
        home.cleans[func.name, param] = frozenset()  # a recursive call cleans nothing
        home.cleans[func.name, param] = proved_clean(func, param, home.names, home.validators)
    return home.cleans[func.name, param]


# Where a tainted value came from: how to name it, and its line.
Origin = tuple[str, int]


@dataclass
class Taint:
    """A function's tainted names: the origin of each, and the tainted names each was
    computed from (its parents), to relate a guard on one name to a sink on another."""

    origins: dict[str, Origin] = field(default_factory=dict)
    kinds: dict[str, Kinds] = field(default_factory=dict)
    direct: set[str] = field(default_factory=set)  # assigned request data read right there
    seeded: set[str] = field(default_factory=set)  # parameters: tainted on entry
    vetted: set[str] = field(default_factory=set)  # assigned where a guard vetted the value
    parents: dict[str, set[str]] = field(default_factory=dict)
    lines: dict[str, set[int]] = field(default_factory=dict)  # where each name was assigned

    def flow_lines(self, names: set[str]) -> set[int]:
        """The lines a flow into ``names`` passed: assignments and source reads."""
        up = set().union(*(self._closure(n, self.parents) for n in names)) if names else set()
        found = {self.origins[n][1] for n in up if n in self.origins}
        return found.union(*(self.lines.get(n, set()) for n in up))

    def lineage(self, name: str) -> set[str]:
        """``name``, the names it was computed from, and the names computed from it."""
        up = self._closure(name, self.parents)
        children: dict[str, set[str]] = {}
        for child, parents in self.parents.items():
            for parent in parents:
                children.setdefault(parent, set()).add(child)
        return up | self._closure(name, children)

    @staticmethod
    def _closure(name: str, edges: dict[str, set[str]]) -> set[str]:
        seen, todo = {name}, [name]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen


def propagate(
    func: Function,
    facts: FileFacts,
    seeds: dict[str, Origin],
    taint: Taint | None = None,
    vetting: Mapping[ast.AST, Kinds] | None = None,
) -> Taint:
    """The tainted names (``taint``), each with the origin of its taint (the first source
    that reached it) and the categories it is still dangerous for (from every assignment to
    it); an assignment in ``vetting`` (a guarded one) carries only what its guard left."""
    taint = taint if taint is not None else Taint()
    origins = taint.origins
    origins.update(
        dict(seeds)
        or {name: (f"route parameter `{name}`", func.lineno) for name in initial_taint(func, facts)}
    )
    kinds = taint.kinds
    kinds.update(dict.fromkeys(origins, CATEGORIES))
    taint.seeded.update(origins)
    nodes = list(walk(func))
    if not origins and not any(is_source(n, facts) for n in nodes):
        return taint  # nothing reads request data here: no assignment can be tainted
    bound_values = [b for n in nodes for b in bindings(n)]
    # whether each value reads request data itself: the same on every pass
    direct_reads: dict[int, bool] = {}
    for _ in range(3):  # a few passes reach a fixed point for straight-line handler code
        if not _pass(bound_values, taint, facts, vetting, direct_reads):
            break  # nothing changed: a further pass would read the same and change nothing
    return taint


def _pass(
    bound_values: list[tuple[ast.AST, ast.expr, ast.expr]],
    taint: Taint,
    facts: FileFacts,
    vetting: Mapping[ast.AST, Kinds] | None,
    direct_reads: dict[int, bool],
) -> bool:
    """One pass of ``propagate`` over the function's bindings, in order; whether it changed
    ``taint``. A pass reads only ``taint`` (and the file's facts, which it does not change),
    and only ever adds to it, so one that changed nothing is a fixed point."""
    origins, kinds = taint.origins, taint.kinds
    before = _size(taint)
    for node, value, target in bound_values:
        found = live(value, kinds, facts)
        if found is None:
            continue
        if vetting is not None and node in vetting:
            found = found - vetting[node]
            taint.vetted.update(_bound(target))
        direct = direct_reads.get(id(value))
        if direct is None:
            direct = direct_reads[id(value)] = reads_source(value, facts)
        origin = _origin(value, origins, getattr(node, "lineno", 0), direct)
        used = {n.id for n in walk(value) if isinstance(n, ast.Name) and n.id in origins}
        for name in _bound(target):
            origins.setdefault(name, origin)
            if direct:
                taint.direct.add(name)
            kinds[name] = kinds.get(name, frozenset()) | found
            taint.parents.setdefault(name, set()).update(used - {name})
            taint.lines.setdefault(name, set()).add(getattr(node, "lineno", 0))
    return _size(taint) != before


def _size(taint: Taint) -> tuple[int, ...]:
    """How much ``taint`` holds: every part of it only grows, so an equal size after a pass
    means an equal content (categories count one by one)."""
    return (
        len(taint.origins),
        sum(len(k) for k in taint.kinds.values()),
        len(taint.kinds),
        len(taint.direct),
        len(taint.vetted),
        sum(len(p) for p in taint.parents.values()),
        len(taint.parents),
        sum(len(n) for n in taint.lines.values()),
        len(taint.lines),
    )


def _bound(target: ast.AST) -> list[str]:
    """The names an assignment to ``target`` binds: ``a`` and ``b`` of ``a, *b = ...``, none
    of ``request.user.team = ...`` (an attribute of ``request`` is set, ``request`` is not)."""
    return [n.id for n in walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def bindings(node: ast.AST) -> list[tuple[ast.AST, ast.expr, ast.expr]]:
    """The values ``node`` binds names to: each as (the binding node, the value, the target,
    whose every name gets the value's taint: ``a, b = pair``, ``for x in items``, ``x +=
    y``, ``(x := y)``, a comprehension's ``for``)."""
    if isinstance(node, ast.Assign):
        return [(node, node.value, target) for target in node.targets]
    if isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
        return [(node, node.value, node.target)]
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return [(node, node.iter, node.target)]
    if isinstance(node, ast.NamedExpr):
        return [(node, node.value, node.target)]
    return []


def reads_source(
    node: ast.AST, facts: FileFacts | None = None, category: str | None = None
) -> bool:
    """Whether ``node`` reads request data itself (not through a name) that is still
    dangerous for ``category`` (None: for some category)."""
    return tainted(node, {}, facts, category)


def origin_of(
    node: ast.AST, origins: dict[str, Origin], line: int, facts: FileFacts | None = None
) -> Origin:
    """The origin of the taint in ``node`` (on ``line``): request data read right there, or
    the origin of the tainted name it uses."""
    return _origin(node, origins, line, reads_source(node, facts))


def _origin(node: ast.AST, origins: dict[str, Origin], line: int, direct: bool) -> Origin:
    """``origin_of``, told whether ``node`` reads request data itself (``direct``)."""
    if direct:
        text = ast.unparse(node)
        return f"`{text if len(text) <= 60 else text[:57] + '...'}`", line
    for child in walk(node):
        if isinstance(child, ast.Name) and child.id in origins:
            return origins[child.id]
    return "request data", line
