# Guards of the Python taint rules (generated from knowledge/security/python.yml): each flow
# reaches its sink unchecked once, where its rule reports it, and once vetted by its guard,
# where nothing does. Helpers whose names only say they check are no proof (issue 27), nor
# is a check for ".." when an absolute name makes os.path.join drop the base.
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
    # ruleid: py-path-traversal-taint
    return send_file(path)  # tp-path


@app.route("/b")
def path_contained():
    name = request.args["name"]
    path = os.path.realpath(os.path.join(BASE, name))
    if not path.startswith(BASE + os.sep):
        abort(404)
    # ok: py-path-traversal-taint
    return send_file(path)  # safe-startswith


@app.route("/c")
def path_relative():
    name = request.args["name"]
    path = (Path(BASE) / name).resolve()
    if path.is_relative_to(BASE):
        # ok: py-path-traversal-taint
        return send_file(path)  # safe-relative
    abort(404)


@app.route("/c2")
def path_as_text():
    base = Path(BASE)
    path = (base / request.args["name"]).resolve()
    if not str(path).startswith(str(base)):
        abort(404)
    # ok: py-path-traversal-taint
    return send_file(path)  # safe-str-startswith


@app.route("/d")
def path_dotdot():
    name = request.args["name"]
    if ".." in name:
        abort(400)
    # ruleid: py-path-traversal-taint
    return send_file(os.path.join(BASE, name))  # safe-dotdot


@app.route("/e")
def path_slash_only():
    name = request.args["name"]
    if name.startswith("/"):
        abort(400)
    # ruleid: py-path-traversal-taint
    return send_file(os.path.join(BASE, name))  # tp-slash-only


@app.route("/f")
def path_helper():
    name = request.args["name"]
    if not is_within_directory(BASE, os.path.join(BASE, name)):
        abort(400)
    # ruleid: py-path-traversal-taint
    return send_file(os.path.join(BASE, name))  # safe-helper


@app.route("/g")
def fetch_open():
    url = request.args["url"]
    # ruleid: py-ssrf-taint
    return requests.get(url, timeout=5).text  # tp-ssrf


@app.route("/h")
def fetch_host_checked():
    url = request.args["url"]
    if urlparse(url).hostname not in HOSTS:
        abort(400)
    # ok: py-ssrf-taint
    return requests.get(url, timeout=5).text  # safe-hostname


@app.route("/i")
def fetch_parsed_checked():
    url = request.args["url"]
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or parsed.netloc not in HOSTS:
        abort(400)
    # ok: py-ssrf-taint
    return requests.get(url, timeout=5).text  # safe-parsed


@app.route("/j")
def fetch_validated():
    url = request.args["url"]
    validate_url(url)
    # ruleid: py-ssrf-taint
    return requests.get(url, timeout=5).text  # safe-validator-statement


@app.route("/k")
def go_open():
    target = request.args.get("next", "/")
    # ruleid: py-open-redirect-taint
    return redirect(target)  # tp-redirect


@app.route("/l")
def go_checked():
    target = request.args.get("next", "/")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts=HOSTS):
        # ok: py-open-redirect-taint
        return redirect(target)  # safe-django-helper
    return redirect("/")


@app.route("/m")
def go_allow_listed():
    target = request.args.get("next", "/")
    if target not in ALLOWED_TARGETS:
        target = "/"
        return redirect(target)
    # ok: py-open-redirect-taint
    return redirect(target)  # safe-allow-list


@app.route("/n")
def ping_open():
    host = request.args["host"]
    # ruleid: py-command-injection-taint
    return subprocess.check_output("ping -c1 " + host, shell=True)  # tp-command


@app.route("/o")
def ping_format_checked():
    host = request.args["host"]
    if not re.fullmatch(r"[a-z0-9.-]+", host):
        abort(400)
    # ok: py-command-injection-taint
    return subprocess.check_output("ping -c1 " + host, shell=True)  # safe-fullmatch


@app.route("/p")
def page_number():
    page = request.args["page"]
    if not page.isdigit():
        abort(400)
    # ok: py-path-traversal-taint
    return send_file(os.path.join(BASE, page + ".html"))  # safe-isdigit


@app.route("/q")
def page_size():
    size = request.args["size"]
    if size:
        # ruleid: py-sql-injection-formatted-query, py-sql-injection-taint
        cursor.execute("SELECT * FROM pages LIMIT " + size)  # tp-sql
