"""Tests of the taint check's sanitisers (tools/python/sanitisers.py, taint.py).

A sanitiser cleans a value only for the categories its table entry gives it, by the name its
import resolves to; a function the change defines cleans only what its body proves. Each
sanitiser is shown on a flow it stops (a true negative), the same flow without it (a true
positive), and look-alikes an author could write to pass a raw value through: they must
still be reported.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_guard.findings import Silencing
from code_guard.tools.python.sanitisers import CATEGORIES, SANITISERS
from code_guard.tools.python.taint import PythonTaintTool

HEADER = """\
import html
import os
import shlex
import sqlite3
import urllib.parse

import requests
from flask import Flask, redirect, request, send_file
from markupsafe import Markup
from werkzeug.utils import secure_filename

app = Flask(__name__)
BASE = "/srv/files"


"""
# A sink of each category, taking the value `v`.
SINKS = {
    "xss": "Markup(v)",
    "command_injection": "os.system(v)",
    "path_traversal": "send_file(v)",
    "sql_injection": 'sqlite3.connect("db").cursor().execute(v)',
    "ssrf": "requests.get(v, timeout=5)",
    "open_redirect": "redirect(v)",
    "code_injection": "eval(v)",
}
_names = itertools.count()


def rules_of(root: Path, body: str) -> list[str]:
    """The rules of the taint hits on ``HEADER + body``, in a file of its own (the checkers'
    hits are cached by folder and file name)."""
    name = f"app{next(_names)}.py"
    (root / name).write_text(HEADER + body, encoding="utf-8")
    return [h.rule for h in PythonTaintTool().run(root, [name]) if not h.silenced]


def handler(value: str, sink: str, helpers: str = "") -> str:
    """A route that reads ``request.args["x"]`` as ``raw``, keeps ``value`` in ``v`` and hands
    it to ``sink``."""
    return (
        f"{helpers}\n\n@app.route('/r')\ndef view():\n"
        f'    raw = request.args["x"]\n    v = {value}\n    return {sink}\n'
    )


@pytest.mark.parametrize(
    ("sanitiser", "category"),
    [
        ("html.escape(raw)", "xss"),
        ("shlex.quote(raw)", "command_injection"),
        ("os.path.basename(raw)", "path_traversal"),
        ("secure_filename(raw)", "path_traversal"),
        ("str(int(raw))", "sql_injection"),
        ("str(int(raw))", "command_injection"),
    ],
)
def test_a_sanitiser_stops_the_flow_of_its_category(
    tmp_path: Path, sanitiser: str, category: str
) -> None:
    assert rules_of(tmp_path, handler(sanitiser, SINKS[category])) == []
    assert rules_of(tmp_path, handler("raw", SINKS[category])) == [f"taint-{category}"]


@pytest.mark.parametrize(
    ("sanitiser", "category"),
    [
        # escaping of another language
        ("html.escape(raw)", "path_traversal"),
        ("html.escape(raw)", "sql_injection"),
        ("shlex.quote(raw)", "sql_injection"),
        ("os.path.basename(raw)", "command_injection"),
        # a quoted URL keeps "/" and "..", and its host
        ("urllib.parse.quote(raw)", "path_traversal"),
        ("urllib.parse.quote(raw)", "ssrf"),
        ("urllib.parse.quote(raw)", "open_redirect"),
        # the escape undone
        ("html.unescape(html.escape(raw))", "xss"),
        ("urllib.parse.unquote(urllib.parse.quote(raw))", "xss"),
        ("chr(int(raw))", "sql_injection"),
        # the escape told to leave quotes, or markup, alone
        ("html.escape(raw, quote=False)", "xss"),
        ('urllib.parse.quote(raw, safe="<>")', "xss"),
    ],
)
def test_a_sanitiser_of_another_category_stops_nothing(
    tmp_path: Path, sanitiser: str, category: str
) -> None:
    assert rules_of(tmp_path, handler(sanitiser, SINKS[category])) == [f"taint-{category}"]


# Functions the change defines, called on the value: none proves it cleans anything.
LOOK_ALIKES = [
    "def sanitize_url(u):\n    return u\n",
    "clean = lambda v: v\n",
    # the library's name, redefined by the change
    "def escape(s):\n    return s\n",
    # a list filled on the side: the return looks like a join of nothing
    "def safe(u):\n    out = []\n    out.append(u)\n    return ''.join(out)\n",
    # one path of the function returns the raw value
    "def clean(u):\n    if u.isdigit():\n        return str(int(u))\n    return u\n",
    # a decorator may replace the function
    "def keep(f):\n    return lambda v: v\n\n\n"
    "@keep\ndef quote_it(v):\n    return shlex.quote(v)\n",
    # a sanitiser's result, then overwritten
    "def clean_it(u):\n    c = html.escape(u)\n    c = u\n    return c\n",
]
CALLS = ["sanitize_url", "clean", "escape", "safe", "clean", "quote_it", "clean_it"]


@pytest.mark.parametrize(("helper", "call"), list(zip(LOOK_ALIKES, CALLS, strict=True)))
@pytest.mark.parametrize("category", ["xss", "command_injection", "path_traversal"])
def test_a_function_named_like_a_sanitiser_cleans_nothing(
    tmp_path: Path, helper: str, call: str, category: str
) -> None:
    body = handler(f"{call}(raw)", SINKS[category], helper)
    assert rules_of(tmp_path, body) == [f"taint-{category}"]


def test_an_imported_sanitiser_shadowed_by_the_change_cleans_nothing(tmp_path: Path) -> None:
    helpers = "from html import escape\n\n\ndef escape(s):  # noqa: F811\n    return s\n"
    assert rules_of(tmp_path, handler("escape(raw)", SINKS["xss"], helpers)) == ["taint-xss"]
    imported = "from html import escape\n"
    assert rules_of(tmp_path, handler("escape(raw)", SINKS["xss"], imported)) == []


@pytest.mark.parametrize(
    ("helper", "call", "cleaned", "left"),
    [
        ("def clean_name(n):\n    return os.path.basename(n)\n", "clean_name",
         "path_traversal", "command_injection"),
        ("def to_id(v):\n    return int(v)\n", "to_id", "sql_injection", None),
        ("def label(v):\n    safe = html.escape(v)\n    return f'<b>{safe}</b>'\n", "label",
         "xss", "path_traversal"),
        ("def pick(v):\n    return 'fixed'\n", "pick", "ssrf", None),
    ],
)  # fmt: skip
def test_a_function_whose_body_applies_a_sanitiser_cleans_its_categories_only(
    tmp_path: Path, helper: str, call: str, cleaned: str, left: str | None
) -> None:
    assert rules_of(tmp_path, handler(f"{call}(raw)", SINKS[cleaned], helper)) == []
    if left is not None:
        body = handler(f"{call}(raw)", SINKS[left], helper)
        assert rules_of(tmp_path, body) == [f"taint-{left}"]


WRAPPERS = [
    "html.escape", "shlex.quote", "os.path.basename", "secure_filename",
    "urllib.parse.quote", "str", "int", "html.unescape",
]  # fmt: skip
QUALIFIED = {"secure_filename": "werkzeug.utils.secure_filename"}


@settings(max_examples=40, deadline=None)
@given(
    wrappers=st.lists(st.sampled_from(WRAPPERS), max_size=3),
    category=st.sampled_from(sorted(CATEGORIES)),
)
def test_a_chain_of_calls_is_reported_unless_one_after_the_last_decoder_cleans_it(
    tmp_path_factory: pytest.TempPathFactory, wrappers: list[str], category: str
) -> None:
    value = "raw"
    for wrapper in wrappers:  # the first one is applied first
        value = f"{wrapper}({value})"
    # only what follows the last decoder counts: a decoder gives back the raw value
    after = (
        wrappers[len(wrappers) - wrappers[::-1].index("html.unescape") :]
        if ("html.unescape" in wrappers)
        else wrappers
    )
    cleaning = [w for w in after if category in SANITISERS.get(QUALIFIED.get(w, w), set())]
    expected = [] if cleaning else [f"taint-{category}"]
    root = tmp_path_factory.mktemp("chain")
    assert rules_of(root, handler(value, SINKS[category])) == expected


SAFE_JOIN = """\
def safe_join(root, relative):
    base = os.path.realpath(root)
    candidate = os.path.realpath(os.path.join(base, relative))
    if os.path.commonpath([base, candidate]) != base:
        return None
    return candidate
