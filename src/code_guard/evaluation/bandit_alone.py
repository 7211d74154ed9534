"""Bandit alone, as an eval reviewer: the baseline our figures stand beside.

``code-guard eval --reviewer bandit`` reviews each case with nothing but Bandit, the version
and flags the security agent runs (``tools.bandit.BanditTool``), over the change's Python
files, and scores it with the same matching as our review. Each result becomes a finding in
the category its rule's record in our catalogue gives (``knowledge.mapping.lookup``). Unlike
the agent, it keeps what Bandit alone would report: rules the catalogue ignores (``B310``,
imports, ``B603``) are reported in the fallback category of an unmapped rule, and no agent filter,
test-file policy, skipping of generated files or comparison with the base applies. Like our
review by default, only results on lines the change added are kept (every line with
``added-lines-only: false`` in the config file).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from code_guard.agents.filtering import hit_finding, is_note
from code_guard.change.request import ReviewRequest
from code_guard.change.workspace import materialize
from code_guard.errors import ToolError
from code_guard.findings import AgentName, AgentState, AgentStatus, Finding, Review
from code_guard.knowledge.mapping import UNMAPPED, lookup
from code_guard.options import AnalysisOptions
from code_guard.review.engine import select_files
from code_guard.review.synthesizer import health_score, verdict
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import ToolHit, in_tool_thread

# The mode recorded in results.json (as the static-only reason) and shown in the report.
BANDIT_ALONE = (
    "Bandit alone (--reviewer bandit): every Bandit result, in the category the rule catalogue "
    "gives its rule"
)


def bandit_reviewer(options: AnalysisOptions) -> Callable[[ReviewRequest], Awaitable[Review]]:
    """A review function that runs Bandit alone, in a tool thread so the event loop stays free.

    Of the analysis ``options`` it reads only which files to skip (``paths_ignore``) and which
    lines count (``added_lines_only``): there is no model and no agent.
    """

    async def review(request: ReviewRequest) -> Review:
        return await in_tool_thread(review_with_bandit, request, options)

    return review


def review_with_bandit(request: ReviewRequest, options: AnalysisOptions) -> Review:
    """Run Bandit over the change's Python files and report every result as a finding.

    A Bandit crash makes the security agent ``FAILED`` with the reason, as in a review, so
    the eval lists the case as errored instead of scoring it as clean.
    """
    files, _ = select_files(request.change.files, options.paths_ignore)
    tool = BanditTool()
    paths = tuple(f.path for f in files if tool.applies_to(f.path))
    with materialize(request, paths) as workspace:
        try:
            on_disk = [workspace.disk[p] for p in paths if p in workspace.disk]
            hits = tool.run(workspace.root, on_disk)
            failure = None
        except ToolError as exc:
            hits, failure = [], f"bandit failed: {exc}"
        hits = [replace(h, file_path=workspace.real_path(h.file_path)) for h in hits]
    findings = tuple(
        f for hit in hits if (f := to_finding(hit, request, options.added_lines_only)) is not None
    )
    status = AgentStatus(
        agent=AgentName.SECURITY,
        state=AgentState.FAILED if failure else AgentState.OK,
        reason=failure,
        tools=(tool.name,),
    )
    return _review(findings, status, paths)


def to_finding(hit: ToolHit, request: ReviewRequest, added_lines_only: bool) -> Finding | None:
    """The finding Bandit alone reports for ``hit``, or None when it is off the added lines
    (or names a file the change does not have)."""
    file = request.change.file(hit.file_path)
    if file is None or (added_lines_only and not file.is_added(hit.line)):
        return None
    if is_note(hit):
        return None  # a file Bandit skipped (a gap), or a call folding proved harmless
    # A rule the catalogue ignores is still a result of Bandit's: it takes the unmapped fallback.
    info = lookup(hit.tool, hit.rule) or UNMAPPED
    lines = request.lines_of(hit.file_path)
    anchor = lines[hit.line - 1] if 0 < hit.line <= len(lines) else ""
    return hit_finding(AgentName.SECURITY, hit, info, anchor)


def _review(findings: Sequence[Finding], status: AgentStatus, paths: Sequence[str]) -> Review:
    ordered = tuple(sorted(findings, key=lambda f: f.sort_key))
    complete = status.state is AgentState.OK
    return Review(
        findings=ordered,
        health_score=health_score(ordered),
        verdict=verdict(ordered, complete),
        summary=f"Bandit alone: {len(ordered)} result(s).",
        agents=(status,),
        static_only_reason=BANDIT_ALONE,
        files_reviewed=tuple(paths),
    )
