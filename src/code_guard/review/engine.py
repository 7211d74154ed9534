"""The review pipeline: select files, run the agents concurrently, synthesize the review."""

from __future__ import annotations

import asyncio
import functools
import gc
import time
from collections.abc import Callable, Mapping, Sequence

from code_guard.agents import AgentContext, agent_for
from code_guard.agents.baseline import BaseSide
from code_guard.change.binary import binary_warning, read_binaries
from code_guard.change.diff import FileChange, FileStatus
from code_guard.change.patterns import matcher
from code_guard.change.request import ReviewRequest, split_lines
from code_guard.change.workspace import Workspace, materialize, safe_relative
from code_guard.findings import (
    MARK_CHARS,
    AgentName,
    AgentReport,
    AgentState,
    AgentStatus,
    Review,
    Severity,
    SkippedFile,
    clip,
)
from code_guard.model.interface import LLMClient
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.review.exemptions import HEAD_CHARS, Attributes, Exemption, exemption
from code_guard.review.injection import injection_warnings
from code_guard.review.limits import within_caps
from code_guard.review.risk import by_risk
from code_guard.review.synthesizer import synthesize
from code_guard.review.unread import find_unread
from code_guard.tools.base import DEADLINE

__all__ = ["ReviewRequest", "run_review", "review_sync", "select_files"]

Progress = Callable[[AgentStatus], None]

_NOT_REVIEWED = {
    FileStatus.BINARY: "binary file",
    FileStatus.MODE_ONLY: "file mode change only",
    FileStatus.SYMLINK: "symbolic link (its target path is not code, and is not followed)",
    FileStatus.SUBMODULE: "submodule (its commits are reviewed in its own repository)",
}
# Statuses of a file whose text the diff shows (a binary or mode-only change has none).
_TEXT_CHANGES = (FileStatus.ADDED, FileStatus.MODIFIED, FileStatus.RENAMED, FileStatus.DELETED)
# How many of the files a change declared generated its warning names.
_NAMED = 5
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
    ignore = matcher(paths_ignore)
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
        elif ignore(file.path):
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
    _freeze_what_is_loaded()
    analysis, gate = options.analysis, options.gate
    nothing_to_review = _nothing_to_review(request)
    request, binaries, read_whole = read_binaries(request)
    binaries = _ignored(binaries, analysis.paths_ignore)
    files, skipped = select_files(request.change.files, analysis.paths_ignore)
    files, generated, declared = (
        (files, (), {})
        if analysis.review_generated
        else skip_generated(request, files, trust_pr=analysis.pr_suppressions == "honor")
    )
    files, too_large = within_caps(request, files)
    files = by_risk(files)
    skipped = (*binaries, *skipped, *generated, *request.change.not_parsed, *too_large)
    model = llm if options.model.enabled else None
    static_reason = None if model is not None else options.model.static_only_reason
    if options.model.enabled and llm is None:
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
            options=analysis,
            llm=model,
            disk_paths=workspace.disk,
            real_path=workspace.real_path,
            base=_base_side(request, base_request, base_workspace),
        )
        deadline = _deadline(analysis)
        token = DEADLINE.set(deadline)
        try:
            reports = await asyncio.gather(
                *(_run_agent(name, ctx, progress, deadline) for name in analysis.agents)
            )
        finally:
            DEADLINE.reset(token)
    if declared:
        reports = [_distrust(report, declared) for report in reports]
    unread = find_unread(reports, [f.path for f in files], lambda path: _first_line(request, path))
    return synthesize(
        reports,
        min_confidence=analysis.min_confidence,
        static_reason=static_reason,
        files_reviewed=[f.path for f in files],
        files_not_reviewed=(*skipped, *workspace.failed),
        duration_ms=int((time.perf_counter() - started) * 1000),
        nothing_to_review=nothing_to_review,
        warnings=(
            *injection_warnings(request),
            *binary_warning(read_whole),
            *_declared_warning(declared),
        ),
        fail_on=gate.fail_on,
        count_disputed=gate.count_disputed,
        unread_code=unread,
    )


@functools.cache
def _freeze_what_is_loaded() -> None:
    """Move every object alive at the first review, the modules, rule tables and models, out
    of the cyclic garbage collector's sight, once per process (``gc.freeze``). A review makes
    many short-lived objects, and each full collection walked all of those as well: the first
    review of 4,000 new lines in a fresh process took 0.42-0.45 s frozen against 0.46-0.49 s.
    Frozen objects are still freed when nothing refers to them; only a cycle among them would
    stay, and there is one such start per process (the CLI reviews once, an eval freezes at
    its first case and its forked worker inherits that)."""
    gc.freeze()


def _first_line(request: ReviewRequest, path: str) -> str:
    """The first line of ``path``'s new text (empty when the diff does not show it)."""
    lines = request.lines_of(path)
    return lines[0] if lines else ""


