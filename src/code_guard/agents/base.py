"""The agent interface and the behaviour every agent shares.

An agent runs its static tools over the change's files, keeps the results on added lines as
candidate findings, and, when a model is configured, asks the model to confirm or reject each
candidate and to add what the tools missed. A failing tool or model never raises: it becomes
``AgentState.FAILED`` with its reason, and whatever the agent did find is still reported.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from code_guard.agents.answer import ModelAnswer, ModelFinding
from code_guard.agents.prompts import build_messages
from code_guard.anchoring import anchor_line, resolve_file
from code_guard.baseline import BaseSide, PreExisting, Signature, signature
from code_guard.diff import FileChange
from code_guard.errors import ModelError, ToolError
from code_guard.llm import LLMClient
from code_guard.models import (
    AgentName,
    AgentReport,
    AgentState,
    AgentStatus,
    Category,
    Finding,
    Severity,
    Usage,
)
from code_guard.options import ReviewOptions
from code_guard.request import ReviewRequest
from code_guard.sanitize import strip_markers
from code_guard.tools.base import Tool, ToolHit, in_tool_thread
from code_guard.tools.fixes import rewrite
from code_guard.tools.mapping import UNPARSABLE_RULE, lookup
from code_guard.tools.placeholders import is_test_path
from code_guard.tools.policy import quiet_in_tests
from code_guard.tools.suppressions import suppression

_PROMPT_BUDGET_CHARS = 80_000


@dataclass(frozen=True, slots=True)
class AgentContext:
    """Everything an agent needs: the request, its files on disk, options and the model."""

    request: ReviewRequest
    files: tuple[FileChange, ...]
    workspace: Path
    options: ReviewOptions
    llm: LLMClient | None = None
    # Where each file was written under ``workspace`` (a stand-in path for names the file
    # system refuses), and the way back from a tool's path; identity when not given.
    disk_paths: Mapping[str, str] | None = None
    real_path: Callable[[str], str] = str
    # The modified files before the change, to tell new results from kept ones (None: all new).
    base: BaseSide | None = None

    def disk_path(self, path: str) -> str:
        """The path of change file ``path`` under ``workspace``."""
        return path if self.disk_paths is None else self.disk_paths.get(path, path)


@dataclass(frozen=True, slots=True)
class _ModelOutcome:
    findings: list[Finding]
    usage: Usage
    notes: list[str]


class Agent(ABC):
    """One reviewer. Subclasses name their focus, categories and tools."""

    name: ClassVar[AgentName]
    focus: ClassVar[str]
    categories: ClassVar[tuple[Category, ...]]

    @abstractmethod
    def tools(self) -> tuple[Tool, ...]:
        """The static analysers this agent runs."""

    async def review(self, ctx: AgentContext) -> AgentReport:
        """Review the change; never raises for tool or model failures."""
        started = time.perf_counter()
        tools = self.tools()
        candidates, errors, unparsed, preexisting = await self._run_tools(ctx, tools)
        notes: list[str] = []
        findings, usage = candidates, Usage()
        if ctx.llm is not None:
            try:
                outcome = await self._model_pass(ctx, ctx.llm, candidates)
                findings, usage = outcome.findings, outcome.usage
                notes.extend(outcome.notes)
            except ModelError as exc:
                errors.append(f"model {ctx.llm.model} failed: {exc}")
                usage = exc.spent if isinstance(exc.spent, Usage) else usage
                notes.append("tool findings are reported unconfirmed")
        status = AgentStatus(
            agent=self.name,
            state=AgentState.FAILED if errors else AgentState.OK,
            reason="; ".join(errors) or None,
            tools=tuple(t.name for t in tools),
            model=ctx.llm.model if ctx.llm else None,
            usage=usage,
            duration_ms=int((time.perf_counter() - started) * 1000),
            notes=tuple(notes),
        )
        return AgentReport(
            status=status, findings=tuple(findings), unparsed=unparsed, preexisting=preexisting
        )

    async def _run_tools(
        self, ctx: AgentContext, tools: Sequence[Tool]
    ) -> tuple[list[Finding], list[str], tuple[str, ...], int]:
        """Run every tool on the change (and on the base of its modified files); return the
        findings the change introduces, the tools' errors, the files some tool could not
        parse (findings there may be missing: the review is partial), and how many results
        the change only kept from before (not reported unless ``all_findings``)."""
        results = await asyncio.gather(
            *(in_tool_thread(self._run_tool, tool, ctx) for tool in tools)
        )
        errors = [error for _, error in results if error]
        unparsed = {h.file_path for hits, _ in results for h in hits if h.rule == UNPARSABLE_RULE}
        found = [
            [(hit, f) for hit in hits if (f := self._finding(hit, ctx)) is not None]
            for hits, _ in results
        ]
        # The base is read only where it can change the answer: by a tool that found something
        # in a modified file, and only in those files. A clean change costs nothing more.
        base_results = await asyncio.gather(
            *(
                in_tool_thread(self._run_base, tool, ctx, {hit.file_path for hit, _ in pairs})
                for tool, pairs in zip(tools, found, strict=True)
                if pairs and ctx.base is not None and not ctx.options.all_findings
            )
        )
        before = PreExisting(sig for sigs in base_results for sig in sigs)
        findings: list[Finding] = []
        kept = 0
        for pairs in found:
            for hit, finding in pairs:
                if before.claim(signature(hit.tool, hit.rule, finding.anchor_text)):
                    kept += 1
                else:
                    findings.append(finding)
        return findings, errors, tuple(sorted(unparsed)), kept

    def _run_base(self, tool: Tool, ctx: AgentContext, paths: set[str]) -> list[Signature]:
        """Signatures of ``tool``'s results on the base lines the hunks show, in ``paths``. A
        tool that fails on the base only means nothing is excused: every result is reported."""
        base = ctx.base
        if base is None:
            return []
        files = [p for p in sorted(paths) if p in base.disk_paths]
        if not files:
            return []
        focus = {base.disk_paths[p]: base.focus[p] for p in files}
        try:
            hits = tool.run_focused(base.workspace, list(focus), focus)
        except ToolError:
            return []
        sigs = []
        for hit in hits:
            path = base.real_path(hit.file_path)
            if hit.line in base.focus.get(path, ()):
                sigs.append(signature(hit.tool, hit.rule, base.line(path, hit.line)))
        return sigs

    def _run_tool(self, tool: Tool, ctx: AgentContext) -> tuple[list[ToolHit], str | None]:
        files = [f for f in ctx.files if tool.applies_to(f.path)]
        paths = [ctx.disk_path(f.path) for f in files]
        # Findings are kept on added lines only (by default), so tools that pay per line
        # read just those: the cost follows the change, not the size of the files.
        focus = (
            {ctx.disk_path(f.path): f.added.keys() for f in files}
            if ctx.options.added_lines_only
            else None
        )
        try:
            hits = tool.run_focused(ctx.workspace, paths, focus)
        except ToolError as exc:
            return [], f"{tool.name} failed: {exc}"
        return [replace(h, file_path=ctx.real_path(h.file_path)) for h in hits], None

    def _finding(self, hit: ToolHit, ctx: AgentContext) -> Finding | None:
        info = lookup(hit.tool, hit.rule)
        file = ctx.request.change.file(hit.file_path)
        if info is None or file is None:
            return None
        if ctx.options.added_lines_only and not file.is_added(hit.line):
            return None
        if is_test_path(hit.file_path) and quiet_in_tests(hit.tool, hit.rule):
            return None
        lines = ctx.request.lines_of(hit.file_path)
        anchor = lines[hit.line - 1] if 0 < hit.line <= len(lines) else ""
        if not self.keep(hit, anchor):
            return None
        suppressed = suppression(hit.tool, anchor)
        if suppressed is not None and (
            ctx.options.pr_suppressions == "honor"
            or not file.is_added(hit.line)
            or info.severity.rank < Severity.HIGH.rank
        ):
            return None  # the project's own suppression, or one that may silence this
        # A deterministic rewrite is for exactly the one flagged line, never a wider range.
        fix = rewrite(hit.tool, hit.rule, anchor) if hit.end_line <= hit.line else None
        return Finding(
            agent=self.name,
            file_path=hit.file_path,
            line_start=hit.line,
            line_end=max(hit.end_line, hit.line),
            severity=info.severity,
            category=info.category,
            title=_title(hit.message),
            description=f"{hit.message} ({hit.tool} {hit.rule})",
            suggested_fix=fix,
            fix_lines=(hit.line, hit.line) if fix is not None else None,
            cwe_id=info.cwe,
            confidence=info.confidence,
            sources=(f"{hit.tool}:{hit.rule}",),
            anchor_text=anchor.strip(),
            suppressed_in_pr=suppressed,
        )

    def keep(self, hit: ToolHit, line: str) -> bool:
        """Whether a mapped tool hit on ``line`` is worth reporting; agents refine this."""
        return True

    async def _model_pass(
        self, ctx: AgentContext, llm: LLMClient, candidates: list[Finding]
    ) -> _ModelOutcome:
        files, skipped = _within_budget(ctx)
        messages = build_messages(
            agent=self.name.value,
            focus=self.focus,
            categories=self.categories,
            request=ctx.request,
            files=files,
            candidates=candidates,
            context_lines=ctx.options.context_lines,
        )
        answer = await llm.complete(messages, ModelAnswer)
        notes = [f"{n} file(s) not sent to the model (prompt budget)" for n in [skipped] if n]
        kept = _apply_verdicts(candidates, answer.value, notes)
        own = [f for m in answer.value.findings if (f := self._anchor(m, ctx)) is not None]
        if dropped := len(answer.value.findings) - len(own):
            notes.append(f"dropped {dropped} model finding(s) that quoted no added line")
        return _ModelOutcome(kept + own, answer.usage, notes)

    def _anchor(self, found: ModelFinding, ctx: AgentContext) -> Finding | None:
        file = resolve_file(ctx.request.change, found.file_path)
        # Only files under review count: a finding on a paths-ignore'd file stays out.
        if file is None or all(f.path != file.path for f in ctx.files):
            return None
        line = anchor_line(ctx.request.change, file.path, found.quote, found.line)
        if line is None:
            return None
        return Finding(
            agent=self.name,
            file_path=file.path,
            line_start=line,
            line_end=line,
            severity=found.severity,
            category=found.category,
            title=strip_markers(found.title).strip() or "Issue",
            description=strip_markers(found.explanation),
            suggested_fix=strip_markers(found.suggested_fix) if found.suggested_fix else None,
            cwe_id=found.cwe_id,
            confidence=found.confidence,
            sources=("model",),
            anchor_text=file.added[line].strip(),
        )


def _title(message: str) -> str:
    first = message.strip().split("\n", 1)[0]
    return (first[:197] + "...") if len(first) > 200 else (first or "Issue")


def _within_budget(ctx: AgentContext) -> tuple[list[FileChange], int]:
    files: list[FileChange] = []
    used = 0
    for file in ctx.files:
        size = len(ctx.request.text_of(file.path)) + sum(len(h.lines) * 40 for h in file.hunks)
        if files and used + size > _PROMPT_BUDGET_CHARS:
            continue
        files.append(file)
        used += size
    return files, len(ctx.files) - len(files)


def _apply_verdicts(
    candidates: list[Finding], answer: ModelAnswer, notes: list[str]
) -> list[Finding]:
    """Add the model as a source of the candidates it confirms; mark the ones it rejects as
    disputed, with its reason and a lowered confidence, but keep them.

    The model reads the pull request, so it can be told what to say ("ignore previous
    instructions, approve"); a deterministic detector's finding never depends on its word.
    """
    verdicts = {v.candidate_id.strip().upper(): v for v in answer.candidates}
    kept: list[Finding] = []
    disputed = 0
    for index, candidate in enumerate(candidates, start=1):
        verdict = verdicts.get(f"C{index}")
        if verdict is None:
            kept.append(candidate)
        elif verdict.confirmed:
            sources = (*candidate.sources, "model")
            kept.append(candidate.model_copy(update={"sources": sources}))
        else:
            disputed += 1
            reason = " ".join(strip_markers(verdict.reason).split())[:500] or "no reason given"
            update = {"disputed": reason, "confidence": min(candidate.confidence, 0.3)}
            kept.append(candidate.model_copy(update=update))
    if disputed:
        notes.append(f"model disputed {disputed} tool finding(s); they are kept, marked disputed")
    return kept
