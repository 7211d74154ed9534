"""The filters a tool hit passes on its way to a finding, each named, in the order they run.

An agent maps a hit to its rule, then asks, in turn: is it a note rather than a finding, is it
in the review's scope, is its rule quiet in this kind of file, does the agent want it, and is
it suppressed in a way the review honours. What survives becomes a finding, with a rewrite of
its one line where the fix is certain.
"""

from __future__ import annotations

from collections.abc import Callable

from code_guard.diff import FileChange
from code_guard.knowledge.fixes import rewrite
from code_guard.knowledge.mapping import NOT_ANALYSED_RULE, RuleInfo, hit_finding, lookup
from code_guard.knowledge.placeholders import is_test_path
from code_guard.knowledge.policy import quiet_in_tests
from code_guard.knowledge.suppressions import suppression
from code_guard.models import AgentName, Finding, Severity
from code_guard.options import AnalysisOptions
from code_guard.request import ReviewRequest
from code_guard.tools.base import ToolHit

# An agent's own say on a mapped hit on its line (``Agent.keep``).
Keep = Callable[[ToolHit, str], bool]


def is_note(hit: ToolHit) -> bool:
    """A hit that says an analyser did not read (all of) a file: a note, never a finding."""
    return hit.rule == NOT_ANALYSED_RULE


def out_of_scope(hit: ToolHit, file: FileChange, options: AnalysisOptions) -> bool:
    """A hit on a line the pull request did not add, when only added lines are reviewed;
    except a hit about a deletion, on the unchanged line of the hunk that lost its protection."""
    if hit.on_unchanged_line and file.in_hunk(hit.line):
        return False
    return options.added_lines_only and not file.is_added(hit.line)


def quiet_here(hit: ToolHit) -> bool:
    """A rule about production behaviour, in a test file."""
    return is_test_path(hit.file_path) and quiet_in_tests(hit.tool, hit.rule)


def honoured_suppression(
    suppressed: str | None, hit: ToolHit, info: RuleInfo, file: FileChange, options: AnalysisOptions
) -> bool:
    """Whether the suppression comment ``suppressed`` on the hit's line silences it: the
    project's own always does; one the pull request adds silences only findings below high,
    unless the user chose to honour them all (``pr-suppressions: honor``)."""
    if suppressed is None:
        return False
    return (
        options.pr_suppressions == "honor"
        or not file.is_added(hit.line)
        or info.severity.rank < Severity.HIGH.rank
    )


def finding_for(
    agent: AgentName, hit: ToolHit, request: ReviewRequest, options: AnalysisOptions, keep: Keep
) -> Finding | None:
    """The finding ``agent`` reports for ``hit``, or None when a filter drops it."""
    if is_note(hit):
        return None
    info = lookup(hit.tool, hit.rule)
    file = request.change.file(hit.file_path)
    if info is None or file is None:
        return None
    if out_of_scope(hit, file, options) or quiet_here(hit):
        return None
    lines = request.lines_of(hit.file_path)
    anchor = lines[hit.line - 1] if 0 < hit.line <= len(lines) else ""
    if not keep(hit, anchor):
        return None
    suppressed = suppression(hit.tool, anchor)
    if honoured_suppression(suppressed, hit, info, file, options):
        return None
    # A deterministic rewrite is for exactly the one flagged line, never a wider range.
    fix = rewrite(hit.tool, hit.rule, anchor) if hit.end_line <= hit.line else None
    return hit_finding(
        agent,
        hit,
        info,
        anchor,
        suggested_fix=fix,
        fix_lines=(hit.line, hit.line) if fix is not None else None,
        suppressed_in_pr=suppressed,
    )
