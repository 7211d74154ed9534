"""Semgrep's open-source engine (semgrep-core) with our bundled rules for JavaScript,
TypeScript and Go, the languages Bandit and ruff cannot read, and taint rules for Python:
request data followed through a function to a dangerous call. semgrep-core parses newer
Python syntax than the interpreter we run on, so those rules also cover files Bandit rejects.

semgrep-core is called directly, once per rules file for all the files of its languages (a
``-targets`` file lists them): it starts in a fraction of a second, never phones home, and needs
no login, whereas the ``semgrep`` wrapper takes seconds to start and checks for updates over
the network. The three agents share that run through a small cache, each keeping its own
categories.
"""

from __future__ import annotations

import contextvars
import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache, partial
from pathlib import Path
from typing import Any

from code_guard.errors import ToolError
from code_guard.findings import Category
from code_guard.knowledge.mapping import UNPARSABLE_RULE, lookup
from code_guard.tools.base import (
    NOT_ANALYSED_RULE,
    Focus,
    RunCache,
    Tool,
    ToolHit,
    not_analysed,
    run_process,
)
from code_guard.tools.runtime.cpus import core_count
from code_guard.tools.semgrep.command import (
    RULE_TIMEOUT_S,
    command,
    language_of,
    read_as,
    readable_copies,
    rules_file,
    targets_json,
)
from code_guard.tools.semgrep.early import take


class SemgrepTool(Tool):
    """Runs the bundled rules over JavaScript, TypeScript, Go and Python files, keeping the hits
    whose category is one of ``categories`` (the running agent's)."""

    name = "semgrep"

    def __init__(self, categories: Sequence[Category], rules: frozenset[str] | None = None) -> None:
        self.categories = frozenset(categories)
        # The rules each run reads, by name; None for every bundled rule.
        self.rules = rules

    def with_rules(self, rules: frozenset[str]) -> SemgrepTool:
        """This tool running only ``rules`` (``Tool.with_rules``): semgrep-core reads a rules
        file of those, and a language with none of them is not run at all. Reading all of
        ``python.yml`` is most of a small run's time."""
        return SemgrepTool(tuple(self.categories), rules)

    def applies_to(self, path: str) -> bool:
        """Files of a language we ship rules for."""
        return language_of(path) is not None

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Run the rules over the files, one semgrep-core process per rules file (shared by
        the agents through a cache); rule errors are tool errors."""
        return self.run_focused(workspace, paths, None)

    def run_focused(self, workspace: Path, paths: Sequence[str], focus: Focus) -> list[ToolHit]:
        """``run``, each Python function without a line of ``focus`` emptied first
        (``focus.py``): its results could not count, and it is most of Semgrep's time. A
        rules file's files over ``SHARD_BYTES`` are cut into runs of about that size
        (``shards``), so that a large change keeps every core busy."""
        groups: dict[str, list[str]] = {}
        for path in paths:
            groups.setdefault(read_as(path)[1], []).append(path)
        runs: list[tuple[str, int, partial[list[ToolHit]]]] = []
        for rules, group in sorted(groups.items()):
            rules_path = rules_file(rules)
            only = _subset(rules_path, self.rules)
            if only == ():
                continue  # none of the rules wanted is this language's
            for files, size in shards(workspace, sorted(group)):
                lines = (
                    None if focus is None else tuple(tuple(sorted(focus.get(p, ()))) for p in files)
                )
                key = (str(workspace), files, str(rules_path), only, lines)
                run = partial(run_rules, workspace, files, rules_path, focus=focus, only=only)
                runs.append((rules, size, partial(_CACHE.get, key, run)))
        # Unsharded, every rules file's run starts at once, as it always has; cut into
        # shards, as many run at once as there are cores.
        workers = len(runs) if len(runs) == len({rules for rules, _, _ in runs}) else core_count()
        found = _run_side_by_side(
            [get for _, _, get in runs], [size for _, size, _ in runs], workers
        )
        merged: dict[str, list[ToolHit]] = {}
        for (rules, _, _), hits in zip(runs, found, strict=True):
            merged.setdefault(rules, []).extend(hits)
        # A rules file's hits, from one run or its shards joined, in one order: the files it
        # could not parse, then those it gave up on, then its results, each kind in the files'
        # order (semgrep-core orders by the path it read, and a rewritten copy's is another).
        position = {path: index for index, path in enumerate(sorted(paths))}

        def rank(hit: ToolHit) -> tuple[int, int]:
            return _hit_rank(hit), position.get(hit.file_path, -1)

        ordered = [sorted(hits, key=rank) for hits in merged.values()]
        return [h for hits in ordered for h in hits if self._wanted(h)]

    def _wanted(self, hit: ToolHit) -> bool:
        if hit.rule in (UNPARSABLE_RULE, NOT_ANALYSED_RULE):
            return True  # every agent notes the file (the review is partial), none reports it
        info = lookup(hit.tool, hit.rule)
        return info is not None and info.category in self.categories


# The hits of recent (workspace, files, rules file, its rules run, focus lines) runs, so three
# agents cost one run.
_CACHE: RunCache[
    tuple[str, tuple[str, ...], str, tuple[str, ...] | None, tuple[tuple[int, ...], ...] | None]
] = RunCache()

# How many bytes of files one semgrep-core run is given at most when there are more: each run
# pays its start and rules (0.1 s), and a megabyte of minified JavaScript parses in 5-6 s. A
# change this large is not started early (``early.MAX_CHARACTERS``); one whose text is
# multi-byte may be, and then no shard is what it started, so the early run ends unused.
SHARD_BYTES = 1_000_000
# A bound on the runs one rules file is cut into, whatever the change's size.
MAX_SHARDS = 16

# A rule's first line in a bundled rules file; each rule runs to the next one (or the end).
_RULE_START = re.compile(r"^  - id: ([\w-]+)\n", re.MULTILINE)


def shards(workspace: Path, files: Sequence[str]) -> list[tuple[tuple[str, ...], int]]:
    """``files`` (sorted) cut into consecutive runs of about ``SHARD_BYTES`` each (``cut``),
    with their sizes. semgrep-core matches each file on its own, so the runs' results, joined
    in order, are one run's."""
    sizes = [_size(workspace / path) for path in files]
    return [(tuple(files[i] for i in run), sum(sizes[i] for i in run)) for run in cut(sizes)]


