"""Constant folding (``rewrites/folding/``): a branch that cannot run and a literal
element of a locally built container carry no request data, for Semgrep's taint rules, our
own taint check and Bandit's call checks alike; the tainted twin of each snippet still fires."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from semgrep_snippets import line_containing, run_snippets

from code_guard.rewrites.folding import Folding, pruned_source
from code_guard.rewrites.folding.bindings import _module_facts
from code_guard.rewrites.folding.interpreter import _Scope
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.python.taint import PythonTaintTool

HEAD = """\
from flask import Flask, request

app = Flask(__name__)


@app.route("/file")
def view():
    name = request.args.get("name", "")
"""

# Each case: the snippet's body (after HEAD), with a tainted twin made by a replacement.
DEAD_IFEXP = """\
    limit = 106
    chosen = "report.txt" if 7 * 18 + limit > 200 else name
    return open(chosen).read()  # sink
"""
DEAD_BRANCH = """\
    limit = 86
    if 7 * 42 - limit > 200:
        chosen = "report.txt"
    else:
        chosen = name
    return open(chosen).read()  # sink
"""
LIST_ELEMENT = """\
    parts = []
    parts.append("report.txt")
    parts.append(name)
    parts.append("other.txt")
    parts.pop(0)
    chosen = parts[1]
    return open(chosen).read()  # sink
"""
DICT_KEY = """\
    table = {}
    table["plain"] = "report.txt"
    table["asked"] = name
    chosen = table["plain"]
    return open(chosen).read()  # sink
"""
CASES = {
    "dead_ifexp": (DEAD_IFEXP, ("7 * 18 + limit > 200", "7 * 18 + limit < 200")),
    "dead_branch": (DEAD_BRANCH, ("7 * 42 - limit > 200", "7 * 42 - limit < 200")),
    "list_element": (LIST_ELEMENT, ("chosen = parts[1]", "chosen = parts[0]")),
    "dict_key": (DICT_KEY, ('chosen = table["plain"]', 'chosen = table["asked"]')),
}


def _semgrep_path_hits(tmp_path: Path, body: str) -> list[int]:
    # a fresh folder per run: semgrep's results are cached by folder and file names
    folder = tmp_path / str(len(list(tmp_path.iterdir())))
    folder.mkdir()
    hits = run_snippets(folder, {"app.py": HEAD + body})["app.py"]
    return [h.line for h in hits if h.rule == "py-path-traversal-taint"]


def _taint_path_hits(tmp_path: Path, body: str) -> list[int]:
    folder = tmp_path / str(len(list(tmp_path.iterdir())))
    folder.mkdir()
    (folder / "app.py").write_text(HEAD + body, encoding="utf-8")
    hits = PythonTaintTool().run(folder, ["app.py"])
    return [h.line for h in hits if h.rule == "taint-path_traversal"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_semgrep_sees_no_flow_through_dead_code_or_a_literal_element(
    tmp_path: Path, case: str
) -> None:
    body, (safe, tainted) = CASES[case]
    sink = line_containing(HEAD + body, "# sink")
    assert sink not in _semgrep_path_hits(tmp_path, body)
    assert sink in _semgrep_path_hits(tmp_path, body.replace(safe, tainted))


# Our own check does not follow values into containers at all: only the branches apply.
@pytest.mark.parametrize("case", ["dead_branch", "dead_ifexp"])
def test_our_taint_check_sees_no_flow_through_dead_code(tmp_path: Path, case: str) -> None:
    body, (safe, tainted) = CASES[case]
    assert _taint_path_hits(tmp_path, body) == []
    assert _taint_path_hits(tmp_path, body.replace(safe, tainted)) != []


@pytest.mark.parametrize(
    "body",
    [
        # the list escapes to a call that may change it
        LIST_ELEMENT.replace("    parts.pop(0)\n", "    parts.pop(0)\n    shuffle(parts)\n"),
        # the constant is reassigned in a loop: the condition is not folded
        DEAD_BRANCH.replace(
            "    limit = 86\n", "    limit = 86\n    for x in name:\n        limit = 0\n"
        ),
        # an alias of the dict may take the request value
        DICT_KEY.replace(
            '    table["asked"] = name\n', '    alias = table\n    alias["plain"] = name\n'
        ),
    ],
)
def test_what_folding_cannot_follow_is_left_as_it_is(body: str) -> None:
    assert pruned_source(HEAD + body) is None


def test_the_rewrite_keeps_every_line_and_column() -> None:
    source = HEAD + DEAD_BRANCH.replace("return open(chosen).read()", "print(chosen)") + DEAD_IFEXP
    pruned = pruned_source(source)
    assert pruned is not None
    assert [len(line) for line in pruned.split("\n")] == [len(line) for line in source.split("\n")]
    assert ast.parse(pruned)
    assert "chosen = name" not in pruned
    assert pruned_source(HEAD + "    return open(name).read()\n") is None


EVAL = """\
def run(text):
    limit = 86
    if 7 * 42 - limit > 200:
        code = "1 + 1"
    else:
        code = text
    return eval(code)
