"""Render markdown close to how GitHub does (CommonMark, raw HTML allowed, GFM tables)."""

from __future__ import annotations

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def render_gfm(markdown: str) -> str:
    """The HTML GitHub would show for ``markdown`` (less autolinks and alerts)."""
    return str(_MD.render(markdown))
