"""Tests of the bundled Python semgrep rules (tools/semgrep/rules/python.yml), run through the real
``SemgrepTool`` and semgrep-core.

One view module holds every snippet, so the module costs one semgrep-core run: each
vulnerable line must be hit by its rule, and each safe look-alike by nothing. Lines are found
by a marker, never by number.
"""

from __future__ import annotations

import pytest

from code_guard.knowledge.mapping import lookup
from code_guard.models import Category
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool

VIEWS_PY = """\
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
    cursor.execute(f"SELECT * FROM users WHERE name = '{name}'")
    cursor.execute("SELECT * FROM users WHERE name = %s", (name,))
    page = int(request.args["page"])
    with open(f"/srv/pages/{page}.html") as handle:
        return handle.read()


@app.route("/ping")
def ping():
    host = request.form["host"]
    argv = ["sh"]
    argv.append("-c")
    argv.append("ping -c1 " + host)
    subprocess.run(argv)
    subprocess.run(["ping", "-c1", host])
    os.system("ping -c1 " + shlex.quote(host))
    return "ok"


@app.route("/calc")
def calc():
    expr = request.args["expr"]
    return str(eval(expr))


@app.route("/greet")
def greet():
    return render_template_string(request.args["template"])


@app.route("/files")
def files():
    name = request.args["name"]
    with open(os.path.join("/srv/files", name)) as handle:
        data = handle.read()
    with open(os.path.join("/srv/files", os.path.basename(name))) as handle:
        data += handle.read()
    return data


@app.route("/proxy")
def proxy():
    upstream = requests.get(request.args["url"], timeout=5)
    fixed = requests.get("https://api.example.com/status", timeout=5)
    return upstream.text + fixed.text


@app.route("/login")
def login():
    target = request.args.get("next", "/")
    return redirect(target)


@app.route("/login-safely")
def login_safely():
    target = request.args.get("next", "/")
    return redirect(get_safe_redirect(target))


@app.route("/hello")
def hello():
    name = request.args.get("name", "")
    page = ""
    page += f"<h1>Hello {name}</h1>"
    return page


@app.route("/hello-safely")
def hello_safely():
    name = request.args.get("name", "")
    page = ""
    page += f"<h1>Hello {escape(name)}</h1>"
    return page


@app.route("/bio")
def bio():
    return Markup(request.form["bio"])


@app.route("/employee")
def employee():
    root = etree.parse("employees.xml")
    emplid = request.args["id"]
    found = root.xpath(f"/Employees/Employee[@id='{emplid}']")
    bound = root.xpath("/Employees/Employee[@id=$id]", id=emplid)
    return str(found + bound)


@app.route("/people")
def people():
    who = request.args["who"]
    conn.search("dc=example,dc=org", f"(uid={who})")
    conn.search("dc=example,dc=org", "(uid=" + escape_filter_chars(who) + ")")
    tickets.search("open", who)
    return "ok"


@app.route("/remember")
def remember():
    session[request.args["key"]] = "yes"
    session["token"] = random.getrandbits(64)
    session["code"] = str(random.random())[2:]
    session["nonce"] = secrets.token_hex(16)
    return "ok"


def fingerprint(data):
    weak = hashlib.md5(data).hexdigest()
    etag = hashlib.md5(data, usedforsecurity=False).hexdigest()
    strong = hashlib.sha256(data).hexdigest()
    return weak + etag + strong


def jitter():
    return random.uniform(0.5, 1.5)


def tables(engine, schema):
    sql = f'''SELECT table_name FROM information_schema.tables
    WHERE table_schema = "{schema}"'''
    rows = engine.query(db_name="main", sql=sql)
    engine.cursor.execute(f"SET search_path TO {schema}")
    engine.cursor.execute("SELECT name FROM tables WHERE schema = %s", (schema,))
    engine.cursor.execute("SELECT name FROM tables WHERE kind = " + "'view'")
    order = SORT_COLUMNS.get(schema, "name")
    stmt = text(f"SELECT name FROM tables ORDER BY {order}")
    return rows + client.query(f"{engine.base_url}/tables") + engine.execute(stmt)


def download_feeds():
    feed = urlopen("http://feeds.example.org/news.xml")
    local = urlopen("http://localhost:8080/news.xml")
    secure = urlopen("https://feeds.example.org/news.xml")
    return feed, local, secure


def contains(directory, full_path):
    if os.path.commonprefix([full_path, directory]) != directory:
        return False
    return os.path.commonpath([full_path, directory]) == directory
"""


