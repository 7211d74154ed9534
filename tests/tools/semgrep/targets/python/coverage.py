# The sinks the Python model covers beyond the obvious ones (requests sessions, urllib3
# pools, httpx, lxml, xmltodict, torch, numpy, joblib, paramiko, pexpect, Flask and tornado
# responses, aiohttp, asyncpg), each fed with request data, beside its safe look-alike.
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
    # ruleid: py-ssrf-taint
    page = http.get(url, timeout=5)  # tp-session
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    status = http.get("https://api.example.com/status", timeout=5)  # safe-session
    return page.text + status.text


@app.route("/pool")
def pool_fetch():
    pool = urllib3.PoolManager()
    # ruleid: py-ssrf-taint
    return pool.request("GET", request.args["url"]).data  # tp-pool


async def aio_fetch(request):
    async with aiohttp.ClientSession() as client:
        # ruleid: py-ssrf-taint
        async with client.get(request.query["url"]) as resp:  # tp-aiohttp-client
            return await resp.text()


def httpx_fetch():
    with httpx.Client() as client:
        # ruleid: py-ssrf-taint
        return client.get(request.args["url"]).text  # tp-httpx


def build_request():
    # ruleid: py-ssrf-taint
    return urllib.request.Request(request.args["url"])  # tp-urllib-request


@app.route("/xml")
def parse_xml():
    # ruleid: py-xxe-taint
    doc = etree.fromstring(request.data)  # tp-lxml
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    safe = etree.fromstring(request.data, SAFE_PARSER)  # safe-lxml
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    hard = etree.fromstring(request.data, etree.XMLParser(resolve_entities=False))  # safe-inline
    return str(doc) + str(safe) + str(hard)


@app.route("/dict")
def parse_dict():
    # ruleid: py-xxe-taint
    risky = xmltodict.parse(request.data, disable_entities=False)  # tp-xmltodict
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    plain = xmltodict.parse(request.data)  # safe-xmltodict
    return str(risky) + str(plain)


@app.route("/model")
def load_model():
    upload = request.files["model"]
    # ruleid: py-insecure-deserialization-taint
    weights = torch.load(upload)  # tp-torch
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    tensors = torch.load(upload, weights_only=True)  # safe-torch
    # ruleid: py-insecure-deserialization-taint
    grid = numpy.load(upload, allow_pickle=True)  # tp-numpy
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    plain = numpy.load(upload)  # safe-numpy
    # ruleid: py-insecure-deserialization-taint
    model = joblib.load(upload)  # tp-joblib
    return str((weights, tensors, grid, plain, model))


@app.route("/remote")
def remote():
    ssh = paramiko.SSHClient()
    # ruleid: py-command-injection-taint
    ssh.exec_command("uptime " + request.args["flags"])  # tp-paramiko
    # ruleid: py-command-injection-taint
    pexpect.run("ping -c1 " + request.args["host"])  # tp-pexpect
    return "ok"


@app.route("/page")
def page():
    body = "<p>" + request.args["text"] + "</p>"
    # ruleid: py-xss-taint
    return Response(body)  # tp-flask-response


@app.route("/data")
def data():
    body = request.args["text"]
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    return Response(body, mimetype="text/plain")  # safe-flask-response


class Hello(RequestHandler):
    def get(self):
        name = self.get_argument("name")
        # ruleid: py-xss-taint
        self.write("<h1>" + name + "</h1>")  # tp-tornado-write
        # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
        self.write({"name": name})  # safe-tornado-json


async def login(request):
    # ruleid: py-open-redirect-taint
    raise web.HTTPFound(request.query["next"])  # tp-aiohttp-redirect


async def home(request):
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    raise web.HTTPFound("/home")  # safe-aiohttp-redirect


async def users(request):
    conn = request.app["db_conn"]
    name = request.query["name"]
    # ruleid: py-sql-injection-taint
    rows = await conn.fetch("SELECT * FROM users WHERE name = '" + name + "'")  # tp-asyncpg
    # ok: py-command-injection-taint, py-insecure-deserialization-taint, py-open-redirect-taint, py-sql-injection-taint, py-ssrf-taint, py-xss-taint, py-xxe-taint
    same = await conn.fetch("SELECT * FROM users WHERE name = $1", name)  # safe-asyncpg
    return rows + same
