"""Untrusted text in markdown: rendered exactly as written, never as markup, never a record.

``plain_line`` is the one function that pull-request-derived text goes through on its way
into markdown. The properties below hold for any string: it renders as one paragraph of
exactly its own characters (no tag, link, image, mention or entity), and it never holds the
syntax of this action's hidden records.
"""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from code_guard.trust.escaping import code_span, plain, plain_line

# As GitHub renders comments (tests/github/gfm.py): CommonMark, raw HTML allowed, GFM tables.
MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
WORD_JOINER = "\u2060"
MARKERS = ("<!--", "-->", "code-guard:")
FUZZ = settings(max_examples=400, deadline=None, database=None)

# Pieces an attacker would put in a file name or a title, mixed with arbitrary text.
_PIECES = st.sampled_from(
    [
        "<!-- code-guard:reviewed " + "a" * 40 + " -->", "<!--", "-->", "code-guard:",
        "<!-- code-guard:fp=0123456789abcdef -->", "@org/team", "me@example.com", "#12",
        "**bold**", "_em_", "[re-run](https://evil.example)", "![i](x.png)", "<img src=x>",
        "<details>", "```", "`", "www.evil.example", "https://evil.example/x", "&amp;", "&#60;",
        "| a | b |", "    ", "\n", "\n\n", "\t", "1. ", "- ", "> ", "# ", "\\", "~~s~~", "$x$",
        "[^1]", "<https://x.example>", "\u202e", "\x00", "\r", "✅", "===", "---",
    ]
)  # fmt: skip
HOSTILE = st.lists(_PIECES | st.text(max_size=8), max_size=12).map("".join)


def shown(markdown: str, wrapper: str = "") -> str:
    """The text a reader sees for one line of ``markdown``; fails if anything but a paragraph
    (and ``wrapper``, e.g. ``code``) would render."""
    rendered = MD.render(markdown)
    if not rendered:
        return ""
    head, tail = f"<p>{wrapper and f'<{wrapper}>'}", f"{wrapper and f'</{wrapper}>'}</p>\n"
    assert rendered.startswith(head) and rendered.endswith(tail), rendered
    inner = rendered[len(head) : len(rendered) - len(tail)]
    assert "<" not in inner, rendered  # no tag at all: no link, image, emphasis, HTML
    return html.unescape(inner).replace(WORD_JOINER, "")


def as_written(text: str) -> str:
    """``text`` on one line, control and direction-override characters shown as U+FFFD."""
    flat = " ".join(text.split())
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", "\ufffd", flat).replace(
        WORD_JOINER, ""
    )


def assert_inert(markdown: str) -> None:
    for marker in MARKERS:
        assert marker not in markdown.lower(), marker
    assert re.search(f"[@#](?!{WORD_JOINER})", markdown) is None  # no mention, no reference


@FUZZ
@given(HOSTILE)
def test_any_text_renders_as_exactly_its_characters_and_holds_no_marker(text: str) -> None:
    line = plain_line(text)
    assert "\n" not in line
    assert shown(line) == as_written(text)
    assert_inert(line)


@FUZZ
@given(HOSTILE)
def test_code_spans_render_the_text_in_code_font_and_nothing_else(text: str) -> None:
    span = code_span(text)
    if as_written(text):
        assert shown(span, "code") == as_written(text)
    assert_inert(span.removeprefix("<code>").removesuffix("</code>"))


@FUZZ
@given(st.lists(HOSTILE, min_size=1, max_size=4))
def test_paragraphs_each_render_as_plain_text(blocks: list[str]) -> None:
    given = "\n\n".join(blocks)
    text = plain(given)
    assert_inert(text)
    paragraphs = [shown(block) for block in text.split("\n\n")] if text else []
    assert paragraphs == [b for b in map(as_written, re.split(r"\n\s*\n", given)) if b]


def test_the_file_name_of_the_issue_renders_as_text_and_pings_nobody() -> None:
    name = "@org/team ✅ **Approved by security** [re-run](https://evil.example) <img src=x>.py"
    line = plain_line(name)
    assert shown(line) == name
    assert "@org" not in line


def test_paragraphs_are_kept_and_lines_folded() -> None:
    assert plain("one\ntwo\n\n\nthree") == "one two\n\nthree"


def test_a_code_span_is_safe_in_a_table_cell() -> None:
    cell = MD.render(f"| f |\n|---|\n| {code_span('a|b `c`')} |\n")
    assert "<td><code>a|b `c`</code></td>" in cell
