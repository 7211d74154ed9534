"""The review pipeline: select files, run the agents concurrently, synthesize the review."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

import pathspec

from code_guard.agents import AgentContext, agent_for
from code_guard.baseline import BaseSide
from code_guard.diff import FileChange, FileStatus
from code_guard.generated import Attributes, skip_reason
from code_guard.injection import injection_warnings
from code_guard.limits import within_caps
from code_guard.llm import LLMClient
from code_guard.models import AgentName, AgentReport, AgentState, AgentStatus, Review, SkippedFile
from code_guard.options import ReviewOptions
from code_guard.request import ReviewRequest, split_lines
from code_guard.risk import by_risk
from code_guard.synthesizer import synthesize
from code_guard.tools.base import DEADLINE
from code_guard.workspace import Workspace, materialize, safe_relative

__all__ = ["ReviewRequest", "run_review", "review_sync", "select_files"]

Progress = Callable[[AgentStatus], None]

_NOT_REVIEWED = {
    FileStatus.BINARY: "binary file",
    FileStatus.MODE_ONLY: "file mode change only",
    FileStatus.SYMLINK: "symbolic link (its target path is not code, and is not followed)",
    FileStatus.SUBMODULE: "submodule (its commits are reviewed in its own repository)",
}
_UNREADABLE = (
    "no hunk of this file could be read (a malformed @@ header, or a combined merge diff, "
    "which is not supported: review the merge commit's first-parent diff instead)"
)


def select_files(
    files: Sequence[FileChange], paths_ignore: Sequence[str]
) -> tuple[tuple[FileChange, ...], tuple[SkippedFile, ...]]:
    """Split changed files into those to review and those skipped, each with its reason.

    Deleted files are neither: there is no new text to review and nothing was left out.
    """
    ignore = pathspec.GitIgnoreSpec.from_lines(paths_ignore)
    keep: list[FileChange] = []
    skipped: list[SkippedFile] = []
    for file in files:
        if file.status is FileStatus.DELETED:
            continue
        if file.status is FileStatus.UNREADABLE:
            skipped.append(SkippedFile(path=file.path, reason=_UNREADABLE, deliberate=False))
        elif file.status in _NOT_REVIEWED:
            skipped.append(SkippedFile(path=file.path, reason=_NOT_REVIEWED[file.status]))
        elif safe_relative(file.path) is None:
            skipped.append(SkippedFile(path=file.path, reason="path escapes the repository"))
        elif ignore.match_file(file.path):
            skipped.append(SkippedFile(path=file.path, reason="matches paths-ignore"))
        else:
            keep.append(file)
    return tuple(keep), tuple(skipped)


async def run_review(
    request: ReviewRequest,
    options: ReviewOptions,
    llm: LLMClient | None = None,
    *,
    progress: Progress | None = None,
) -> Review:
    """Review ``request``: every selected agent runs concurrently over the same workspace.

    ``llm`` is ignored when ``options`` say the review is static-only (offline, or no model).
    """
    started = time.perf_counter()
    files, skipped = select_files(request.change.files, options.paths_ignore)
    files, generated = (files, ()) if options.review_generated else skip_generated(request, files)
    files, too_large = within_caps(request, files)
    files = by_risk(files)
    skipped = (*skipped, *generated, *request.change.not_parsed, *too_large)
    model = llm if options.uses_model else None
    static_reason = None if model is not None else options.static_only_reason
    if options.uses_model and llm is None:
        static_reason = "the model client could not be created"
    base_request = _base_request(request, files)
    with (
        materialize(request, tuple(f.path for f in files)) as workspace,
        materialize(base_request, tuple(base_request.contents)) as base_workspace,
    ):
        files = tuple(f for f in files if f.path in workspace.disk)
        ctx = AgentContext(
            request=request,
            files=files,
            workspace=workspace.root,
            options=options,
            llm=model,
            disk_paths=workspace.disk,
            real_path=workspace.real_path,
            base=_base_side(request, base_request, base_workspace),
        )
        deadline = _deadline(options)
        token = DEADLINE.set(deadline)
        try:
            reports = await asyncio.gather(
                *(_run_agent(name, ctx, progress, deadline) for name in options.agents)
            )
        finally:
            DEADLINE.reset(token)
    return synthesize(
        reports,
        min_confidence=options.min_confidence,
        static_reason=static_reason,
        files_reviewed=[f.path for f in files],
        files_not_reviewed=(*skipped, *workspace.failed),
        duration_ms=int((time.perf_counter() - started) * 1000),
        nothing_to_review=_nothing_to_review(request),
        warnings=injection_warnings(request),
        fail_on=options.fail_on,
        gate_disputed=options.gate_disputed,
    )


def skip_generated(
    request: ReviewRequest, files: Sequence[FileChange]
) -> tuple[tuple[FileChange, ...], tuple[SkippedFile, ...]]:
    """Split off lock files, vendored and generated code, each listed with its reason."""
    attributes = Attributes(request.contents.get(".gitattributes", request.gitattributes))
    keep: list[FileChange] = []
    skipped: list[SkippedFile] = []
    for file in files:
        head = request.contents.get(file.path) or "\n".join(
            text for _, text in zip(range(20), file.added.values(), strict=False)
        )
        reason = skip_reason(file.path, head, attributes)
        if reason is None:
            keep.append(file)
        else:
            skipped.append(SkippedFile(path=file.path, reason=reason))
    return tuple(keep), tuple(skipped)


def _base_request(request: ReviewRequest, files: Sequence[FileChange]) -> ReviewRequest:
    """The modified files as they were before the change (added files have no base)."""
    texts = {f.path: f.base_text(request.text_of(f.path)) for f in files if f.has_base}
    return ReviewRequest(change=request.change, contents=texts)


def _base_side(
    request: ReviewRequest, base: ReviewRequest, workspace: Workspace
) -> BaseSide | None:
    if not base.contents:
        return None
    focus = {}
    for path in workspace.disk:
        file = request.change.file(path)
        focus[path] = file.base_lines_in_hunks() if file is not None else frozenset()
    return BaseSide(
        workspace=workspace.root,
        disk_paths=workspace.disk,
        real_path=workspace.real_path,
        lines={path: split_lines(text) for path, text in base.contents.items()},
        focus=focus,
    )


def _nothing_to_review(request: ReviewRequest) -> bool:
    """True when the change has files but none with text to review (deletions, binaries,
    mode changes): a complete review with nothing to say, unlike an empty diff."""
    content_free = (FileStatus.DELETED, *_NOT_REVIEWED)
    files = request.change.files
    return bool(files) and all(f.status in content_free for f in files)


def _deadline(options: ReviewOptions) -> float | None:
    if options.time_budget is None:
        return None
    return time.monotonic() + options.time_budget * 60


async def _run_agent(
    name: AgentName, ctx: AgentContext, progress: Progress | None, deadline: float | None = None
) -> AgentReport:
    try:
        review = agent_for(name).review(ctx)
        if deadline is None:
            report = await review
        else:
            report = await asyncio.wait_for(review, max(deadline - time.monotonic(), 0.0))
    except TimeoutError:
        minutes = ctx.options.time_budget
        status = AgentStatus(
            agent=name,
            state=AgentState.FAILED,
            reason=f"the time budget of {minutes:g} minute(s) ran out before it finished",
        )
        report = AgentReport(status=status)
    except Exception as exc:  # noqa: BLE001 - a bug in one agent must not sink the others
        status = AgentStatus(
            agent=name, state=AgentState.FAILED, reason=f"internal error: {exc!r}"[:500]
        )
        report = AgentReport(status=status)
    if progress is not None:
        progress(report.status)
    return report


def review_sync(
    request: ReviewRequest, options: ReviewOptions, llm: LLMClient | None = None
) -> Review:
    """Blocking wrapper around ``run_review`` for callers without an event loop."""
    return asyncio.run(run_review(request, options, llm))
