"""Focused Semgrep runs (``rewrites/focus.py``): a function no focus line falls in is
emptied before semgrep-core reads the file, and the results on the focus lines are the ones
a run over the whole file gives."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from semgrep_snippets import line_containing

from code_guard.findings import Category
from code_guard.rewrites.focus import emptied_outside
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool

APP = '''\
import pickle
import subprocess

import yaml
from flask import Flask, request

app = Flask(__name__)
DEBUG = True


@app.route("/run")
def run():
    name = request.args.get("name")
    subprocess.call("ls " + name, shell=True)  # run-sink
    return "ok"


@app.route("/load")
def load():
    """Loads what it is sent."""
    data = request.get_data()
    return yaml.load(data)  # load-sink


class Views:
    def restore(self):
        blob = request.get_data()
        return pickle.loads(blob)  # restore-sink

    def helper(self):
        def inner():
            value = request.args["v"]
            return subprocess.check_output(value, shell=True)  # inner-sink

        return inner
'''


def _line(marker: str) -> int:
    return line_containing(APP, marker)


def test_only_the_functions_outside_the_focus_are_emptied() -> None:
    out = emptied_outside(APP, {_line("load-sink")})
    assert out is not None
    before, after = APP.split("\n"), out.split("\n")
    assert [len(line) for line in after] == [len(line) for line in before]  # nothing moved
    assert "yaml.load(data)" in out and "Loads what it is sent" in out  # the focus function
    assert "subprocess.call" not in out and "pickle.loads" not in out
    assert "check_output" not in out  # a method's nested function goes with the method
    for kept in ('@app.route("/run")', "def run():", "class Views:", "def restore(self):"):
        assert kept in out  # signatures, decorators and classes stay
    assert "DEBUG = True" in out
    ast.parse(out)


def test_a_function_with_a_focus_line_anywhere_is_kept_whole() -> None:
    decorator = line_containing(APP, '@app.route("/run")')
    assert "subprocess.call" in (emptied_outside(APP, {decorator}) or "")
    nested = _line("inner-sink")
    out = emptied_outside(APP, {nested}) or ""
    assert "check_output" in out and "value = request.args" in out  # the whole method


def test_nothing_to_empty_gives_none() -> None:
    every_line = set(range(1, APP.count("\n") + 2))
    assert emptied_outside(APP, every_line) is None


def test_a_file_python_cannot_parse_is_emptied_from_its_tokens() -> None:
    source = (
        "def old():\n"
        '    print "python 2"\n'
        "    return 1\n"
        "\n"
        "\n"
        "@decorated\n"
        "async def changed(request):\n"
        "    return request\n"
    )
    out = emptied_outside(source, {8})
    assert out is not None
    assert 'print "python 2"' not in out and "return request" in out
    assert "@decorated" in out
    assert [len(line) for line in out.split("\n")] == [len(line) for line in source.split("\n")]
    ast.parse(out)  # what is left parses


def test_a_file_whose_tokens_do_not_end_is_left_whole() -> None:
    source = "def old():\n    x = 1\n\n\ndef changed():\n    return call(\n"
    assert emptied_outside(source, {6}) is None


@pytest.mark.parametrize("marker", ["run-sink", "load-sink", "restore-sink", "inner-sink"])
def test_a_focused_run_reports_on_its_lines_what_a_whole_run_does(
    tmp_path: Path, marker: str
) -> None:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    tool = SemgrepTool(tuple(Category))
    whole = tool.run(tmp_path, ["app.py"])
    line = _line(marker)
    assert any(h.line == line for h in whole)  # the snippet has a finding there
    focus = {line - 2, line - 1, line}
    focused = tool.run_focused(tmp_path, ["app.py"], {"app.py": focus})

    def on_focus(hits: list[ToolHit]) -> list[tuple[str, int, int]]:
        return sorted((h.rule, h.line, h.end_line) for h in hits if h.line in focus)

    assert on_focus(focused) == on_focus(whole)
    # and the other functions' findings were not looked for at all
    others = {_line(m) for m in ("run-sink", "load-sink", "restore-sink", "inner-sink")} - {line}
    assert any(h.line in others for h in whole)
    assert not any(h.line in others for h in focused)
