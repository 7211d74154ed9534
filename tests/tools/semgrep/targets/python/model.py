# The Python security model's look-alikes: a sanitiser of another kind, a name, a check that is
# ignored or does not control the sink is still reported; a library sanitiser of the sink's
# kind, or a check whose failing branch leaves, silences every taint rule on the line.
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
    # ruleid: py-ssrf-taint
    return requests.get(sanitize_url(request.args["url"]), timeout=5).text  # tp-named


@app.route("/b")
def read_percent_encoded():
    name = quote(request.args["name"])
    # ruleid: py-path-traversal-taint
    return send_file(os.path.join(BASE, name))  # tp-quote-path


@app.route("/c")
def read_html_escaped():
    # ruleid: py-path-traversal-taint
    return send_file(os.path.join(BASE, html.escape(request.args["name"])))  # tp-escape-path


@app.route("/d")
def fetch_invalidated():
    url = request.args["url"]
    cache.invalidate(url)
    # ruleid: py-ssrf-taint
    return requests.get(url, timeout=5).text  # tp-invalidate


@app.route("/e")
def go_checked_ignored():
    target = request.args["next"]
    url_has_allowed_host_and_scheme(target, allowed_hosts=HOSTS)
    # ruleid: py-open-redirect-taint
    return redirect(target)  # tp-ignored


@app.route("/f")
def fetch_scheme_checked():
    url = request.args["url"]
    if urlparse(url).scheme not in ("http", "https"):
        abort(400)
    # ruleid: py-ssrf-taint
    return requests.get(url, timeout=5).text  # tp-scheme


@app.route("/g")
def fetch_prefix_scheme():
    url = request.args["url"]
    if not url.startswith("https://"):
        abort(400)
    # ruleid: py-ssrf-taint
    return requests.post(url, timeout=5).text  # tp-startswith-scheme


@app.route("/h")
def ping_logged():
    host = request.args["host"]
    if host not in HOSTS:
        app.logger.warning("unknown host %s", host)
    # ruleid: py-command-injection-taint
    return subprocess.check_output("ping -c1 " + host, shell=True)  # tp-no-exit


@app.route("/i")
def ping_and():
    host = request.args["host"]
    if host not in HOSTS and app.debug:
        abort(400)
    # ruleid: py-command-injection-taint
    return subprocess.check_output("ping -c2 " + host, shell=True)  # tp-and


@app.route("/j")
def ping_nested_exit():
    host = request.args["host"]
    if host not in HOSTS:
        if app.debug:
            abort(400)
    # ruleid: py-command-injection-taint
    return subprocess.check_output("ping -c3 " + host, shell=True)  # tp-nested


@app.route("/k")
def query_shell_quoted():
    name = shlex.quote(request.args["name"])
    # ruleid: py-sql-injection-formatted-query, py-sql-injection-taint
    cursor.execute("SELECT * FROM users WHERE name = '" + name + "'")  # tp-shell-for-sql


@app.route("/l")
def go_else_branch():
    target = request.args["next"]
    if url_has_allowed_host_and_scheme(target, allowed_hosts=HOSTS):
        return redirect("/")
    else:
        # ruleid: py-open-redirect-taint
        return redirect(target)  # tp-else


@app.route("/m")
def read_unnormalised_prefix():
    path = os.path.join(BASE, request.args["name"])
    if not path.startswith(BASE):
        abort(404)
    # ruleid: py-path-traversal-taint
    return send_file(path)  # tp-unnormalised


@app.route("/n")
def read_secure_name():
    # ok: py-command-injection-taint, py-open-redirect-taint, py-path-traversal-taint, py-sql-injection-taint, py-ssrf-taint
    return send_file(os.path.join(BASE, secure_filename(request.args["name"])))  # ok-secure


@app.route("/o")
def hello_escaped():
    # ok: py-command-injection-taint, py-open-redirect-taint, py-path-traversal-taint, py-sql-injection-taint, py-ssrf-taint
    return "<p>Hello " + str(escape(request.args["name"])) + "</p>"  # ok-escape


