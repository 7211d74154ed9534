"""A small taint check: request data reaching a dangerous call.

Sources are web-request attributes (``request.args``, ``request.GET``...), the parameters of
route handlers and Django views, and calls to functions of the change that return request
data (sources.py). Taint flows through the bindings of a function (flow.py); a sanitiser
neutralises it only for the categories its table entry gives (``shlex.quote``: a shell
command, never a path; sanitisers.py), a function of the change only for what its body
proves (cleaners.py), and a guard only where it dominates the sink, for what the check
proves about the value that reaches it (``if urlparse(url).hostname not in HOSTS: abort(400)``
vets ``url`` for forged hosts; checks.py, guards.py). Names never count. A tainted value
reaching a sink (``cursor.execute``, ``os.system``, ``open``, ``requests.get``,
``redirect``...) is a hit whose rule names the category, e.g. ``taint-sql_injection``; a flow
a guard or a sanitiser stopped is returned silenced, with why, and is never a finding.

Across functions of the file, each function gets a summary: which of its parameters reach a
sink unguarded, directly or through other summarised functions (a worklist, so a chain of
any length is followed without recursion). A call that passes request data to such a
parameter is a hit on the call's line, naming the sink at the chain's end.

Across the files of the change, the same summaries of a function defined in another changed
file, imported by name (``from pkg.mod import helper``, ``import pkg.mod as m``, relative
imports; tools/python/imports.py), make it a sink or a source where it is called; a
validator or a sanitiser there, proved by its body in its own file by the same rules, is one
where it is called (an import the file never rebinds). A flow into another file is reported
on the added line nearest the sink: the sink's own line in the other file when the change
touched it, else in the calling file, on the call (or the changed line of the flow nearest
it), naming the sink inside the other file (``file:line``). Each file's summaries are
computed once per run, after those of the files it imports (a walk kept on a list: a chain
of a thousand modules is no deeper), and only the run's files are read. A function too
deeply nested to follow is named in a not-analysed note: the review is partial, not clean.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from code_guard.findings import Silencing
from code_guard.knowledge.security.model import SinkCall, load_model
from code_guard.rewrites.folding import pruned_tree
from code_guard.rewrites.python_parse import dotted
from code_guard.tools.base import Focus, ToolHit, not_analysed
from code_guard.tools.python.callables import functions_of, method_keys
from code_guard.tools.python.checker import Check, PythonChecker, PythonFiles
from code_guard.tools.python.checks import Scope, Vetted, key
from code_guard.tools.python.flow import (
    Origin,
    Taint,
    bindings,
    live,
    origin_of,
    propagate,
    reads_source,
    tainted,
)
from code_guard.tools.python.guards import Validators, guarded_names
from code_guard.tools.python.imports import ModuleIndex
from code_guard.tools.python.keywords import Mappings, unpacked, unpacks
from code_guard.tools.python.nodes import indexed, walk, within
from code_guard.tools.python.sanitisers import CATEGORIES, SANITISERS, Names
from code_guard.tools.python.sources import (
    SOURCE_ATTRS,
    FileFacts,
    Function,
    Kinds,
    Sink,
    callee_name,
    handler_methods,
    initial_taint,
    is_source,
)

_MODEL = load_model("python")
# The sinks of the security model (knowledge/security/python.yml), the list Semgrep's rules are
# generated from, in the one shape this check reads: a call by its dotted name as written, or
# a method of any receiver (`$C.execute`), the value at a fixed position. Only the kinds this
# check follows; a sink only Semgrep reads (a metavariable-regex, a `pattern-inside`) is not
# one here, and docs/detection.md says which.
_SINK_CALLS: tuple[tuple[str, SinkCall], ...] = tuple(
    (kind, call)
    for kind, sinks in _MODEL.sinks.items()
    if kind in CATEGORIES
    for sink in sinks
    for call in sink.call_shapes()
)
_BY_NAME: dict[str, list[tuple[str, SinkCall]]] = {}
_BY_METHOD: dict[str, list[tuple[str, SinkCall]]] = {}
for _kind, _call in _SINK_CALLS:
    _table = _BY_METHOD if _call.method else _BY_NAME
    _table.setdefault(_call.name.rsplit(".", 1)[-1], []).append((_kind, _call))
# The sinks as scripts/coverage.py reads them: by name (`$X.` on any receiver), and the
# calls that are sinks only with `shell=True`.
_SINKS: dict[str, str] = {
    ("$X." if call.method else "") + call.name: kind
    for kind, call in _SINK_CALLS
    if not call.keywords
}
_SHELL_SINKS = tuple(sorted({call.name for _, call in _SINK_CALLS if call.keywords}))
# The checker's tables as scripts/coverage.py reads them: the request attributes, and each
# category's sanitisers (by qualified name, and as a call spells it after `from m import f`).
_SOURCE_ATTRS = SOURCE_ATTRS
_GUARDS: dict[str, list[str]] = {
    category: sorted(
        {n for q, c in SANITISERS.items() if category in c for n in (q, q.rsplit(".")[-1])}
    )
    for category in sorted(CATEGORIES)
}
# A module of Django views, whose functions take the request and then the URL's parameters.
_VIEWS_MODULE = re.compile(r"(^|/)views?(\.py$|/)")


@dataclass(frozen=True, slots=True)
class FlowHit(ToolHit):
    """A taint hit with the lines its flow passed (source, assignments, call, sink)."""

    flow_lines: tuple[int, ...] = ()
    sink_line: int = 0  # the sink's own line (in a helper, for a flow through one)
    # for a flow into a function of another file of the change: that file and its sink's line
    far_sink: tuple[str, int] | None = None


class PythonTaintTool(PythonChecker):
    """Flags request data flowing into an injection-prone call, within a function, through
    a helper of the same file, or through a function of another file of the change."""

    name = "python-taint"
    reads_other_files = True
    _files: PythonFiles | None = None
    _index: ModuleIndex | None = None

    def prepare(self, files: PythonFiles) -> None:
        """Keep the run's files: a call into another of them is followed there."""
        self._files = files
        self._index = ModuleIndex(files.paths) if len(files.paths) > 1 else None
        # each file's facts, computed once per run; and the files being summarised now
        self._facts: dict[str, FileFacts] = {}
        self._busy: set[str] = set()

    def check(self, tree: ast.Module, path: str) -> Iterator[Check]:
        """Check every function; the rule names the category, e.g. ``taint-ssrf``."""
        for rule, node, message, _, _, _, silenced, _ in self._flows(tree, path):
            if not silenced:
                yield rule, node, message

    def hits(self, tree: ast.Module, path: str) -> Iterator[ToolHit]:
        """``check``'s hits, each with the lines of its flow; and a note for each function
        the check gave up on (the review is then partial, never quietly clean)."""
        gaps: list[str] = []
        for rule, node, message, lines, sink, far, proof, span in self._flows(tree, path, gaps):
            line = node.lineno
            yield FlowHit(
                self.name, rule, path, line, node.end_lineno or line, message,
                silenced=proof, span=span, flow_lines=tuple(sorted(lines)), sink_line=sink,
                far_sink=far,
            )  # fmt: skip
        if gaps:
            names = ", ".join(gaps[:5]) + (", ..." if len(gaps) > 5 else "")
            yield not_analysed(self.name, path, f"gave up on {names} (nested too deep to follow)")

    def run_focused(self, workspace: Path, paths: Sequence[str], focus: Focus) -> list[ToolHit]:
        """The hits, each moved to the changed line of its flow nearest the sink when the
        sink's own line did not change: a pull request that makes an old sink reachable
        (a new source, a dropped check on the way) is reported where it changed the flow."""
        if focus is None:
            return self.run(workspace, paths)
        # a file outside ``focus`` has no line that matters: it is read only for the
        # functions the others call in it (the base side of a change, ``reads_other_files``)
        checked = [p for p in paths if p in focus]
        hits = self.run(workspace, checked, [p for p in paths if p not in focus])
        hits = [_to_far_sink(hit, focus) for hit in hits]
        return [_moved(hit, set(focus.get(hit.file_path, ()))) for hit in hits]

    def _flows(self, tree: ast.Module, path: str, gaps: list[str] | None = None) -> Iterator[_Flow]:
        """The flows of every function of ``tree``; the functions too deep to follow (Python's
        recursion limit, in the parts of the check that recurse) are added to ``gaps``."""
        tree = pruned_tree(tree)  # no flow through a branch that cannot run (constants.py)
        functions, checked = functions_of(tree)
        try:
            facts = self._file_facts(tree, path, functions)
        except RecursionError:
            if gaps is not None:
                gaps.append("the whole file")
            return
        for func in checked:
            try:
                found = list(_function_hits(func, facts))
            except RecursionError:
                if gaps is not None:
                    gaps.append(f"`{func.name}`")
                continue
            for category, node, message, lines, sink, far, proof, span in found:
                yield f"taint-{category}", node, message, lines, sink, far, proof, span

    def _file_facts(
        self, tree: ast.Module, path: str, functions: list[Function], everything: bool = False
    ) -> FileFacts:
        """The facts of the file ``path``: its own summaries and those of the functions it
        imports from the other files of the run; all its functions summarised when
        ``everything`` (another file calls them), else only if something reads request data.
        """
        known = self._facts.get(path) if self._files is not None else None
        if known is not None and (known.full or not everything):
            return known
        names = Names(tree)
        facts = FileFacts(Validators(), names, bool(_VIEWS_MODULE.search(path)), path=path)
        facts.defs = {
            f.name: f for f in tree.body if isinstance(f, Function) and f.name in names.once
        }
        facts.handlers = handler_methods(tree)
        facts.keys = method_keys(tree, names.once)
        facts.methods = frozenset(k for keys in facts.keys.values() for k in keys)
        imported = self._link(tree, path, facts, {f.name for f in functions})
        # the validators are read only on a flow: not worked out where none can start
        _summarise(functions, facts, everything, lambda: Validators.of(tree, names, imported))
        if self._files is not None:
            self._facts[path] = facts
        return facts

    def _link(
        self, tree: ast.Module, path: str, facts: FileFacts, local: set[str]
    ) -> Validators | None:
        """Add to ``facts`` the sinks, sources and functions proved to sanitise among the
        functions ``tree`` imports from the run's other files (a function of the file's
        own, by that name, wins); return the validators among them, proved in their own
        files by their bodies, under the names this file calls them by."""
        if self._index is None:
            return None
        imported = Validators()
        bindings = self._index.bindings(tree, path)
        for name, (file, target) in bindings.functions.items():
            other = self._exported(file) if name not in local else None
            if other is not None:
                _import_name(facts, name, other, file, target)
                if facts.names.imported.get(name, "").endswith(f".{target}"):
                    _import_checks(facts, imported, name, other, target)
        for prefix, file in bindings.modules.items():
            other = self._exported(file)
            if other is not None:
                for target in (*other.sinks, *other.sources):
                    _import_name(facts, f"{prefix}.{target}", other, file, target)
                if prefix.split(".")[0] in facts.names.imported:
                    for target in {*other.validators.truthy, *other.validators.exits, *other.defs}:
                        _import_checks(facts, imported, f"{prefix}.{target}", other, target)
        return imported

    def _exported(self, path: str) -> FileFacts | None:
        """The facts of the run's file ``path`` with every function summarised, or None
        (not parsed, or being summarised now: an import cycle)."""
        known = self._facts.get(path)
        if known is not None and known.full:
            return known
        if self._files is None or path in self._busy or self._files.tree(path) is None:
            return None
        self._summarise_imports(path)
        known = self._facts.get(path)
        return known if known is not None and known.full else None

    def _summarise_imports(self, root: str) -> None:
        """Summarise ``root`` and the run's files it imports, directly or not, each after the
        files it imports: a depth-first walk kept on a list, not on Python's stack, so a chain
        of a thousand modules costs no recursion. A file met again while it is on the walk
        (an import cycle) is linked without its summaries: its flows are missed, and nothing
        is silenced for want of them."""
        self._busy.add(root)
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(self._imported(root)))]
        while stack:
            path, pending = stack[-1]
            nxt = next((p for p in pending if self._unsummarised(p)), None)
            if nxt is not None:
                self._busy.add(nxt)
                stack.append((nxt, iter(self._imported(nxt))))
                continue
            stack.pop()
            tree = self._files.tree(path) if self._files is not None else None
            if tree is not None:
                with indexed(tree):
                    functions, _ = functions_of(tree)
                    self._file_facts(tree, path, functions, everything=True)
            self._busy.discard(path)

    def _unsummarised(self, path: str) -> bool:
        """Whether ``path`` is a parsed file of the run, still to summarise and not on the
        walk now."""
        known = self._facts.get(path)
        if path in self._busy or (known is not None and known.full) or self._files is None:
            return False
        return self._files.tree(path) is not None

    def _imported(self, path: str) -> list[str]:
        """The run's files that ``path`` imports functions or modules from."""
        tree = self._files.tree(path) if self._files is not None else None
        if tree is None or self._index is None:
            return []
        bindings = self._index.bindings(tree, path)
        return [*(file for file, _ in bindings.functions.values()), *bindings.modules.values()]


