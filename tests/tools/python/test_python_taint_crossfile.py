"""Tests of the taint check across the files of a change (tools/python/taint.py, imports.py).

Each snippet pair is written for the test: a helper in one file, a route in another. The
flow through the helper is reported in the route's file, on the call, naming the sink in the
helper's file; the safe twin (the helper validates, or the call passes a constant) is not.
Only the files of the run are read: a helper in a file outside it is not followed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import Category, Finding
from code_guard.options import build_options
from code_guard.review.engine import review_sync
from code_guard.tools.base import ToolHit
from code_guard.tools.python.imports import ModuleIndex
from code_guard.tools.python.taint import PythonTaintTool

HELPER = """\
import sqlite3


def run_query(sql):
    cursor = sqlite3.connect("app.db").cursor()
    return cursor.execute(sql).fetchall()
"""
SAFE_HELPER = """\
import sqlite3


def run_query(sql):
    if not sql.isdigit():
        raise ValueError(sql)
    cursor = sqlite3.connect("app.db").cursor()
    return cursor.execute("SELECT * FROM t WHERE id = " + sql).fetchall()
"""
ROUTE = """\
from flask import Flask, request

from {module} import run_query

app = Flask(__name__)


@app.route("/search")
def search():
    return str(run_query("SELECT * FROM t WHERE name = '" + request.args["q"] + "'"))


@app.route("/all")
def everything():
    return str(run_query("SELECT * FROM t"))
"""
CALL_LINE = 10  # the call in `search`
SINK_LINE = 6  # cursor.execute in HELPER


def write(root: Path, files: dict[str, str]) -> list[str]:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return list(files)


def taint(root: Path, files: dict[str, str]) -> list[ToolHit]:
    return PythonTaintTool().run(root, write(root, files))


def test_a_helper_of_another_file_that_reaches_a_sink_is_a_sink(tmp_path: Path) -> None:
    hits = taint(tmp_path, {"db.py": HELPER, "app.py": ROUTE.format(module="db")})
    assert [(h.file_path, h.line, h.rule) for h in hits] == [
        ("app.py", CALL_LINE, "taint-sql_injection")
    ]
    assert f"`cursor.execute()` (db.py:{SINK_LINE})" in hits[0].message
    assert "is passed to `run_query()`" in hits[0].message


def test_a_helper_that_validates_its_parameter_is_no_sink(tmp_path: Path) -> None:
    assert taint(tmp_path, {"db.py": SAFE_HELPER, "app.py": ROUTE.format(module="db")}) == []


def test_a_constant_passed_to_the_helper_is_no_flow(tmp_path: Path) -> None:
    route = ROUTE.format(module="db").replace(
        """"SELECT * FROM t WHERE name = '" + request.args["q"] + "'\"""", '"SELECT 1"'
    )
    assert "request.args" not in route
    assert taint(tmp_path, {"db.py": HELPER, "app.py": route}) == []


def test_a_helper_outside_the_run_is_not_followed(tmp_path: Path) -> None:
    write(tmp_path, {"db.py": HELPER})  # on disk, but not a file of the change
    assert taint(tmp_path, {"app.py": ROUTE.format(module="db")}) == []


@pytest.mark.parametrize(
    ("files", "call"),
    [
        (  # a module imported under another name
            {"pkg/__init__.py": "", "pkg/db.py": HELPER},
            "import pkg.db as store\n\nstore.run_query",
        ),
        (  # a module imported from its package
            {"pkg/__init__.py": "", "pkg/db.py": HELPER},
            "from pkg import db\n\ndb.run_query",
        ),
        (  # a relative import, the helper under another name
            {"pkg/__init__.py": "", "pkg/db.py": HELPER},
            "from .db import run_query as query\n\nquery",
        ),
        (  # a package that re-exports the helper, below a source folder
            {"src/pkg/__init__.py": "from .db import run_query\n", "src/pkg/db.py": HELPER},
            "from pkg import run_query\n\nrun_query",
        ),
    ],
)
def test_imports_by_module_alias_relative_and_package(
    tmp_path: Path, files: dict[str, str], call: str
) -> None:
    imports, name = call.rsplit("\n", 1)
    folder = "src/pkg" if "src/pkg/db.py" in files else "pkg"
    route = (
        f"from flask import request\n{imports}\n\n\n"
        f"def search(request):\n    return {name}(request.GET['q'])\n"
    )
    hits = taint(tmp_path, {**files, f"{folder}/views.py": route})
    assert [(h.file_path, h.rule) for h in hits] == [(f"{folder}/views.py", "taint-sql_injection")]
    assert hits[0].line == route.count("\n")  # the call, the file's last line
    assert f"({folder}/db.py:{SINK_LINE})" in hits[0].message


