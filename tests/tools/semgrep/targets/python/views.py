# The bundled Python rules, each on a vulnerable line of one view module beside its safe
# look-alikes, which nothing reports. A helper of the project named like a sanitiser proves
# nothing by its name (issue 27).
import hashlib
import os
import random
import secrets
import subprocess
from urllib.request import urlopen

import requests
from flask import Flask, Markup, redirect, render_template_string, request, session
from ldap3.utils.conv import escape_filter_chars
from lxml import etree
from markupsafe import escape

app = Flask(__name__)


@app.route("/users")
def users():
    name = request.args.get("name")
    # ruleid: py-sql-injection-formatted-query, py-sql-injection-taint
    cursor.execute(f"SELECT * FROM users WHERE name = '{name}'")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    cursor.execute("SELECT * FROM users WHERE name = %s", (name,))
    page = int(request.args["page"])
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    with open(f"/srv/pages/{page}.html") as handle:
        return handle.read()


@app.route("/ping")
def ping():
    host = request.form["host"]
    argv = ["sh"]
    argv.append("-c")
    argv.append("ping -c1 " + host)
    # ruleid: py-command-injection-taint
    subprocess.run(argv)
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    subprocess.run(["ping", "-c1", host])
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    os.system("ping -c1 " + shlex.quote(host))
    return "ok"


@app.route("/calc")
def calc():
    expr = request.args["expr"]
    # ruleid: py-code-injection-taint
    return str(eval(expr))


@app.route("/greet")
def greet():
    # ruleid: py-code-injection-taint
    return render_template_string(request.args["template"])


@app.route("/files")
def files():
    name = request.args["name"]
    # ruleid: py-path-traversal-taint
    with open(os.path.join("/srv/files", name)) as handle:
        data = handle.read()
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    with open(os.path.join("/srv/files", os.path.basename(name))) as handle:
        data += handle.read()
    return data


@app.route("/proxy")
def proxy():
    # ruleid: py-ssrf-taint
    upstream = requests.get(request.args["url"], timeout=5)
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    fixed = requests.get("https://api.example.com/status", timeout=5)
    return upstream.text + fixed.text


@app.route("/login")
def login():
    target = request.args.get("next", "/")
    # ruleid: py-open-redirect-taint
    return redirect(target)


@app.route("/login-safely")
def login_safely():
    target = request.args.get("next", "/")
    # ruleid: py-open-redirect-taint
    return redirect(get_safe_redirect(target))


@app.route("/hello")
def hello():
    name = request.args.get("name", "")
    page = ""
    # ruleid: py-xss-taint
    page += f"<h1>Hello {name}</h1>"
    return page


@app.route("/hello-safely")
def hello_safely():
    name = request.args.get("name", "")
    page = ""
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    page += f"<h1>Hello {escape(name)}</h1>"
    return page


@app.route("/bio")
def bio():
    # ruleid: py-xss-taint
    return Markup(request.form["bio"])


@app.route("/employee")
def employee():
    root = etree.parse("employees.xml")
    emplid = request.args["id"]
    # ruleid: py-xpath-injection-taint
    found = root.xpath(f"/Employees/Employee[@id='{emplid}']")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    bound = root.xpath("/Employees/Employee[@id=$id]", id=emplid)
    return str(found + bound)


@app.route("/people")
def people():
    who = request.args["who"]
    # ruleid: py-ldap-injection-taint
    conn.search("dc=example,dc=org", f"(uid={who})")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    conn.search("dc=example,dc=org", "(uid=" + escape_filter_chars(who) + ")")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    tickets.search("open", who)
    return "ok"


@app.route("/remember")
def remember():
    # ruleid: py-trust-boundary-session-key
    session[request.args["key"]] = "yes"
    # ruleid: py-weak-crypto-random-secret
    session["token"] = random.getrandbits(64)
    # ruleid: py-weak-crypto-random-secret
    session["code"] = str(random.random())[2:]
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    session["nonce"] = secrets.token_hex(16)
    return "ok"


def fingerprint(data):
    # ruleid: py-weak-crypto-hash
    weak = hashlib.md5(data).hexdigest()
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    etag = hashlib.md5(data, usedforsecurity=False).hexdigest()
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    strong = hashlib.sha256(data).hexdigest()
    return weak + etag + strong


def jitter():
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    return random.uniform(0.5, 1.5)


def tables(engine, schema):
    sql = f'''SELECT table_name FROM information_schema.tables
    WHERE table_schema = "{schema}"'''
    # ruleid: py-sql-injection-formatted-query
    rows = engine.query(db_name="main", sql=sql)
    # ruleid: py-sql-injection-formatted-query
    engine.cursor.execute(f"SET search_path TO {schema}")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    engine.cursor.execute("SELECT name FROM tables WHERE schema = %s", (schema,))
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    engine.cursor.execute("SELECT name FROM tables WHERE kind = " + "'view'")
    order = SORT_COLUMNS.get(schema, "name")
    stmt = text(f"SELECT name FROM tables ORDER BY {order}")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    return rows + client.query(f"{engine.base_url}/tables") + engine.execute(stmt)


def download_feeds():
    # ruleid: py-insecure-transport-cleartext-url
    feed = urlopen("http://feeds.example.org/news.xml")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    local = urlopen("http://localhost:8080/news.xml")
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    secure = urlopen("https://feeds.example.org/news.xml")
    return feed, local, secure


def contains(directory, full_path):
    # ruleid: py-path-traversal-commonprefix
    if os.path.commonprefix([full_path, directory]) != directory:
        return False
    # ok: py-code-injection-taint, py-command-injection-taint, py-insecure-transport-cleartext-url, py-ldap-injection-taint, py-open-redirect-taint, py-path-traversal-commonprefix, py-path-traversal-taint, py-sql-injection-formatted-query, py-sql-injection-taint, py-ssrf-taint, py-trust-boundary-session-key, py-weak-crypto-hash, py-weak-crypto-random-secret, py-xpath-injection-taint, py-xss-taint
    return os.path.commonpath([full_path, directory]) == directory
