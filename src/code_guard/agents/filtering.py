"""The filters a tool hit passes on its way to a finding, each named, in the order they run.

An agent maps a hit to its rule's record in the catalogue, then asks, in turn: is it a note
rather than a finding, is it in the review's scope, did the repository's owner turn its rule
off (``disable-rules``), is its rule quiet in this kind of file,
does its rule decline this hit, does the agent want it, and is it suppressed in a way the
review honours. What survives becomes a finding, with a rewrite of its one line where the fix
is certain. A candidate held back on proof (a tool's own ``silenced`` hit, the test-file
policy, the rule's record, an honoured suppression) becomes a ``Silenced`` record with the
proof, so the review can count it and say why it was not flagged; so does a hit of a rule the
owner turned off, whose record says it was their choice, not proof.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from code_guard.change.diff import FileChange
from code_guard.change.request import ReviewRequest
from code_guard.change.testfiles import TestFiles
from code_guard.findings import (
    FIX_CHARS,
    MARK_CHARS,
    REASON_CHARS,
    TEXT_CHARS,
    TITLE_CHARS,
    AgentName,
    Finding,
    Severity,
    Silenced,
    Silencing,
    clip,
)
from code_guard.knowledge.fixes import rewrite
from code_guard.knowledge.mapping import lookup
from code_guard.knowledge.placeholders import is_test_path
from code_guard.knowledge.records import RuleRecord
from code_guard.knowledge.suppressions import suppression
from code_guard.options import AnalysisOptions
from code_guard.tools.base import NOT_ANALYSED_RULE, ToolHit

# An agent's own say on a mapped hit on its line (``Agent.keep``).
Keep = Callable[[ToolHit, str], bool]


def is_note(hit: ToolHit) -> bool:
    """A hit that says an analyser did not read (all of) a file, or a candidate a tool
    proved harmless (``silenced``): a note, never a finding."""
    return hit.rule == NOT_ANALYSED_RULE or bool(hit.silenced)


def out_of_scope(hit: ToolHit, file: FileChange, options: AnalysisOptions) -> bool:
    """A hit on a line the pull request did not add, when only added lines are reviewed;
    except a hit about a deletion, on the unchanged line of the hunk that lost its protection."""
    if hit.on_unchanged_line and file.in_hunk(hit.line):
        return False
    return options.added_lines_only and not file.is_added(hit.line)


def disabled(hit: ToolHit, options: AnalysisOptions) -> bool:
    """Whether the configuration turns ``hit``'s rule off: its ``tool:rule``, exactly as a
    finding's sources name it, is in ``disable-rules``. Only this hit is held back; a finding
    other rules also report keeps their sources."""
    return f"{hit.tool}:{hit.rule}" in options.disable_rules


def _disabled_reason(hit: ToolHit) -> str:
    return (
        f"the repository's configuration turns {hit.tool}:{hit.rule} off (disable-rules): "
        "the owner's choice, not proof that the code is safe"
    )


def quiet_here(hit: ToolHit, info: RuleRecord, request: ReviewRequest) -> TestFiles | None:
    """The change's test files when ``hit``'s rule is about production behaviour and its file
    is one the review shows is a test: one that looks like a test and that no production file
    of the change loads (``testfiles.py``); else None. The change is read for that only when
    a hit in a test-looking file asks."""
    if not (info.quiet_in_tests and is_test_path(hit.file_path)):
        return None
    tests = request.test_files()
    return tests if tests.is_test(hit.file_path) else None


def declined_by_rule(hit: ToolHit, info: RuleRecord, line: str) -> str | None:
    """Why the hit's rule record says it is no finding, or None when it does not: one the
    analyser itself rates as harmless (``ignore_when_rated``), or on a line of the harmless
    shape (``ignore_line``)."""
    if hit.tool_severity and hit.tool_severity in info.ignore_when_rated:
        return f"{hit.tool} rates it {hit.tool_severity}, a rating the rule's record ignores"
    if info.ignore_line is not None and re.fullmatch(info.ignore_line, line) is not None:
        return f"the line has the shape the rule's record calls harmless ({info.ignore_line})"
    return None


def honoured_suppression(
    suppressed: str | None,
    hit: ToolHit,
    info: RuleRecord,
    file: FileChange,
    options: AnalysisOptions,
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
    judged = judge(agent, hit, request, options, keep)
    return judged if isinstance(judged, Finding) else None


def judge(
    agent: AgentName, hit: ToolHit, request: ReviewRequest, options: AnalysisOptions, keep: Keep
) -> Finding | Silenced | None:
    """The finding ``agent`` reports for ``hit``; or, when a filter holds it back on proof,
    the record of that; or None when it is no candidate at all (a note about a file, a rule
    the catalogue does not map, a line out of the review's scope, a hit the agent declines)."""
    if hit.rule == NOT_ANALYSED_RULE:
        return None
    file = request.change.file(hit.file_path)
    if hit.silenced:  # proved harmless by its tool: counted where the review looks, never found
        in_scope = file is not None and not out_of_scope(hit, file, options)
        return silenced_by_tool(hit) if in_scope else None
    info = lookup(hit.tool, hit.rule)
    if info is None or file is None or out_of_scope(hit, file, options):
        return None
    if disabled(hit, options):
        return silenced(Silencing.DISABLED, hit, _disabled_reason(hit))
    tests = quiet_here(hit, info, request)
    if tests is not None:
        why = f"a rule about production behaviour, quiet in {tests.why(hit.file_path)}"
        return silenced(Silencing.TEST_FILE, hit, why)
    lines = request.lines_of(hit.file_path)
    anchor = lines[hit.line - 1] if 0 < hit.line <= len(lines) else ""
    declined = declined_by_rule(hit, info, anchor)
    if declined is not None:
        return silenced(Silencing.RULE_DECLINED, hit, declined)
    if not keep(hit, anchor):
        return None
    suppressed = suppression(hit.tool, anchor)
    if honoured_suppression(suppressed, hit, info, file, options):
        return silenced(Silencing.SUPPRESSION, hit, _suppression_reason(suppressed, hit, file))
    # A deterministic rewrite is for exactly the one flagged line, never a wider range.
    fix = rewrite(info, anchor) if hit.end_line <= hit.line else None
    return hit_finding(
        agent,
        hit,
        info,
        anchor,
        suggested_fix=fix,
        fix_lines=(hit.line, hit.line) if fix is not None else None,
        suppressed_in_pr=suppressed,
    )


def silenced(mechanism: Silencing, hit: ToolHit, reason: str) -> Silenced:
    """The record of ``hit`` held back by ``mechanism``, with the proof ``reason``."""
    return Silenced(
        mechanism=mechanism,
        tool=hit.tool,
        rule=hit.rule,
        file_path=hit.file_path,
        line=max(hit.line, 1),
        reason=clip(" ".join(reason.split()), REASON_CHARS),
    )


def silenced_by_tool(hit: ToolHit) -> Silenced | None:
    """The record of a hit its tool proved harmless, the tool's proof (its message) as the
    reason; None for a mechanism this version does not know (the hit is still no finding)."""
    try:
        mechanism = Silencing(hit.silenced)
    except ValueError:
        return None
    return silenced(mechanism, hit, hit.message)


def _suppression_reason(comment: str | None, hit: ToolHit, file: FileChange) -> str:
    """Whose suppression comment silenced ``hit``: the project's own, or one the pull request
    added that the review honours."""
    whose = "the pull request adds" if file.is_added(hit.line) else "the project already had"
    return f"suppression comment `{comment}` that {whose} on the line"


def hit_finding(
    agent: AgentName,
    hit: ToolHit,
    info: RuleRecord,
    anchor: str,
    *,
    suggested_fix: str | None = None,
    fix_lines: tuple[int, int] | None = None,
    suppressed_in_pr: str | None = None,
) -> Finding:
    """The finding ``agent`` reports for ``hit``, with the facts of its rule's record
    ``info``, on source line ``anchor``: the form the agents and Bandit alone share,
    optionally with a one-line fix over ``fix_lines`` and the suppression the PR added.

    Every text is bounded here, so no hit can fail to become a finding: the title and the
    description are cut to their limits, and a fix too long to hold (one rewritten line of
    a very long line) is left out, with a sentence in the description saying so.
    """
    first = hit.message.strip().split("\n", 1)[0]
    description = f"{hit.message} ({hit.tool} {hit.rule})"
    if suggested_fix is not None and len(suggested_fix) > FIX_CHARS:
        note = (
            f" A one-line fix is not attached: at {len(suggested_fix):,} characters it is over "
            f"the {FIX_CHARS:,}-character limit of a suggested fix."
        )
        description = clip(description, TEXT_CHARS - len(note)) + note
        suggested_fix, fix_lines = None, None
    return Finding(
        agent=agent,
        file_path=hit.file_path,
        line_start=hit.line,
        line_end=max(hit.end_line, hit.line),
        severity=info.severity,
        category=info.category,
        title=clip(first, TITLE_CHARS) or "Issue",
        description=clip(description, TEXT_CHARS),
        suggested_fix=suggested_fix,
        fix_lines=fix_lines,
        cwe_id=info.cwe,
        confidence=info.confidence,
        sources=(f"{hit.tool}:{hit.rule}",),
        anchor_text=anchor.strip(),
        removed_line=hit.removed_line[:500] or None,
        removed_at=hit.removed_at or None,
        suppressed_in_pr=clip(suppressed_in_pr, MARK_CHARS) if suppressed_in_pr else None,
    )
