"""Object literal types in TypeScript type assertions, read by Semgrep as `any`
(``rewrites/type_assertions.py``): only real types change, every line and column stays, and text
that only looks like an assertion (in a string, a comment, a regular expression, JSX text) is
never touched, since blanking it could hide code from review."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from code_guard.rewrites.type_assertions import with_any_for_object_types


def _same_layout(before: str, after: str) -> None:
    """Same length, line breaks in the same places, and only blanked text changed."""
    assert len(after) == len(before)
    assert [m.start() for m in re.finditer(r"[\r\n]", after)] == [
        m.start() for m in re.finditer(r"[\r\n]", before)
    ]
    for old, new in zip(before, after, strict=True):
        assert new == old or new in " any"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "const { url } = req.body as { url: string };",
            "const { url } = req.body as any            ;",
        ),
        (
            "const { url } = req.body satisfies { url: string };",
            "const { url } = req.body satisfies any            ;",
        ),
        (
            "const { url } = <{ url: string }>req.body;",
            "const { url } = <any            >req.body;",
        ),
        (
            "const { url } = req.body as { url: string } | undefined;",
            "const { url } = req.body as any             | undefined;",
        ),
        (
            "const { url } = req.body as { url: string }[];",
            "const { url } = req.body as any            [];",
        ),
        (
            "const { url } = req.body as Partial<{ url: string }>;",
            "const { url } = req.body as Partial<any            >;",
        ),
        (  # nested object types go with the outermost
            "const { a } = req.body as { a: { b: string } };",
            "const { a } = req.body as any                 ;",
        ),
    ],
)
def test_object_literal_types_in_assertions_read_as_any(source: str, expected: str) -> None:
    assert with_any_for_object_types(source) == expected


def test_a_type_over_several_lines_keeps_its_line_breaks() -> None:
    source = "const { url } = req.body as {\n  url: string;\n  id: number;\n};\nfetch(url);\n"
    rewritten = with_any_for_object_types(source)
    assert rewritten is not None
    _same_layout(source, rewritten)
    assert rewritten.splitlines()[0] == "const { url } = req.body as  "
    assert rewritten.splitlines()[1].strip() == "any"
    assert rewritten.splitlines()[4] == "fetch(url);"


@pytest.mark.parametrize(
    "source",
    [
        # no assertion: annotations, interfaces and aliases stay (Semgrep reads them well)
        "const { url }: { url: string } = req.body;",
        "interface Body { url: string }\ntype B = { url: string };",
        "const x = req.body as Body;",
        "const x = req.body as {};",  # nothing named, and no room for `any`
        'const x = req.body as { name: "é" };',  # widths in bytes and characters differ
        # look-alikes: not code, so not types
        'const a = "as { x: 1 }"; exec(cmd); const b = "}";',
        "// cast as { url: string }\nexec(cmd);",
        "/* as { */ exec(cmd); /* } */",
        "const s = `as { ${exec(cmd)} }`;",
        "if (c) /as {/.test(s); exec(cmd); if (c) /}/.test(s);",
        # a file that does not parse cleanly is left to semgrep-core as it is
        "const { url } = req.body as { url: string ;\nexec(cmd);",
    ],
)
def test_nothing_else_changes(source: str) -> None:
    assert with_any_for_object_types(source) is None


def test_jsx_text_that_reads_like_an_assertion_is_not_touched() -> None:
    """In TSX, `as {value}` inside an element is text and an expression container (code)."""
    source = "const el = <p>shown as {render(location.hash)}</p>;\n"
    assert with_any_for_object_types(source, tsx=True) is None
    typed = "const { url } = req.body as { url: string };\nconst el = <p>as {url}</p>;\n"
    rewritten = with_any_for_object_types(typed, tsx=True)
    assert rewritten is not None
    assert rewritten.splitlines()[1] == "const el = <p>as {url}</p>;"


_FRAGMENTS = [
    "const { url } = req.body as { url: string };\n",
    "const a = 'as { b }';\n",
    "// as { c }\n",
    "exec(cmd);\n",
    "const t = `x as {${y}}`;\n",
    "const v = w satisfies { z: number }[];\n",
    "fetch(url);\n",
    "const r = /as {/;\n",
]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=12))
def test_any_program_keeps_its_layout_and_its_code(parts: list[str]) -> None:
    source = "".join(parts)
    rewritten = with_any_for_object_types(source)
    if rewritten is None:
        return
    _same_layout(source, rewritten)
    # every line that is not an assertion to an object literal type is unchanged
    for old, new in zip(source.splitlines(), rewritten.splitlines(), strict=True):
        if " as {" not in old and "satisfies {" not in old:
            assert new == old