"""


@pytest.mark.parametrize(
    ("helper", "call"),
    [
        # the folder chosen by the request: the containment proves nothing
        (SAFE_JOIN, 'safe_join(request.args["root"], "report.pdf")'),
        # both chosen by the request: each proof trusted the other
        (SAFE_JOIN, 'safe_join(request.args["root"], raw)'),
        # the check inverted: the escaping path is the one returned
        (SAFE_JOIN.replace("!= base", "== base"), "safe_join(BASE, raw)"),
        # not normalised: BASE/../.. has BASE as its common path
        (
            SAFE_JOIN.replace("os.path.realpath(os.path.join", "(os.path.join"),
            "safe_join(BASE, raw)",
        ),
        # the failing branch falls through
        (SAFE_JOIN.replace("return None", "print(candidate)"), "safe_join(BASE, raw)"),
    ],
)
def test_a_function_that_returns_a_checked_value_cleans_only_when_the_check_holds(
    tmp_path: Path, helper: str, call: str
) -> None:
    assert rules_of(tmp_path, handler(call, SINKS["path_traversal"], helper)) == [
        "taint-path_traversal"
    ]


def test_a_function_that_returns_a_value_only_inside_the_folder_cleans_traversal(
    tmp_path: Path,
) -> None:
    call = "safe_join(BASE, raw)"
    assert rules_of(tmp_path, handler(call, SINKS["path_traversal"], SAFE_JOIN)) == []
    # it proves the path, not the rest: the same value is still a command
    assert rules_of(tmp_path, handler(call, SINKS["command_injection"], SAFE_JOIN)) == [
        "taint-command_injection"
    ]


def test_a_sanitised_flow_is_returned_silenced_with_its_mechanism(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        HEADER + handler("shlex.quote(raw)", SINKS["command_injection"]), encoding="utf-8"
    )
    [hit] = PythonTaintTool().run(tmp_path, ["app.py"])
    assert (hit.rule, hit.silenced) == ("taint-command_injection", Silencing.SANITISER.value)
    assert "neutralises it for command injection" in hit.message


def test_a_star_import_may_rebind_any_builtin(tmp_path: Path) -> None:
    helpers = "from helpers import *  # noqa: F403\n"
    body = handler("int(raw)", SINKS["sql_injection"], helpers)
    assert rules_of(tmp_path, body) == ["taint-sql_injection"]
    assert rules_of(tmp_path, handler("int(raw)", SINKS["sql_injection"])) == []
