"""Untrusted text made inert for GitHub markdown: plain text, code spans, no mentions.

Titles and explanations come from tools and from a model that reads the pull request, so
they are attacker-influenced. Everything here renders exactly the characters it was given:
markdown and HTML are escaped, ``@mentions``, autolinks and our hidden markers are broken.
"""

from __future__ import annotations

import re

# Every ASCII punctuation character may be backslash-escaped in CommonMark; these are the
# ones that can start markup, links, HTML, math, emphasis, tables or autolinks.
_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~=&$:^])")
_WORD_JOINER = "\u2060"  # invisible; it keeps "@team" from being a mention


def plain(text: str) -> str:
    """``text`` as one paragraph per blank-line-separated block, rendered verbatim."""
    blocks = [" ".join(block.split()) for block in re.split(r"\n\s*\n", text)]
    return "\n\n".join(_escape(b) for b in blocks if b)


def plain_line(text: str) -> str:
    """``text`` folded onto one line and rendered verbatim (titles, table cells)."""
    return _escape(" ".join(text.split()))


def _escape(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text).replace("@", "@" + _WORD_JOINER)


def code_span(text: str) -> str:
    """``text`` as an inline code span that no backtick inside it can end early."""
    flat = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith(("`", " ")) or flat.endswith(("`", " ")) or longest else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def table_code_span(text: str) -> str:
    """A code span safe inside a table cell (GFM splits cells on ``|`` before code spans)."""
    return code_span(text).replace("|", "\\|")
