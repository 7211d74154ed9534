"""Constant folding prunes only what it proves dead (docs/detection.md, "Silence only on
proof"): a name some binding form the folding does not follow may rebind, module code that may
run code from elsewhere, an ``is``, a repeated dict key, a ``with`` that may swallow what its
body raises, a builtin the file rebinds: each keeps the branch, and the sink in it is reported.
A real constant still folds, and a pruned decorated function leaves a copy Semgrep can parse."""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from semgrep_snippets import line_containing

from code_guard.cli import EXIT_FINDINGS, main
from code_guard.findings import Outcome, Review
from code_guard.rewrites.edits import Edit, apply_edit
from code_guard.rewrites.focus import emptied_outside
from code_guard.rewrites.folding import Folding, pruned_source, pruned_tree
from code_guard.tools.python.taint import PythonTaintTool

SINK = 'return requests.get(request.args["url"]).text  # sink'

HEAD = """\
import os
import sys
import requests
from contextlib import suppress
from flask import Flask, request

app = Flask(__name__)


"""


def route(body: str) -> str:
    """A Flask view whose body is ``body`` (indented by four), then ``return "ok"``."""
    lines = [f"    {line}" if line else "" for line in body.strip("\n").split("\n")]
    return HEAD + '@app.route("/fetch")\ndef fetch():\n' + "\n".join(lines) + '\n    return "ok"\n'


def flag_route(rebind: str, flag: str = "flag", value: str = "False") -> str:
    """A view that sets ``flag`` to a literal, runs ``rebind``, then tests ``flag``."""
    return route(f"{flag} = {value}\n{rebind}\nif {flag}:\n    {SINK}\n")


def flag_module(rebind: str, flag: str = "DEBUG", value: str = "False") -> str:
    """A module that sets ``flag`` to a literal, runs ``rebind``, then defines a view only
    when ``flag`` holds."""
    view = f'@app.route("/fetch")\ndef fetch():\n    {SINK}\n'
    nested = "\n".join(f"    {line}" if line else "" for line in view.split("\n"))
    return HEAD + f"{flag} = {value}\n{rebind}\nif {flag}:\n{nested}"


def sink_kept(source: str) -> bool:
    """Whether the sink is still in what Semgrep reads and in the tree our taint check reads."""
    pruned = pruned_source(source)
    in_text = pruned is None or "# sink" in pruned
    tree = ast.parse(source)
    line = line_containing(source, "# sink")
    in_tree = any(
        isinstance(node, ast.Call) and node.lineno == line for node in ast.walk(pruned_tree(tree))
    )
    return in_text and in_tree


