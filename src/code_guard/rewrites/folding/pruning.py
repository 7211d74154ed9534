"""Rewriting what folding proved dead out of what the analysers read: a source for Semgrep,
with every line and column kept, or a tree for our own taint check.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from typing import Any

from code_guard.rewrites.edits import Edit, apply_edit, char_col
from code_guard.rewrites.folding.fstrings import _FSTRING_START, _masked_fstrings
from code_guard.rewrites.folding.interpreter import folded
from code_guard.rewrites.python_parse import parse_python

# ---------------------------------------------------------------------------------------------
# Rewriting: what the analysers read


def _edits(tree: ast.AST, lines: Sequence[str]) -> list[Edit]:
    folding = folded(tree)
    edits: list[Edit] = []
    for node in [*folding.dead, *folding.literal_reads]:
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            continue
        line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        # A decorated ``def`` or ``class`` starts at its first ``@`` (its own line is that of
        # the keyword): a decorator left in front of ``pass`` would not parse.
        decorators = getattr(node, "decorator_list", None) or []
        line = min([line, *(d.lineno for d in decorators)])
        if not (0 < line <= end_line <= len(lines)):
            continue
        start = (line, char_col(lines[line - 1], col))  # the ``@`` is at the keyword's column
        end = (end_line, char_col(lines[end_line - 1], end_col))
        edits.append(Edit(start, end, isinstance(node, ast.stmt)))
    edits.sort(key=lambda e: (e.start, (-e.end[0], -e.end[1])))
    out: list[Edit] = []
    for edit in edits:  # drop an edit inside an earlier one
        if out and edit.start < out[-1].end:
            continue
        out.append(edit)
    return out


def pruned_source(source: str, onto: str | None = None) -> str | None:
    """``source`` with its dead statements replaced by ``pass``, its dead operands and its
    element reads of literals by a literal, every line and column kept; None when constant
    folding finds nothing (or the source does not parse). With ``onto`` (a rewrite of
    ``source`` that kept every line and column), the edits are made to ``onto`` instead.

    A file our Python cannot parse only for its f-strings (Python 3.12 lets one reuse its
    quotes inside, ``f'{', '.join(xs)}'``, which Semgrep reads) is folded with every f-string
    masked as an unknown value, character for character."""
    parsed = source
    tree = parse_python(source)
    if tree is None:
        if not _FSTRING_START.search(source):
            return None  # nothing to mask: the masked text would not parse either
        masked = _masked_fstrings(source)
        tree = parse_python(masked) if masked is not None else None
        if tree is None or masked is None:
            return None
        parsed = masked
    lines = (source if onto is None else onto).split("\n")
    applied = False
    for edit in reversed(_edits(tree, parsed.split("\n"))):
        applied = apply_edit(lines, edit) or applied
    return "\n".join(lines) if applied else None


class _Pruner(ast.NodeTransformer):
    def __init__(self, gone: set[int]) -> None:
        self.gone = gone  # the ids of the nodes to replace

    def visit(self, node: ast.AST) -> Any:
        if id(node) in self.gone:
            if isinstance(node, ast.stmt):
                return ast.copy_location(ast.Pass(), node)
            return ast.copy_location(ast.Constant(value=""), node)
        return self.generic_visit(node)


def pruned_tree(tree: ast.Module) -> ast.Module:
    """``tree`` with its dead statements replaced by ``pass`` and its dead operands and
    element reads of literals by a literal (a copy; ``tree`` itself when there is none)."""
    folding = folded(tree)
    if not folding.dead and not folding.literal_reads:
        return tree
    try:
        copies: dict[int, Any] = {}  # deepcopy's memo: the copy of each node, by its id
        twin = copy.deepcopy(tree, copies)
        gone = {id(copies[id(n)]) for n in [*folding.dead, *folding.literal_reads]}
        result = _Pruner(gone).visit(twin)
    except RecursionError:
        return tree  # copying or rewriting a tree nested too deeply: read it as it is
    assert isinstance(result, ast.Module)
    return result
