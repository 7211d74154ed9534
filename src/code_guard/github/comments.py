"""The markdown body of one inline comment, and the hidden fingerprint that makes re-runs safe.

Each body shows severity, category, title and explanation; when the finding's fix reads as
code replacing exactly the commented lines, it becomes a ```` ```suggestion ```` block that the
author can apply with one click. Each body ends with ``<!-- code-guard:fp=... -->``, which a
later run finds in the pull request's review comments so it never posts a finding twice.
"""

from __future__ import annotations

import re
import textwrap

from code_guard.diff import Change
from code_guard.github.anchors import Anchor
from code_guard.models import Finding, Severity
from code_guard.report.markdown import SEVERITY_ICON

MAX_BODY = 65_536  # GitHub's limit on a comment body, in characters
_FP_RE = re.compile(r"<!-- code-guard:fp=([0-9a-f]{6,64}) -->")
_FENCE_RE = re.compile(r"\A\s*```[\w+-]*\n(?P<code>.*?)\n?```\s*\Z", re.DOTALL)
_STRING_RE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")
_BARE_WORDS_RE = re.compile(r"\b[A-Za-z]+ [A-Za-z]+ [A-Za-z]+ [A-Za-z]+\b")
_TRUNCATED = "\n\n*(truncated to fit GitHub's comment size limit)*"

BADGES = {s: f"{SEVERITY_ICON[s]} {s.value.capitalize()}" for s in Severity}


def fingerprint_marker(fingerprint: str) -> str:
    """The hidden HTML comment that identifies a finding in a comment body."""
    return f"<!-- code-guard:fp={fingerprint} -->"


def fingerprints_in(bodies: list[str]) -> set[str]:
    """Every fingerprint marker found in ``bodies``."""
    return {match for body in bodies for match in _FP_RE.findall(body)}


def fit(text: str, limit: int = MAX_BODY, keep: str = "") -> str:
    """Cut ``text`` so that ``text + keep`` fits in ``limit`` characters, saying it was cut."""
    if len(text) + len(keep) <= limit:
        return text + keep
    room = max(limit - len(keep) - len(_TRUNCATED), 0)
    return text[:room] + _TRUNCATED + keep


def comment_body(finding: Finding, anchor: Anchor, change: Change) -> str:
    """The markdown of the inline comment for ``finding`` placed at ``anchor``."""
    category = finding.category.value.replace("_", " ")
    parts = [
        f"**{BADGES[finding.severity]}** · `{category}` · {finding.agent.value}",
        f"**{finding.title}**",
    ]
    if finding.description:
        parts.append(finding.description)
    code = suggestion_code(finding, anchor, change)
    if code is not None:
        parts.append(_fenced("suggestion", code))
    elif finding.suggested_fix:
        parts.append(f"**Suggested fix:**\n\n{finding.suggested_fix}")
    meta = [finding.cwe_id] if finding.cwe_id else []
    meta += [f"confidence {finding.confidence:.2f}", "found by " + ", ".join(finding.sources)]
    parts.append("<sub>" + " · ".join(meta) + "</sub>")
    return fit("\n\n".join(parts), keep="\n" + fingerprint_marker(finding.fingerprint))


def suggestion_code(finding: Finding, anchor: Anchor, change: Change) -> str | None:
    """The fix as replacement code for the anchored lines, or None if it is not that.

    A suggestion replaces exactly the commented lines, so it is offered only when the anchor
    covers the finding's whole range and the fix reads as code: a fenced block, or text that
    does not end like a sentence and has no run of four bare words outside string literals.
    Code given without indentation is indented like the first commented line.
    """
    fix = (finding.suggested_fix or "").strip("\n")
    if not fix.strip() or anchor.first_line != finding.line_start:
        return None
    if anchor.line != finding.line_end:
        return None
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


def api_comment(finding: Finding, anchor: Anchor, change: Change) -> dict[str, object]:
    """The comment as the reviews API takes it: ``line``/``side``, never ``position``."""
    comment: dict[str, object] = {
        "path": anchor.path,
        "line": anchor.line,
        "side": "RIGHT",
        "body": comment_body(finding, anchor, change),
    }
    if anchor.start_line is not None:
        comment["start_line"] = anchor.start_line
        comment["start_side"] = "RIGHT"
    return comment
