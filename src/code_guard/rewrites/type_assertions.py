"""TypeScript type assertions to object literal types, read by Semgrep as assertions to `any`.

semgrep-core loses request data destructured from an assertion whose type is an object literal
type: after `const { url } = req.body as { url: string }`, the `url` that reaches `fetch(url)`
no longer resolves to the destructured name (the type literal's own `url` takes its place), so
no taint rule sees the flow. The same assertion to a named type (`as Body`), or no assertion,
keeps it. The same holds for `satisfies`, for `<{ ... }>value`, and for an object type nested in
the asserted type (`{ ... } | undefined`, `{ ... }[]`). This is the idiom of typed request bodies
in TypeScript handlers, so every such flow went unreported.

A type has no effect at run time, so writing `any` in place of each object literal type inside
an asserted type hides nothing from review and changes no value: the copy Semgrep reads
(``tools/semgrep/command.readable_copies``) keeps every line and column, and its flows are those
of the original program. The type is found by parsing the file with tree-sitter's TypeScript
grammar, the grammar semgrep-core parses it with, never by searching the text: a text search
could be led by a string, comment or regular expression to blank real code. A file that does
not parse cleanly is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from code_guard.errors import ToolError

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# Files with none of these cannot hold an assertion; most are skipped without a parse.
_MAYBE = re.compile(r"\bas\b|\bsatisfies\b|<\s*\{")
_ASSERTIONS = frozenset({"as_expression", "satisfies_expression", "type_assertion"})
_PARSERS: dict[bool, Parser] = {}


def _parser(tsx: bool) -> Parser:
    """The TypeScript (or TSX) parser, made once; the grammar is imported only when needed."""
    if tsx not in _PARSERS:
        try:
            import tree_sitter_typescript
            from tree_sitter import Language, Parser
        except ImportError as exc:  # a broken install: say so rather than read less
            raise ToolError("tree-sitter-typescript is not installed") from exc
        grammar: Any = (
            tree_sitter_typescript.language_tsx()
            if tsx
            else tree_sitter_typescript.language_typescript()
        )
        _PARSERS[tsx] = Parser(Language(grammar))
    return _PARSERS[tsx]


def _asserted_types(node: Node) -> Iterator[Node]:
    """The type parts of every type assertion under ``node``."""
    stack = [node]
    while stack:  # iterative: nesting depth is the author's to choose
        current = stack.pop()
        if current.type in _ASSERTIONS:
            if current.type == "type_assertion":  # <T>value: the type comes first
                yield from (c for c in current.children if c.type == "type_arguments")
            else:  # value as T, value satisfies T: the type comes last
                yield current.children[-1]
        stack.extend(reversed(current.children))


def _object_types(node: Node) -> Iterator[Node]:
    """The outermost object literal types in the type ``node``."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "object_type":
            yield current
        else:
            stack.extend(reversed(current.children))


def _blank(text: str) -> str | None:
    """``text`` as spaces holding one `any`, with its line breaks kept where they are (None
    when no three characters of it stand on one line)."""
    room = re.search(r"[^\r\n]{3}", text)
    if room is None:
        return None
    kept = re.sub(r"[^\r\n]", " ", text)
    return kept[: room.start()] + "any" + kept[room.start() + 3 :]


def with_any_for_object_types(text: str, tsx: bool = False) -> str | None:
    """``text`` with each object literal type inside a type assertion written as `any`, or
    None when there is none or the file does not parse cleanly."""
    if not _MAYBE.search(text):
        return None
    data = text.encode("utf-8")
    tree = _parser(tsx).parse(data)
    if tree.root_node.has_error:
        return None
    spans = sorted(
        (literal.start_byte, literal.end_byte)
        for asserted in _asserted_types(tree.root_node)
        for literal in _object_types(asserted)
    )
    if not spans:
        return None
    out: list[bytes] = []
    last = 0
    for start, end in spans:
        if start < last:  # inside a span already blanked (an assertion within a type)
            continue
        literal = data[start:end]
        # `{}` names nothing and has no room for `any`; a character outside ASCII has widths
        # in bytes and in characters that differ, and blanking it would move the columns after
        # it. Either is left as written.
        blank = _blank(literal.decode("ascii")) if literal.isascii() else None
        if blank is None:
            continue
        out += [data[last:start], blank.encode("ascii")]
        last = end
    if not out:
        return None
    out.append(data[last:])
    return b"".join(out).decode("utf-8")
