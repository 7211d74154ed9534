"""A property of the taint check's guards (tools/python/guards.py): a condition made of a real
allow-list check and a value the request chooses, combined with ``and``, ``or`` and ``not``,
silences the flow only when the condition passing implies the allow-list check passed.
Whatever the shape, a condition the request can make pass by itself never guards.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_guard.tools.python.taint import PythonTaintTool

HEADER = """\
import requests
from flask import Flask, abort, request

app = Flask(__name__)
ALLOWED = {"https://api.example.com/status"}


@app.route("/p")
def view():
    url = request.args["url"]
"""
GUARD = "url in ALLOWED"
CHOSEN = 'request.args.get("preview")'
# A formula: its source text, and its value given (guard passed, request's choice).
Formula = tuple[str, Callable[[bool, bool], bool]]

atoms: st.SearchStrategy[Formula] = st.sampled_from(
    [(GUARD, lambda g, c: g), (CHOSEN, lambda g, c: c)]
)


def _not(f: Formula) -> Formula:
    return f"not ({f[0]})", lambda g, c: not f[1](g, c)


def _join(op: str) -> Callable[[tuple[Formula, Formula]], Formula]:
    def join(pair: tuple[Formula, Formula]) -> Formula:
        (a, fa), (b, fb) = pair
        if op == "and":
            return f"({a}) and ({b})", lambda g, c: fa(g, c) and fb(g, c)
        return f"({a}) or ({b})", lambda g, c: fa(g, c) or fb(g, c)

    return join


formulas = st.recursive(
    atoms,
    lambda inner: st.one_of(
        inner.map(_not),
        st.tuples(inner, inner).map(_join("and")),
        st.tuples(inner, inner).map(_join("or")),
    ),
    max_leaves=5,
)
_names = itertools.count()


def reported(root: Path, condition: str) -> bool:
    """Whether the flow behind ``if not (condition): abort(400)`` is reported."""
    body = f"    if not ({condition}):\n        abort(400)\n    return requests.get(url).text\n"
    name = f"app{next(_names)}.py"
    (root / name).write_text(HEADER + body, encoding="utf-8")
    hits = [h for h in PythonTaintTool().run(root, [name]) if not h.silenced]
    return [h.rule for h in hits] == ["taint-ssrf"]


@settings(max_examples=60, deadline=None)
@given(formula=formulas)
def test_a_condition_guards_only_when_passing_implies_the_check(
    tmp_path_factory: pytest.TempPathFactory, formula: Formula
) -> None:
    text, value = formula
    implies_guard = all(
        value(g, c) is False or g for g, c in itertools.product((True, False), repeat=2)
    )
    root = tmp_path_factory.mktemp("logic")
    if not implies_guard:
        assert reported(root, text), text
    # every formula that says only "the check passed" is recognised
    if text in (GUARD, f"not (not ({GUARD}))", f"({GUARD}) and ({CHOSEN})"):
        assert not reported(root, text), text


@pytest.mark.parametrize(
    "condition",
    [
        f"({GUARD}) or ({CHOSEN})",
        f"({CHOSEN}) or ({GUARD})",
        f"not (not ({GUARD}) and not ({CHOSEN}))",
        f"({GUARD}) or not ({GUARD})",
    ],
)
def test_a_disjunction_with_a_request_chosen_operand_is_no_guard(
    tmp_path: Path, condition: str
) -> None:
    assert reported(tmp_path, condition)


@pytest.mark.parametrize(
    "condition",
    [GUARD, f"({GUARD}) and ({CHOSEN})", f"not (not ({GUARD}) or not ({CHOSEN}))"],
)
def test_a_conjunction_with_the_check_guards(tmp_path: Path, condition: str) -> None:
    assert not reported(tmp_path, condition)
