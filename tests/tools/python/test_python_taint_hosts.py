"""Host validators of the taint check: a function whose body proves that it returns true only
for a URL on the application's own host (the parsed target's netloc equal to the server's),
in the file or in another file of the change. Each shape that proves its case is silenced;
each look-alike that does not is still reported, among them the target joined to the server's
own URL first (the Flask snippet's ``urljoin``, Django's ``build_absolute_uri`` with
``same_origin``): Python keeps ``\\`` in the joined path, a browser reads ``/\\evil.example`` as
``//evil.example``."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_guard.tools.python.taint import PythonTaintTool

# The target's own netloc must be the server's (a relative path fails: no host to prove).
VALIDATOR = """\
import logging
from urllib.parse import urljoin, urlparse

from flask import current_app, request

log = logging.getLogger(__name__)


def is_safe_redirect_url(url: str) -> bool:
    host_url = urlparse(request.host_url)
    redirect_url = urlparse(url)
    return (
        redirect_url.scheme in ("http", "https")
        and host_url.netloc == redirect_url.netloc
    )


def get_safe_redirect(url):
    if url and is_safe_redirect_url(url):
        return url
    log.warning("Invalid redirect detected, falling back to index")
    return current_app.appbuilder.index_url
"""
ROUTES = """\
from flask import Flask, redirect, request

app = Flask(__name__)


@app.route("/login")
def login():
    return redirect(get_safe_redirect(request.args.get("next", "")))


@app.route("/logout")
def logout():
    next_url = request.args.get("next")
    if next_url and is_safe_redirect_url(next_url):
        return redirect(next_url)
    else:
        return redirect("/")
"""
IMPORT = "from pkg.helpers import get_safe_redirect, is_safe_redirect_url\n"


def reported(root: Path, files: dict[str, str]) -> list[tuple[str, str, int]]:
    """(file, rule, line) of each taint hit no guard or sanitiser silenced."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    hits = PythonTaintTool().run(root, list(files))
    return sorted((h.file_path, h.rule, h.line) for h in hits if not h.silenced)


def test_the_host_validator_in_the_same_file_silences(tmp_path: Path) -> None:
    assert reported(tmp_path, {"app.py": VALIDATOR + "\n\n" + ROUTES}) == []


def test_the_host_validator_of_another_file_silences(tmp_path: Path) -> None:
    files = {"pkg/helpers.py": VALIDATOR, "pkg/views.py": IMPORT + ROUTES}
    assert reported(tmp_path, files) == []


def test_the_host_validator_through_a_module_alias_silences(tmp_path: Path) -> None:
    routes = ROUTES.replace("get_safe_redirect(", "h.get_safe_redirect(").replace(
        "is_safe_redirect_url(", "h.is_safe_redirect_url("
    )
    files = {"pkg/helpers.py": VALIDATOR, "pkg/views.py": "import pkg.helpers as h\n" + routes}
    assert reported(tmp_path, files) == []


def test_without_the_validator_both_flows_are_reported(tmp_path: Path) -> None:
    routes = ROUTES.replace("get_safe_redirect(", "str(").replace(
        "next_url and is_safe_redirect_url(next_url)", "next_url"
    )
    found = reported(tmp_path, {"pkg/views.py": routes})
    assert [(rule, line) for _, rule, line in found] == [
        ("taint-open_redirect", 8),
        ("taint-open_redirect", 15),
    ]


# Look-alikes of the validator's body: each returns true for a URL of another host.
UNPROVED = {
    "host of the target itself": (
        "host_url.netloc == redirect_url.netloc",
        "urlparse(url).netloc == redirect_url.netloc",
    ),
    "not equal": (
        "host_url.netloc == redirect_url.netloc",
        "host_url.netloc != redirect_url.netloc",
    ),
    "or": ("\n        and host_url.netloc", "\n        or host_url.netloc"),
    "a request header": (
        "host_url = urlparse(request.host_url)",
        'host_url = urlparse(request.headers["X-Forwarded-Host"])',
    ),
    "a request argument": (
        "host_url = urlparse(request.host_url)",
        'host_url = urlparse(request.args.get("host", ""))',
    ),
    # the Flask snippet: `/\\evil.example` joined to the server's URL keeps its host
    "joined to the own URL": ("urlparse(url)\n", "urlparse(urljoin(request.host_url, url))\n"),
    "a base the request chose": (
        "urlparse(url)\n",
        'urlparse(urljoin(request.args["base"], url))\n',
    ),
    "a host bound twice": (
        "host_url = urlparse(request.host_url)",
        "host_url = urlparse(request.host_url)\n"
        '    if "h" in request.args:\n'
        '        host_url = urlparse(request.args["h"])',
    ),
    "the empty netloc": ("host_url.netloc == redirect_url.netloc", 'redirect_url.netloc == ""'),
}


@pytest.mark.parametrize("case", sorted(UNPROVED))
@pytest.mark.parametrize("cross_file", [False, True])
def test_a_validator_that_does_not_prove_the_host_is_no_guard(
    tmp_path: Path, case: str, cross_file: bool
) -> None:
    old, new = UNPROVED[case]
    assert old in VALIDATOR
    validator = VALIDATOR.replace(old, new)
    if cross_file:
        files = {"pkg/helpers.py": validator, "pkg/views.py": IMPORT + ROUTES}
        offset = 1
    else:
        files = {"app.py": validator + "\n\n" + ROUTES}
        offset = validator.count("\n") + 2
    found = [(rule, line - offset) for _, rule, line in reported(tmp_path, files)]
    assert found == [("taint-open_redirect", 8), ("taint-open_redirect", 15)]