LIB = """\
import sqlite3

run_query = lambda sql: sqlite3.connect("app.db").cursor().execute(sql)


class Store:
    def find(self, sql):
        return sqlite3.connect("app.db").cursor().execute(sql)


class Cache:
    def find(self, sql):
        return sql
"""


@pytest.mark.parametrize(
    ("call", "reported"),
    [
        # a lambda bound to a name, imported by it
        ("from lib import run_query\n\nrun_query", True),
        # a method of another file's class, on an instance made here: by class and method
        ("import lib\n\nlib.Store().find", True),
        ("import lib\n\nlib.Cache().find", False),
    ],
)
def test_a_lambda_or_a_method_of_another_file_is_followed(
    tmp_path: Path, call: str, reported: bool
) -> None:
    imports, name = call.rsplit("\n", 1)
    route = f"{imports}\n\n\ndef search(request):\n    return {name}(request.GET['q'])\n"
    hits = taint(tmp_path, {"lib.py": LIB, "views.py": route})
    expected = [("views.py", "taint-sql_injection")] if reported else []
    assert [(h.file_path, h.rule) for h in hits] == expected


def test_a_function_of_another_file_that_returns_request_data_is_a_source(
    tmp_path: Path,
) -> None:
    inputs = """\
from flask import request


def next_target():
    return request.args.get("next", "/")


def home_target():
    return "/"
"""
    route = """\
from flask import Flask, redirect

from inputs import home_target, next_target

app = Flask(__name__)


def done():
    return redirect(next_target())


def home():
    return redirect(home_target())
"""
    hits = taint(tmp_path, {"inputs.py": inputs, "app.py": route})
    assert [(h.file_path, h.line, h.rule) for h in hits] == [("app.py", 9, "taint-open_redirect")]


def test_a_cross_file_flow_is_reported_on_the_changed_line_nearest_the_sink(
    tmp_path: Path,
) -> None:
    route = """\
from flask import request

from db import run_query


def search(request):
    name = request.GET["q"]
    sql = "SELECT * FROM t WHERE name = '" + name + "'"
    limit = 10
    return run_query(sql)
"""
    paths = write(tmp_path, {"db.py": HELPER, "views.py": route})
    tool = PythonTaintTool()

    def lines(changed: set[int], sink: set[int]) -> list[tuple[str, int]]:
        focus = {"views.py": changed, "db.py": sink}
        return [(h.file_path, h.line) for h in tool.run_focused(tmp_path, paths, focus)]

    # the sink's line changed: the flow is reported there, where the sink is
    assert lines({10}, {SINK_LINE}) == [("db.py", SINK_LINE)]
    assert lines({7, 8}, {1, SINK_LINE}) == [("db.py", SINK_LINE)]
    # it did not: on the changed line of this file's part of the flow nearest the call
    assert lines({10}, {1}) == [("views.py", 10)]
    assert lines({7, 8}, set()) == [("views.py", 8)]
    assert lines({9}, set()) == [("views.py", 10)]  # no line of the flow changed: on the call
    (far,) = tool.run_focused(tmp_path, paths, {"views.py": {10}, "db.py": {SINK_LINE}})
    assert far.found_in == "views.py"
    assert "(views.py:7) is passed to `run_query()` (views.py:10)" in far.message, far.message


def test_a_file_outside_focus_is_read_but_not_reported(tmp_path: Path) -> None:
    views = "import os\n\n\ndef view(request):\n    os.system(request.GET['cmd'])\n"
    paths = write(
        tmp_path, {"db.py": HELPER, "views.py": views, "app.py": ROUTE.format(module="db")}
    )
    hits = PythonTaintTool().run_focused(tmp_path, paths, {"app.py": {CALL_LINE}})
    assert [(h.file_path, h.line) for h in hits] == [("app.py", CALL_LINE)]


def test_an_import_cycle_is_followed_once(tmp_path: Path) -> None:
    a = "from b import run\n\n\ndef view(request):\n    return run(request.GET['q'])\n"
    b = "import os\nfrom a import view\n\n\ndef run(cmd):\n    return os.system(cmd)\n"
    hits = taint(tmp_path, {"a.py": a, "b.py": b})
    assert [(h.file_path, h.line, h.rule) for h in hits] == [("a.py", 5, "taint-command_injection")]


