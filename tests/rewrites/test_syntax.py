"""``match`` statements and ``except*`` handlers rewritten for semgrep-core's main Python
parser (rewrites/syntax.py), and every bundled Python rule finding the same lines
in a file that has one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from code_guard.findings import Category
from code_guard.rewrites.syntax import for_semgrep
from code_guard.tools.semgrep.command import rules_file
from code_guard.tools.semgrep.tool import SemgrepTool, run_rules

# Two annotated Semgrep targets, many of whose lines the bundled rules report.
TARGETS = Path(__file__).resolve().parents[1] / "tools" / "semgrep" / "targets" / "python"
VIEWS_PY = (TARGETS / "views.py").read_text(encoding="utf-8")
APP_PY = (TARGETS / "app.py").read_text(encoding="utf-8")

EVERY_FORM = """\
def route(db, name, command):
    match command:
        case "a" | "b":
            db.execute(f"SELECT * FROM t WHERE a = '{name}'")
        case Point(x=0) as point:
            return point
        case [first, *rest] if first > 0:
            return rest
        case {"k": value, **others}:
            return value, others
        case (1, 2):
            return None
        case "é" if name == "ü":
            return name
        case _:
            match name:
                case str():
                    return name
    match (command,
           name):
        case (x, y) if (x ==
                        y):
            return x
"""


def rewritten_in_place(source: str) -> tuple[str, list[tuple[str, str]]]:
    """``for_semgrep(source)``, checked to keep every line's length, and the lines it changed
    (before, after; stripped)."""
    rewritten = for_semgrep(source)
    assert rewritten is not None
    before, after = source.splitlines(), rewritten.splitlines()
    assert [len(line) for line in after] == [len(line) for line in before]
    changed = [(b.strip(), a.strip()) for b, a in zip(before, after, strict=True) if a != b]
    return rewritten, changed


def test_every_pattern_form_becomes_an_if_or_with_statement_in_place() -> None:
    rewritten, changed = rewritten_in_place(EVERY_FORM)
    assert changed == [
        ("match command:", "with  command:"),
        ('case "a" | "b":', 'if   "a" | "b":'),
        ("case Point(x=0) as point:", "with Point(x=0) as point:"),
        ("case [first, *rest] if first > 0:", "if   [first, *rest] or first > 0:"),
        ('case {"k": value, **others}:', 'if   {"k": value, **others}:'),
        ("case (1, 2):", "if   (1, 2):"),
        ('case "é" if name == "ü":', 'if   "é" or name == "ü":'),
        ("case _:", "if   _:"),
        ("match name:", "with  name:"),
        ("case str():", "if   str():"),
        ("match (command,", "with  (command,"),
        ("case (x, y) if (x ==", "if   (x, y) or (x =="),
    ]
    assert not any(isinstance(node, ast.Match) for node in ast.walk(ast.parse(rewritten)))


@pytest.mark.parametrize(
    "source",
    [
        "match = re.match(pattern, text)\nif match:\n    print(match.group(0))\n",
        "match(pattern)\nmatch.group(0)\n",
        "def f(x):\n    return x\n",
        "def broken(:\n    match x:\n        case 1:\n            pass\n",
        # `as` with a guard would read `with y as z or z`, not Python: left to the fallback
        "match x:\n    case y as z if z:\n        pass\n",
        "try:\n    pass\nexcept ValueError:\n    pass\n",
        "x = a * b  # except*\n",
        # the star on the next line: not rewritten, so left to the fallback
        "try:\n    pass\nexcept \\\n* ValueError:\n    pass\n",
    ],
)
def test_no_copy_without_newer_syntax_or_a_valid_rewrite(source: str) -> None:
    assert for_semgrep(source) is None


EVERY_EXCEPT_STAR = """\
def load(db, name):
    try:
        db.execute(f"SELECT * FROM t WHERE a = '{name}'")
    except* ValueError as group:
        return group
    except *(KeyError, OSError):
        pass
    except\t*TypeError:
        try:
            pass
        except* Exception:
            raise
    match name:
        case "x":
            pass
"""


def test_every_except_star_becomes_an_ordinary_handler_in_place() -> None:
    rewritten, changed = rewritten_in_place(EVERY_EXCEPT_STAR)
    assert changed == [
        ("except* ValueError as group:", "except  ValueError as group:"),
        ("except *(KeyError, OSError):", "except  (KeyError, OSError):"),
        ("except\t*TypeError:", "except\t TypeError:"),
        ("except* Exception:", "except  Exception:"),
        ("match name:", "with  name:"),
        ('case "x":', 'if   "x":'),
    ]
    assert not any(isinstance(node, ast.TryStar) for node in ast.walk(ast.parse(rewritten)))


MATCH_STATEMENT = """

def dispatch(command):
    match command:
        case "start":
            return 1
        case _:
            return 0
"""

EXCEPT_STAR = """

def gather(tasks):
    try:
        return run(tasks)
    except* ValueError as group:
        return group.exceptions
"""


@pytest.mark.parametrize("source", [VIEWS_PY, APP_PY], ids=["views", "app"])
@pytest.mark.parametrize("newer", [MATCH_STATEMENT, EXCEPT_STAR], ids=["match", "except*"])
def test_rules_hit_the_same_lines_in_a_file_with_newer_syntax(
    tmp_path: Path, source: str, newer: str
) -> None:
    (tmp_path / "plain.py").write_text(source, encoding="utf-8")
    (tmp_path / "modern.py").write_text(source + newer, encoding="utf-8")
    hits = run_rules(tmp_path, ["modern.py", "plain.py"], rules_file("python.yml"))
    plain = {(h.rule, h.line) for h in hits if h.file_path == "plain.py"}
    modern = {(h.rule, h.line) for h in hits if h.file_path == "modern.py"}
    assert len(plain) > 10
    assert modern == plain
    assert {h.file_path for h in hits} == {"plain.py", "modern.py"}  # never the copy's path


@pytest.mark.parametrize("source", [EVERY_FORM, EVERY_EXCEPT_STAR], ids=["case", "try"])
def test_a_formatted_query_inside_newer_syntax_is_found_on_its_line(
    tmp_path: Path, source: str
) -> None:
    (tmp_path / "app.py").write_text(source, encoding="utf-8")
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "SELECT" in text)
    hits = SemgrepTool(tuple(Category)).run(tmp_path, ["app.py"])
    assert ("py-sql-injection-formatted-query", line) in {(h.rule, h.line) for h in hits}