def _import_name(facts: FileFacts, key: str, other: FileFacts, file: str, name: str) -> None:
    """``key`` (as the importing file calls it) is ``name`` of ``file``, whose facts are
    ``other``: a sink or a source there is one here too."""
    if name in other.sinks:
        facts.sinks[key] = {
            param: (category, sink, line, far or file)
            for param, (category, sink, line, far) in other.sinks[name].items()
        }
        facts.where[key] = other.where.get(name, file)
    if name in other.sources:
        facts.sources.add(key)
        facts.where[key] = other.where.get(name, file)


def _import_checks(
    facts: FileFacts, imported: Validators, key: str, other: FileFacts, name: str
) -> None:
    """``key`` (as the importing file calls it, an import it binds once and never rebinds)
    is the function ``name`` of the file whose facts are ``other``: a validator there is a
    validator here, and a call to it cleans what its body proves there (with that file's
    imports and validators)."""
    if name in other.validators.truthy:
        imported.truthy[key] = other.validators.truthy[name]
    if name in other.validators.exits:
        imported.exits[key] = other.validators.exits[name]
    if name in other.defs:
        facts.foreign[key] = (other, name)


def _to_far_sink(hit: ToolHit, focus: Mapping[str, Collection[int]]) -> ToolHit:
    """A flow into another file of the change whose sink line there changed is reported on
    that line: the added line nearest the sink, where the other analysers report the sink."""
    if not isinstance(hit, FlowHit) or hit.far_sink is None:
        return hit
    path, line = hit.far_sink
    if line not in set(focus.get(path, ())):
        return hit
    return replace(
        hit,
        file_path=path,
        line=line,
        end_line=line,
        flow_lines=(),
        sink_line=line,
        found_in=hit.file_path,
    )


