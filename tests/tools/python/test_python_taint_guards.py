"""Tests of the taint check's guards and summaries (tools/python/taint.py, python/guards.py).

Each guard is shown twice on snippets written for the test: the flow without the guard is
reported (a true positive), and the same flow behind the guard is not. Flows through helpers
of the same file are reported on the call that hands request data to the helper.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from code_guard.findings import Silencing
from code_guard.tools.python.taint import PythonTaintTool

HEADER = """\
import os
import re
import subprocess
from urllib.parse import urlparse

import requests
from flask import Flask, abort, redirect, request, send_file

app = Flask(__name__)
BASE = "/srv/files"


"""


def hits_of(tmp_path: Path, body: str, name: str = "app.py") -> list[tuple[str, int]]:
    """(rule, line) of every taint hit on ``HEADER + body``; lines count from the body's first.
    (The checkers' hits are cached by folder and file name: each call needs its own name.)"""
    (tmp_path / name).write_text(HEADER + body, encoding="utf-8")
    offset = HEADER.count("\n")
    hits = PythonTaintTool().run(tmp_path, [name])
    return [(h.rule, h.line - offset) for h in hits if not h.silenced]


# (guarded handler, rule of the unguarded flow). The sink is on the last line of each body;
# the unguarded twin is the same body without the lines marked `# guard` (and the lines in
# the guard's branch moved out of it).
GUARDED = [
    (  # a containment check whose failing branch aborts
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    path = os.path.realpath(os.path.join(BASE, name))
    if not path.startswith(BASE + os.sep):  # guard
        abort(404)  # guard
    return send_file(path)
""",
        "taint-path_traversal",
    ),
    (  # Path.is_relative_to, the sink inside the passing branch
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    path = os.path.join(BASE, name)
    if os.path.commonpath([BASE, os.path.realpath(path)]) == BASE:  # guard
        return send_file(path)  # in the branch
""",
        "taint-path_traversal",
    ),
    (  # an allow-list of literal names, refused with an exception
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    if name not in ("report.pdf", "terms.pdf"):  # guard
        raise ValueError(name)  # guard
    return send_file(os.path.join(BASE, name))
""",
        "taint-path_traversal",
    ),
    (  # a host allow-list on the parsed URL
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    parsed = urlparse(url)
    if parsed.hostname not in {"api.example.com"}:  # guard
        return "unknown host", 400  # guard
    return requests.get(url, timeout=5).text
""",
        "taint-ssrf",
    ),
    (  # a validator of the file, by its body, after `and`; the sink in the passing branch
        """\
def is_safe_redirect_url(url):
    return urlparse(url).netloc in {"example.com", "www.example.com"}


@app.route("/login")
def view():
    target = request.args.get("next")
    if target and is_safe_redirect_url(target):  # guard
        return redirect(target)  # in the branch
""",
        "taint-open_redirect",
    ),
    (  # the check kept in a variable, the sink in the else branch of a failing test
        """\
@app.route("/login")
def view():
    target = request.args.get("next")
    same_site = urlparse(target).netloc == request.host  # guard
    if not same_site:  # guard
        target = "/"  # guard
        return redirect("/")  # guard
    return redirect(target)
""",
        "taint-open_redirect",
    ),
    (  # a format test whose failing branch aborts
        """\
@app.route("/ping")
def view():
    host = request.args["host"]
    if not re.fullmatch(r"[a-z0-9.-]+", host):  # guard
        abort(400)  # guard
    return subprocess.check_output("ping -c1 " + host, shell=True)
""",
        "taint-command_injection",
    ),
    (  # a validator of the file called for the exception it raises
        """\
def validate_outbound_url(url):
    if urlparse(url).hostname not in {"api.example.com"}:
        raise ValueError(url)


@app.route("/p")
def view():
    url = request.args["url"]
    validate_outbound_url(url)  # guard
    return requests.get(url, timeout=5).text
""",
        "taint-ssrf",
    ),
    (  # Django's validator, the failing branch swaps the value for a fixed one
        """\
from django.utils.http import url_has_allowed_host_and_scheme  # guard


@app.route("/login")
def view():
    target = request.form.get("next", "")
    if not url_has_allowed_host_and_scheme(  # guard
        target, allowed_hosts={request.host}, require_https=request.is_secure()  # guard
    ):  # guard
        target = "/"  # guard
    return redirect(target)
""",
        "taint-open_redirect",
    ),
    (  # Django's old is_safe_url after `and`, the value reset to None
        """\
from django.utils.http import is_safe_url  # guard


@app.route("/login")
def view():
    target = request.values.get("next")
    if target and not is_safe_url(target, allowed_hosts={request.host}):  # guard
        target = None  # guard
    return redirect(target or "/")
""",
        "taint-open_redirect",
    ),
    (  # the check inside a try whose handler returns
        """\
@app.route("/go")
def view():
    wanted = request.args.get("url", "")
    try:
        parsed = urlparse(wanted)
        if parsed.netloc not in {"example.com"}:  # guard
            return "unknown host", 400  # guard
    except ValueError:
        return "bad url", 400
    return redirect(wanted)
""",
        "taint-open_redirect",
    ),
    (  # the value kept only in the branch where its host was checked
        """\
@app.route("/login")
def view():
    target = "/"
    wanted = request.args.get("next", "")
    if urlparse(wanted).netloc == request.host:  # guard
        target = wanted  # in the branch
    return redirect(target)
""",
        "taint-open_redirect",
    ),
    (  # a check inside the block that read the value: skipping the block leaves it empty
        """\
@app.route("/config")
def view():
    name = ""
    if "name" in request.args:
        name = request.args["name"]
        if not re.match(r"^[a-z0-9_-]+$", name):  # guard
            abort(400)  # guard
    if name:
        return send_file(os.path.join(BASE, name))
""",
        "taint-path_traversal",
    ),
    (  # Path.resolve().is_relative_to: the sink inside the passing branch
        """\
from pathlib import Path


@app.route("/f")
def view():
    name = request.args["name"]
    path = (Path(BASE) / name).resolve()
    if path.is_relative_to(BASE):  # guard
        return send_file(path)  # in the branch
""",
        "taint-path_traversal",
    ),
    (  # digits only, for SQL
        """\
@app.route("/page")
def view():
    page = request.args["page"]
    if not page.isdigit():  # guard
        abort(400)  # guard
    cursor = None
    return cursor.execute("SELECT * FROM t LIMIT 10 OFFSET " + page)
""",
        "taint-sql_injection",
    ),
    (  # a compiled pattern of the file, matched in full
        """\
NAME = re.compile(r"[a-z0-9_-]+")


@app.route("/f")
def view():
    name = request.args["name"]
    if NAME.fullmatch(name) is None:  # guard
        abort(400)  # guard
    return send_file(os.path.join(BASE, name))
""",
        "taint-path_traversal",
    ),
    (  # isinstance of a number, in the passing branch
        """\
@app.route("/q")
def view():
    data = request.get_json()
    limit = data["limit"]
    if isinstance(limit, int):  # guard
        return subprocess.check_output("head -n %s log" % limit, shell=True)  # in the branch
""",
        "taint-command_injection",
    ),
    (  # a validator of the file returning True only in its checked branch
        """\
def allowed_host(url):
    if urlparse(url).hostname in {"api.example.com"}:
        return True
    return False


@app.route("/p")
def view():
    url = request.args["url"]
    if not allowed_host(url):  # guard
        return "no", 400  # guard
    return requests.get(url, timeout=5).text
""",
        "taint-ssrf",
    ),
    (  # the application's configuration, imported
        """\
from django.conf import settings  # guard


@app.route("/p")
def view():
    host = request.args["host"]
    if host not in settings.OUTBOUND_HOSTS:  # guard
        abort(400)  # guard
    return requests.get("https://" + host + "/status", timeout=5).text
""",
        "taint-ssrf",
    ),
    (  # a same-file helper whose body returns a containment test, whatever its name
        """\
def under_base(path):
    return os.path.realpath(path).startswith(BASE + os.sep)


@app.route("/f")
def view():
    name = request.args["name"]
    if not under_base(os.path.join(BASE, name)):  # guard
        abort(404)  # guard
    return send_file(os.path.join(BASE, name))
""",
        "taint-path_traversal",
    ),
]


@pytest.mark.parametrize(("body", "rule"), GUARDED)
def test_a_guard_silences_the_flow_it_dominates(tmp_path: Path, body: str, rule: str) -> None:
    assert hits_of(tmp_path, body) == []
    unguarded = "".join(
        line[4:] if "# in the branch" in line else line
        for line in body.splitlines(True)
        if "# guard" not in line
    )
    last = len(unguarded.rstrip("\n").splitlines())
    assert hits_of(tmp_path, unguarded, "unguarded.py") == [(rule, last)]


@pytest.mark.parametrize(
    "body",
    [
        # "/" is no base directory: ../ still climbs out
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    if name.startswith("/"):
        abort(400)
    return send_file(os.path.join(BASE, name))
""",
        # the check does not dominate the sink: its branch falls through
        """\
@app.route("/login")
def view():
    target = request.args.get("next")
    if is_safe_url(target):
        print("checked")
    return redirect(target)
""",
        # the sink sits in the branch where the check failed
        """\
@app.route("/login")
def view():
    target = request.args.get("next")
    if is_safe_url(target):
        return redirect("/")
    else:
        return redirect(target)  # in the branch
""",
        # a check of another request value
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    mirror = request.args["mirror"]
    if mirror not in {"eu", "us"}:
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # a validator of the file whose result is ignored: it returns, it does not raise
        """\
def is_safe_url(url):
    return urlparse(url).hostname in {"api.example.com"}


@app.route("/p")
def view():
    url = request.args["url"]
    is_safe_url(url)
    return requests.get(url, timeout=5).text
""",
        # a method whose name holds a validator's word
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    if not cache.invalidate(url):
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # a name no one defined: a name proves nothing
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    validate_outbound_url(url)
    return requests.get(url, timeout=5).text
""",
        # a validator of the file that says yes to everything
        """\
def is_safe_url(url):
    return True


@app.route("/p")
def view():
    url = request.args["url"]
    if not is_safe_url(url):
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # a validator of the file with a path that says yes unchecked
        """\
DEBUG = True


def is_allowed(url):
    if DEBUG:
        return True
    return url in {"https://api.example.com/"}


@app.route("/p")
def view():
    url = request.args["url"]
    if not is_allowed(url):
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # a disjunction: the request can make the second operand true
        """\
ALLOWED = {"https://api.example.com/status"}


@app.route("/p")
def view():
    url = request.args["url"]
    if url in ALLOWED or request.args.get("preview"):
        return requests.get(url, timeout=5).text
""",
        # a scheme check proves nothing about the host
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    if urlparse(url).scheme not in {"http", "https"}:
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # a host check proves nothing about a path
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    if urlparse(name).hostname not in {"example.com"}:
        abort(400)
    return send_file(name)
""",
        # ".." refused, but "/etc/passwd" joins to itself
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    if ".." in name:
        abort(400)
    return send_file(os.path.join(BASE, name))
""",
        # a prefix check of a path that was not normalised: BASE/../.. starts with BASE
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    path = os.path.join(BASE, name)
    if not path.startswith(BASE + os.sep):
        abort(404)
    return send_file(path)
""",
        # a prefix with no separator: /srv/files_private starts with /srv/files
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    path = os.path.realpath(os.path.join(BASE, name))
    if not path.startswith(BASE):
        abort(404)
    return send_file(path)
""",
        # commonprefix compares characters, not folders
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    path = os.path.realpath(os.path.join(BASE, name))
    if os.path.commonprefix([BASE, path]) != BASE:
        return "forbidden", 403
    return send_file(path)
""",
        # an assert is gone under python -O
        """\
@app.route("/ping")
def view():
    host = request.args["host"]
    assert re.fullmatch(r"[a-z0-9.-]+", host)
    return subprocess.check_output("ping -c1 " + host, shell=True)
""",
        # a pattern that admits anything
        """\
@app.route("/ping")
def view():
    host = request.args["host"]
    if not re.fullmatch(r".+", host):
        abort(400)
    return subprocess.check_output("ping -c1 " + host, shell=True)
""",
        # re.match anchors only the start
        """\
@app.route("/ping")
def view():
    host = request.args["host"]
    if not re.match(r"[a-z0-9]+", host):
        abort(400)
    return subprocess.check_output("ping -c1 " + host, shell=True)
""",
        # a pattern that admits ".."
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    if not re.fullmatch(r"[a-z0-9.]+", name):
        abort(400)
    return send_file(os.path.join(BASE, name))
""",
        # letters and digits make a host: localhost
        """\
@app.route("/p")
def view():
    host = request.args["host"]
    if not host.isalnum():
        abort(400)
    return requests.get("http://" + host + "/status", timeout=5).text
""",
        # an allow-list the request chose
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    if url not in request.args.getlist("allowed"):
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # the value assigned again after its check
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    if url not in {"https://api.example.com/"}:
        abort(400)
    url = request.args["other"]
    return requests.get(url, timeout=5).text
""",
        # the check kept in a variable, then the value assigned again
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    ok = url in {"https://api.example.com/"}
    url = request.args["other"]
    if not ok:
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # a part of the value checked, the whole used
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    if url[:23] not in {"https://api.example.com"}:
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # the file's own abort, which does not stop anything
        """\
def abort(code):
    print(code)


@app.route("/p")
def view():
    url = request.args["url"]
    if url not in {"https://api.example.com/"}:
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # Django's validator, with hosts the request chose
        """\
from django.utils.http import url_has_allowed_host_and_scheme


@app.route("/login")
def view():
    target = request.args["next"]
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.args["h"]}):
        abort(400)
    return redirect(target)
""",
        # an empty host is no proof: /\evil.com has none, and browsers go there
        """\
@app.route("/login")
def view():
    target = request.args["next"]
    if urlparse(target).netloc != "":
        abort(400)
    return redirect(target)
""",
        # a value computed from a checked name and an unchecked one
        """\
@app.route("/p")
def view():
    host = request.args["host"]
    path = request.args["path"]
    if host not in {"api.example.com"}:
        abort(400)
    url = "https://" + host + "/" + path
    return os.system("curl " + url)
""",
        # an allow-list the file lets the request add to
        """\
ALLOWED = {"https://api.example.com/"}


@app.route("/trust")
def trust():
    ALLOWED.add(request.args["url"])
    return ""


@app.route("/p")
def view():
    url = request.args["url"]
    if url not in ALLOWED:
        abort(400)
    return requests.get(url, timeout=5).text
""",
        # a list built at run time: users name the files of a folder
        """\
@app.route("/f")
def view():
    name = request.args["name"]
    if name not in os.listdir(BASE):
        abort(404)
    return subprocess.check_output("wc -l " + name, shell=True)
""",
        # a substring of a literal: "" and "a" are in "abc"
        """\
@app.route("/p")
def view():
    url = request.args["url"]
    if url not in "https://api.example.com/":
        abort(400)
    return requests.get(url, timeout=5).text
""",
    ],
)
def test_a_check_that_does_not_guard_the_flow_leaves_it_reported(tmp_path: Path, body: str) -> None:
    last = len(body.rstrip("\n").splitlines())
    assert [line for _, line in hits_of(tmp_path, body)] == [last]


def test_a_helper_that_passes_its_parameter_to_a_sink_is_a_sink(tmp_path: Path) -> None:
    body = """\
def fetch(url):
    return requests.get(url, timeout=5).text


@app.route("/proxy")
def proxy():
    return fetch(request.args["url"])


@app.route("/status")
def status():
    return fetch("https://api.example.com/status")
"""
    (tmp_path / "app.py").write_text(HEADER + body, encoding="utf-8")
    hits = PythonTaintTool().run(tmp_path, ["app.py"])
    offset = HEADER.count("\n")
    assert [(h.rule, h.line - offset) for h in hits] == [("taint-ssrf", 7)]
    assert "is passed to `fetch()` (line" in hits[0].message
    assert f"`requests.get()` (line {offset + 2})" in hits[0].message
    # in a pull request that adds both, it is reported on the sink in the helper
    both = {"app.py": {offset + 2, offset + 7}}
    moved = PythonTaintTool().run_focused(tmp_path, ["app.py"], both)
    assert [h.line - offset for h in moved] == [2]


def test_a_helper_that_checks_its_parameter_is_no_sink(tmp_path: Path) -> None:
    body = """\
def fetch(url):
    if urlparse(url).hostname != "api.example.com":
        raise ValueError(url)
    return requests.get(url, timeout=5).text


@app.route("/proxy")
def proxy():
    return fetch(request.args["url"])
"""
    assert hits_of(tmp_path, body) == []


def test_a_function_that_returns_request_data_is_a_source(tmp_path: Path) -> None:
    body = """\
def next_target():
    return request.args.get("next", "/")


def home_target():
    return "/"


@app.route("/done")
def done():
    return redirect(next_target())


@app.route("/home")
def home():
    return redirect(home_target())
"""
    assert hits_of(tmp_path, body) == [("taint-open_redirect", 11)]


def test_django_view_arguments_are_sources_in_a_views_module(tmp_path: Path) -> None:
    body = """\
def download(request, filename):
    return send_file(os.path.join(BASE, filename))


def download_id(request, file_id: int):
    return send_file(os.path.join(BASE, str(file_id)))
"""
    (tmp_path / "shop").mkdir()
    assert hits_of(tmp_path, body, "shop/views.py") == [("taint-path_traversal", 2)]
    # the same function elsewhere is a helper whose caller decides
    assert hits_of(tmp_path, body, "shop/helpers.py") == []


def test_a_flow_is_reported_on_its_changed_line_nearest_the_sink(tmp_path: Path) -> None:
    body = """\
@app.route("/f")
def view():
    name = request.args["name"]
    path = os.path.join(BASE, name)
    size = 10
    return send_file(path)
"""
    (tmp_path / "app.py").write_text(HEADER + body, encoding="utf-8")
    offset = HEADER.count("\n")
    tool = PythonTaintTool()

    def lines(changed: set[int]) -> list[int]:
        focus = {"app.py": {offset + n for n in changed}}
        return [h.line - offset for h in tool.run_focused(tmp_path, ["app.py"], focus)]

    assert lines({6}) == [6]  # the sink changed: reported there
    assert lines({3, 4}) == [4]  # a new source and step on the way: the one nearest the sink
    assert lines({3}) == [3]
    assert lines({1, 5}) == [6]  # no line of the flow changed: left on the sink
    assert [h.line - offset for h in tool.run_focused(tmp_path, ["app.py"], None)] == [6]


def test_tornado_handler_arguments_are_sources(tmp_path: Path) -> None:
    body = """\
import tornado.web


class FileHandler(tornado.web.RequestHandler):
    def get(self, path):
        with open(os.path.join(BASE, path), "rb") as handle:
            self.finish(handle.read())

    def helper(self, path):
        return open(os.path.join(BASE, path)).read()
"""
    assert hits_of(tmp_path, body) == [("taint-path_traversal", 6)]


def test_sinks_called_through_their_modules_and_djangos_request_dict(tmp_path: Path) -> None:
    body = """\
from django import shortcuts


def login(request):
    target = request.REQUEST.get("next", "")
    return shortcuts.redirect(target)


def home(request):
    return shortcuts.redirect("/")
"""
    assert hits_of(tmp_path, body) == [("taint-open_redirect", 6)]


def test_a_guarded_flow_is_returned_silenced_with_its_proof(tmp_path: Path) -> None:
    body = """\
@app.route("/p")
def view():
    url = request.args["url"]
    if urlparse(url).hostname not in {"api.example.com"}:
        abort(400)
    return requests.get(url, timeout=5).text
"""
    (tmp_path / "app.py").write_text(HEADER + body, encoding="utf-8")
    [hit] = PythonTaintTool().run(tmp_path, ["app.py"])
    assert (hit.rule, hit.silenced) == ("taint-ssrf", Silencing.GUARD.value)
    assert "vets `url` for ssrf" in hit.message
    # the check() seam, which every finding comes from, does not yield it
    tree = ast.parse(HEADER + body)
    assert list(PythonTaintTool().check(tree, "app.py")) == []


@pytest.mark.parametrize(
    "steps",
    [
        'cmd = "ls "\n    cmd += request.args["d"]\n    return os.system(cmd)',
        'for d in request.args.getlist("d"):\n        os.system("ls " + d)\n    return ""',
        'd, _ = request.args["d"], 1\n    return os.system("ls " + d)',
        'if (d := request.args.get("d")):\n        os.system("ls " + d)\n    return ""',
        'ds = [d for d in request.args.getlist("d")]\n    return os.system("ls " + ds[0])',
    ],
)
def test_request_data_is_followed_through_every_kind_of_binding(tmp_path: Path, steps: str) -> None:
    body = f'@app.route("/ls")\ndef view():\n    {steps}\n'
    assert [rule for rule, _ in hits_of(tmp_path, body)] == ["taint-command_injection"]


def test_setting_an_attribute_of_the_request_does_not_make_the_request_a_value(
    tmp_path: Path,
) -> None:
    # `request.user.team = team` binds no name: `request.host` stays the application's host
    body = """\
from django.utils.http import url_has_allowed_host_and_scheme


@app.route("/team/<slug>")
def view(slug):
    request.user.team = slug
    target = request.args.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.host}):
        target = "/"
    return redirect(target)
"""
    assert hits_of(tmp_path, body) == []
