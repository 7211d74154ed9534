"""Untrusted text in markdown: rendered exactly as written, never as markup."""

from __future__ import annotations

from markdown_it import MarkdownIt

from code_guard.report.plain import code_span, plain, plain_line, table_code_span

MD = MarkdownIt("commonmark", {"html": True}).enable("table")


def test_markup_renders_as_the_characters_written() -> None:
    text = "<img src=x> **bold** [a](https://x.example) ![i](y) # h\n- item <!-- c --> $x$ | ~s~"
    html = MD.render(plain_line(text))
    assert html.startswith("<p>") and html.count("<") == 2  # only <p> and </p>
    assert "**bold**" in html and "[a](https:" in html and "&lt;img src=x&gt;" in html


def test_mentions_are_neutralised_but_still_read_as_written() -> None:
    out = plain_line("ping @octo-org/admins and me@example.com")
    assert "@octo" not in out and "@example" not in out
    assert out.replace("\u2060", "").replace("\\", "") == "ping @octo-org/admins and me@example.com"


def test_paragraphs_are_kept_and_lines_folded() -> None:
    assert plain("one\ntwo\n\n\nthree") == "one two\n\nthree"


def test_code_spans_survive_any_backticks() -> None:
    assert code_span("a.py") == "`a.py`"
    assert code_span("x`y``z") == "``` x`y``z ```"
    assert MD.render(code_span("`edge`")).strip() == "<p><code>`edge`</code></p>"
    cell = MD.render(f"| f |\n|---|\n| {table_code_span('a|b')} |\n")
    assert "<code>a|b</code>" in cell