def ssrf_lines(source: str) -> list[int]:
    """The lines our own taint check reports an SSRF on."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "app.py").write_text(source, encoding="utf-8")
        hits = PythonTaintTool().run(Path(folder), ["app.py"])
    return [h.line for h in hits if h.rule == "taint-ssrf"]


# --- 1. names rebound by a form the folding does not follow -------------------------------

# Each rebinds ``flag`` (set to False first) inside a function; the ``if flag:`` after may run.
FUNCTION_REBINDS = {
    "walrus_in_test": 'if (flag := request.args.get("d")) == "off":\n    pass',
    "walrus_in_call": 'print(flag := request.args.get("d"))',
    "walrus_in_comprehension": "[flag := arg for arg in request.args]",
    "import_as": "import os as flag",
    "from_import_as": "from os import sep as flag",
    "from_import": "from os import flag",
    "def": "def flag():\n    pass",
    "async_def": "async def flag():\n    pass",
    "class": "class flag:\n    pass",
    "except_as": ('try:\n    int(request.args["n"])\nexcept ValueError as flag:\n    print(flag)'),
    "for_target": "for flag in request.args:\n    pass",
    "for_tuple_target": "for flag, _ in request.args.items():\n    pass",
    "with_as": 'with open("/etc/hostname") as flag:\n    pass',
    "tuple_unpack": 'flag, other = request.args.get("d"), 1',
    "starred_unpack": "*flag, = request.args",
    "chained_assign": 'flag = other = request.args.get("d")',
    "augmented": 'flag += len(request.args.get("d", ""))',
    "annotated": 'flag: str = request.args.get("d")',
    "del_then_assign": 'del flag\nflag = request.args.get("d")',
    "match_capture": 'match request.args.get("d"):\n    case "on" as flag:\n        pass',
    "match_bare_capture": 'match request.args.get("d"):\n    case flag:\n        pass',
    "match_star": "match list(request.args):\n    case [*flag]:\n        pass",
    "match_mapping_rest": "match dict(request.args):\n    case {**flag}:\n        pass",
    "nonlocal_assign": (
        'def inner():\n    nonlocal flag\n    flag = request.args.get("d")\ninner()'
    ),
    "nonlocal_import": "def inner():\n    nonlocal flag\n    import os as flag\ninner()",
    "frame_locals": 'sys._getframe().f_locals["flag"] = request.args.get("d")',
    "inside_try": 'try:\n    flag = request.args.get("d")\nexcept KeyError:\n    pass',
    "inside_loop": 'while request.args:\n    flag = request.args.get("d")\n    break',
}


def test_a_literal_name_nothing_rebinds_still_folds() -> None:
    source = flag_route("")
    assert not sink_kept(source)  # the true negative: nothing can make ``flag`` true
    assert ssrf_lines(source) == []


def test_a_name_rebound_to_request_data_keeps_the_branch() -> None:
    source = flag_route('flag = request.args.get("d")')
    assert sink_kept(source)
    assert ssrf_lines(source) == [line_containing(source, "# sink")]


@pytest.mark.parametrize("form", sorted(FUNCTION_REBINDS))
def test_any_other_rebinding_form_keeps_the_branch(form: str) -> None:
    source = flag_route(FUNCTION_REBINDS[form])
    ast.parse(source)  # each form is real Python
    assert sink_kept(source)
    assert ssrf_lines(source) == [line_containing(source, "# sink")]


# Each rebinds ``DEBUG`` (set to False first) at module level, or runs code that may.
MODULE_REBINDS = {
    "global_in_function": (
        'def configure():\n    global DEBUG\n    DEBUG = os.environ.get("D")\nconfigure()'
    ),
    "global_import_in_function": (
        "def configure():\n    global DEBUG\n    import os as DEBUG\nconfigure()"
    ),
    "globals_write": 'globals()["DEBUG"] = True',
    "vars_write": 'vars()["DEBUG"] = True',
    "setattr_module": 'setattr(sys.modules[__name__], "DEBUG", True)',
    "sys_modules_attribute": "sys.modules[__name__].DEBUG = True",
    "exec": 'exec("DEBUG = True")',
    "star_import": "from os.path import *",
    "import": "import app_hooks",  # a module that imports this one back may set DEBUG
    "call": "configure_app(app)",
    "decorated_function": "@app.before_request\ndef hook():\n    pass",
    "class_body": "class Settings:\n    pass",
    "attribute_read": "mode = app.config",
    "operator_on_foreign_value": "mode = app + 1",
    "del_falls_back_to_builtins": "del DEBUG",
    "walrus": 'print(DEBUG := os.environ.get("D"))',
    "with_as": 'with open("/etc/hostname") as DEBUG:\n    pass',
    "for_target": "for DEBUG in sys.argv:\n    pass",
    "import_as": "import os as DEBUG",
}


def test_a_module_constant_between_inert_statements_still_folds() -> None:
    between = (
        '"""Settings."""\nLIMIT = 3 * 4\nNAMES = ["a", "b"]\ndef helper(x, y=2):\n    return x\n'
    )
    assert not sink_kept(flag_module(between))


@pytest.mark.parametrize("form", sorted(MODULE_REBINDS))
def test_module_code_that_may_rebind_keeps_the_branch(form: str) -> None:
    source = flag_module(MODULE_REBINDS[form])
    ast.parse(source)
    assert sink_kept(source)


def test_a_builtin_name_deleted_at_module_level_is_the_builtin_again() -> None:
    # ``open = False; del open``: ``open`` is the (true) builtin again
    assert sink_kept(flag_module("del open", flag="open"))


# Property: whatever rebinding form, however wrapped, between the literal and its use.
_WRAPPERS = (
    "{0}",
    'if request.args.get("w"):\n{1}',
    "for _item in request.args:\n{1}",
    "try:\n{1}\nexcept Exception:\n    pass",
    "while request.args:\n{1}\n    break",
    'with suppress(Exception):\n{1}\n    raise ValueError("x")',
)


def _wrapped(form: str, wrapper: str) -> str:
    indented = "\n".join(f"    {line}" for line in form.split("\n"))
    return wrapper.format(form, indented)


# Names a drawn name must not take: Python's own, and those the snippets use.
_TAKEN = (
    set(dir(builtins)) | set(keyword.kwlist) | set(keyword.softkwlist)
    | {"os", "sys", "requests", "request", "suppress", "app", "fetch", "inner", "other", "arg"}
)  # fmt: skip
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,7}", fullmatch=True).filter(lambda n: n not in _TAKEN)


def _renamed(text: str, name: str) -> str:
    return re.sub(r"\bflag\b", name, text)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(FUNCTION_REBINDS)),
    st.sampled_from(_WRAPPERS),
    st.sampled_from(["False", "0", '""', "None", "1 > 2", "7 * 18 + 106 < 200"]),
    st.booleans(),
    NAMES,
)
def test_property_any_rebinding_turns_folding_off(
    form: str, wrapper: str, value: str, negated: bool, name: str
) -> None:
    rebind = _wrapped(FUNCTION_REBINDS[form], wrapper)
    source = flag_route(rebind, value=value)
    if negated:  # the same with a literal that is true, tested by ``not``
        source = source.replace("if flag:", "if not flag:").replace(f"flag = {value}", "flag = 1")
    source = _renamed(source, name)
    ast.parse(source)
    assert sink_kept(source)
    assert line_containing(source, "# sink") in ssrf_lines(source)


# What does not rebind the name leaves the folding as it was: the branch is still pruned.
NOT_REBINDING = [
    'other = request.args.get("d")',
    'print(request.args.get("d"))',
    "for other in request.args:\n    pass",
    "other = [arg for arg in request.args]",
]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(NOT_REBINDING), st.sampled_from(_WRAPPERS[:3]), NAMES)
def test_property_what_does_not_rebind_keeps_the_folding(
    statement: str, wrapper: str, name: str
) -> None:
    source = _renamed(flag_route(_wrapped(statement, wrapper)), name)
    assert not sink_kept(source)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(MODULE_REBINDS)), st.sampled_from(["False", "0", "2 > 3"]))
def test_property_module_code_that_may_rebind_turns_folding_off(form: str, value: str) -> None:
    assert sink_kept(flag_module(MODULE_REBINDS[form], value=value))


def test_a_format_too_wide_to_build_is_not_folded() -> None:
    wide = route(f'pad = "%0999999999d" % 7\nif pad == "7":\n    {SINK}\n')
    assert sink_kept(wide)  # and the reviewer did not build a gigabyte to find out
    assert not sink_kept(wide.replace("%0999999999d", "%04d"))


# --- 2. ``is`` ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "test",
    [
        'mode is "abab"',  # CPython folds ``"ab" * 2`` at compile time: the same object
        'mode is not "abab"',
        '(mode is "abab") == False',
        '"ab" * 2 is "abab"',
        "count is 257",  # small ints are cached, larger ones may or may not be
        "count + 1 is not 258",
    ],
)
def test_identity_of_values_does_not_fold(test: str) -> None:
    source = route(f'mode = "ab" * 2\ncount = 257\nif {test}:\n    {SINK}\n')
    assert sink_kept(source)


@pytest.mark.parametrize("test", ["mode is None", "done is not False", "None is not None"])
def test_identity_with_a_singleton_still_folds(test: str) -> None:
    source = route(f'mode = "ab" * 2\ndone = False\nif {test}:\n    {SINK}\n')
    assert not sink_kept(source)


def test_equality_still_folds() -> None:
    assert not sink_kept(route(f'mode = "ab" * 2\nif mode != "abab":\n    {SINK}\n'))


# --- 3. repeated dict keys ---------------------------------------------------------------


def _chosen(table: str, key: str) -> str:
    return route(f"table = {table}\nchosen = table[{key}]\nreturn requests.get(chosen).text\n")


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('{"t": "https://a.example", "t": request.args["url"]}', '"t"'),
        ('{1: "https://a.example", True: request.args["url"]}', "1"),
        ('{1: "https://a.example", 1.0: request.args["url"]}', "1"),
        ('{"t": "https://a.example", **request.args}', '"t"'),
    ],
)
def test_the_last_value_of_a_repeated_key_is_the_one_read(table: str, key: str) -> None:
    source = _chosen(table, key)
    assert Folding.of(ast.parse(source)).literal_reads == []


CONTAINER_ALIASES = {
    "locals": 'locals()["table"]["t"] = request.args["url"]',
    "vars": 'vars()["table"]["t"] = request.args["url"]',
    "own_frame": 'sys._getframe().f_locals["table"]["t"] = request.args["url"]',
    # a helper elsewhere in the module reaches the caller's frame
    "callers_frame": "poke()",
}
POKE = """
def poke():
    sys._getframe(1).f_locals["table"]["t"] = request.args["url"]
