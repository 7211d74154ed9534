"""The markdown body of one inline comment, and the hidden fingerprint that makes re-runs safe.

Each body shows a bold title, why the finding matters, the fix and a small footer; when the
finding's structured fix was written for exactly the commented lines, it becomes a
```` ```suggestion ```` block that the author can apply with one click. Each body ends with
one ``<!-- code-guard:fp=... -->`` line per finding, which a later run reads so it never posts
a finding twice. It reads them only there, from the end: a suggestion or fix quotes the pull
request's code verbatim, and a marker inside it must not make a finding look already posted.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from code_guard.change.diff import Change
from code_guard.findings import Finding, Severity
from code_guard.github.anchors import Anchor
from code_guard.knowledge.explanations import explain, rule_of
from code_guard.knowledge.fixes import needs as needs_of
from code_guard.knowledge.mapping import lookup
from code_guard.report.markdown import SEVERITY_ICON, footer, marks
from code_guard.trust.escaping import code_span, plain, plain_line

MAX_BODY = 65_536  # GitHub's limit on a comment body, in characters
_FP_LINE = re.compile(
    r"<!-- code-guard:fp=([0-9a-f]{6,64})(?: rule=([\w.:/-]{1,100}) agent=([a-z]{1,20}))? -->"
)
_FENCE_RE = re.compile(r"\A\s*```[\w+-]*\n(?P<code>.*?)\n?```\s*\Z", re.DOTALL)
_RULE = re.compile(r"[\w.:/-]{1,100}")
_STRING_RE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")
_BARE_WORDS_RE = re.compile(r"\b[A-Za-z]+ [A-Za-z]+ [A-Za-z]+ [A-Za-z]+\b")
_TRUNCATED = "\n\n*(truncated to fit GitHub's comment size limit)*"

BADGES = {s: f"{SEVERITY_ICON[s]} {s.value.capitalize()}" for s in Severity}


@dataclass(frozen=True, slots=True)
class Marker:
    """What the hidden marker of a posted finding records: its fingerprint, and (since
    markers carry them) its rule and agent, which the feedback report counts by."""

    fingerprint: str
    rule: str = ""
    agent: str = ""


def fingerprint_marker(fingerprint: str, rule: str = "", agent: str = "") -> str:
    """The hidden HTML comment that identifies a finding in a comment body."""
    if rule and agent and _RULE.fullmatch(rule):
        return f"<!-- code-guard:fp={fingerprint} rule={rule} agent={agent} -->"
    return f"<!-- code-guard:fp={fingerprint} -->"


def finding_marker(finding: Finding) -> str:
    """``finding``'s marker: fingerprint, rule (the tool's, else the category) and agent."""
    tool_rule = rule_of(finding)
    rule = ":".join(tool_rule) if tool_rule else finding.category.value
    return fingerprint_marker(finding.fingerprint, rule, finding.agent.value)


def fingerprints_in(bodies: list[str]) -> set[str]:
    """The fingerprints of ``bodies``: in each, the marker lines that end it, read up to the
    first line that is not one (markers anywhere else are quoted text, not ours)."""
    return {m.fingerprint for body in bodies for m in markers_in(body)}


def markers_in(body: str) -> list[Marker]:
    """The markers that end ``body``, last first (see ``fingerprints_in``)."""
    found = []
    for line in reversed(body.rstrip().split("\n")):
        match = _FP_LINE.fullmatch(line)
        if match is None:
            break
        found.append(Marker(match.group(1), match.group(2) or "", match.group(3) or ""))
    return found


def fit(text: str, limit: int = MAX_BODY, keep: str = "") -> str:
    """Cut ``text`` so that ``text + keep`` fits in ``limit`` characters, saying it was cut."""
    if len(text) + len(keep) <= limit:
        return text + keep
    room = max(limit - len(keep) - len(_TRUNCATED), 0)
    return text[:room] + _TRUNCATED + keep


def comment_body(finding: Finding, anchor: Anchor, change: Change) -> str:
    """The markdown of the inline comment for ``finding`` placed at ``anchor``.

    A bold one-line title; the model's explanation, if any; why it matters; the fix (a
    ``suggestion`` block when the structured fix was written for exactly these lines); and a
    small footer. Tool and model text is rendered as plain text, never as markup.
    """
    return group_body((finding,), anchor, change)


def group_body(findings: Sequence[Finding], anchor: Anchor, change: Change) -> str:
    """One comment for several findings on the same lines (worst first), each with its own
    why, fix and footer, and every finding's marker at the end.

    Only the first finding may offer a ``suggestion``: two one-click rewrites of the same
    lines would undo each other.
    """
    sections = [
        _section(finding, anchor, change, suggest=index == 0)
        for index, finding in enumerate(findings)
    ]
    markers = "".join("\n" + finding_marker(f) for f in findings)
    return fit("\n\n---\n\n".join(sections), keep=markers)


def _section(finding: Finding, anchor: Anchor, change: Change, *, suggest: bool) -> str:
    why = explain(finding)
    parts = [f"**{BADGES[finding.severity]} · {plain_line(finding.title)}**"]
    if anchor.side == "LEFT":
        # The comment sits on the removed line; the text speaks of the head line.
        parts.append(
            f"*On the removed line {anchor.line} of the base; reported at line "
            f"{finding.line_start} of the new file.*"
        )
    if flags := marks(finding).strip():
        parts.append(flags)  # a finding posted despite the model's dispute says so
    if finding.description and not finding.description.startswith(finding.title):
        parts.append(plain(finding.description))
    parts.append(why.why)
    parts.append(_fix_text(finding, anchor, change, why.fix, suggest=suggest))
    parts.append(f"<sub>{footer(finding)}</sub>")
    return "\n\n".join(parts)


def group_by_anchor(
    inline: Sequence[tuple[Finding, Anchor]],
) -> list[tuple[tuple[Finding, ...], Anchor]]:
    """Findings that share an anchor become one comment, in their order (worst first)."""
    groups: dict[Anchor, list[Finding]] = {}
    for finding, anchor in inline:
        groups.setdefault(anchor, []).append(finding)
    return [(tuple(found), anchor) for anchor, found in groups.items()]


def _fix_text(
    finding: Finding, anchor: Anchor, change: Change, fallback: str, *, suggest: bool = True
) -> str:
    code = suggestion_code(finding, anchor, change) if suggest else None
    rule = rule_of(finding)
    needs = needs_of(lookup(*rule)) if rule else None
    also = f" The file also needs {code_span(needs)}." if needs else ""
    if code is not None:
        return f"**Suggested change:**{also}\n\n" + _fenced("suggestion", code)
    fix = finding.suggested_fix
    if fix and fix.strip():
        fenced = _FENCE_RE.match(fix.strip("\n"))
        if fenced or not _reads_as_prose(fix):
            body = fenced.group("code") if fenced else fix
            start, end = finding.fix_lines or (finding.line_start, finding.line_end)
            where = f"line {start}" if start == end else f"lines {start}-{end}"
            return f"**Fix** (for {where}):{also}\n\n" + _fenced("", textwrap.dedent(body))
        return f"**Fix:** {plain(fix)}"
    return f"**Fix:** {fallback}"


def suggestion_code(finding: Finding, anchor: Anchor, change: Change) -> str | None:
    """The fix as replacement code for the anchored lines, or None if it is not that.

    A suggestion replaces exactly the commented lines, so it is offered only when the anchor
    is on the new side (``RIGHT``) and covers exactly the lines the fix was written for
    (``Finding.fix_lines``: a merge may widen the finding, never the fix) and the fix reads
    as code: a fenced block, or text that does not end like a sentence and has no run of four
    bare words outside string literals.
    Code given without indentation is indented like the first commented line; an empty fix
    deletes the lines.
    """
    if finding.suggested_fix is None or finding.fix_lines is None or anchor.side != "RIGHT":
        return None  # a suggestion rewrites new-file lines: only a RIGHT comment can offer one
    fix = finding.suggested_fix.strip("\n")
    if (anchor.first_line, anchor.line) != tuple(finding.fix_lines):
        return None
    if not fix.strip():
        return "" if finding.suggested_fix == "" else None
    fenced = _FENCE_RE.match(fix)
    if fenced:
        code = fenced.group("code")
    elif _reads_as_prose(fix):
        return None
    else:
        code = fix
    file = change.file(anchor.path)
    shown = dict(file.new_lines()) if file else {}
    first = shown.get(anchor.first_line, "")
    indent = first[: len(first) - len(first.lstrip())]
    code = textwrap.dedent(code)
    if indent:
        code = textwrap.indent(code, indent)
    return code


def _fenced(info: str, code: str) -> str:
    # A fence longer than any backtick run inside keeps the block from ending early.
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{code}\n{fence}"


def _reads_as_prose(text: str) -> bool:
    if text.rstrip().endswith((".", "!", "?")):
        return True
    return bool(_BARE_WORDS_RE.search(_STRING_RE.sub('""', text)))


def api_comment(
    finding: Finding | Sequence[Finding], anchor: Anchor, change: Change
) -> dict[str, object]:
    """The comment as the reviews API takes it: ``line``/``side``, never ``position``; the
    side is the anchor's (``LEFT``: a base line, for a finding about a removed line).

    ``finding`` may be several findings sharing the anchor; they read as one comment.
    """
    findings = (finding,) if isinstance(finding, Finding) else tuple(finding)
    comment: dict[str, object] = {
        "path": anchor.path,
        "line": anchor.line,
        "side": anchor.side,
        "body": group_body(findings, anchor, change),
    }
    if anchor.start_line is not None:
        comment["start_line"] = anchor.start_line
        comment["start_side"] = anchor.side
    return comment
