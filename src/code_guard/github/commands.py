"""The ``/code-guard dismiss`` command, read from one comment's markdown.

A command is a line of its own, outside code blocks and quotes::

    /code-guard dismiss <kind> <reason>          (a reply to the finding's inline comment)
    /code-guard dismiss <id> <kind> <reason>     (anywhere: the finding's short id)

``kind`` is ``false-positive``, ``accepted-risk`` or ``wont-fix``; the reason is the rest of
the line and is required. A line that starts like a command but does not parse, and a
command inside a fenced block (a ``suggestion``, quoted code) or a quote, is rejected with
one line saying why; it never counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from code_guard.findings import REASON_CHARS, DismissalKind

PREFIX = "/code-guard"
_COMMAND = re.compile(r"^\s{0,3}/code-guard(?:\s+(?P<rest>.*))?$", re.IGNORECASE)
_QUOTED = re.compile(r"^\s{0,3}>\s?(?P<line>.*)$")
_FENCE = re.compile(r"^\s{0,3}(?P<fence>`{3,}|~{3,})")
_ID = re.compile(r"^[0-9a-f]{8,16}$")
KINDS = ", ".join(k.value for k in DismissalKind)


@dataclass(frozen=True, slots=True)
class Command:
    """A well-formed dismissal: its kind and reason, and the short id it names, if any."""

    kind: DismissalKind
    reason: str
    target: str | None = None


@dataclass(frozen=True, slots=True)
class Rejected:
    """A command line that does not count, and why, in one line."""

    why: str


def parse_commands(body: str) -> list[Command | Rejected]:
    """Every command line of the markdown ``body``, parsed or rejected, in order."""
    found: list[Command | Rejected] = []
    fence = ""
    for raw in body.replace("\r\n", "\n").split("\n"):
        opened = _FENCE.match(raw)
        if fence:
            if opened and _closes(opened.group("fence"), fence):
                fence = ""
            elif _COMMAND.match(raw):
                found.append(Rejected("the command is inside a code or suggestion block"))
            continue
        if opened:
            fence = opened.group("fence")
            continue
        quoted = _QUOTED.match(raw)
        if quoted:
            if _COMMAND.match(quoted.group("line")):
                found.append(Rejected("the command is inside a quote"))
            continue
        match = _COMMAND.match(raw)
        if match:
            found.append(parse_line(match.group("rest") or ""))
    return found


def _closes(marker: str, fence: str) -> bool:
    """Whether a fence line of ``marker`` closes a block opened by ``fence`` (CommonMark:
    the same character, at least as many)."""
    return marker[0] == fence[0] and len(marker) >= len(fence)


def parse_line(rest: str) -> Command | Rejected:
    """Parse what follows ``/code-guard`` on a command line."""
    words = rest.split(None, 1)
    if not words or words[0].lower() != "dismiss":
        verb = words[0][:40] if words else ""
        return Rejected(f"unknown command {verb!r}: the only command is `{PREFIX} dismiss`")
    args = words[1].strip() if len(words) > 1 else ""
    first, _, after = args.partition(" ")
    target: str | None = None
    if _ID.match(first.lower()) and first.lower() not in {k.value for k in DismissalKind}:
        target, (first, _, after) = first.lower(), after.strip().partition(" ")
    if not first:
        return Rejected(f"the command names no kind (expected one of: {KINDS})")
    try:
        kind = DismissalKind(first.lower())
    except ValueError:
        return Rejected(f"unknown kind {first[:40]!r} (expected one of: {KINDS})")
    reason = " ".join(after.split())
    if not reason:
        return Rejected(f"a reason is required: `{PREFIX} dismiss {kind.value} <reason>`")
    if len(reason) > REASON_CHARS:
        return Rejected(f"the reason is longer than {REASON_CHARS} characters")
    return Command(kind, reason, target)
