"""Untrusted text made inert for GitHub markdown: the one escaping function, and its wrappers.

File names, titles, reasons and explanations come from the pull request, from tools that
read it and from a model it can steer, so they are attacker-controlled. ``plain_line`` is the
one function every such string goes through on its way into markdown (summary comment, inline
comments, job summary, eval report); ``plain`` and ``code_span`` are built on it. What it
returns renders as exactly the characters it was given, on one line:

- markdown and HTML never render: every ASCII punctuation character that can start markup,
  a link, an autolink, an entity, math or a table cell is backslash-escaped;
- ``@team`` never pings and ``#12`` never links: an invisible word joiner follows ``@``/``#``;
- this action's machine records can never appear in it: ``<``, ``-`` and ``:`` are escaped,
  so neither ``<!--``, ``-->`` nor ``code-guard:`` survives (the records are also read only
  from where the action writes them; see ``github.incremental`` and ``github.comments``);
- control and bidirectional-override characters become U+FFFD, so nothing is hidden or
  reordered.
"""

from __future__ import annotations

import re

# Every ASCII punctuation character may be backslash-escaped in CommonMark; these are the
# ones that can start markup, links, HTML, entities, math, emphasis, tables or autolinks.
_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~=&$:^])")
_WORD_JOINER = "\u2060"  # invisible; it keeps "@team" from being a mention, "#1" a reference
_HIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def plain_line(text: str) -> str:
    """``text`` folded onto one line, rendered verbatim, with no mention and no marker.

    The one escaping function for pull-request-derived text (paths, titles, reasons, model
    and tool text): see the module docstring for what it guarantees.
    """
    flat = " ".join(text.split())
    escaped = _SPECIAL.sub(r"\\\1", _HIDDEN.sub("\ufffd", flat))
    return escaped.replace("@", "@" + _WORD_JOINER).replace("#", "#" + _WORD_JOINER)


def plain(text: str) -> str:
    """``text`` as one paragraph per blank-line-separated block, each through ``plain_line``."""
    blocks = (plain_line(block) for block in re.split(r"\n\s*\n", text))
    return "\n\n".join(b for b in blocks if b)


def code_span(text: str) -> str:
    """``text`` in code font: ``plain_line`` inside ``<code>``, which (unlike a backtick
    span, whose content cannot be escaped) keeps it inert and free of markers, and is safe in
    a table cell too (its ``|`` is escaped)."""
    return f"<code>{plain_line(text)}</code>"