def _moved(hit: ToolHit, changed: set[int]) -> ToolHit:
    if not isinstance(hit, FlowHit):
        return hit
    sink = hit.sink_line or hit.line
    on_flow = [line for line in {*hit.flow_lines, hit.line} if line in changed]
    if not on_flow or sink in changed and sink == hit.line:
        return hit
    line = min(on_flow, key=lambda n: (abs(n - sink), -n))
    return replace(hit, line=line, end_line=line)


def _summarise(
    functions: list[Function],
    facts: FileFacts,
    everything: bool = False,
    validators: Callable[[], Validators] | None = None,
) -> None:
    """Fill ``facts`` with the functions that return request data and the parameters that
    reach a sink; two rounds, so a helper that calls a helper counts too. Only functions
    that read request data, or call a sink, are followed: the rest cost one walk. The
    parameters are followed only where request data can reach them: in a file that reads
    some, or (``everything``) one whose functions another file calls; only then are the
    file's ``validators`` worked out, if given."""
    reading: list[Function] = []
    calling: list[tuple[Function, list[ast.Call]]] = []
    shapes = [_shape(func, facts) for func in functions]
    for func, gives, source, calls in shapes:
        if gives and source:
            reading.append(func)
        if calls and _parameters(func):
            calling.append((func, calls))
    for _ in range(2):
        for func in reading:
            kinds = propagate(func, facts, {}).kinds
            returns = [n.value for n in walk(func) if isinstance(n, ast.Return) and n.value]
            if any(tainted(value, kinds, facts) for value in returns):
                facts.sources.update(facts.keys_of(func))
    # the sources are known now: whether request data can enter each function, from the
    # same walk (``_reads_request``'s test)
    for func, _, source, calls in shapes:
        facts.reading[id(func)] = (
            source
            or bool(initial_taint(func, facts))
            or (bool(facts.sources) and any(callee_name(c, facts) in facts.sources for c in calls))
        )
    # Which parameters reach a sink matters only to a flow from request data: where nothing
    # in the file reads any, no flow can start and the summaries would go unread.
    if not everything and not any(_reads_request(func, facts) for func in functions):
        return
    facts.full = True
    if validators is not None:
        facts.validators = validators()
        facts.cleans.clear()  # proved without the validators while the sources were found
    _summarise_parameters(calling, facts)


