"""The test-file policy silences only on proof (issue 27): a file is a test for the rules
quiet in tests only when the review can show no production file of the change loads it
(``testfiles.py``). Ordinary tests stay quiet; a test-looking module that production code
imports, names or may load is reviewed as the production code it is, through the command
line as in ``test_pr_bypasses.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from code_guard.change import testfiles
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.cli import EXIT_FINDINGS, main
from code_guard.findings import Review, Silencing, Verdict


def decide(files: dict[str, str | None]) -> testfiles.TestFiles:
    return testfiles.TestFiles.of(files.items())


def loaded(files: dict[str, str | None]) -> set[str]:
    return set(decide(files).loaded)


PROXY = "import requests\n"  # the file's own text does not matter to the decision

# --- the decision, file by file ---------------------------------------------------------------


def test_ordinary_tests_stay_tests() -> None:
    tests = decide(
        {
            "app/views.py": "from app.models import User\nfrom . import forms\n",
            "app/models.py": "import os\nif os.environ.get('ENV') == 'tests':\n    pass\n",
            "tests/test_views.py": "from app.views import index\nfrom tests.helpers import h\n",
            "tests/helpers.py": "import app\n",
            "conftest.py": "import pytest\nfrom app import create_app\n",
            "src/util.js": "const db = require('./db')\nimport x from 'lodash'\n",
            "src/__tests__/util.test.js": "const u = require('../util')\n",
            "src/util.spec.ts": "import { u } from './util'\n",
            "svc/store.go": 'package svc\nimport "testing"\nimport "example.com/m/db"\n',
            "svc/store_test.go": "package svc\n",
        }
    )
    for path in (
        "tests/test_views.py",
        "tests/helpers.py",
        "conftest.py",
        "src/__tests__/util.test.js",
        "src/util.spec.ts",
        "svc/store_test.go",
    ):
        assert tests.is_test(path), path
    assert not tests.is_test("app/views.py")
    assert tests.loaded == {}
    assert "no production file" in tests.why("tests/helpers.py")
    assert "never builds" in tests.why("svc/store_test.go")


def test_a_folder_below_tests_is_named_only_with_its_test_folder() -> None:
    # ``orders`` is a production package and a blueprint's name; ``tests/orders`` is tests
    files: dict[str, str | None] = {
        "tests/orders/test_views.py": "from shopfront.orders.views import bp\n",
        "tests/orders/helpers.py": PROXY,
        "shopfront/orders/views.py": (
            "from flask import Blueprint\nfrom orders.helpers import h\nimport proxy\n"
            'bp = Blueprint("orders", __name__)\n'
        ),
    }
    assert loaded(files) == set()
    files["shopfront/app.py"] = "from tests.orders import helpers\n"
    # naming the package ``tests.orders`` may load any module below it
    assert loaded(files) == {"tests/orders/helpers.py", "tests/orders/test_views.py"}


def test_a_go_test_file_is_a_test_whatever_names_it() -> None:
    tests = decide({"svc/h_test.go": "package svc\n", "main.go": 'import "svc/h_test.go"\n'})
    assert tests.is_test("svc/h_test.go")


@pytest.mark.parametrize(
    ("importer", "text"),
    [
        ("svc/app.py", "from svc.testing.proxy import bp\n"),
        ("svc/app.py", "import svc.testing.proxy as p\n"),
        ("svc/app.py", "from svc.testing import proxy\n"),
        ("svc/app.py", "from .testing.proxy import bp\n"),
        ("svc/app.py", "from .testing import proxy\n"),
        ("svc/app.py", "from . import testing\n"),  # no __init__ in the change: any module
        ("svc/app.py", "from svc.testing import *\n"),
        ("svc/app.py", "def late():\n    from svc.testing.proxy import bp\n"),
        ("svc/app.py", "try:\n    import testing.proxy\nexcept ImportError:\n    pass\n"),
        ("svc/app.py", "import importlib\nm = importlib.import_module('svc.testing.proxy')\n"),
        ("svc/app.py", "from importlib import import_module as im\nm = im('testing.proxy')\n"),
        ("svc/app.py", "import sys\nsys.path.insert(0, 'svc/testing')\nimport proxy\n"),
        ("svc/app.py", "import sys, os\nsys.path.append(os.path.join(HERE, 'testing'))\n"),
        ("svc/settings.py", "INSTALLED_APPS = ['django.contrib.auth', 'svc.testing']\n"),
        ("svc/settings.py", "INSTALLED_APPS = ['testing']\n"),
        ("svc/app.py", "import runpy\nrunpy.run_path('svc/testing/proxy.py')\n"),
        (
            "svc/app.py",
            "import subprocess\nsubprocess.run(['python', '-m', 'svc.testing.proxy'])\n",
        ),
        ("Dockerfile", "CMD gunicorn svc.testing.proxy:app\n"),
        ("Procfile", "web: python svc/testing/proxy.py\n"),
        ("pyproject.toml", '[project.scripts]\nproxy = "svc.testing.proxy:main"\n'),
        ("svc/app.sh", "exec python testing/proxy.py\n"),
    ],
)
def test_production_that_names_a_test_looking_module_makes_it_production(
    importer: str, text: str
) -> None:
    assert loaded({"svc/testing/proxy.py": PROXY, importer: text}) == {"svc/testing/proxy.py"}


@pytest.mark.parametrize(
    "text",
    [
        # built from pieces the review does not put together
        "import importlib\nm = importlib.import_module(name)\n",
        "import importlib\nload = importlib.import_module\n",
        "m = __import__(''.join(['svc.test', 'ing.proxy']))\n",
        "code = 'import svc.test' + 'ing.proxy'\nexec(code)\n",
        "eval(compile(source, 'x', 'exec'))\n",
        "import pickle\npickle.loads(blob)\n",
        "from pickle import loads as l\nl(blob)\n",
        "import os\nos.system(cmd)\n",
        "import subprocess as sp\nsp.Popen(argv)\n",
        "import yaml\nyaml.load(text)\n",
        "def broken(:\n",  # a file the review cannot parse: anything
    ],
)
def test_a_loader_the_review_cannot_read_to_its_end_loads_any_python_file(text: str) -> None:
    files: dict[str, str | None] = {
        "svc/testing/proxy.py": PROXY,
        "tests/test_x.py": PROXY,
        "svc/app.py": text,
    }
    assert loaded(files) == {"svc/testing/proxy.py", "tests/test_x.py"}


def test_a_literal_prefix_bounds_what_a_computed_import_may_load() -> None:
    files: dict[str, str | None] = {
        "svc/plugins/testing/proxy.py": PROXY,
        "tests/test_x.py": PROXY,
        "svc/app.py": "import importlib\nm = importlib.import_module(f'svc.plugins.{name}')\n",
    }
    assert loaded(files) == {"svc/plugins/testing/proxy.py"}
    pieces = "import importlib\nm = importlib.import_module('svc.test' + 'ing.proxy')\n"
    files = {"svc/testing/proxy.py": PROXY, "tests/test_x.py": PROXY, "svc/app.py": pieces}
    assert loaded(files) == {"svc/testing/proxy.py"}


def test_loading_runs_through_the_test_files_production_loads() -> None:
    files: dict[str, str | None] = {
        "svc/app.py": "from svc import testing\n",
        "svc/testing/__init__.py": "from .proxy import bp\n",
        "svc/testing/proxy.py": "from svc.fixtures.h import f\n",
        "svc/fixtures/h.py": PROXY,
        "svc/testing/test_proxy.py": "from svc.testing.proxy import bp\n",
    }
    assert loaded(files) == {
        "svc/testing/__init__.py",
        "svc/testing/proxy.py",
        "svc/fixtures/h.py",
    }
    assert decide(files).is_test("svc/testing/test_proxy.py")


def test_safe_look_alikes_of_loaders_do_not_make_tests_production() -> None:
    files: dict[str, str | None] = {
        "tests/test_x.py": PROXY,
        "app/x.py": (
            "import re, subprocess, yaml\n"
            "pattern = re.compile(text)\n"
            "model.eval()\n"
            "data = yaml.load(text, Loader=yaml.SafeLoader)\n"
            "subprocess.run(['git', 'status'], stdout=subprocess.PIPE, check=True)\n"
            "import importlib\nm = importlib.import_module('app.plugins')\n"
        ),
    }
    assert loaded(files) == set()


@pytest.mark.parametrize(
    ("importer", "text"),
    [
        ("server.js", "const x = require('./__tests__/x')\n"),
        ("server.js", "const x = require('./__tests__/x.js')\n"),
        ("server.js", "import x from './__tests__/x'\n"),
        ("server.js", "export * from './__tests__/x'\n"),
        ("server.js", "const x = await import(`./__tests__/x.js`)\n"),
        ("server.js", "const x = require('./__tests__')\n"),
        ("server.js", "const x = require(`./__tests__/${name}`)\n"),
        ("server.js", "const x = require('./__' + 'tests__/x')\n"),
        ("server.js", "const x = require(name)\n"),
        ("server.ts", "import x from '@app/__tests__/x'\n"),
        ("package.json", '{"main": "__tests__/x.js"}\n'),
    ],
)
def test_javascript_that_loads_a_test_looking_file_makes_it_production(
    importer: str, text: str
) -> None:
    assert loaded({"__tests__/x.js": PROXY, importer: text}) == {"__tests__/x.js"}


def test_a_go_package_in_a_test_folder_that_production_imports_is_production() -> None:
    files: dict[str, str | None] = {
        "svc/testing/proxy.go": "package testing\n",
        "main.go": 'package main\nimport "example.com/m/svc/testing"\n',
    }
    assert loaded(files) == {"svc/testing/proxy.go"}
    assert loaded({"fixtures/server.go": "package main\n"}) == {"fixtures/server.go"}


def test_a_production_file_the_review_cannot_read_may_load_anything() -> None:
    assert loaded({"tests/test_x.py": PROXY, "app/blob.py": None}) == {"tests/test_x.py"}


def binary(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"Binary files /dev/null and b/{path} differ\n"
    )


def test_an_image_loads_nothing_but_a_compiled_module_may_load_anything() -> None:
    diff = added("tests/test_x.py", "x = 1") + binary("docs/logo.png")
    assert ReviewRequest(change=parse_diff(diff)).test_files().is_test("tests/test_x.py")
    diff = added("tests/test_x.py", "x = 1") + binary("svc/speedups.so")
    assert not ReviewRequest(change=parse_diff(diff)).test_files().is_test("tests/test_x.py")


def test_the_request_decides_once_from_the_change() -> None:
    diff = added("svc/testing/proxy.py", "x = 1") + added("svc/app.py", "import svc.testing.proxy")
    request = ReviewRequest(change=parse_diff(diff))
    first = request.test_files()
    assert request.test_files() is first
    assert not first.is_test("svc/testing/proxy.py")


# --- end to end: through the command line -----------------------------------------------------

BLUEPRINT = (
    "import requests",
    "from flask import Blueprint, request",
    "",
    'bp = Blueprint("proxy", __name__)',
    "",
    "",
    '@bp.route("/proxy")',
    "def proxy():",
    '    return requests.get(request.args["url"], timeout=5).text',
)
SSRF_LINE = len(BLUEPRINT)


def added(path: str, *lines: str) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def review(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, diff: str, fail_on: str = "high"
) -> tuple[int, Review]:
    path = tmp_path / "pr.diff"
    path.write_text(diff, encoding="utf-8")
    code = main(["review", str(path), "--format", "json", "-q", "--fail-on", fail_on])
    out, _ = capsys.readouterr()
    return code, Review.model_validate_json(out)


def flagged(result: Review, path: str, line: int, source: str) -> bool:
    return any(
        f.file_path == path and f.line_start == line and source in f.sources
        for f in result.findings
    )


def app_importing(module: str, *, relative: str | None = None) -> tuple[str, ...]:
    how = f"from {relative} import bp" if relative else f"from {module} import bp"
    return (
        "from flask import Flask",
        how,
        "",
        "app = Flask(__name__)",
        "app.register_blueprint(bp)",
    )


def test_ordinary_tests_stay_quiet_end_to_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = added("svc/app.py", *app_importing("svc.views"))
    diff += added("svc/views.py", "from flask import Blueprint", 'bp = Blueprint("v", __name__)')
    # a test app with a request flow, a pytest file and a conftest importing production code
    diff += added("tests/test_proxy.py", *BLUEPRINT)
    diff += added(
        "tests/conftest.py", "from svc.app import app", "", "", "def client():", "    return app"
    )
    diff += added(
        "web/__tests__/users.test.js",
        "test('loads', async () => {",
        "  for (const id of ids) {",
        "    await db.findOne(id)",
        "  }",
        "})",
    )
    diff += added("web/users.js", "const db = require('./db')", "module.exports = { db }")
    code, result = review(capsys, tmp_path, diff, fail_on="medium")
    assert code == 0, result.findings
    assert result.verdict is Verdict.APPROVE
    assert result.silenced[Silencing.TEST_FILE] >= 2
    assert not any(f.file_path.startswith(("tests/", "web/__tests__/")) for f in result.findings)


def test_a_blueprint_in_a_testing_folder_that_the_app_registers_is_reviewed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = added("svc/testing/proxy.py", *BLUEPRINT)
    diff += added("svc/app.py", *app_importing("svc.testing.proxy"))
    code, result = review(capsys, tmp_path, diff)
    assert code == EXIT_FINDINGS
    assert result.verdict is Verdict.REQUEST_CHANGES
    assert flagged(result, "svc/testing/proxy.py", SSRF_LINE, "python-taint:taint-ssrf")
    assert result.silenced[Silencing.TEST_FILE] == 0


def test_the_same_blueprint_nothing_imports_stays_quiet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = added("svc/testing/proxy.py", *BLUEPRINT)
    diff += added("svc/app.py", *app_importing("svc.views"))
    code, result = review(capsys, tmp_path, diff)
    assert code == 0
    assert result.silenced[Silencing.TEST_FILE] >= 1


@pytest.mark.parametrize(
    ("module", "importer"),
    [
        # a fixtures/ module, imported by a relative import
        ("svc/fixtures/h.py", app_importing("", relative=".fixtures.h")),
        # a module named like a pytest file
        ("svc/test_proxy.py", app_importing("svc.test_proxy")),
        # a module named in a string
        (
            "svc/spec/proxy.py",
            (
                "import importlib",
                "from flask import Flask",
                "app = Flask(__name__)",
                'app.register_blueprint(importlib.import_module("svc.spec.proxy").bp)',
            ),
        ),
        # a module loaded by a name the review cannot put together
        (
            "svc/tests/proxy.py",
            (
                "import importlib",
                "from flask import Flask",
                "app = Flask(__name__)",
                'name = "svc.te" + "sts.proxy"',
                "app.register_blueprint(importlib.import_module(name).bp)",
            ),
        ),
    ],
)
def test_a_test_looking_module_production_loads_is_reviewed(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    module: str,
    importer: tuple[str, ...],
) -> None:
    diff = added(module, *BLUEPRINT) + added("svc/app.py", *importer)
    code, result = review(capsys, tmp_path, diff)
    assert code == EXIT_FINDINGS
    assert flagged(result, module, SSRF_LINE, "python-taint:taint-ssrf")


def test_a_javascript_file_in_tests_that_the_server_requires_is_reviewed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the JavaScript rules quiet in tests are of medium severity
    cors = (
        "module.exports = (req, res, next) => {",
        '  res.set("Access-Control-Allow-Origin", req.headers.origin)',
        "  next()",
        "}",
    )
    diff = added("web/__tests__/cors.js", *cors)
    diff += added("web/server.js", "const cors = require('./__tests__/cors')", "app.use(cors)")
    code, result = review(capsys, tmp_path, diff, fail_on="medium")
    assert code == EXIT_FINDINGS
    assert flagged(
        result, "web/__tests__/cors.js", 2, "semgrep:js-insecure-config-cors-reflected-origin"
    )
    # without the require, the same file is a test helper and stays quiet
    diff = added("web/__tests__/cors.js", *cors) + added("web/server.js", "app.use(cors)")
    code, result = review(capsys, tmp_path, diff, fail_on="medium")
    assert code == 0
    assert result.silenced[Silencing.TEST_FILE] == 1


@pytest.mark.parametrize(
    ("call", "loads"),
    [
        ("subprocess.run(['git', 'add', folder], cwd=repo, check=True)", False),
        ("subprocess.check_output(('gh', 'pr', 'view', number))", False),
        ("subprocess.run(['python', '-m', module])", True),
        ("subprocess.run(['/usr/bin/env', name])", True),
        ("subprocess.run(['sh', '-c', command])", True),
        ("subprocess.run([program, 'x'])", True),
        ("subprocess.run(command, shell=True)", True),
    ],
)
def test_a_literal_program_that_is_no_interpreter_loads_no_module(call: str, loads: bool) -> None:
    # A script that runs `git add <folder>` runs git; one that hands a computed name to an
    # interpreter, a shell or a launcher may run the test module, so it counts as loading it.
    files: dict[str, str | None] = {
        "scripts/sync.py": f"import subprocess\n{call}\n",
        "tests/test_sync.py": PROXY,
    }
    assert (loaded(files) == {"tests/test_sync.py"}) is loads
