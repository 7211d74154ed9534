"""Python files as Semgrep is given them in a focused run: each function no line of the focus
falls in is emptied, every line and column of the rest kept.

On a modified file Semgrep spends most of its time in its taint rules, over every function of
the file, though a result counts only on a line of the focus (the added lines; on the base
side, the lines the hunks show). Its taint analysis follows data within one function (Semgrep
CE's is intraprocedural), so a function none of whose lines (decorators included) is in the
focus cannot change a result that counts: its body is replaced by ``pass`` and blanks. The
module's and classes' own statements, every signature and decorator, and each function with a
focus line stay as they were; so do functions nested in another function (they are part of
its flow).

The functions are found in the tree Python's parser gives (shared with the checkers), or, for
a file it rejects (Python 2, a newer grammar), in Python's tokens: a file they do not end
cleanly is left whole.
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from code_guard.rewrites.edits import Edit, apply_edit, char_col
from code_guard.rewrites.python_parse import parse_python

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# A function's span (first decorator line, last line) and its body's edit.
_Span = tuple[int, int, Edit]


def emptied_outside(source: str, focus: Collection[int], onto: str | None = None) -> str | None:
    """``source`` (or ``onto``, a rewrite of it that kept every line and column) with the body
    of each function outside ``focus`` emptied; None when there is none to empty."""
    counted = set(focus)
    source_lines = source.split("\n")
    if all(n in counted or not text.strip() for n, text in enumerate(source_lines, 1)):
        return None  # a new file: every line counts, there is nothing to look for
    lines = source_lines if onto is None else onto.split("\n")
    wanted, applied = sorted(counted), False
    spans = _spans(source, source_lines)
    for first, last, body in sorted(spans, key=lambda s: s[2].start, reverse=True):
        at = bisect.bisect_left(wanted, first)
        if at == len(wanted) or wanted[at] > last:  # no focus line from first to last
            applied = apply_edit(lines, body) or applied
    return "\n".join(lines) if applied else None


def _spans(source: str, lines: list[str]) -> list[_Span]:
    tree = parse_python(source)
    if tree is not None:
        return list(_tree_spans(tree, lines))
    try:
        return _token_spans(source)
    except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
        return []


def _tree_spans(tree: ast.Module, lines: list[str]) -> Iterator[_Span]:
    """The functions of ``tree`` that are not inside another function."""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTIONS):
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                body = child.body
                end_line, end_col = body[-1].end_lineno, body[-1].end_col_offset
                if end_line is None or end_col is None:
                    continue
                decorators = getattr(body[0], "decorator_list", None)
                if decorators:  # a decorated first statement starts at its first ``@``
                    line = min(d.lineno for d in decorators)
                    start = (line, len(lines[line - 1]) - len(lines[line - 1].lstrip()))
                else:
                    start = (
                        body[0].lineno,
                        char_col(lines[body[0].lineno - 1], body[0].col_offset),
                    )
                end = (end_line, char_col(lines[end_line - 1], end_col))
                yield first, child.end_lineno or end_line, Edit(start, end, statement=True)
            elif isinstance(child, ast.stmt | ast.ExceptHandler | ast.match_case):
                todo.append(child)  # a class, or a block of the module's own statements


_LAYOUT = frozenset({tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.INDENT,
                     tokenize.DEDENT, tokenize.ENDMARKER})  # fmt: skip


@dataclass
class _Body:
    """A function's block while its tokens are read."""

    first: int  # its first line (decorators included)
    start: tuple[int, int] | None = None  # where its first statement starts
    end: tuple[int, int] | None = None  # where its last token so far ends


def _token_spans(source: str) -> list[_Span]:
    """The functions that are not inside another function, from Python's tokens: a ``def``
    opening a logical line (after its decorators) and the indented block that follows it."""
    spans: list[_Span] = []
    blocks: list[str] = []  # the kind of each open indented block: "def", "class" or ""
    bodies: list[_Body | None] = []  # per open block, the function body to empty, if it is one
    line_kind, pending = "", ""  # the kind of this logical line; that of the last one
    header = decorated = 0  # the first line of the last header; of pending decorators
    at_start, after_indent = True, False
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        kind = tok.type
        if kind == tokenize.INDENT:
            outermost = pending == "def" and "def" not in blocks
            blocks.append(pending)
            bodies.append(_Body(header) if outermost else None)
            after_indent = True
        elif kind == tokenize.DEDENT:
            blocks.pop()
            body = bodies.pop()
            if body is not None and body.start is not None and body.end is not None:
                spans.append((body.first, body.end[0], Edit(body.start, body.end, True)))
        elif kind == tokenize.NEWLINE:
            pending, at_start = line_kind, True
        elif kind not in _LAYOUT:
            if at_start:  # the first token of a logical line (``async`` waits for the next)
                if not after_indent:
                    pending = ""  # no block followed the last line
                after_indent = False
                if tok.string != "async":
                    at_start = False
                    line_kind = "def" if tok.string == "def" else ""
                    line_kind = "class" if tok.string == "class" else line_kind
                    if line_kind:
                        header, decorated = decorated or tok.start[0], 0
                    elif tok.string == "@":
                        decorated = decorated or tok.start[0]
                    else:
                        decorated = 0
            for open_body in bodies:
                if open_body is not None:
                    open_body.start = open_body.start or tok.start
                    open_body.end = tok.end
    return spans