def cut(sizes: Sequence[int]) -> list[list[int]]:
    """The indices of ``sizes`` in consecutive runs: one run when they add up to no more than
    ``SHARD_BYTES``, else as many as it takes to hold about that each, but never more than
    files or ``MAX_SHARDS``; none empty."""
    total = sum(sizes)
    count = max(1, min(len(sizes), MAX_SHARDS, -(-total // SHARD_BYTES)))
    runs: list[list[int]] = [[]]
    done = 0
    for index, size in enumerate(sizes):
        runs[-1].append(index)
        done += size
        to_come = count - len(runs)
        # A run ends on the file that brings the runs so far to their share of the whole,
        # or where each run still to come has just one file left.
        if to_come and (done >= total * len(runs) / count or len(sizes) - index - 1 == to_come):
            runs.append([])
    return runs


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # run_rules reports what it cannot read


def _run_side_by_side(
    runs: Sequence[partial[list[ToolHit]]], sizes: Sequence[int], workers: int
) -> list[list[ToolHit]]:
    """Each of ``runs``' hits, in order. The rules files run side by side: one after the
    other, each agent waited on the longest chain of them (on the 3,000-file pull request,
    Go, then JavaScript, then Python: 20 s of a 24 s review), ``workers`` at a time, the
    largest first, so that the last to start are the shortest. A failure is raised as
    before, the first in order."""
    if len(runs) <= 1 or workers <= 1:
        return [get() for get in runs]
    # Each run carries this thread's context variables (the review's deadline) into its own
    # thread, a copy each: one context cannot be entered by two threads at once.
    contexts = [contextvars.copy_context() for _ in runs]
    order = sorted(range(len(runs)), key=lambda i: -sizes[i])
    with ThreadPoolExecutor(workers, thread_name_prefix="code-guard-semgrep") as pool:
        futures = {i: pool.submit(contexts[i].run, runs[i]) for i in order}
        return [futures[i].result() for i in range(len(runs))]


def _hit_rank(hit: ToolHit) -> int:
    return {UNPARSABLE_RULE: 0, NOT_ANALYSED_RULE: 1}.get(hit.rule, 2)


@cache
def _split_rules(path: Path) -> tuple[str, dict[str, str]] | None:
    """The text of the rules file at ``path`` before its first rule, and each rule's text by
    name; None when the file is not laid out as one list of rules at this indent, as the
    bundled ones are (then every run reads the whole file)."""
    text = path.read_text(encoding="utf-8")
    starts = list(_RULE_START.finditer(text))
    head = text[: starts[0].start() if starts else 0].splitlines()
    if [line for line in head if line.strip() and not line.lstrip().startswith("#")] != ["rules:"]:
        return None
    # Every other line is a comment, blank or indented under its rule: a rule in another
    # layout (flow style, a quoted id, another indent) would be folded into its neighbour.
    body = text[starts[0].start() :].splitlines()
    if not all(
        line.startswith("    ") or not line.strip() or line.lstrip().startswith("#")
        for line in body
        if not _RULE_START.match(line + "\n")
    ):
        return None
    ends = [m.start() for m in starts[1:]] + [len(text)]
    rules = {m.group(1): text[m.start() : end] for m, end in zip(starts, ends, strict=True)}
    if len(rules) != len(starts):
        return None  # one name twice
    return text[: starts[0].start()], rules


def _subset(path: Path, wanted: frozenset[str] | None) -> tuple[str, ...] | None:
    """The rules of the rules file at ``path`` among ``wanted``, by name; None for the whole
    file: every rule is wanted, or the file cannot be split (``_split_rules``)."""
    split = None if wanted is None else _split_rules(path)
    if wanted is None or split is None:
        return None
    return tuple(sorted(wanted & split[1].keys()))


def subset_text(path: Path, only: Sequence[str]) -> str:
    """The rules file at ``path`` with only the rules named ``only``, each as written there;
    a ``ToolError`` when it cannot be split or lacks one of them."""
    split = _split_rules(path)
    if split is None or not set(only) <= split[1].keys():
        raise ToolError(f"cannot run rules {', '.join(only)} alone from {path.name}")
    head, rules = split
    return head + "".join(rules[rule] for rule in only)


def run_rules(
    workspace: Path,
    paths: Sequence[str],
    rules: Path,
    *,
    rule_timeout: float = RULE_TIMEOUT_S,
    focus: Focus = None,
    only: Sequence[str] | None = None,
) -> list[ToolHit]:
    """One semgrep-core run of ``rules`` over ``paths`` (relative to ``workspace``), each rule
    given ``rule_timeout`` seconds per file; a file it gave up on is named in a hit.

    Python files with ``match`` statements or ``except*`` handlers are read from a rewritten
    copy that semgrep-core's main parser understands (``syntax_rewrite``), and those with
    branches that cannot run or elements that fold to literals from a copy without them
    (``constants``), and, with ``focus``, each function no line of the focus falls in is
    emptied (``focus``), lines and columns unchanged; their results name the original file.
    With ``only``, just the rules of that name run, from a copy of ``rules`` with those.
    """
    if not paths:
        return []
    with tempfile.TemporaryDirectory(prefix="code-guard-semgrep-") as scratch:
        copies = readable_copies(workspace, paths, Path(scratch), focus)
        targets = Path(scratch) / "targets.json"
        targets.write_text(targets_json(paths, copies), encoding="utf-8")
        if only is not None:
            subset = Path(scratch) / rules.name
            subset.write_text(subset_text(rules, only), encoding="utf-8")
            rules = subset
        argv = command(rules, targets, rule_timeout)
        early = take(argv, workspace, paths, copies)
        out = run_process(argv, cwd=workspace) if early is None else early.finish()
    # semgrep-core may print progress dots before the JSON document, and text after it.
    start = out.find("{")
    try:
        report = json.JSONDecoder().raw_decode(out[start:])[0] if start >= 0 else {}
    except json.JSONDecodeError as exc:
        raise ToolError(f"semgrep-core printed something that is not JSON: {exc}") from exc
    fatal = [e for e in report.get("errors", []) if _is_rule_error(e)]
    if fatal:
        raise ToolError(f"semgrep rule error: {str(fatal[0].get('message', fatal[0]))[:300]}")
    original = {str(copy): path for path, copy in copies.items()}
    if early is not None:
        original = early.original()
    gaps = _gaps(report.get("errors", []), original)
    unparsed = [
        ToolHit(
            tool=SemgrepTool.name,
            rule=UNPARSABLE_RULE,
            file_path=original.get(path, path),
            line=_error_line(error),
            end_line=_error_line(error),
            message=f"semgrep-core could not parse this file: {error.get('message', '')}"[:300],
        )
        for error in report.get("errors", [])
        if _is_parse_error(error) and (path := _error_path(error))
    ]
    return (
        unparsed
        + gaps
        + [
            ToolHit(
                tool=SemgrepTool.name,
                rule=str(r["check_id"]).rsplit(".", 1)[-1],
                file_path=original.get(str(r["path"]), str(r["path"])),
                line=int(r["start"]["line"]),
                end_line=int(r["end"]["line"]),
                message=str(r.get("extra", {}).get("message", r["check_id"])).strip(),
                span=_span(r),
            )
            for r in report.get("results", [])
        ]
    )


def _span(result: dict[str, Any]) -> tuple[int, int, int, int] | tuple[()]:
    """The lines and columns of a result (a taint rule's: the sink's value), as semgrep-core
    gives them (columns from 1)."""
    try:
        start, end = result["start"], result["end"]
        return int(start["line"]), int(start["col"]), int(end["line"]), int(end["col"])
    except (KeyError, TypeError, ValueError):
        return ()


def _is_parse_error(error: dict[str, object]) -> bool:
    """A target file semgrep-core could not parse, or parsed only in part: its rules did not
    run on all of it, so findings there may be missing (for JavaScript, TypeScript and Go,
    semgrep-core is the only analyser)."""
    kind = str(error.get("error_type", ""))
    return any(word in kind for word in ("Syntax", "Lexical", "Parsing"))


def _gaps(errors: Sequence[dict[str, object]], original: Mapping[str, str]) -> list[ToolHit]:
    """What semgrep-core left undone on a file, other than a parse error: a rule that ran out
    of time on it (``-timeout``), memory or stack, a cap on its matches, or an engine error.
    Each file is named once, with the kinds and the rules, so the review says it is partial
    rather than let a rule's silence read as "nothing found". An error naming no file is the
    whole run's: the tool failed."""
    by_path: dict[str, dict[str, set[str]]] = {}
    for error in errors:
        if _is_rule_error(error) or _is_parse_error(error):
            continue
        kind = str(error.get("error_type", "error"))
        path = _error_path(error)
        if not path:
            raise ToolError(f"semgrep-core {kind}: {str(error.get('message', ''))[:300]}")
        rules = by_path.setdefault(original.get(path, path), {}).setdefault(kind, set())
        rules.add(str(error.get("rule_id") or "").rsplit(".", 1)[-1])
    hits = []
    for path, kinds in sorted(by_path.items()):
        what = "; ".join(_kind(kind, rules) for kind, rules in sorted(kinds.items()))
        hits.append(not_analysed("semgrep-core", path, f"gave up on it: {what}"))
    return hits


def _kind(kind: str, rules: set[str]) -> str:
    """One kind of error on a file, with the rules it stopped: "timeout (rules a, b)"."""
    named = sorted(r for r in rules if r)
    return kind.lower() + (f" (rules {', '.join(named)})" if named else "")


def _error_path(error: dict[str, object]) -> str:
    location = error.get("location")
    return str(location.get("path", "")) if isinstance(location, dict) else ""


def _error_line(error: dict[str, object]) -> int:
    location = error.get("location")
    start = location.get("start") if isinstance(location, dict) else None
    line = start.get("line") if isinstance(start, dict) else None
    return line if isinstance(line, int) and line > 0 else 1


def _is_rule_error(error: dict[str, object]) -> bool:
    """Errors in our rules are bugs; a target file semgrep cannot parse is not.

    semgrep-core names the kind in ``error_type``: a string, or a list for parse errors.
    """
    kind = str(error.get("error_type", ""))
    return any(word in kind for word in ("Rule", "Pattern", "YAML", "Yaml"))