def _ignored(files: Sequence[SkippedFile], paths_ignore: Sequence[str]) -> tuple[SkippedFile, ...]:
    """``files`` with those ``paths_ignore`` matches listed as ignored: the user asked not to
    review them, so that their text could not be read leaves no gap."""
    ignore = matcher(paths_ignore)
    return tuple(
        SkippedFile(path=f.path, reason="matches paths-ignore") if ignore(f.path) else f
        for f in files
    )


def skip_generated(
    request: ReviewRequest, files: Sequence[FileChange], *, trust_pr: bool = False
) -> tuple[tuple[FileChange, ...], tuple[SkippedFile, ...], dict[str, Exemption]]:
    """Split off lock files, vendored and generated code, each listed with its reason.

    Such an exemption is a statement about the code, and the pull request's author can make
    it about their own, as with a ``# nosec``. One the base already made (the file was exempt
    before the change: its folder, name, marker line or ``.gitattributes`` pattern is not
    new) is the project's and is honoured. One the pull request grants itself (a new file in
    a ``vendor/`` folder or with a generated name, a marker on an added line, a new
    ``.gitattributes`` pattern) is not, unless ``trust_pr``: the file stays in the review and
    is returned, with what exempted it, among the files the change declared exempt. Lock
    files are skipped by their exact name alone, new or not: a new ``package-lock.json`` is
    what adding a dependency legitimately produces, and a lock file holds no code any of our
    analysers reads.
    """
    head_attributes, base_attributes = _attributes(request)
    keep: list[FileChange] = []
    skipped: list[SkippedFile] = []
    declared: dict[str, Exemption] = {}
    for file in files:
        found = exemption(file.path, _head(request, file), head_attributes)
        if found is None:
            keep.append(file)
        elif trust_pr or found.lock_file or _exempt_before(request, file, base_attributes):
            skipped.append(SkippedFile(path=file.path, reason=found.reason))
        else:
            keep.append(file)
            declared[file.path] = found
    return tuple(keep), tuple(skipped), declared


def _head(request: ReviewRequest, file: FileChange) -> str:
    """The start of ``file``'s new text, where a generated marker would be: from its contents,
    else the lines the diff shows, in place (the marker on line 1 is seen whether the change
    added it or kept it)."""
    text = request.contents.get(file.path)
    if text:
        return text[:HEAD_CHARS]
    lines: list[str] = []
    size = 0
    for number, line in file.new_lines():
        if size > HEAD_CHARS or number > HEAD_CHARS:
            break  # past the start (every line takes at least its newline)
        gap = number - 1 - len(lines)
        lines.extend([""] * gap + [line])
        size += gap + len(line) + 1
    return "\n".join(lines)[:HEAD_CHARS]


def _attributes(request: ReviewRequest) -> tuple[Attributes, Attributes]:
    """The ``.gitattributes`` after the change and before it."""
    changed = request.change.file(".gitattributes")
    if changed is None or changed.status not in _TEXT_CHANGES:
        same = Attributes(request.contents.get(".gitattributes", request.gitattributes))
        return same, same
    head = ""
    if changed.status is not FileStatus.DELETED:
        head = request.contents.get(".gitattributes") or changed.rebuild()
    base = "" if changed.status is FileStatus.ADDED else changed.base_text(head)
    return Attributes(head), Attributes(base)


def _exempt_before(request: ReviewRequest, file: FileChange, attributes: Attributes) -> bool:
    """Whether ``file`` was exempt before the change (a new file never was)."""
    if not file.has_base:
        return False
    head = request.contents.get(file.path) or file.rebuild()
    return exemption(file.old_path or file.path, file.base_text(head), attributes) is not None


def _distrust(report: AgentReport, declared: Mapping[str, Exemption]) -> AgentReport:
    """``report`` with the findings in files the change declared exempt treated as under a
    suppression the change added (``knowledge/suppressions.py``): high and critical ones are
    kept, marked with what declared the file; the rest are dropped, as the declaration asks."""
    findings = []
    for finding in report.findings:
        found = declared.get(finding.file_path)
        if found is None:
            findings.append(finding)
        elif finding.severity.rank >= Severity.HIGH.rank:
            mark = finding.suppressed_in_pr or clip(
                f"declared {found.kind} by {found.mark}", MARK_CHARS
            )
            findings.append(finding.model_copy(update={"suppressed_in_pr": mark}))
    return report.model_copy(update={"findings": tuple(findings)})


def _declared_warning(declared: Mapping[str, Exemption]) -> tuple[str, ...]:
    """One warning naming the files the change declared generated or vendored, if any."""
    if not declared:
        return ()
    named = [f"{path} ({found.mark})" for path, found in list(declared.items())[:_NAMED]]
    more = f" and {len(declared) - _NAMED} more" if len(declared) > _NAMED else ""
    return (
        f"this pull request declares {len(declared)} file(s) generated or vendored: "
        f"{', '.join(named)}{more}. An exemption a pull request grants itself is not "
        "trusted: they were reviewed, and findings of high severity there are reported, "
        "marked (pr-suppressions: honor skips them)",
    )


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


def _deadline(options: AnalysisOptions) -> float | None:
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