def _summarise_parameters(calling: list[tuple[Function, list[ast.Call]]], facts: FileFacts) -> None:
    """Fill ``facts.sinks``: the parameters of each function that reach a sink, directly or
    through another summarised function, under each of the function's keys (its name, and
    ``Class().method`` for a method); a key several functions share (a name bound twice, a
    method two bases give) holds the union of theirs: a call may reach any of them. A
    worklist: a function is summarised again when one it calls gains a summary, so a chain of
    helpers of any length is followed once per link, without recursion."""
    callers: dict[str, list[int]] = {}
    members: dict[str, list[int]] = {}
    for index, (func, calls) in enumerate(calling):
        own = facts.keys_of(func)
        for name in own:
            members.setdefault(name, []).append(index)
        for call in calls:
            callee = callee_name(call, facts)
            if callee is not None and callee not in own:
                callers.setdefault(callee, []).append(index)
    summaries: dict[int, dict[int | str, Sink]] = {}
    queue = list(range(len(calling)))
    queued = set(queue)
    while queue:
        index = queue.pop()
        queued.discard(index)
        func, calls = calling[index]
        if not any(
            _sink_category(c, facts.names) is not None
            or unpacks(c)  # `**options`: read with the function's mappings (``_flows``)
            or callee_name(c, facts) in facts.sinks
            for c in calls
        ):
            continue
        found = _parameter_summary(func, facts)
        if found == summaries.get(index, {}):
            continue
        summaries[index] = found
        for name in facts.keys_of(func):
            union: dict[int | str, Sink] = {}
            for member in members[name]:
                for slot, sink in summaries.get(member, {}).items():
                    union.setdefault(slot, sink)
            if union and union != facts.sinks.get(name):
                facts.sinks[name] = union
                fresh = [i for i in callers.get(name, ()) if i not in queued]
                queue.extend(fresh)
                queued.update(fresh)


def _parameter_summary(func: Function, facts: FileFacts) -> dict[int | str, Sink]:
    """The parameters of ``func`` (by position and by name) that reach a sink."""
    params = _parameters(func)
    seeds = {name: (f"parameter `{name}`", func.lineno) for name in params.values()}
    found: dict[int | str, Sink] = {}
    for sink, reached in _parameter_sinks(func, facts, seeds):
        for slot, name in params.items():
            if name in reached:
                found.setdefault(slot, sink)
                found.setdefault(name, sink)
    return found


def _parameter_sinks(
    func: Function, facts: FileFacts, seeds: dict[str, Origin]
) -> Iterator[tuple[Sink, set[str]]]:
    """The sinks the parameters of ``func`` (``seeds``) reach, each with the names that
    reach it: a sink called here, or a parameter of a summarised function (of this file or
    another) that reaches one, so that a chain of helpers is a sink at its first link."""
    taint = _traced(func, facts, seeds)
    for category, node, _, reached, _, _ in _flows(func, facts, seeds, taint):  # live ones
        yield (category, dotted(node.func), node.lineno, ""), reached
    names = taint.kinds
    local = Mappings(func)
    for node, callee, summary in _summarised_calls(func, facts):
        for slot, value in _passed(node, facts.names, local):
            if slot in summary and tainted(value, names, facts, summary[slot][0]):
                used = {n.id for n in walk(value) if isinstance(n, ast.Name) and n.id in names}
                sink = summary[slot]
                far = sink[3] or facts.where.get(callee, "")
                yield (
                    (sink[0], sink[1], sink[2], far),
                    set().union(*(taint.lineage(n) for n in used)),
                )


