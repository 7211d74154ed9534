"""The Python taint rules take each sanitiser and guard for the kinds the security model says it
proves, and a guard only where it controls the path to the sink (issue 27). Each look-alike
below is code a pull request's author could write to silence a flow: a sanitiser of another
kind, a helper named like a sanitiser, a check whose result is ignored or whose failing branch
goes on, a scheme test. All are reported; the twins that do prove their case stay quiet. One
semgrep-core run over one module, through the real ``SemgrepTool``.
"""

from __future__ import annotations

import pytest

from code_guard.knowledge.security import load_model
from code_guard.models import Category
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool

VIEWS_PY = """\
import html
import os
import re
import shlex
import subprocess
from urllib.parse import quote, urlparse

import requests
from django.utils.http import url_has_allowed_host_and_scheme
from flask import Flask, abort, redirect, request, send_file
from markupsafe import escape
from werkzeug.utils import secure_filename

app = Flask(__name__)
BASE = "/srv/files"
HOSTS = {"api.example.com"}


def sanitize_url(url):
    return url


@app.route("/a")
def fetch_named_sanitiser():
    return requests.get(sanitize_url(request.args["url"]), timeout=5).text  # tp-named


@app.route("/b")
def read_percent_encoded():
    name = quote(request.args["name"])
    return send_file(os.path.join(BASE, name))  # tp-quote-path


@app.route("/c")
def read_html_escaped():
    return send_file(os.path.join(BASE, html.escape(request.args["name"])))  # tp-escape-path


@app.route("/d")
def fetch_invalidated():
    url = request.args["url"]
    cache.invalidate(url)
    return requests.get(url, timeout=5).text  # tp-invalidate


@app.route("/e")
def go_checked_ignored():
    target = request.args["next"]
    url_has_allowed_host_and_scheme(target, allowed_hosts=HOSTS)
    return redirect(target)  # tp-ignored


@app.route("/f")
def fetch_scheme_checked():
    url = request.args["url"]
    if urlparse(url).scheme not in ("http", "https"):
        abort(400)
    return requests.get(url, timeout=5).text  # tp-scheme


@app.route("/g")
def fetch_prefix_scheme():
    url = request.args["url"]
    if not url.startswith("https://"):
        abort(400)
    return requests.post(url, timeout=5).text  # tp-startswith-scheme


@app.route("/h")
def ping_logged():
    host = request.args["host"]
    if host not in HOSTS:
        app.logger.warning("unknown host %s", host)
    return subprocess.check_output("ping -c1 " + host, shell=True)  # tp-no-exit


@app.route("/i")
def ping_and():
    host = request.args["host"]
    if host not in HOSTS and app.debug:
        abort(400)
    return subprocess.check_output("ping -c2 " + host, shell=True)  # tp-and


@app.route("/j")
def ping_nested_exit():
    host = request.args["host"]
    if host not in HOSTS:
        if app.debug:
            abort(400)
    return subprocess.check_output("ping -c3 " + host, shell=True)  # tp-nested


@app.route("/k")
def query_shell_quoted():
    name = shlex.quote(request.args["name"])
    cursor.execute("SELECT * FROM users WHERE name = '" + name + "'")  # tp-shell-for-sql


@app.route("/l")
def go_else_branch():
    target = request.args["next"]
    if url_has_allowed_host_and_scheme(target, allowed_hosts=HOSTS):
        return redirect("/")
    else:
        return redirect(target)  # tp-else


@app.route("/m")
def read_unnormalised_prefix():
    path = os.path.join(BASE, request.args["name"])
    if not path.startswith(BASE):
        abort(404)
    return send_file(path)  # tp-unnormalised


@app.route("/n")
def read_secure_name():
    return send_file(os.path.join(BASE, secure_filename(request.args["name"])))  # ok-secure


@app.route("/o")
def hello_escaped():
    return "<p>Hello " + str(escape(request.args["name"])) + "</p>"  # ok-escape


@app.route("/p")
def ping_shell_quoted():
    host = shlex.quote(request.args["host"])
    return subprocess.check_output("ping -c5 " + host, shell=True)  # ok-shlex


@app.route("/q")
def fetch_host_equal():
    url = request.args["url"]
    if urlparse(url).hostname != "api.example.com":
        raise PermissionError(url)
    return requests.get(url, timeout=5).text  # ok-host-equal


@app.route("/r")
def ping_fallback():
    host = request.args["host"]
    if host not in HOSTS:
        host = "localhost"
    return subprocess.check_output("ping -c4 " + host, shell=True)  # ok-fallback


@app.route("/t")
def ping_any_pattern():
    host = request.args["host"]
    if not re.fullmatch(r".+", host):
        abort(400)
    return subprocess.check_output("ping -c6 " + host, shell=True)  # tp-any-pattern


@app.route("/u")
def read_word():
    name = request.args["name"]
    if not re.match(r"^[\\w-]+$", name):
        abort(400)
    return send_file(os.path.join(BASE, name + ".txt"))  # ok-word


@app.route("/s")
def query_number():
    cursor.execute("SELECT * FROM pages LIMIT " + str(int(request.args["size"])))  # ok-int
"""


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> list[ToolHit]:
    """Every hit of the bundled rules on the view module: one semgrep-core run."""
    root = tmp_path_factory.mktemp("semgrep-python-model")
    (root / "views.py").write_text(VIEWS_PY, encoding="utf-8")
    return SemgrepTool(tuple(Category)).run(root, ["views.py"])


def line_of(marker: str) -> int:
    """The 1-based number of the one line of the snippet that ends with ``marker``."""
    found = [n for n, line in enumerate(VIEWS_PY.splitlines(), 1) if line.endswith(marker)]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.mark.parametrize(
    ("marker", "rule"),
    [
        ("# tp-named", "py-ssrf-taint"),
        ("# tp-quote-path", "py-path-traversal-taint"),
        ("# tp-escape-path", "py-path-traversal-taint"),
        ("# tp-invalidate", "py-ssrf-taint"),
        ("# tp-ignored", "py-open-redirect-taint"),
        ("# tp-scheme", "py-ssrf-taint"),
        ("# tp-startswith-scheme", "py-ssrf-taint"),
        ("# tp-no-exit", "py-command-injection-taint"),
        ("# tp-and", "py-command-injection-taint"),
        ("# tp-nested", "py-command-injection-taint"),
        ("# tp-shell-for-sql", "py-sql-injection-taint"),
        ("# tp-else", "py-open-redirect-taint"),
        ("# tp-unnormalised", "py-path-traversal-taint"),
        ("# tp-any-pattern", "py-command-injection-taint"),
    ],
)
def test_a_look_alike_protection_is_reported(hits: list[ToolHit], marker: str, rule: str) -> None:
    """A sanitiser of another kind, a name, an ignored or uncontrolling check: still reported."""
    line = line_of(marker)
    assert (rule, line) in {(h.rule, h.line) for h in hits}


@pytest.mark.parametrize(
    "marker",
    [
        "# ok-secure",
        "# ok-escape",
        "# ok-shlex",
        "# ok-host-equal",
        "# ok-fallback",
        "# ok-int",
        "# ok-word",
    ],
)
def test_a_protection_of_the_sinks_kind_silences(hits: list[ToolHit], marker: str) -> None:
    """A library sanitiser of the sink's kind, or a check whose failing branch leaves: no taint
    rule reports the line (a pattern rule about the shape of the code may)."""
    taint_rules = {rule.id for rule in load_model("python").rules}
    line = line_of(marker)
    assert [h for h in hits if h.line <= line <= h.end_line and h.rule in taint_rules] == []
