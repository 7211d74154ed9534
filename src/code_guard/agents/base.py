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
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from code_guard.agents.anchoring import anchor_finding, resolve_file
from code_guard.agents.answer import ModelAnswer, ModelFinding
from code_guard.agents.baseline import BaseSide
from code_guard.agents.chunks import MIN_PART_TOKENS, Candidate, Chunk, Part, cut_to_fit, plan
from code_guard.agents.confidence import DISPUTED
from code_guard.agents.corroboration import corroborated
from code_guard.agents.filtering import judge
from code_guard.agents.introduced import introduced
from code_guard.agents.prompts import build_messages, describe_candidates, render_file
from code_guard.change.diff import FileChange
from code_guard.change.linemap import on_git_lines
from code_guard.change.request import ReviewRequest
from code_guard.errors import BudgetExhaustedError, ModelError, ToolError
from code_guard.findings import (
    FIX_CHARS,
    TEXT_CHARS,
    TITLE_CHARS,
    AgentName,
    AgentReport,
    AgentState,
    AgentStatus,
    Category,
    Finding,
    Silenced,
    Silencing,
    SkippedFile,
    Usage,
    clip,
    silenced_counts,
)
from code_guard.knowledge.mapping import UNPARSABLE_RULE
from code_guard.model.interface import Answer, LLMClient, Message
from code_guard.options import AnalysisOptions
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import NOT_ANALYSED_RULE, ChangeTool, Tool, ToolHit, in_tool_thread
from code_guard.tools.ruff.tool import RuffTool
from code_guard.tools.semgrep.tool import SemgrepTool
from code_guard.trust.sanitize import strip_markers

# The answer schema's limit on candidate verdicts: more candidates go to more calls.
_MAX_CANDIDATES = ModelAnswer.model_fields["candidates"].metadata[0].max_length


