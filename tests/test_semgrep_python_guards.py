"""Tests of the guards of the Python semgrep taint rules (tools/semgrep/rules/python.yml,
generated from knowledge/security/python.yml), run through the real ``SemgrepTool`` and
semgrep-core.

Every guard appears twice in one module (one semgrep-core run): a handler where the flow
reaches its sink unchecked, which its rule reports, and a twin where the guard vets the value
first, which nothing reports. Lines are found by a marker, never by number.
"""

from __future__ import annotations

import pytest

from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool

VIEWS_PY = """\
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import requests
from django.utils.http import url_has_allowed_host_and_scheme
from flask import Flask, abort, redirect, request, send_file

app = Flask(__name__)
BASE = "/srv/files"
HOSTS = {"api.example.com"}


@app.route("/a")
def path_open():
    name = request.args["name"]
    path = os.path.realpath(os.path.join(BASE, name))
    return send_file(path)  # tp-path


@app.route("/b")
def path_contained():
    name = request.args["name"]
    path = os.path.realpath(os.path.join(BASE, name))
    if not path.startswith(BASE + os.sep):
        abort(404)
    return send_file(path)  # safe-startswith


@app.route("/c")
def path_relative():
    name = request.args["name"]
    path = (Path(BASE) / name).resolve()
    if path.is_relative_to(BASE):
        return send_file(path)  # safe-relative
    abort(404)


@app.route("/c2")
def path_as_text():
    base = Path(BASE)
    path = (base / request.args["name"]).resolve()
    if not str(path).startswith(str(base)):
        abort(404)
    return send_file(path)  # safe-str-startswith


@app.route("/d")
def path_dotdot():
    name = request.args["name"]
    if ".." in name:
        abort(400)
    return send_file(os.path.join(BASE, name))  # safe-dotdot


@app.route("/e")
def path_slash_only():
    name = request.args["name"]
    if name.startswith("/"):
        abort(400)
    return send_file(os.path.join(BASE, name))  # tp-slash-only


@app.route("/f")
def path_helper():
    name = request.args["name"]
    if not is_within_directory(BASE, os.path.join(BASE, name)):
        abort(400)
    return send_file(os.path.join(BASE, name))  # safe-helper


@app.route("/g")
def fetch_open():
    url = request.args["url"]
    return requests.get(url, timeout=5).text  # tp-ssrf


@app.route("/h")
def fetch_host_checked():
    url = request.args["url"]
    if urlparse(url).hostname not in HOSTS:
        abort(400)
    return requests.get(url, timeout=5).text  # safe-hostname


@app.route("/i")
def fetch_parsed_checked():
    url = request.args["url"]
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or parsed.netloc not in HOSTS:
        abort(400)
    return requests.get(url, timeout=5).text  # safe-parsed


@app.route("/j")
def fetch_validated():
    url = request.args["url"]
    validate_url(url)
    return requests.get(url, timeout=5).text  # safe-validator-statement


@app.route("/k")
def go_open():
    target = request.args.get("next", "/")
    return redirect(target)  # tp-redirect


@app.route("/l")
def go_checked():
    target = request.args.get("next", "/")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts=HOSTS):
        return redirect(target)  # safe-django-helper
    return redirect("/")


@app.route("/m")
def go_allow_listed():
    target = request.args.get("next", "/")
    if target not in ALLOWED_TARGETS:
        target = "/"
        return redirect(target)
    return redirect(target)  # safe-allow-list


@app.route("/n")
def ping_open():
    host = request.args["host"]
    return subprocess.check_output("ping -c1 " + host, shell=True)  # tp-command


@app.route("/o")
def ping_format_checked():
    host = request.args["host"]
    if not re.fullmatch(r"[a-z0-9.-]+", host):
        abort(400)
    return subprocess.check_output("ping -c1 " + host, shell=True)  # safe-fullmatch


@app.route("/p")
def page_number():
    page = request.args["page"]
    if not page.isdigit():
        abort(400)
    return send_file(os.path.join(BASE, page + ".html"))  # safe-isdigit


@app.route("/q")
def page_size():
    size = request.args["size"]
    if size:
        cursor.execute("SELECT * FROM pages LIMIT " + size)  # tp-sql
"""


def line_of(marker: str) -> int:
    """The 1-based number of the one line of the snippet that contains ``marker``."""
    found = [n for n, line in enumerate(VIEWS_PY.splitlines(), start=1) if marker in line]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> list[ToolHit]:
    """Every hit of the bundled rules on the view module: one semgrep-core run."""
    from code_guard.models import Category

    root = tmp_path_factory.mktemp("semgrep-python-guards")
    (root / "views.py").write_text(VIEWS_PY, encoding="utf-8")
    return SemgrepTool(tuple(Category)).run(root, ["views.py"])


@pytest.mark.parametrize(
    ("marker", "rule"),
    [
        ("# tp-path", "py-path-traversal-taint"),
        ("# tp-slash-only", "py-path-traversal-taint"),
        ("# tp-ssrf", "py-ssrf-taint"),
        ("# tp-redirect", "py-open-redirect-taint"),
        ("# tp-command", "py-command-injection-taint"),
        ("# tp-sql", "py-sql-injection-taint"),
        # an absolute name has no "..", and os.path.join then drops the base (issue 27)
        ("# safe-dotdot", "py-path-traversal-taint"),
        # helpers of the project whose names say they check: their bodies are the proof, which
        # the Python taint check reads; a name is none (issue 27)
        ("# safe-helper", "py-path-traversal-taint"),
        ("# safe-validator-statement", "py-ssrf-taint"),
    ],
)
def test_the_unguarded_flow_is_reported(hits: list[ToolHit], marker: str, rule: str) -> None:
    line = line_of(marker)
    assert (rule, line) in {(h.rule, h.line) for h in hits}


@pytest.mark.parametrize(
    "marker",
    [
        "# safe-startswith",
        "# safe-relative",
        "# safe-str-startswith",
        "# safe-hostname",
        "# safe-parsed",
        "# safe-django-helper",
        "# safe-allow-list",
        "# safe-fullmatch",
        "# safe-isdigit",
    ],
)
def test_the_guarded_flow_is_not_reported(hits: list[ToolHit], marker: str) -> None:
    line = line_of(marker)
    assert [h for h in hits if h.line <= line <= h.end_line] == []