"""


def test_bandit_call_checks_skip_a_first_argument_built_from_literals(tmp_path: Path) -> None:
    (tmp_path / "safe.py").write_text(EVAL, encoding="utf-8")
    (tmp_path / "unsafe.py").write_text(EVAL.replace("> 200", "< 200"), encoding="utf-8")
    (tmp_path / "literal.py").write_text('print(eval("1 + 1"))\n', encoding="utf-8")
    hits = BanditTool().run(tmp_path, ["literal.py", "safe.py", "unsafe.py"])
    found = sorted((h.file_path, h.rule) for h in hits if h.rule == "B307" and not h.silenced)
    # a literal written in the call is the API use the rule is about: it stays
    assert found == [("literal.py", "B307"), ("unsafe.py", "B307")]
    # the folded call is returned marked, with the proof, so the review can count and list it
    [folded] = [h for h in hits if h.silenced]
    assert (folded.file_path, folded.rule, folded.silenced) == ("safe.py", "B307", "folding")
    assert folded.message == (
        "first argument `code` holds a value built from literals only (constant folding)"
    )


def test_a_command_built_from_literals_in_both_branches_is_static() -> None:
    source = (
        "import platform, subprocess\n"
        "def run(x):\n"
        "    cmd = 'cmd /c ' if platform.system() == 'Windows' else 'sh -c '\n"
        "    cmd += f'echo {42}'\n"
        "    subprocess.run(cmd, shell=True)\n"
        "    subprocess.run(cmd + x, shell=True)\n"
    )
    # folding resolved nothing in the function: a variable holding a literal is the literal
    assert not Folding.of(ast.parse(source)).static_first_argument(5, 4)
    source = source.replace("def run(x):\n", "def run(x):\n    x = x if 1 else 'never'\n")
    folding = Folding.of(ast.parse(source))
    assert folding.static_first_argument(6, 4)
    assert not folding.static_first_argument(7, 4)


# Python 3.12 lets an f-string reuse its quotes inside; our 3.11 parser cannot read the file.
NEWER_FSTRING = DEAD_BRANCH.replace(
    "    return open", "    print(f'{', '.join([chosen])}')\n    return open"
)


def test_a_file_with_a_python_312_fstring_is_folded_too(tmp_path: Path) -> None:
    source = HEAD + NEWER_FSTRING
    with pytest.raises(SyntaxError):
        ast.parse(source)
    pruned = pruned_source(source)
    assert pruned is not None
    assert "chosen = name" not in pruned
    assert "f'{', '.join([chosen])}'" in pruned  # the f-string itself is left as it was
    sink = line_containing(source, "# sink")
    assert sink not in _semgrep_path_hits(tmp_path, NEWER_FSTRING)
    assert sink in _semgrep_path_hits(tmp_path, NEWER_FSTRING.replace("> 200", "< 200"))


def test_an_expression_nested_too_deeply_leaves_its_scope_unfolded() -> None:
    deep = "def f(a):\n    b = (a\n" + "        + a\n" * 1500 + "    )\n    return b if 1 else a\n"
    tree = ast.parse(deep)  # Python's own parser copes; the folding's recursion does not
    assert Folding.of(tree).dead == []
    assert pruned_source(deep) is None


# Shapes the quick pre-scan (``_foldable``) must not skip: each folds to something.
FOLDS_SOMEWHERE = {
    "lambda": "def f(x):\n    g = lambda: 'a' if True else x\n    return g\n",
    "dict_get": "def f(x):\n    d = {'k': 'v'}\n    return d.get('k')\n",
    # walked last to first: ``c`` is met before the ``a`` it depends on
    "assigned_later": (
        "def f(x):\n    a = 1\n    b = a + 1\n    c = b * 2\n    return 'x' if c > 1 else x\n"
    ),
    "augmented": "def f(x):\n    n = 0\n    n += 2\n    return 'a' if n > 1 else x\n",
    "boolop_value": "def f(x):\n    y = 0 and x\n    return y\n",
    "unary": "def f(x):\n    flag = True\n    return x if not flag else 'a'\n",
    "pure_call": "def f(x):\n    items = [x, str(1)]\n    return items[1]\n",
    "module_level": "DEBUG = False\nif DEBUG:\n    import pdb\n",
    "method": (
        "class C:\n    def m(self, x):\n        limit = 3\n        return x if limit > 5 else 'a'\n"
    ),
    "nested": "def f(x):\n    def g():\n        v = ['a', x]\n        return v[0]\n    return g\n",
}


def _every_scope_folded(tree: ast.AST) -> Folding:
    """Folding without the pre-scan: every scope run, as before it existed."""
    found = Folding()
    facts = _module_facts(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef):
            _Scope(found, node, facts).run()
    return found


def _spans(folding: Folding) -> tuple[list[tuple[int, int, int, int]], ...]:
    def span(nodes: list[ast.AST] | list[ast.expr]) -> list[tuple[int, int, int, int]]:
        return sorted(
            (n.lineno, n.col_offset, n.end_lineno or 0, n.end_col_offset or 0)  # type: ignore[attr-defined]
            for n in nodes
        )

    calls = sorted((line, col, 0, 0) for line, col in folding.static_calls)
    return span(folding.dead), span(folding.literal_reads), calls


@pytest.mark.parametrize("case", sorted(FOLDS_SOMEWHERE))
def test_the_pre_scan_keeps_every_scope_that_folds(case: str) -> None:
    tree = ast.parse(FOLDS_SOMEWHERE[case])
    expected = _every_scope_folded(tree)
    assert expected.dead or expected.literal_reads  # the snippet does fold
    assert _spans(Folding.of(tree)) == _spans(expected)


def test_the_pre_scan_changes_nothing_on_real_code() -> None:
    """The standard library's own modules and this file's snippets: folding with the
    pre-scan finds exactly what running every scope finds."""
    sources = [HEAD + body for body, _ in CASES.values()]
    sources += [
        p.read_text(encoding="utf-8") for p in sorted(Path(ast.__file__).parent.glob("*.py"))
    ]
    compared = 0
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        assert _spans(Folding.of(tree)) == _spans(_every_scope_folded(tree))
        compared += 1
    assert compared > 100