"""


def test_a_container_nothing_else_reaches_is_read_as_built() -> None:
    source = _chosen('{"t": "https://a.example"}', '"t"')
    assert len(Folding.of(ast.parse(source)).literal_reads) == 1


@pytest.mark.parametrize("case", sorted(CONTAINER_ALIASES))
def test_a_container_reached_through_a_namespace_is_not_read_as_built(case: str) -> None:
    source = route(
        f'table = {{"t": "https://a.example"}}\n{CONTAINER_ALIASES[case]}\n'
        'return requests.get(table["t"]).text\n'
    )
    source = source.replace("\n\n@app.route", POKE + "\n\n@app.route")
    assert Folding.of(ast.parse(source)).literal_reads == []


def test_a_literal_last_value_is_still_a_literal_read() -> None:
    source = _chosen('{"t": request.args["url"], "t": "https://a.example"}', '"t"')
    assert len(Folding.of(ast.parse(source)).literal_reads) == 1


# --- 4. blocks that may not leave ----------------------------------------------------------

LEAVES_OR_NOT = {
    "with_suppress_raise": ('with suppress(ValueError):\n        raise ValueError("skip")', True),
    "with_suppress_return": ('with suppress(ValueError):\n        return "early"', True),
    # a try always leaves here, but folding does not follow a try: kept, conservatively
    "try_finally_return": ('try:\n        return "early"\n    finally:\n        pass', True),
    "while_true_break": ("while True:\n        break", True),
    "assert_false": ("assert False", True),  # gone under ``python -O``
    "return": ('return "early"', False),
}


@pytest.mark.parametrize("case", sorted(LEAVES_OR_NOT))
def test_only_a_block_that_surely_leaves_keeps_the_other_branchs_values(case: str) -> None:
    block, kept = LEAVES_OR_NOT[case]
    body = (
        f'safe = True\nif request.args.get("mode") == "raw":\n    safe = False\n    {block}\n'
        f"if not safe:\n    {SINK}\n"
    )
    assert sink_kept(route(body)) is kept


def test_what_a_with_body_assigns_is_unknown_after_it() -> None:
    body = (
        'safe = False\nwith suppress(ValueError):\n    int(request.args["n"])\n    safe = True\n'
        f"if not safe:\n    {SINK}\n"
    )
    assert sink_kept(route(body))


# --- builtins and codecs the file may have replaced ---------------------------------------

BANDIT_SOURCE = """\
import base64
import os


