"""Tests of the sources and sinks the Python taint rules take from reference models (CodeQL's
framework models for requests, httpx, urllib3, aiohttp, Tornado, lxml, xmltodict, asyncpg,
paramiko, pexpect, torch, numpy, joblib), run through the real ``SemgrepTool``.

One module holds every snippet (one semgrep-core run): each sink fed with request data is
hit by its rule, and a safe look-alike next to it (a fixed value, a safe option) by nothing.
"""

from __future__ import annotations

import pytest

from code_guard.knowledge.mapping import lookup
from code_guard.models import Category
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool

VIEWS_PY = """\
import urllib.request

import aiohttp
import httpx
import joblib
import numpy
import paramiko
import pexpect
import requests
import torch
import urllib3
import xmltodict
from aiohttp import web
from flask import Flask, Response, request
from lxml import etree
from tornado.web import RequestHandler

app = Flask(__name__)
SAFE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True)


@app.route("/session")
def session_fetch():
    url = request.args["url"]
    http = requests.Session()
    page = http.get(url, timeout=5)  # tp-session
    status = http.get("https://api.example.com/status", timeout=5)  # safe-session
    return page.text + status.text


@app.route("/pool")
def pool_fetch():
    pool = urllib3.PoolManager()
    return pool.request("GET", request.args["url"]).data  # tp-pool


async def aio_fetch(request):
    async with aiohttp.ClientSession() as client:
        async with client.get(request.query["url"]) as resp:  # tp-aiohttp-client
            return await resp.text()


def httpx_fetch():
    with httpx.Client() as client:
        return client.get(request.args["url"]).text  # tp-httpx


def build_request():
    return urllib.request.Request(request.args["url"])  # tp-urllib-request


@app.route("/xml")
def parse_xml():
    doc = etree.fromstring(request.data)  # tp-lxml
    safe = etree.fromstring(request.data, SAFE_PARSER)  # safe-lxml
    hard = etree.fromstring(request.data, etree.XMLParser(resolve_entities=False))  # safe-inline
    return str(doc) + str(safe) + str(hard)


@app.route("/dict")
def parse_dict():
    risky = xmltodict.parse(request.data, disable_entities=False)  # tp-xmltodict
    plain = xmltodict.parse(request.data)  # safe-xmltodict
    return str(risky) + str(plain)


@app.route("/model")
def load_model():
    upload = request.files["model"]
    weights = torch.load(upload)  # tp-torch
    tensors = torch.load(upload, weights_only=True)  # safe-torch
    grid = numpy.load(upload, allow_pickle=True)  # tp-numpy
    plain = numpy.load(upload)  # safe-numpy
    model = joblib.load(upload)  # tp-joblib
    return str((weights, tensors, grid, plain, model))


@app.route("/remote")
def remote():
    ssh = paramiko.SSHClient()
    ssh.exec_command("uptime " + request.args["flags"])  # tp-paramiko
    pexpect.run("ping -c1 " + request.args["host"])  # tp-pexpect
    return "ok"


@app.route("/page")
def page():
    body = "<p>" + request.args["text"] + "</p>"
    return Response(body)  # tp-flask-response


@app.route("/data")
def data():
    body = request.args["text"]
    return Response(body, mimetype="text/plain")  # safe-flask-response


class Hello(RequestHandler):
    def get(self):
        name = self.get_argument("name")
        self.write("<h1>" + name + "</h1>")  # tp-tornado-write
        self.write({"name": name})  # safe-tornado-json


async def login(request):
    raise web.HTTPFound(request.query["next"])  # tp-aiohttp-redirect


async def home(request):
    raise web.HTTPFound("/home")  # safe-aiohttp-redirect


async def users(request):
    conn = request.app["db_conn"]
    name = request.query["name"]
    rows = await conn.fetch("SELECT * FROM users WHERE name = '" + name + "'")  # tp-asyncpg
    same = await conn.fetch("SELECT * FROM users WHERE name = $1", name)  # safe-asyncpg
    return rows + same
"""


def line_of(marker: str) -> int:
    """The 1-based number of the one line of the snippet that contains ``marker``."""
    found = [n for n, line in enumerate(VIEWS_PY.splitlines(), start=1) if marker in line]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> list[ToolHit]:
    """Every hit of the bundled rules on the view module: one semgrep-core run."""
    root = tmp_path_factory.mktemp("semgrep-python-coverage")
    (root / "views.py").write_text(VIEWS_PY, encoding="utf-8")
    return SemgrepTool(tuple(Category)).run(root, ["views.py"])


@pytest.mark.parametrize(
    ("marker", "rule", "category"),
    [
        ("# tp-session", "py-ssrf-taint", Category.SSRF),
        ("# tp-pool", "py-ssrf-taint", Category.SSRF),
        ("# tp-aiohttp-client", "py-ssrf-taint", Category.SSRF),
        ("# tp-httpx", "py-ssrf-taint", Category.SSRF),
        ("# tp-urllib-request", "py-ssrf-taint", Category.SSRF),
        ("# tp-lxml", "py-xxe-taint", Category.XXE),
        ("# tp-xmltodict", "py-xxe-taint", Category.XXE),
        ("# tp-torch", "py-insecure-deserialization-taint", Category.INSECURE_DESERIALIZATION),
        ("# tp-numpy", "py-insecure-deserialization-taint", Category.INSECURE_DESERIALIZATION),
        ("# tp-joblib", "py-insecure-deserialization-taint", Category.INSECURE_DESERIALIZATION),
        ("# tp-paramiko", "py-command-injection-taint", Category.COMMAND_INJECTION),
        ("# tp-pexpect", "py-command-injection-taint", Category.COMMAND_INJECTION),
        ("# tp-flask-response", "py-xss-taint", Category.XSS),
        ("# tp-tornado-write", "py-xss-taint", Category.XSS),
        ("# tp-aiohttp-redirect", "py-open-redirect-taint", Category.OPEN_REDIRECT),
        ("# tp-asyncpg", "py-sql-injection-taint", Category.SQL_INJECTION),
    ],
)
def test_a_modelled_sink_fed_with_request_data_is_reported(
    hits: list[ToolHit], marker: str, rule: str, category: Category
) -> None:
    line = line_of(marker)
    found = {(h.rule, h.line) for h in hits}
    assert (rule, line) in found, f"{rule} not on line {line}; hits: {sorted(found)}"
    info = lookup("semgrep", rule)
    assert info is not None
    assert info.category is category


@pytest.mark.parametrize(
    "marker",
    [
        "# safe-session",
        "# safe-lxml",
        "# safe-inline",
        "# safe-xmltodict",
        "# safe-torch",
        "# safe-numpy",
        "# safe-flask-response",
        "# safe-tornado-json",
        "# safe-aiohttp-redirect",
        "# safe-asyncpg",
    ],
)
def test_the_safe_look_alike_is_not_reported(hits: list[ToolHit], marker: str) -> None:
    line = line_of(marker)
    assert [(h.rule, h.line) for h in hits if h.line <= line <= h.end_line] == []