def _summarised_calls(
    func: Function, facts: FileFacts
) -> Iterator[tuple[ast.Call, str, dict[int | str, Sink]]]:
    """The calls in ``func`` to a function whose parameters are summarised (not itself)."""
    own = facts.keys_of(func)
    for node in walk(func):
        if isinstance(node, ast.Call):
            callee = callee_name(node, facts)
            summary = facts.sinks.get(callee) if callee and callee not in own else None
            if callee and summary:
                yield node, callee, summary


def _passed(
    call: ast.Call, names: Names | None = None, local: Mappings | None = None
) -> list[tuple[int | str, ast.AST]]:
    """The arguments of ``call``, by position and by keyword, also those passed by unpacking
    a mapping whose keys it spells (``**{"url": u}``; keywords.py)."""
    passed: list[tuple[int | str, ast.AST]] = list(enumerate(call.args))
    passed += [(k.arg, k.value) for k in call.keywords if k.arg]
    if unpacks(call):
        given = {k.arg for k in call.keywords}
        passed += [(k, v) for k, v in unpacked(call, names, local).items() if k not in given]
    return passed


def _borrowed(call: ast.Call, value: ast.AST) -> bool:
    """Whether ``value``, passed to ``call``, is read from a mapping made elsewhere
    (``options = {"url": u}``, then ``f(**options)``): a guard at the call says nothing of it,
    and its own line is the flow's."""
    return unpacks(call) and not within(value, call)


def _line(call: ast.Call, value: ast.AST) -> int:
    """The line request data read in ``value``, passed to ``call``, is read on."""
    return getattr(value, "lineno", call.lineno) if _borrowed(call, value) else call.lineno


def _shape(func: Function, facts: FileFacts) -> tuple[Function, bool, bool, list[ast.Call]]:
    """One walk of ``func``: whether it returns a value, whether it reads a request
    attribute, and its calls."""
    returns = source = False
    calls: list[ast.Call] = []
    for node in walk(func):
        if isinstance(node, ast.Call):
            calls.append(node)
            source = source or is_source(node, facts)  # a call the model lists as a source
        elif isinstance(node, ast.Return):
            returns = returns or node.value is not None
        elif not source and is_source(node, facts):
            source = True
    return func, returns, source, calls


def _reads_request(func: Function, facts: FileFacts) -> bool:
    """True when request data can enter ``func``: route parameters, or a source read in it
    (the same test ``_propagate`` starts with). Asked once the file's sources are known, and
    kept: the summaries and the check of each function ask it."""
    known = facts.reading.get(id(func))
    if known is None:
        known = bool(initial_taint(func, facts)) or any(is_source(n, facts) for n in walk(func))
        facts.reading[id(func)] = known
    return known


def _parameters(func: Function) -> dict[int | str, str]:
    """The parameters a caller fills, by position (after self or cls) and by name."""
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    out: dict[int | str, str] = dict(enumerate(positional))
    out.update({a.arg: a.arg for a in (*func.args.args, *func.args.kwonlyargs)})
    out.pop("self", None)
    out.pop("cls", None)
    return out


def _sink(
    call: ast.Call, names: Names | None = None, local: Mappings | None = None
) -> tuple[str, ast.expr] | None:
    """The kind of the model's sink ``call`` is, and the argument that reaches it: by the
    callee as written, or by a qualified name ``names`` resolves it to (an import's alias, a
    name the function is assigned to, ``getattr`` of a literal). Only when the keywords as
    written match no sink, those a mapping unpacked into the call spells (``**{"url": u}``,
    ``**options`` of a mapping in ``local``; keywords.py) are read too, and one unpacked that
    the check cannot read counts as no keyword: what the call matched before, it matches the
    same."""
    func = call.func
    if isinstance(func, ast.Attribute):
        candidates = _BY_METHOD.get(func.attr, []) + _BY_NAME.get(func.attr, [])
    else:
        candidates = list(_BY_NAME.get(dotted(func), []))
    resolved = names.resolved(func) - {dotted(func)} if names is not None else frozenset()
    for last in {name.rsplit(".", 1)[-1] for name in resolved}:
        candidates += _BY_NAME.get(last, []) + _BY_METHOD.get(last, [])
    for kind, shape in candidates:
        if _matches(call, shape, resolved):
            if shape.position is not None:
                return kind, call.args[shape.position]
            return kind, next(k.value for k in call.keywords if k.arg == shape.keyword)
    if not candidates or not unpacks(call):
        return None
    spread = unpacked(call, names, local)
    for kind, shape in candidates:
        if _matches(call, shape, resolved, spread):
            if shape.position is not None:
                return kind, call.args[shape.position]
            given = {k.arg: k.value for k in call.keywords if k.arg}
            return kind, given.get(shape.keyword or "") or spread[shape.keyword or ""]
    return None