@app.route("/p")
def ping_shell_quoted():
    host = shlex.quote(request.args["host"])
    # ok: py-command-injection-taint, py-open-redirect-taint, py-path-traversal-taint, py-sql-injection-taint, py-ssrf-taint
    return subprocess.check_output("ping -c5 " + host, shell=True)  # ok-shlex


@app.route("/q")
def fetch_host_equal():
    url = request.args["url"]
    if urlparse(url).hostname != "api.example.com":
        raise PermissionError(url)
    # ok: py-command-injection-taint, py-open-redirect-taint, py-path-traversal-taint, py-sql-injection-taint, py-ssrf-taint
    return requests.get(url, timeout=5).text  # ok-host-equal


@app.route("/r")
def ping_fallback():
    host = request.args["host"]
    if host not in HOSTS:
        host = "localhost"
    # ok: py-command-injection-taint, py-open-redirect-taint, py-path-traversal-taint, py-sql-injection-taint, py-ssrf-taint
    return subprocess.check_output("ping -c4 " + host, shell=True)  # ok-fallback


@app.route("/t")
def ping_any_pattern():
    host = request.args["host"]
    if not re.fullmatch(r".+", host):
        abort(400)
    # ruleid: py-command-injection-taint
    return subprocess.check_output("ping -c6 " + host, shell=True)  # tp-any-pattern


@app.route("/u")
def read_word():
    name = request.args["name"]
    if not re.match(r"^[\w-]+$", name):
        abort(400)
    # ok: py-command-injection-taint, py-open-redirect-taint, py-path-traversal-taint, py-sql-injection-taint, py-ssrf-taint
    return send_file(os.path.join(BASE, name + ".txt"))  # ok-word


@app.route("/s")
def query_number():
    # ruleid: py-sql-injection-formatted-query
    # ok: py-command-injection-taint, py-open-redirect-taint, py-path-traversal-taint, py-sql-injection-taint, py-ssrf-taint
    cursor.execute("SELECT * FROM pages LIMIT " + str(int(request.args["size"])))  # ok-int


# The URL passed by name is the sink's value, as CodeQL's models of these clients read it;
# another keyword (the query's parameters) is not.
@app.route("/kw1")
def fetch_by_keyword():
    # ruleid: py-ssrf-taint
    return requests.get(url=request.args["url"], timeout=5).text  # tp-url-keyword


@app.route("/kw2")
def fetch_keyword_last():
    target = request.args["url"]
    # ruleid: py-ssrf-taint
    return requests.request("GET", timeout=5, url=target).text  # tp-url-keyword-last


@app.route("/kw3")
def fetch_fixed_url():
    query = {"q": request.args["q"]}
    # ok: py-ssrf-taint
    return requests.get(url="https://api.example.com/", params=query, timeout=5).text  # ok-params


@app.route("/kw4")
def go_by_keyword():
    # ruleid: py-open-redirect-taint
    return redirect(location=request.args["next"])  # tp-location-keyword


@app.route("/kw5")
def go_by_keyword_checked():
    target = request.args["next"]
    if not url_has_allowed_host_and_scheme(target, allowed_hosts=HOSTS):
        abort(400)
    # ok: py-open-redirect-taint
    return redirect(location=target)  # ok-location-checked


@app.route("/kw6")
def ping_by_keyword():
    # ruleid: py-command-injection-taint
    return subprocess.check_output(shell=True, args="ping -c1 " + request.args["host"])  # tp-args


@app.route("/kw7")
def read_by_keyword():
    # ruleid: py-path-traversal-taint
    return open(file=os.path.join(BASE, request.args["name"])).read()  # tp-file


@app.route("/kw8")
def ping_by_keyword_no_shell():
    # ok: py-command-injection-taint
    return subprocess.check_output(args=["ping", "-c1", request.args["host"]])  # ok-no-shell
