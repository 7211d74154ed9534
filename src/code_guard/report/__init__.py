"""Renderers: pure functions from a ``Review`` to text, one module per output format."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from code_guard.findings import Review
from code_guard.report.json import render_json
from code_guard.report.markdown import render_markdown
from code_guard.report.sarif import render_sarif
from code_guard.report.text import render_text


class OutputFormat(StrEnum):
    """The formats ``code-guard review --format`` can print."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"
    SARIF = "sarif"


RENDERERS: dict[OutputFormat, Callable[[Review], str]] = {
    OutputFormat.TEXT: render_text,
    OutputFormat.JSON: render_json,
    OutputFormat.MARKDOWN: render_markdown,
    OutputFormat.SARIF: render_sarif,
}

__all__ = [
    "RENDERERS",
    "OutputFormat",
    "render_json",
    "render_markdown",
    "render_sarif",
    "render_text",
]