def test_a_function_of_another_file_with_the_same_name_that_returns_true(tmp_path: Path) -> None:
    helpers = """\
def is_safe_redirect_url(url):
    return True


def get_safe_redirect(url):
    if url and is_safe_redirect_url(url):
        return url
    return "/"
"""
    files = {"pkg/helpers.py": helpers, "pkg/views.py": IMPORT + ROUTES}
    assert [line for _, _, line in reported(tmp_path, files)] == [9, 16]


def test_a_fallback_from_the_request_is_no_sanitiser(tmp_path: Path) -> None:
    fallbacks = ('request.args["home"]', "g.next_url", "session.next_url", "flask.request.path")
    for index, fallback in enumerate(fallbacks):
        helpers = (
            VALIDATOR.replace("current_app.appbuilder.index_url", fallback)
            .replace("import current_app, request", "import current_app, g, request, session")
            .replace("import logging", "import logging\n\nimport flask")
        )
        name = f"pkg{index}"
        imports = IMPORT.replace("pkg.", f"{name}.")
        files = {f"{name}/helpers.py": helpers, f"{name}/views.py": imports + ROUTES}
        assert [line for _, _, line in reported(tmp_path, files)] == [9], fallback


def test_a_local_function_of_the_same_name_wins_over_the_import(tmp_path: Path) -> None:
    local = "\n\ndef is_safe_redirect_url(url):\n    return url.startswith('/')\n"
    files = {"pkg/helpers.py": VALIDATOR, "pkg/views.py": IMPORT + ROUTES + local}
    assert [line for _, _, line in reported(tmp_path, files)] == [16]


def test_an_imported_validator_whose_result_is_ignored_is_no_guard(tmp_path: Path) -> None:
    routes = """\
from flask import Flask, redirect, request

app = Flask(__name__)


@app.route("/logout")
def logout():
    next_url = request.args.get("next")
    is_safe_redirect_url(next_url)
    return redirect(next_url)
"""
    files = {"pkg/helpers.py": VALIDATOR, "pkg/views.py": IMPORT + routes}
    assert [line for _, _, line in reported(tmp_path, files)] == [11]


def test_a_rebound_import_is_not_the_validator(tmp_path: Path) -> None:
    rebound = ROUTES.replace("app = Flask", "is_safe_redirect_url = lambda url: True\napp = Flask")
    files = {"pkg/helpers.py": VALIDATOR, "pkg/views.py": IMPORT + rebound}
    assert [line for _, _, line in reported(tmp_path, files)] == [17]


def test_a_host_compared_with_a_name_bound_to_request_data_is_no_guard(tmp_path: Path) -> None:
    body = """\
from urllib.parse import urlparse

from flask import Flask, redirect, request

app = Flask(__name__)


def same_host(url):
    host = request.args["host"]
    return urlparse(url).netloc == host


@app.route("/go")
def go():
    target = request.args["next"]
    if same_host(target):
        return redirect(target)
    return redirect("/")
"""
    assert reported(tmp_path, {"app.py": body}) == [("app.py", "taint-open_redirect", 17)]


DJANGO = """\
from django import shortcuts
from django.utils.http import same_origin


def login(request):
    redirect_to = request.GET.get("next", None)
    if redirect_to and not same_origin(
        request.build_absolute_uri(redirect_to), request.build_absolute_uri()
    ):
        redirect_to = None
    target = redirect_to or "/home"
    return shortcuts.redirect(target)
"""


def test_djangos_same_origin_of_a_joined_url_is_no_guard(tmp_path: Path) -> None:
    """``build_absolute_uri("/\\evil.example")`` is on the server's origin, and a browser
    redirected to ``/\\evil.example`` leaves it."""
    assert reported(tmp_path, {"views.py": DJANGO}) == [("views.py", "taint-open_redirect", 12)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # both sides from the request: any two URLs of the client's may share an origin
        ("request.build_absolute_uri()\n", 'request.GET["other"]\n'),
        # the checked value is not the one that reaches the sink
        ("build_absolute_uri(redirect_to)", 'build_absolute_uri(request.GET["x"])'),
        # the result ignored
        ("if redirect_to and not same_origin(", "if redirect_to and same_origin("),
        # a same_origin of the file's own
        (
            "from django.utils.http import same_origin",
            "def same_origin(a, b):\n    return True",
        ),
    ],
)
def test_a_same_origin_look_alike_is_no_guard(tmp_path: Path, old: str, new: str) -> None:
    assert old in DJANGO
    found = reported(tmp_path, {"views.py": DJANGO.replace(old, new)})
    assert [rule for _, rule, _ in found] == ["taint-open_redirect"]


def test_allowed_hosts_bound_to_request_data_in_a_validator_is_no_guard(tmp_path: Path) -> None:
    body = """\
from django.utils.http import url_has_allowed_host_and_scheme
from flask import Flask, redirect, request

app = Flask(__name__)


def safe(url):
    hosts = {request.args["host"]}
    return url_has_allowed_host_and_scheme(url, allowed_hosts=hosts)


@app.route("/go")
def go():
    target = request.args["next"]
    if safe(target):
        return redirect(target)
    return redirect("/")
"""
    assert reported(tmp_path, {"app.py": body}) == [("app.py", "taint-open_redirect", 16)]
    own = body.replace('{request.args["host"]}', "{request.host}")
    assert reported(tmp_path, {"own.py": own}) == []