def test_modules_resolve_by_path_within_the_change_only() -> None:
    index = ModuleIndex(["src/pkg/db.py", "src/pkg/__init__.py", "tools/json.py", "app.py"])
    assert index.resolve("pkg.db", "src/pkg/views.py") == "src/pkg/db.py"
    assert index.resolve("pkg", "src/main.py") == "src/pkg/__init__.py"
    assert index.resolve("pkg.db", "app.py") == "src/pkg/db.py"  # a dotted name, anywhere
    assert index.resolve("pkg", "app.py") is None  # a bare name: from its folder or below
    assert index.resolve("json", "app.py") is None  # not beside the importer: the stdlib's
    assert index.resolve("json", "tools/run.py") == "tools/json.py"
    assert index.resolve("requests", "app.py") is None
    assert index.relative(1, "db", "src/pkg/views.py") == "src/pkg/db.py"
    assert index.relative(2, "db", "src/pkg/sub/x.py") == "src/pkg/db.py"
    assert index.relative(1, None, "src/pkg/views.py") == "src/pkg/__init__.py"
    assert index.relative(5, "db", "src/pkg/views.py") is None


# Reviews of a change through the engine: the base side is read the same way, so a flow the
# change kept is not new, and one it introduced is.
def _diff(files: Mapping[str, tuple[str | None, str]]) -> tuple[str, dict[str, str]]:
    """A unified diff of whole-file changes: path -> (old text or None, new text)."""
    parts = []
    for path, (old, new) in files.items():
        new_lines = new.splitlines()
        if old is None:
            head = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n"
            parts.append(
                f"{head}+++ b/{path}\n@@ -0,0 +1,{len(new_lines)} @@\n"
                + "".join(f"+{line}\n" for line in new_lines)
            )
        else:
            old_lines = old.splitlines()
            parts.append(
                f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
                f"@@ -1,{len(old_lines)} +1,{len(new_lines)} @@\n"
                + "".join(f"-{line}\n" for line in old_lines)
                + "".join(f"+{line}\n" for line in new_lines)
            )
    return "".join(parts), {p: new for p, (_, new) in files.items()}


def _taint_findings(
    files: Mapping[str, tuple[str | None, str]], all_findings: bool = False
) -> list[tuple[str, int]]:
    diff, contents = _diff(files)
    request = ReviewRequest(change=parse_diff(diff), contents=contents)
    options = {"agents": "security", "all_findings": all_findings}
    review = review_sync(request, build_options(options))
    return [(f.file_path, f.line_start) for f in review.findings if _from_taint(f)]


def _from_taint(finding: Finding) -> bool:
    return finding.category is Category.SQL_INJECTION and any(
        source.startswith("python-taint") for source in finding.sources
    )


def test_a_review_reports_a_flow_into_a_helper_the_change_adds() -> None:
    route = ROUTE.format(module="db")
    old_route = route.replace('"SELECT * FROM t WHERE name = \'" + request.args["q"] + "\'"', '"x"')
    # the helper is new, so its sink line is added: the flow is reported there
    assert _taint_findings({"db.py": (None, HELPER), "app.py": (old_route, route)}) == [
        ("db.py", SINK_LINE)
    ]


def test_a_review_does_not_report_a_flow_the_base_already_had() -> None:
    route = ROUTE.format(module="db")
    # both files change, the flow through the helper stays as it was
    helper = HELPER.replace("import sqlite3\n", "import sqlite3  # the database\n")
    new_route = route.replace("app = Flask(__name__)", "app = Flask(__name__)  # the app")
    change = {"db.py": (HELPER, helper), "app.py": (route, new_route)}
    assert _taint_findings(change) == []
    # excused as kept from the base, where the same flow runs through the base's helper
    assert _taint_findings(change, all_findings=True) == [("db.py", SINK_LINE)]


def test_a_review_does_not_follow_a_helper_only_the_base_has() -> None:
    route = ROUTE.format(module="db")
    old_route = route.replace('"SELECT * FROM t WHERE name = \'" + request.args["q"] + "\'"', '"x"')
    diff, contents = _diff({"app.py": (old_route, route)})
    # the change deletes the helper's file: its base is no file of the change's head
    deleted = len(HELPER.splitlines())
    diff += (
        "diff --git a/db.py b/db.py\ndeleted file mode 100644\n--- a/db.py\n+++ /dev/null\n"
        f"@@ -1,{deleted} +0,0 @@\n" + "".join(f"-{line}\n" for line in HELPER.splitlines())
    )
    request = ReviewRequest(change=parse_diff(diff), contents=contents)
    review = review_sync(request, build_options({"agents": "security"}))
    assert [f for f in review.findings if _from_taint(f)] == []
