"""Semgrep's Python taint findings held back on the Python taint check's proof
(agents/corroboration.py), run through both real analysers.

A true negative (a redirect through a helper whose body checks the host, and one guarded by
it), a true positive, and look-alikes an author could write: a helper that proves nothing,
a scheme check, and flows the Python check does not follow (an item of a list filled by
``append``, a field, a ``with`` target, a module variable, a second sink on the same line).
Semgrep's finding must stand in each.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from code_guard.agents.corroboration import corroborated
from code_guard.findings import Category
from code_guard.tools.python.taint import PythonTaintTool
from code_guard.tools.semgrep.tool import SemgrepTool

HEADER = """\
import contextlib
from urllib.parse import urljoin, urlparse

from aiohttp import web
from flask import Flask, redirect, request

app = Flask(__name__)
SAVED = ""


def is_safe_redirect_url(url):
    host_url = urlparse(request.host_url)
    redirect_url = urlparse(url)
    return redirect_url.scheme in ("http", "https") and host_url.netloc == redirect_url.netloc


def joined_host(url):
    host_url = urlparse(request.host_url)
    redirect_url = urlparse(urljoin(request.host_url, url))
    return redirect_url.scheme in ("http", "https") and host_url.netloc == redirect_url.netloc


def get_safe_redirect(url):
    if url and is_safe_redirect_url(url):
        return url
    return "/"


def scheme_only(url):
    return urlparse(url).scheme in ("http", "https")


def passthrough(url):
    return url


"""
_names = itertools.count()


def semgrep_hits(root: Path, body: str) -> list[tuple[int, str]]:
    """Semgrep's open-redirect hits on ``HEADER + body`` after corroboration: (line, the
    mechanism that silenced it, "" for a live one)."""
    name = f"views{next(_names)}.py"
    (root / name).write_text(HEADER + body, encoding="utf-8")
    semgrep = SemgrepTool((Category.OPEN_REDIRECT,)).run(root, [name])
    taint = PythonTaintTool().run(root, [name])
    checked = corroborated([semgrep, taint])
    offset = HEADER.count("\n")
    return [(h.line - offset, h.silenced) for h in checked[0] if h.rule.endswith("-taint")]


def test_a_helper_whose_body_checks_the_host_is_proof(tmp_path: Path) -> None:
    body = (
        '@app.route("/a")\ndef a():\n    n = request.args.get("next", "")\n'
        "    return redirect(get_safe_redirect(n))\n"
    )
    assert semgrep_hits(tmp_path, body) == [(4, "sanitiser")]


def test_a_guard_whose_body_checks_the_host_is_proof(tmp_path: Path) -> None:
    body = (
        '@app.route("/a")\ndef a():\n    n = request.args.get("next")\n'
        "    if n and is_safe_redirect_url(n):\n        return redirect(n)\n"
        '    return redirect("/")\n'
    )
    assert semgrep_hits(tmp_path, body) == [(5, "guard")]


def test_a_raw_redirect_stands(tmp_path: Path) -> None:
    body = '@app.route("/a")\ndef a():\n    return redirect(request.args.get("next"))\n'
    assert semgrep_hits(tmp_path, body) == [(3, "")]


@pytest.mark.parametrize(
    "body",
    [
        # a helper of the change that says it is safe and proves nothing
        '    n = request.args.get("next")\n    return redirect(passthrough(n))\n',
        # the Flask snippet: `/\\evil.example` joined to the own URL keeps its host
        '    n = request.args.get("next")\n    if joined_host(n):\n        return redirect(n)\n'
        '    return redirect("/")\n',
        # Python's hostname of `https://evil.example\\@good.example` is good.example
        '    n = request.args.get("next")\n    if urlparse(n).hostname not in {"good.example"}:\n'
        '        return redirect("/")\n    return redirect(n)\n',
        # a scheme check keeps any host
        '    n = request.args.get("next")\n    if scheme_only(n):\n        return redirect(n)\n'
        '    return redirect("/")\n',
        # a list the Python check does not follow into (Semgrep's propagator)
        '    parts = [get_safe_redirect(request.args.get("a"))]\n'
        '    parts.append(request.args.get("b"))\n'
        "    return redirect(get_safe_redirect(parts[0]) + parts[1])\n",
        # a field of an object
        '    box = app.config\n    box.target = request.args.get("b")\n'
        '    return redirect(get_safe_redirect(request.args.get("a")) + box.target)\n',
        # a field set on a name the value then reads whole
        '    box = app.config\n    box.target = request.args.get("b")\n'
        '    return redirect(get_safe_redirect(request.args.get("a")) + str(box))\n',
        # a `with` target the Python check does not bind
        '    with contextlib.nullcontext(request.args.get("b")) as raw:\n'
        '        return redirect(get_safe_redirect(request.args.get("a")) + raw)\n',
    ],
)
def test_a_look_alike_stands(tmp_path: Path, body: str) -> None:
    found = semgrep_hits(tmp_path, '@app.route("/a")\ndef a():\n' + body)
    assert found, "Semgrep should see the flow"
    assert all(silenced == "" for _, silenced in found), found


def test_a_module_variable_set_elsewhere_stands(tmp_path: Path) -> None:
    body = (
        '@app.route("/keep")\ndef keep():\n    global SAVED\n    SAVED = request.args["b"]\n'
        '    return "ok"\n\n\n@app.route("/a")\ndef a():\n    global SAVED\n'
        '    return redirect(get_safe_redirect(request.args.get("a")) + SAVED)\n'
    )
    found = semgrep_hits(tmp_path, body)
    assert all(silenced == "" for _, silenced in found), found


def test_a_second_sink_on_the_line_stands(tmp_path: Path) -> None:
    """A sink only Semgrep knows, on the line of a sink the Python check proved stopped:
    its value has another span, so the proof is not its."""
    body = (
        '@app.route("/a")\ndef a():\n    n = request.args.get("next", "")\n'
        '    return redirect(get_safe_redirect(n)) if n else web.HTTPFound(request.args["b"])\n'
    )
    found = semgrep_hits(tmp_path, body)
    assert any(silenced == "" for _, silenced in found), found
