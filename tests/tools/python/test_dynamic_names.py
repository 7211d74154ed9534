"""Unused locals that code the function evaluates reads (``tools/python/dynamic_names.py``)."""

from __future__ import annotations

from pathlib import Path

from code_guard.tools.python.dynamic_names import read_by_evaluated_code
from code_guard.tools.ruff.tool import RuffTool

EVALUATED = """\
def run(store, spec_text):
    spec = store.decode(spec_text)
    command = "store.find(spec)"
    return eval(command)
"""

UNUSED = """\
def run(store, spec_text):
    spec = store.decode(spec_text)
    command = "store.find({})"
    return eval(command)
"""


def _f841(tmp_path: Path, source: str) -> list[int]:
    (tmp_path / "mod.py").write_text(source, encoding="utf-8")
    hits = RuffTool(["F841"]).run(tmp_path, ["mod.py"])
    return [h.line for h in hits if h.rule == "F841"]


def test_a_local_named_by_evaluated_code_is_not_reported_unused(tmp_path: Path) -> None:
    assert _f841(tmp_path, EVALUATED) == []


def test_a_local_no_evaluated_code_names_is_still_unused(tmp_path: Path) -> None:
    assert _f841(tmp_path, UNUSED) == [2]


def test_a_string_naming_the_local_without_eval_or_exec_is_no_use() -> None:
    source = EVALUATED.replace("return eval(command)", "return command")
    assert not read_by_evaluated_code(source, 2, "spec")
    assert read_by_evaluated_code(EVALUATED, 2, "spec")


def test_an_attribute_of_the_same_name_in_the_string_is_no_use() -> None:
    source = EVALUATED.replace('"store.find(spec)"', '"store.spec()"')
    assert not read_by_evaluated_code(source, 2, "spec")