def _matches(
    call: ast.Call,
    shape: SinkCall,
    resolved: Collection[str] = (),
    spread: Mapping[str, ast.expr] | None = None,
) -> bool:
    """Whether ``call`` is the sink call ``shape``: its name as written (or the end of it,
    after any receiver) or as one of ``resolved``, its value's position or keyword, its literal
    keywords, and its arity when fixed. With ``spread`` (the keywords its unpacked mappings
    spell), those count as keywords it passes, and an unpacked mapping it cannot read as none."""
    if not (_named(call, shape) or any(_names(name, shape) for name in resolved)):
        return False
    # with ``spread``, its keywords first and the call's own over them; an unpacked mapping
    # (the key None) counts only without it
    given: dict[str | None, ast.expr] = {}
    given.update(spread or {})
    given.update((k.arg, k.value) for k in call.keywords if spread is None or k.arg)
    if shape.position is None:
        if shape.keyword not in given:
            return False
    elif len(call.args) <= shape.position or any(
        isinstance(a, ast.Starred) for a in call.args[: shape.position + 1]
    ):
        return False
    for keyword, value in shape.keywords:
        found = given.get(keyword)
        if not (isinstance(found, ast.Constant) and found.value is value):
            return False
    if shape.arity is not None:
        extra = set(given) - {n for n, _ in shape.keywords} - {shape.keyword}
        if len(call.args) != shape.arity or extra:
            return False
    return True


def _named(call: ast.Call, shape: SinkCall) -> bool:
    """Whether the callee as written is ``shape``'s: its dotted name, or for a method its
    attributes' end after any receiver."""
    if not shape.method:
        return dotted(call.func) == shape.name
    attrs: list[str] = []
    node: ast.expr = call.func
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    wanted = shape.name.split(".")[::-1]
    return attrs[: len(wanted)] == wanted


def _names(qualified: str, shape: SinkCall) -> bool:
    """Whether the qualified name a callee resolves to is ``shape``'s: the name itself, or for
    a method, a receiver and then the method's name."""
    if not shape.method:
        return qualified == shape.name
    return qualified.endswith("." + shape.name)


def _sink_category(call: ast.Call, names: Names | None = None) -> str | None:
    """The kind of the model's sink ``call`` is, if it is one."""
    found = _sink(call, names)
    return found[0] if found else None


def _traced(func: Function, facts: FileFacts, seeds: dict[str, Origin]) -> Taint:
    """The function's taint, where an assignment that a guard on its value dominates (``if
    parsed.netloc == host: target = value``) keeps only what the guard did not prove safe:
    the value is vetted where it is kept."""
    first = propagate(func, facts, seeds)
    vetting: dict[ast.AST, Kinds] = {}
    scope: Scope | None = None
    for node in walk(func):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        used = _used(node.value, first.kinds)
        if not used or reads_source(node.value, facts):
            continue
        scope = scope or _scope(func, facts, first)
        kinds = _vetted_kinds(node.value, used, guarded_names(func, node, scope), first, scope)
        if kinds:
            vetting[node] = kinds
    if not vetting:
        return first
    return propagate(func, facts, seeds, None, vetting)


def _scope(func: Function, facts: FileFacts, taint: Taint) -> Scope:
    """What the guards of ``func`` are read with; its tainted names are no allow-list."""
    return Scope.of(func, facts.validators, facts.names, set(taint.kinds))


def _used(node: ast.AST, names: Mapping[str, Kinds]) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and n.id in names}


def _vetted_kinds(
    value: ast.AST, used: set[str], vetted: Vetted, taint: Taint, scope: Scope
) -> Kinds:
    """The categories ``value`` (reading the tainted ``used``) is proved safe for by the
    guards that dominate it (``vetted``): the value checked as it is, or each name it reads,
    checked itself or computed only from names that were."""
    kinds = frozenset.intersection(*(_safe_kinds(n, vetted, taint, scope, set()) for n in used))
    return kinds | vetted.get(key(value), frozenset())


def _safe_kinds(name: str, vetted: Vetted, taint: Taint, scope: Scope, seen: set[str]) -> Kinds:
    """What ``name`` is proved safe for: checked itself, or computed (never straight from the
    request) only from names that were, each bound once, so the value checked is the value
    it was computed from."""
    kinds = vetted.get(name, frozenset())
    parents = taint.parents.get(name, set())
    if name in seen or name in taint.direct or not parents:
        return kinds
    if any(len(scope.assigned.get(p, ())) + (p in taint.seeded) != 1 for p in parents):
        return kinds
    inherited = frozenset.intersection(
        *(_safe_kinds(p, vetted, taint, scope, seen | {name}) for p in parents)
    )
    return kinds | inherited