@dataclass(frozen=True, slots=True)
class AgentContext:
    """Everything an agent needs: the request, its files on disk, the review's analysis
    options and the model."""

    request: ReviewRequest
    files: tuple[FileChange, ...]
    workspace: Path
    options: AnalysisOptions
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
    not_sent: tuple[SkippedFile, ...] = ()


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
        candidates, errors, unparsed, gaps, held = await self._run_tools(ctx, tools)
        notes: list[str] = []
        findings, usage = candidates, Usage()
        not_sent: tuple[SkippedFile, ...] = ()
        if ctx.llm is not None:
            try:
                outcome = await self._model_pass(ctx, ctx.llm, candidates)
                findings, usage = outcome.findings, outcome.usage
                notes.extend(outcome.notes)
                not_sent = outcome.not_sent
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
            not_sent=not_sent,
        )
        return AgentReport(
            status=status,
            findings=tuple(findings),
            unparsed=unparsed,
            not_analysed=gaps,
            preexisting=sum(s.mechanism is Silencing.PRE_EXISTING for s in held),
            silenced=silenced_counts(held),
            silenced_candidates=tuple(held) if ctx.options.show_silenced else (),
        )

    async def _run_tools(
        self, ctx: AgentContext, tools: Sequence[Tool]
    ) -> tuple[
        list[Finding], list[str], tuple[str, ...], tuple[SkippedFile, ...], list[Silenced]
    ]:
        """Run every tool on the change (and on the base of its modified files); return the
        findings the change introduces, the tools' errors, the files some tool could not
        parse and those a tool skipped or gave up on, with why (findings there may be
        missing: the review is partial), and the candidates held back on proof: by a filter,
        or as results the change only kept from before (not reported unless ``all_findings``)."""
        # The tools that wait on an analyser process start first, the longest first: their
        # threads only prepare its input, and do it before the in-process checkers' threads
        # start to share this interpreter's lock with them (issue 30's 20-file review:
        # semgrep-core, the last to end, was started 0.1-0.2 s after its thread was).
        # The results keep the tools' order.
        started = {
            index: asyncio.ensure_future(in_tool_thread(self._run_tool, tools[index], ctx))
            for index in sorted(range(len(tools)), key=lambda i: _start_rank(tools[i]))
        }
        results = await asyncio.gather(*(started[index] for index in range(len(tools))))
        errors = [error for _, error in results if error]
        # Semgrep's taint hits the Python taint check proved stopped (corroboration.py)
        checked = corroborated([hits for hits, _ in results])
        results = [(hits, error) for hits, (_, error) in zip(checked, results, strict=True)]
        unparsed = {h.file_path for hits, _ in results for h in hits if h.rule == UNPARSABLE_RULE}
        gaps = {
            (h.file_path, h.message): SkippedFile(
                path=h.file_path, reason=h.message, deliberate=False
            )
            for hits, _ in results
            for h in hits
            if h.rule == NOT_ANALYSED_RULE
        }
        judged = [[(hit, self._finding(hit, ctx)) for hit in hits] for hits, _ in results]
        found = [[(hit, f) for hit, f in pairs if isinstance(f, Finding)] for pairs in judged]
        held = [s for pairs in judged for _, s in pairs if isinstance(s, Silenced)]
        if ctx.base is None or ctx.options.all_findings:
            return _all(found), errors, tuple(sorted(unparsed)), tuple(gaps.values()), held
        # The base is read only where it can change the answer: by a tool that found something
        # in a modified file, and only in those files. A clean change costs nothing more.
        per_tool = await asyncio.gather(
            *(
                in_tool_thread(introduced, tool, ctx, pairs)
                for tool, pairs in zip(tools, found, strict=True)
            )
        )
        findings = [finding for new, _ in per_tool for finding in new]
        held += [record for _, kept in per_tool for record in kept]
        return findings, errors, tuple(sorted(unparsed)), tuple(gaps.values()), held

    def _run_tool(self, tool: Tool, ctx: AgentContext) -> tuple[list[ToolHit], str | None]:
        files = [f for f in ctx.files if tool.applies_to(f.path)]
        paths = [ctx.disk_path(f.path) for f in files]
        maps = ctx.request.line_maps(f.path for f in files)
        # Findings are kept on added lines only (by default), so tools that pay per line
        # read just those: the cost follows the change, not the size of the files.
        focus = (
            {ctx.disk_path(f.path): ctx.request.added_focus(f) for f in files}
            if ctx.options.added_lines_only
            else None
        )
        try:
            if isinstance(tool, ChangeTool):  # reads the hunks, numbered as git numbers them
                hits, maps = tool.run_change(ctx.request, files), {}
            else:
                hits = tool.run_focused(ctx.workspace, paths, focus)
        except ToolError as exc:
            return [], f"{tool.name} failed: {exc}"
        return on_git_lines(hits, ctx.real_path, maps), None

    def _finding(self, hit: ToolHit, ctx: AgentContext) -> Finding | Silenced | None:
        """The finding for ``hit``, through the named filters of ``agents/filtering.py``, or
        the record of the filter that held it back on proof."""
        return judge(self.name, hit, ctx.request, ctx.options, self.keep)

    def keep(self, hit: ToolHit, line: str) -> bool:
        """Whether a mapped tool hit on ``line`` is worth reporting; agents refine this."""
        return True

    async def _model_pass(
        self, ctx: AgentContext, llm: LLMClient, candidates: list[Finding]
    ) -> _ModelOutcome:
        """Ask the model about every file, in as many calls as the files and candidates need
        (run concurrently, bounded by the client), and merge the answers."""
        calls, not_sent, notes = self._plan_calls(ctx, llm, candidates)
        answers = await asyncio.gather(
            *(self._ask(ctx, llm, chunk, candidates) for chunk in calls), return_exceptions=True
        )
        verdicts: dict[int, Finding] = {}
        own: list[Finding] = []
        usage = Usage()
        failures: list[ModelError] = []
        dropped = 0
        for chunk, answer in zip(calls, answers, strict=True):
            if isinstance(answer, BudgetExhaustedError):
                not_sent += [
                    SkippedFile(path=p.path, reason=f"not sent: {answer}", deliberate=False)
                    for p in chunk.parts
                ]
                continue
            if isinstance(answer, ModelError):
                failures.append(answer)
                usage = usage + (answer.spent if isinstance(answer.spent, Usage) else Usage())
                continue
            if isinstance(answer, BaseException):
                raise answer
            usage = usage + answer.usage
            judged = _apply_verdicts([candidates[i] for i in chunk.candidates], answer.value, notes)
            verdicts.update(zip(chunk.candidates, judged, strict=True))
            found = [f for m in answer.value.findings if (f := self._anchor(m, ctx)) is not None]
            dropped += len(answer.value.findings) - len(found)
            own += found
        if dropped:
            notes.append(f"dropped {dropped} model finding(s) that quoted no added line")
        if failures and len(failures) == len(calls):
            failures[0].spent = usage
            raise failures[0]
        if failures:
            notes.append(f"{len(failures)} of {len(calls)} model call(s) failed: {failures[0]}")
            sent_ok = {
                p.path
                for c, a in zip(calls, answers, strict=True)
                if not isinstance(a, BaseException)
                for p in c.parts
            }
            not_sent += [
                SkippedFile(
                    path=p.path, reason=f"the model call failed: {failures[0]}", deliberate=False
                )
                for c, a in zip(calls, answers, strict=True)
                if isinstance(a, ModelError)
                for p in c.parts
                if p.path not in sent_ok
            ]
        kept = [verdicts.get(i, c) for i, c in enumerate(candidates)]
        return _ModelOutcome(kept + own, usage, notes, tuple(_unique(not_sent)))

    def _plan_calls(
        self, ctx: AgentContext, llm: LLMClient, candidates: list[Finding]
    ) -> tuple[list[Chunk], list[SkippedFile], list[str]]:
        """The model calls for this agent: every file in some call, or named as not sent."""
        fixed = sum(llm.count_tokens(m["content"]) for m in self._messages(ctx, [], []))
        # The answer and a margin for the tokenizer's estimate come out of the context.
        context = llm.context_tokens()
        room = context - llm.settings.max_output_tokens - fixed - context // 20
        notes: list[str] = []
        files, unchanged = _model_files(ctx)
        if room < MIN_PART_TOKENS:
            reason = f"the model's context ({context:,} tokens) leaves no room for code"
            return (
                [],
                [SkippedFile(path=f.path, reason=reason, deliberate=False) for f in files]
                + unchanged,
                notes,
            )
        # A file may fill at most half a call, so one huge file cannot crowd out the rest.
        per_file = max(room // 2, MIN_PART_TOKENS)
        parts: list[Part] = []
        cut = 0
        for file in files:
            text = render_file(ctx.request, file, ctx.options.context_lines)
            tokens = llm.count_tokens(text)
            if tokens > per_file:
                text = cut_to_fit(text, per_file, llm.count_tokens)
                tokens, cut = llm.count_tokens(text), cut + 1
            parts.append(Part(file.path, text, tokens))
        described = describe_candidates(candidates, ctx.request.change)
        lines = described.split("\n") if candidates else []
        pending = [
            Candidate(i, c.file_path, llm.count_tokens(line) + 1)
            for i, (c, line) in enumerate(zip(candidates, lines, strict=True))
        ]
        calls, too_large = plan(parts, pending, room, _MAX_CANDIDATES)
        if cut:
            notes.append(f"{cut} file(s) cut to fit the model's context")
        if len(calls) > 1:
            notes.append(f"{len(files)} file(s) sent in {len(calls)} model calls")
        reason = f"larger than the model's context ({context:,} tokens)"
        return (
            calls,
            [SkippedFile(path=p, reason=reason, deliberate=False) for p in too_large] + unchanged,
            notes,
        )

    def _messages(
        self, ctx: AgentContext, parts: Sequence[str], candidates: Sequence[Finding]
    ) -> list[Message]:
        return build_messages(
            agent=self.name.value,
            focus=self.focus,
            categories=self.categories,
            request=ctx.request,
            file_parts=parts,
            candidates=candidates,
        )

    async def _ask(
        self, ctx: AgentContext, llm: LLMClient, chunk: Chunk, candidates: list[Finding]
    ) -> Answer[ModelAnswer]:
        messages = self._messages(
            ctx, [p.text for p in chunk.parts], [candidates[i] for i in chunk.candidates]
        )
        return await llm.complete(messages, ModelAnswer)

    def _anchor(self, found: ModelFinding, ctx: AgentContext) -> Finding | None:
        file = resolve_file(ctx.request.change, found.file_path)
        # Only files under review count: a finding on a paths-ignore'd file stays out.
        if file is None or all(f.path != file.path for f in ctx.files):
            return None
        line = anchor_finding(
            ctx.request.change, file.path, found.quote, found.line, found.removed_line
        )
        if line is None:
            return None
        # The answer schema bounds each text, and the finding's own limits are checked again
        # here, so no answer can fail the agent: a fix that does not fit is left out.
        fix = strip_markers(found.suggested_fix) if found.suggested_fix else None
        return Finding(
            agent=self.name,
            file_path=file.path,
            line_start=line,
            line_end=line,
            severity=found.severity,
            category=found.category,
            title=clip(strip_markers(found.title).strip(), TITLE_CHARS) or "Issue",
            description=clip(strip_markers(found.explanation), TEXT_CHARS),
            suggested_fix=fix if fix is not None and len(fix) <= FIX_CHARS else None,
            cwe_id=found.cwe_id,
            confidence=found.confidence,
            sources=("model",),
            anchor_text=file.added[line].strip(),
        )


def _model_files(ctx: AgentContext) -> tuple[list[FileChange], list[SkippedFile]]:
    """The files to send to the model, and those an incremental review leaves out."""
    wanted = ctx.request.model_paths
    if wanted is None:
        return list(ctx.files), []
    reason = "unchanged since the last reviewed commit: the model's earlier review stands"
    return [f for f in ctx.files if f.path in wanted], [
        SkippedFile(path=f.path, reason=reason) for f in ctx.files if f.path not in wanted
    ]


def _unique(files: Sequence[SkippedFile]) -> list[SkippedFile]:
    """Each path once: a file repeated over calls for its candidates is named only once."""
    return list({f.path: f for f in reversed(files)}.values())[::-1]


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
            update = {"disputed": reason, "confidence": min(candidate.confidence, DISPUTED)}
            kept.append(candidate.model_copy(update=update))
    if disputed:
        notes.append(f"model disputed {disputed} tool finding(s); they are kept, marked disputed")
    return kept


def _start_rank(tool: Tool) -> int:
    """When ``tool`` starts among its agent's tools: semgrep-core (the longest run), then
    Bandit's and ruff's processes, then the tools that work in this process."""
    for rank, kind in enumerate((SemgrepTool, BanditTool, RuffTool)):
        if isinstance(tool, kind):
            return rank
    return 3


def _all(found: list[list[tuple[ToolHit, Finding]]]) -> list[Finding]:
    """Every finding of ``found``, each tool's (hit, finding) pairs."""
    return [finding for pairs in found for _, finding in pairs]
