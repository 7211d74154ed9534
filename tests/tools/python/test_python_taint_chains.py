"""Tests of the taint check on long chains of helpers (tools/python/taint.py).

A chain of helpers, each handing its parameter to the next, in one file or one module per
link, is a sink at its first link: the request data passed to it is reported on the call,
naming the sink at the chain's end. The chains are long enough that a summary computed by
recursion (one Python frame per link) would fail, as a 400-module chain once did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from code_guard.tools.base import NOT_ANALYSED_RULE
from code_guard.tools.python.taint import PythonTaintTool

ROUTE = """\
from flask import request

from m0 import f0


def view():
    return f0({argument})
"""


def write_chain(root: Path, links: int, sink: str = "os.system(x)") -> list[str]:
    """Modules ``m0`` .. ``m{links-1}``, each ``f{i}`` calling ``f{i+1}``; the last one
    hands its parameter to ``sink``. Returns the module paths."""
    paths = []
    for i in range(links):
        last = i == links - 1
        head = "import os\n" if last else f"from m{i + 1} import f{i + 1}\n"
        body = f"    return {sink}\n" if last else f"    return f{i + 1}(x)\n"
        (root / f"m{i}.py").write_text(f"{head}\n\ndef f{i}(x):\n{body}", encoding="utf-8")
        paths.append(f"m{i}.py")
    return paths


@pytest.mark.parametrize("links", [2, 3, 600])
def test_a_chain_of_modules_is_followed_to_its_sink(tmp_path: Path, links: int) -> None:
    paths = write_chain(tmp_path, links)
    (tmp_path / "app.py").write_text(ROUTE.format(argument='request.args["c"]'), encoding="utf-8")
    hits = PythonTaintTool().run(tmp_path, ["app.py", *paths])
    assert [(h.rule, h.file_path, h.line) for h in hits] == [
        ("taint-command_injection", "app.py", 7)
    ]
    assert f"`os.system()` (m{links - 1}.py:5)" in hits[0].message


def test_a_long_chain_that_ends_in_no_sink_is_no_flow(tmp_path: Path) -> None:
    paths = write_chain(tmp_path, 600, sink="len(x)")
    (tmp_path / "app.py").write_text(ROUTE.format(argument='request.args["c"]'), encoding="utf-8")
    assert PythonTaintTool().run(tmp_path, ["app.py", *paths]) == []


def test_a_constant_passed_down_a_long_chain_is_no_flow(tmp_path: Path) -> None:
    paths = write_chain(tmp_path, 600)
    (tmp_path / "app.py").write_text(ROUTE.format(argument='"uptime"'), encoding="utf-8")
    assert PythonTaintTool().run(tmp_path, ["app.py", *paths]) == []


def test_a_chain_of_helpers_in_one_file_is_followed(tmp_path: Path) -> None:
    links = 300
    helpers = "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n\n\n" for i in range(links))
    source = (
        "import os\n\nfrom flask import request\n\n\n"
        f"{helpers}def f{links}(x):\n    return os.popen(x)\n\n\n"
        'def view():\n    return f0(request.args["c"])\n'
    )
    (tmp_path / "app.py").write_text(source, encoding="utf-8")
    hits = PythonTaintTool().run(tmp_path, ["app.py"])
    assert [h.rule for h in hits] == ["taint-command_injection"]
    assert hits[0].line == source.count("\n")
    assert "`os.popen()`" in hits[0].message


def test_an_import_cycle_with_a_sink_is_still_reported_where_it_can_be(tmp_path: Path) -> None:
    # a imports b and b imports a: each file is summarised once; the sink in b is found
    (tmp_path / "a.py").write_text(
        "from b import run\n\n\ndef go(x):\n    return run(x)\n", encoding="utf-8"
    )
    (tmp_path / "b.py").write_text(
        "import os\n\nfrom a import go\n\n\ndef run(x):\n    return os.system(x)\n",
        encoding="utf-8",
    )
    (tmp_path / "app.py").write_text(
        "from flask import request\n\nfrom a import go\n\n\n"
        'def view():\n    return go(request.args["c"])\n',
        encoding="utf-8",
    )
    hits = PythonTaintTool().run(tmp_path, ["app.py", "a.py", "b.py"])
    assert [(h.rule, h.file_path, h.line) for h in hits] == [
        ("taint-command_injection", "app.py", 7)
    ]


def test_a_sum_of_thousands_of_terms_is_followed(tmp_path: Path) -> None:
    terms = " + ".join(["x"] * 2500)
    source = (
        "import os\n\nfrom flask import request\n\n\n"
        f'def view():\n    x = request.args["a"]\n    return os.system({terms})\n'
    )
    (tmp_path / "app.py").write_text(source, encoding="utf-8")
    hits = PythonTaintTool().run(tmp_path, ["app.py"])
    assert [(h.rule, h.line) for h in hits] == [("taint-command_injection", 8)]


@pytest.mark.parametrize("depth", [1001, 1500])
def test_a_condition_too_deep_to_follow_leaves_the_review_partial(
    tmp_path: Path, depth: int
) -> None:
    # an odd number of `not`s: the sink runs only when `x` is NOT in the allow-list
    source = (
        "import os\n\nfrom flask import abort, request\n\nALLOWED = {'a'}\n\n\n"
        f"def view():\n    x = request.args['a']\n    if {'not ' * depth}(x in ALLOWED):\n"
        "        abort(400)\n    return os.system(x)\n"
    )
    (tmp_path / "app.py").write_text(source, encoding="utf-8")
    hits = PythonTaintTool().run(tmp_path, ["app.py"])
    # the flow is reported, or the function is named as not analysed: never silence
    assert any(
        h.rule == "taint-command_injection"
        and not h.silenced
        or h.rule == NOT_ANALYSED_RULE
        and "`view`" in h.message
        for h in hits
    )


# Request data that reaches the sink's name only on the third pass over the bindings: each
# pass carries it one assignment back up the loop body. The passes stop early only once one
# changed nothing, so a pass that still moves the taint is never skipped.
THIRD_PASS = """\
import os

from flask import request


def view():
    a = b = c = ""
    for _ in range(3):
        c = b
        b = a
        a = request.args["x"]
    os.system({sunk})
"""


@pytest.mark.parametrize("sunk", ["a", "b", "c"])
def test_taint_carried_back_up_a_loop_reaches_the_sink_on_a_later_pass(
    tmp_path: Path, sunk: str
) -> None:
    (tmp_path / "app.py").write_text(THIRD_PASS.format(sunk=sunk), encoding="utf-8")
    hits = PythonTaintTool().run(tmp_path, ["app.py"])
    assert [(h.rule, h.line) for h in hits] == [("taint-command_injection", 12)]
    assert "`request.args['x']` (line 11)" in hits[0].message


def test_a_loop_that_never_reads_request_data_is_no_flow(tmp_path: Path) -> None:
    text = THIRD_PASS.format(sunk="c").replace('request.args["x"]', '"fixed"')
    (tmp_path / "app.py").write_text(text, encoding="utf-8")
    assert PythonTaintTool().run(tmp_path, ["app.py"]) == []