def run(mode):
    mode = mode if 1 else "never"
    cmd = {call}
    os.system(cmd)
"""
REBOUND = {
    "def_str": ("def str(value):\n    return os.environ['CMD']\n", 'str("ls")'),
    "import_as_base64": ("import json as base64\n", 'base64.loads("1")'),
    "from_import_str": ("from shlex import quote as str\n", 'str("ls")'),
    "parameter_str": ("def other(str):\n    return str\n", 'str("ls")'),
    "assigned_len": ("len = os.getenv\n", 'len("CMD")'),
    "star_import": ("from shlex import *\n", 'str("ls")'),
    "custom_codec": ("", 'b"ls".decode("rot13_custom")'),
    "custom_error_handler": ("", '"ls".encode("ascii", "custom")'),
}


def _static_call(source: str) -> bool:
    tree = ast.parse(source)
    call = next(
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "os.system"
    )
    return Folding.of(tree).static_first_argument(call.lineno, call.col_offset)


def test_a_pure_builtin_over_literals_is_static() -> None:
    assert _static_call(BANDIT_SOURCE.format(call='str("ls")'))
    assert _static_call(BANDIT_SOURCE.format(call='base64.b64encode(b"ls").decode()'))
    assert _static_call(BANDIT_SOURCE.format(call='"ls".encode("utf-8")'))


def test_a_call_of_request_data_is_not_static() -> None:
    assert not _static_call(BANDIT_SOURCE.format(call='str(os.environ["CMD"])'))


@pytest.mark.parametrize("case", sorted(REBOUND))
def test_a_builtin_the_file_rebinds_is_not_pure(case: str) -> None:
    prelude, call = REBOUND[case]
    assert not _static_call(prelude + BANDIT_SOURCE.format(call=call))


# --- 5. a pruned decorated function leaves a copy that parses ------------------------------

DEAD_DECORATED = HEAD + (
    "DEBUG = False\n"
    "if DEBUG:\n"
    "    @a\n"
    '    @app.route("/debug")\n'
    "    def debug_view():\n"
    "        return 'debug'\n"
    "    @a\n"
    "    class Debug:\n"
    "        pass\n"
    '@app.route("/fetch")\n'
    "def fetch():\n"
    f"    {SINK}\n"
)


def test_a_pruned_decorated_function_takes_its_decorators_with_it() -> None:
    pruned = pruned_source(DEAD_DECORATED)
    assert pruned is not None
    ast.parse(pruned)
    assert "@a\n" not in pruned and "debug_view" not in pruned
    lengths = [len(line) for line in DEAD_DECORATED.split("\n")]
    assert [len(line) for line in pruned.split("\n")] == lengths


def test_a_statement_too_short_on_its_first_line_gets_pass_further_down() -> None:
    lines = ["    @a", "    def f():", "        pass", "x = 1"]
    assert apply_edit(lines, Edit((1, 4), (3, 12), statement=True))
    assert lines == ["      ", "    pass    ", "            ", "x = 1"]
    # a statement that does not start its line cannot move its ``pass``
    lines = ["if x: (a,", "  b)"]
    assert not apply_edit(lines, Edit((1, 6), (2, 4), statement=True))


def test_a_focused_run_empties_a_function_whose_body_starts_with_a_short_decorator() -> None:
    source = "import x\n\ndef f():\n    @a\n    def g():\n        pass\n    return g\n\ny = 1\n"
    emptied = emptied_outside(source, {9})
    assert emptied is not None
    ast.parse(emptied)
    assert "@a\n" not in emptied


# --- end to end: each attack as a pull request, under ``--fail-on high`` -----------------


def added(files: dict[str, str]) -> str:
    """A diff that adds each file."""
    out = ""
    for path, text in files.items():
        lines = text.rstrip("\n").split("\n")
        body = "".join(f"+{line}\n" for line in lines)
        out += (
            f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n{body}"
        )
    return out


def review(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: dict[str, str]
) -> tuple[int, Review]:
    path = tmp_path / "pr.diff"
    path.write_text(added(files), encoding="utf-8")
    code = main(["review", str(path), "--format", "json", "-q", "--fail-on", "high"])
    out, _ = capsys.readouterr()
    return code, Review.model_validate_json(out)


ATTACKS = {
    "walrus": flag_route('if (flag := request.args.get("d")) == "off":\n    flag = False'),
    "import_as": flag_route("import os as flag"),
    "def": flag_route("def flag():\n    pass"),
    "class": flag_route("class flag:\n    pass"),
    "except_as": route(
        f'flag = None\ntry:\n    int(request.args["n"])\nexcept ValueError as flag:\n'
        f"    if flag:\n        {SINK}\n"
    ),
    "match_capture": flag_route(
        'match request.args.get("d"):\n    case "raw" as flag:\n        pass\n    case _:\n'
        "        pass"
    ),
    "star_import": flag_module("from os.path import *"),
    "globals_write": flag_module('globals()["DEBUG"] = os.environ.get("D") == "1"'),
    "setattr_module": flag_module('setattr(sys.modules[__name__], "DEBUG", True)'),
    "is_identity": route(f'mode = "ab" * 2\nif mode is "abab":\n    {SINK}\n'),
    "duplicate_key": _chosen('{"t": "https://a.example", "t": request.args["url"]}', '"t"'),
    "with_suppress": route(
        'safe = True\nif request.args.get("mode") == "raw":\n    safe = False\n'
        '    with suppress(ValueError):\n        raise ValueError("skip")\n'
        f"if not safe:\n    {SINK}\n"
    ),
}


def test_a_file_with_a_pruned_decorated_function_is_read_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a decorator left before ``pass`` made the file unreadable to Semgrep: a partial review
    code, result = review(capsys, tmp_path, {"app.py": DEAD_DECORATED})
    assert result.outcome is Outcome.REVIEWED, result.outcome_reasons
    assert code == EXIT_FINDINGS
    assert any("semgrep:py-ssrf-taint" in f.sources for f in result.findings)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_each_attack_fails_the_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, attack: str
) -> None:
    code, result = review(capsys, tmp_path, {"app.py": ATTACKS[attack]})
    assert code == EXIT_FINDINGS
    assert any(f.category == "ssrf" and f.severity == "high" for f in result.findings)


def test_a_module_that_imports_this_one_back_may_set_its_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    files = {
        "app.py": flag_module("import app_hooks"),
        "app_hooks.py": "import app\napp.DEBUG = True\n",
    }
    code, result = review(capsys, tmp_path, files)
    assert code == EXIT_FINDINGS
    assert any(f.category == "ssrf" for f in result.findings)


def test_a_real_constant_condition_stays_silent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = route(
        'param = request.args.get("url", "")\nnum = 106\n'
        'bar = "https://a.example" if 7 * 18 + num > 200 else param\n'
        "return requests.get(bar).text\n"
    )
    code, result = review(capsys, tmp_path, {"app.py": source})
    assert not any(f.category == "ssrf" for f in result.findings)
    assert code == 0
    # its tainted twin is reported
    code, result = review(capsys, tmp_path, {"app.py": source.replace("> 200", "< 200")})
    assert code == EXIT_FINDINGS
    assert any(f.category == "ssrf" for f in result.findings)


def test_a_command_built_by_a_rebound_builtin_keeps_bandits_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prelude = "from flask import request\n\n\ndef str(value):\n    return request.args['cmd']\n\n\n"
    source = prelude + BANDIT_SOURCE.format(call='str("ls")')
    _, result = review(capsys, tmp_path, {"app.py": source})
    assert any("bandit:B605" in f.sources for f in result.findings)
