"""What a change introduces: each candidate of a tool matched against its results on the base.

For every tool with candidates in a modified file, the tool runs on the base of those files
over the lines the hunks show, and, when some candidate could match a base result, on the
head's unchanged lines of the same hunks, whose results take their base counterparts first.
A candidate is kept from before only when one base result is left for it in the same file,
the same function and with the same code (``baseline``); every hit is read on git's lines
(``linemap``). A tool that fails on either side excuses nothing.

Both runs need only the rules the candidates came from (``Tool.with_rules``): a result
claims only a result of its own rule (``baseline.signature``), on either side.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from code_guard.agents.baseline import Claim, PreExisting, named, naming_styles, signature
from code_guard.agents.filtering import silenced
from code_guard.change.linemap import analysed_lines, maps_of, on_git_lines
from code_guard.change.scopes import ScopeTables, in_table
from code_guard.errors import ToolError
from code_guard.findings import Category, Finding, Silenced, Silencing
from code_guard.knowledge.mapping import lookup
from code_guard.tools.base import Tool, ToolHit

if TYPE_CHECKING:
    from code_guard.agents.base import AgentContext


def introduced(
    tool: Tool, ctx: AgentContext, pairs: list[tuple[ToolHit, Finding]]
) -> tuple[list[Finding], list[Silenced]]:
    """The findings of ``tool``'s ``pairs`` (hit, finding) that the change introduced, and
    the record of each it only kept (``baseline``)."""
    if not pairs:
        return [], []
    tool = tool.with_rules(frozenset(hit.rule for hit, _ in pairs))
    base_claims = _run_base(tool, ctx, _read_at_base(hit for hit, _ in pairs))
    styles = naming_styles(base_claims)
    claims = [
        _claim(hit, finding.anchor_text, ctx.request.scopes_of(hit.file_path))
        for hit, finding in pairs
    ]
    before, old = _unclaimed(tool, ctx, PreExisting(base_claims), pairs, claims)
    findings: list[Finding] = []
    kept: list[Silenced] = []
    for (hit, finding), claim in zip(pairs, claims, strict=True):
        name = _naming_subject(hit)
        file = ctx.request.change.file(hit.file_path)
        left = before if file is not None and file.is_added(hit.line) else old
        if left.claim(claim) or (
            name is not None and (hit.file_path, hit.tool, hit.rule) in styles
        ):
            kept.append(_kept_from_base(hit, finding, name))
        else:
            findings.append(finding)
    return findings, kept


def _kept_from_base(hit: ToolHit, finding: Finding, name: str | None) -> Silenced:
    """The record of a result the change only kept: the base had the same one (the same
    code in the same function, or the same name), or the file already named things this
    way before."""
    if name is None:
        why = f"the base already had this {hit.tool} {hit.rule} result on `{finding.anchor_text}`"
    else:
        why = f"the file already had {hit.tool} {hit.rule} results before the change (`{name}`)"
    return silenced(Silencing.PRE_EXISTING, hit, why)


def _unclaimed(
    tool: Tool,
    ctx: AgentContext,
    before: PreExisting,
    pairs: list[tuple[ToolHit, Finding]],
    claims: list[Claim],
) -> tuple[PreExisting, PreExisting]:
    """The base results ``before`` left for the candidates on added lines, once the head's
    own results on the unchanged lines of the hunks took theirs; and those it took, for a
    candidate on such a line (``--all-lines``), which is one of those copies itself.

    Reading the unchanged lines costs a run, only when some candidate could otherwise be
    excused; when it fails, no candidate can be told from a second copy and none is."""
    if not any(before.could_claim(claim) for claim in claims):
        return before, PreExisting(())
    # the files the base side read: a flow found from one file and reported in another is
    # found on both sides alike
    kept_before = _run_window(tool, ctx, _read_at_base(hit for hit, _ in pairs))
    if kept_before is None:
        return PreExisting(()), PreExisting(())
    return before, PreExisting([claim for claim in kept_before if before.claim(claim)])


def _run_base(tool: Tool, ctx: AgentContext, paths: set[str]) -> list[Claim]:
    """The claim of each of ``tool``'s results on the base lines the hunks show, in
    ``paths``. A tool that fails on the base only means nothing is excused: every result
    is reported."""
    base = ctx.base
    if base is None:
        return []
    files = [p for p in sorted(paths) if p in base.disk_paths]
    if not files:
        return []
    maps = maps_of(base.lines.items())
    focus = {base.disk_paths[p]: analysed_lines(maps.get(p), base.focus[p]) for p in files}
    others = [disk for path, disk in base.disk_paths.items() if tool.applies_to(path)]
    hits = _focused_run(tool, base.workspace, focus, sorted(others))
    if hits is None:
        return []
    claims = []
    tables = ScopeTables()
    for hit in on_git_lines(hits, base.real_path, maps):
        if hit.silenced:  # held back on the base too: nothing there to excuse
            continue
        if hit.file_path in files and hit.line in base.focus.get(hit.file_path, ()):
            scopes = tables.of(hit.file_path, base.lines_of)
            claims.append(_claim(hit, base.line(hit.file_path, hit.line), scopes))
    return claims


def _run_window(tool: Tool, ctx: AgentContext, paths: set[str]) -> list[Claim] | None:
    """The claim of each of ``tool``'s results on the head's unchanged lines of the hunks
    of ``paths``: the lines that show, after the change, what it kept. A result the tool
    holds back there claims too: the old flaw is still there, only guarded now. None when
    the tool fails here: then no candidate can be told from a second copy, and none is
    excused."""
    files = {f.path: f for f in ctx.files if f.path in paths and f.has_base}
    maps = ctx.request.line_maps(f.path for f in ctx.files)
    focus = {
        ctx.disk_path(f.path): analysed_lines(maps.get(f.path), (n for n, _ in f.new_lines()))
        for f in files.values()
    }
    others = [ctx.disk_path(f.path) for f in ctx.files if tool.applies_to(f.path)]
    hits = _focused_run(tool, ctx.workspace, focus, others) if focus else []
    if hits is None:
        return None
    claims = []
    for hit in on_git_lines(hits, ctx.real_path, maps):
        file = files.get(hit.file_path)
        if file is not None and file.in_hunk(hit.line) and not file.is_added(hit.line):
            lines = ctx.request.lines_of(hit.file_path)
            text = lines[hit.line - 1] if hit.line <= len(lines) else ""
            claims.append(_claim(hit, text, ctx.request.scopes_of(hit.file_path)))
    return claims


def _naming_subject(hit: ToolHit) -> str | None:
    """The name a naming rule's hit reports (``baseline.named``), None for any other rule."""
    info = lookup(hit.tool, hit.rule)
    if info is None or info.category is not Category.NAMING:
        return None
    return named(hit.message)


def _claim(hit: ToolHit, text: str, scopes: Sequence[str]) -> Claim:
    """What ``hit``, on a line whose code is ``text`` in a file whose lines have ``scopes``,
    must match on the other side of the change (``baseline``)."""
    sig = signature(hit.tool, hit.rule, text, _naming_subject(hit))
    return hit.file_path, in_table(scopes, hit.line), sig


def _focused_run(
    tool: Tool, root: Path, focus: Mapping[str, Collection[int]], others: Sequence[str]
) -> list[ToolHit] | None:
    """``tool``'s hits on the files of ``focus`` under ``root``, reading ``others`` too when
    its results in one file depend on the rest (``reads_other_files``); None if it fails."""
    read = [*focus, *(p for p in others if p not in focus)] if tool.reads_other_files else [*focus]
    try:
        return tool.run_focused(root, read, focus)
    except ToolError:
        return None


def _read_at_base(hits: Iterable[ToolHit]) -> set[str]:
    """The files a tool must check at the base to tell whether ``hits`` are new: theirs, and
    the file each was found from when it is reported in another."""
    return {path for hit in hits for path in (hit.file_path, hit.found_in) if path}