def line_of(marker: str) -> int:
    """The 1-based number of the one line of the snippet that contains ``marker``."""
    found = [n for n, line in enumerate(VIEWS_PY.splitlines(), start=1) if marker in line]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> list[ToolHit]:
    """Every hit of the bundled rules on the view module: one semgrep-core run."""
    root = tmp_path_factory.mktemp("semgrep-python")
    (root / "views.py").write_text(VIEWS_PY, encoding="utf-8")
    return SemgrepTool(tuple(Category)).run(root, ["views.py"])


@pytest.mark.parametrize(
    ("marker", "rule", "category"),
    [
        ("name = '{name}'", "py-sql-injection-taint", Category.SQL_INJECTION),
        ("subprocess.run(argv)", "py-command-injection-taint", Category.COMMAND_INJECTION),
        ("eval(expr)", "py-code-injection-taint", Category.CODE_INJECTION),
        ("render_template_string(", "py-code-injection-taint", Category.CODE_INJECTION),
        ('open(os.path.join("/srv/files", name))', "py-path-traversal-taint",
         Category.PATH_TRAVERSAL),
        ('requests.get(request.args["url"]', "py-ssrf-taint", Category.SSRF),
        ("return redirect(target)", "py-open-redirect-taint", Category.OPEN_REDIRECT),
        # a helper of the project named like a sanitiser proves nothing by its name (issue 27)
        ("get_safe_redirect(target)", "py-open-redirect-taint", Category.OPEN_REDIRECT),
        ("<h1>Hello {name}</h1>", "py-xss-taint", Category.XSS),
        ('Markup(request.form["bio"])', "py-xss-taint", Category.XSS),
        ("Employee[@id='{emplid}']", "py-xpath-injection-taint", Category.OTHER),
        ('f"(uid={who})"', "py-ldap-injection-taint", Category.OTHER),
        ('session[request.args["key"]]', "py-trust-boundary-session-key", Category.OTHER),
        ("random.getrandbits(64)", "py-weak-crypto-random-secret", Category.WEAK_CRYPTO),
        ("str(random.random())[2:]", "py-weak-crypto-random-secret", Category.WEAK_CRYPTO),
        ("weak = hashlib.md5(data)", "py-weak-crypto-hash", Category.WEAK_CRYPTO),
        ('rows = engine.query(db_name="main", sql=sql)', "py-sql-injection-formatted-query",
         Category.SQL_INJECTION),
        ("SET search_path TO {schema}", "py-sql-injection-formatted-query",
         Category.SQL_INJECTION),
        ("os.path.commonprefix(", "py-path-traversal-commonprefix", Category.PATH_TRAVERSAL),
        ('urlopen("http://feeds.example.org', "py-insecure-transport-cleartext-url",
         Category.INSECURE_CONFIG),
    ],
)  # fmt: skip
def test_rule_hits_its_snippet(
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
        '"SELECT * FROM users WHERE name = %s", (name,)',
        'open(f"/srv/pages/{page}.html")',
        'subprocess.run(["ping", "-c1", host])',
        "shlex.quote(host)",
        "os.path.basename(name)",
        '"https://api.example.com/status"',
        "{escape(name)}",
        "id=emplid)",
        "escape_filter_chars(who)",
        "secrets.token_hex(16)",
        "usedforsecurity=False",
        "hashlib.sha256(data)",
        "random.uniform(0.5, 1.5)",
        '"SELECT name FROM tables WHERE schema = %s", (schema,)',
        'client.query(f"{engine.base_url}/tables")',
        "\"'view'\"",
        'tickets.search("open", who)',
        "engine.execute(stmt)",
        "os.path.commonpath(",
        'urlopen("http://localhost:8080',
        'urlopen("https://feeds.example.org',
    ],
)
def test_safe_look_alike_is_not_flagged(hits: list[ToolHit], marker: str) -> None:
    line = line_of(marker)
    assert [h for h in hits if h.line <= line <= h.end_line] == []