def _flows(
    func: Function,
    facts: FileFacts,
    seeds: dict[str, Origin],
    traced: Taint | None = None,
    with_guarded: bool = False,
) -> Iterator[tuple[str, ast.Call, ast.AST, set[str], set[int], Proof | None]]:
    """Each flow into a sink: its category, the sink call, the tainted argument, the tainted
    names that reach it (with the names they were computed from), the lines the flow
    passed, and (``with_guarded``: those a guard or a sanitiser stops are given too) what
    stopped it."""
    taint = traced or _traced(func, facts, seeds)
    origins = taint.origins
    if not origins and not any(is_source(n, facts) for n in walk(func)):
        return
    names = taint.kinds
    scope: Scope | None = None
    local = Mappings(func)
    for node in walk(func):
        if not isinstance(node, ast.Call) or not (node.args or node.keywords):
            continue
        sink = _sink(node, facts.names, local)
        if sink is None:
            continue
        category, arg = sink
        kinds = live(arg, names, facts)
        if kinds is None or (category not in kinds and not with_guarded):
            continue
        used = _used(arg, names)
        reached = set().union(*(taint.lineage(n) for n in used)) if used else set()
        lines = taint.flow_lines(used) | {node.lineno, _line(node, arg)}
        proof: Proof | None = None
        if category not in kinds:
            proof = _cleaned_proof(used, category, taint)
        elif used and not _borrowed(node, arg) and not reads_source(arg, facts, category):
            scope = scope or _scope(func, facts, taint)
            text = _guard_proof(func, node, arg, used, category, taint, scope)
            proof = (Silencing.GUARD, text) if text else None
        if proof is None or with_guarded:
            yield category, node, arg, reached, lines, proof


# What stopped a flow: the mechanism, and why it holds.
Proof = tuple[Silencing, str]


def _cleaned_proof(used: set[str], category: str, taint: Taint) -> Proof:
    """Why request data that reaches a sink is harmless there: neutralised for ``category``
    on its way, by a sanitiser of that category or by a guard where it was assigned."""
    kind = category.replace("_", " ")
    if any(taint.lineage(n) & taint.vetted for n in used):
        return Silencing.GUARD, f"a check where it was assigned vets it for {kind}"
    return Silencing.SANITISER, f"a sanitiser on its way neutralises it for {kind}"


def _guard_proof(
    func: Function,
    node: ast.Call,
    value: ast.AST,
    used: set[str],
    category: str,
    taint: Taint,
    scope: Scope,
) -> str:
    """Why the guards that dominate ``node`` make ``value`` safe for ``category``, or ""."""
    vetted = guarded_names(func, node, scope)
    if category not in _vetted_kinds(value, used, vetted, taint, scope):
        return ""
    checked = ", ".join(f"`{n}`" for n in sorted(used))
    return (
        f"a check on the only path to line {node.lineno} vets {checked} for "
        f"{category.replace('_', ' ')}"
    )


def _helper_flows(func: Function, facts: FileFacts, taint: Taint) -> Iterator[_Flow]:
    """Calls that pass request data to a function whose parameter reaches a sink: one of the
    same file, or of another file of the change (reported here, on the call); those a guard
    stops are given with its proof."""
    names = taint.kinds
    scope: Scope | None = None
    local = Mappings(func)
    for node, callee, summary in _summarised_calls(func, facts):
        for slot, value in _passed(node, facts.names, local):
            if slot in summary and tainted(value, names, facts, summary[slot][0]):
                category, sink, line, far = summary[slot]
                proof = ""
                used = _used(value, names)
                borrowed = _borrowed(node, value)
                if used and not borrowed and not reads_source(value, facts, category):
                    scope = scope or _scope(func, facts, taint)
                    proof = _guard_proof(func, node, value, used, category, taint, scope)
                source, at = origin_of(value, taint.origins, _line(node, value), facts)
                used = {n.id for n in walk(value) if isinstance(n, ast.Name) and n.id in names}
                lines = taint.flow_lines(used) | {node.lineno, _line(node, value)}
                where = far or facts.where.get(callee, "")
                # a sink in another file: its line is not one of this file's, and the flow
                # ends here, on the call
                place, end = (f"{where}:{line}", node.lineno) if where else (f"line {line}", line)
                # across files every line is named with its file: the hit may be reported
                # in either (``_to_far_sink``)
                here = f"{facts.path}:" if where else "line "
                flow = (
                    f"{source} ({here}{at}) is passed to `{callee}()` ({here}{node.lineno}), "
                    f"which hands it to `{sink}()` ({place})"
                )
                message = (
                    f"{flow}, but {proof}."
                    if proof
                    else f"{flow}: {category.replace('_', ' ')}; validate or parameterise it first."
                )
                proof = proof and Silencing.GUARD.value
                far_sink = (where, line) if where else None
                yield category, node, message, lines | {end}, end, far_sink, proof, ()
                break


# A hit of the check: category, the call it is reported on, message, lines of the flow, the
# sink's line, for a sink in another file of the change that file and line, the proof of the
# guard that stops it ("" for a live flow), and for a stopped flow whose every way in the
# check follows (``_followed``), the span of the sink's value (else empty).
_Flow = tuple[
    str, ast.Call, str, set[int], int, tuple[str, int] | None, str,
    tuple[int, int, int, int] | tuple[()],
]  # fmt: skip


def _function_hits(func: Function, facts: FileFacts) -> Iterator[_Flow]:
    if not _reads_request(func, facts):
        return  # no flow starts here: one walk, not one per step below
    taint = _traced(func, facts, {})
    for category, node, arg, _, lines, proof in _flows(func, facts, {}, taint, True):
        source, line = origin_of(arg, taint.origins, _line(node, arg), facts)
        flow = f"{source} (line {line}) reaches `{dotted(node.func)}()` (line {node.lineno})"
        if proof is not None:
            message = f"{flow}, but {proof[1]}."
        else:
            message = f"{flow}: {category.replace('_', ' ')}; validate or parameterise it first."
        silenced = proof[0].value if proof is not None else ""
        # a value read from a mapping made elsewhere is no value at the sink's own span
        kept = proof is not None and not _borrowed(node, arg)
        span = _span(arg) if kept and _followed(func, arg, facts) else ()
        yield category, node, message, lines, node.lineno, None, silenced, span
    yield from _helper_flows(func, facts, taint)


def _span(node: ast.AST) -> tuple[int, int, int, int] | tuple[()]:
    """``node``'s lines and columns as ToolHit.span gives them (columns from 1, in bytes)."""
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None:
        return ()
    return node.lineno, node.col_offset + 1, end_line, end_col + 1  # type: ignore[attr-defined]


def _followed(func: Function, value: ast.AST, facts: FileFacts) -> bool:
    """Whether every way data can reach ``value`` in ``func`` is one this check follows, so
    that its verdict on ``value`` is the whole story (agents/corroboration.py lets it stand
    for Semgrep's): every name ``value`` reads, and every name those were computed from, is
    bound only by the assignments ``propagate`` reads and never changed in place
    (``items.append(x)``, ``d[k] = v``: Semgrep's propagators), in a function without
    ``global`` or ``nonlocal``; and no value reads an attribute or an item other than
    request data itself (``self.saved``, ``box[0]``: Semgrep follows fields, this check
    does not). Calls are followed by what they are called on and given."""
    nodes = list(walk(func))
    if any(isinstance(n, ast.Global | ast.Nonlocal) for n in nodes):
        return False
    values: dict[str, list[ast.expr]] = {}
    for node in nodes:
        for _, bound, target in bindings(node):
            for name in (n.id for n in walk(target) if isinstance(n, ast.Name)):
                values.setdefault(name, []).append(bound)
    # names bound in a way ``propagate`` does not read (``with ... as``, ``except ... as``,
    # ``match`` captures, imports, definitions, a lambda's parameters): not followed
    parameters = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    parameters |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None}
    own = {id(a) for a in ast.walk(func.args)}
    other = {name for node in nodes[1:] if id(node) not in own for name in _other_bindings(node)}
    # a name whose field or item the function sets (`box.target = raw`): Semgrep may carry
    # the field's taint to the whole value
    other |= {
        root.id
        for node in nodes
        if isinstance(node, ast.Attribute | ast.Subscript)
        and isinstance(node.ctx, ast.Store | ast.Del)
        and isinstance(root := _root(node), ast.Name)
    }
    todo: list[ast.AST] = [value]
    seen: set[str] = set()
    while todo:
        stack = [todo.pop()]
        called: set[int] = set()
        while stack:
            node = stack.pop()
            if is_source(node, facts):
                continue  # request data itself: the check reads it
            if isinstance(node, ast.Call):
                called.add(id(node.func))
            loads = isinstance(node, ast.Attribute | ast.Subscript | ast.Name) and isinstance(
                node.ctx, ast.Load
            )
            # an attribute only as a method called on a value the check follows: `x.get(...)`
            if loads and not isinstance(node, ast.Name) and id(node) not in called:
                return False
            if (
                loads
                and isinstance(node, ast.Name)
                and not _followed_name(node.id, values, parameters, other, facts)
            ):
                return False
            if loads and isinstance(node, ast.Name) and node.id in values and node.id not in seen:
                seen.add(node.id)
                todo.extend(values[node.id])
            stack.extend(ast.iter_child_nodes(node))
    return True


def _followed_name(
    name: str,
    values: Mapping[str, list[ast.expr]],
    parameters: set[str],
    other: set[str],
    facts: FileFacts,
) -> bool:
    """Whether the check follows what ``name`` holds: a name of the function bound only by
    the assignments it reads and never changed in place, a parameter, or a name of the
    module that is a literal constant, an import or a function (not a variable another
    function may set)."""
    if name in facts.names.mutated or name in other:
        return False
    if name in values or name in parameters:
        return True
    return (
        name not in facts.names.bound
        or name in facts.names.constants
        or name in facts.names.imported
        or (name in facts.defs and name in facts.names.once)
    )


def _other_bindings(node: ast.AST) -> list[str]:
    """The names ``node`` binds in a way ``propagate`` does not read."""
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [n.id for n in walk(node.optional_vars) if isinstance(n, ast.Name)]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
        return [node.id]
    return []


def _root(node: ast.expr) -> ast.expr:
    """The value at the bottom of ``node``'s chain of attributes and items."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node
