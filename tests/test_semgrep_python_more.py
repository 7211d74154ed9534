"""Tests of the Python semgrep rules for insecure calls and settings by their shape, request
data reaching a deserialiser, and correctness mistakes (tools/semgrep/rules/python.yml), run through
the real ``SemgrepTool`` and semgrep-core.

As in test_semgrep_python.py, one module holds every snippet (one semgrep-core run): each
flawed line must be hit by its rule, and each safe look-alike by nothing. Lines are found by a
marker, never by number.
"""

from __future__ import annotations

import pytest

from code_guard.knowledge.mapping import lookup
from code_guard.models import Category
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool

APP_PY = """\
import functools
import os
import pickle
import re
import ssl
import subprocess

import jwt
import yaml
from django.http import HttpResponse, HttpResponseBadRequest
from django.utils.html import escape
from django.utils.safestring import SafeString
from django.views.decorators.csrf import csrf_exempt
from fastapi.middleware.cors import CORSMiddleware
from flask import request
from hashids import Hashids
from pyramid.authentication import AuthTktCookieHelper
from pyramid.view import view_config


@app.route("/restore")
def restore():
    state = pickle.loads(request.cookies["state"])
    settings = json.loads(request.cookies["settings"])
    return str(state) + str(settings)


def lambda_handler(event, context):
    return pickle.loads(event["payload"])


def read_config(stream, trusted):
    risky = yaml.load(stream, Loader=yaml.UnsafeLoader)
    unsafe = yaml.unsafe_load(trusted)
    plain = yaml.load(stream, Loader=yaml.SafeLoader)
    return risky, unsafe, plain


def claims(token, key):
    unchecked = jwt.decode(token, key, options={"verify_signature": False})
    checked = jwt.decode(token, key, algorithms=["HS256"])
    forged = jwt.encode({"sub": "x"}, None, algorithm="none")
    signed = jwt.encode({"sub": "x"}, key, algorithm="HS256")
    return unchecked, checked, forged, signed


@csrf_exempt
def webhook(request):
    return HttpResponse("ok")


@view_config(route_name="home", require_csrf=False)
def home(request):
    return {}


@view_config(route_name="about", require_csrf=True)
def about(request):
    return {}


app.config.update(WTF_CSRF_ENABLED=False)
test_app.config.update(WTF_CSRF_ENABLED=False, TESTING=True)

auth_weak = AuthTktCookieHelper(secret=SECRET)
auth_strong = AuthTktCookieHelper(secret=SECRET, secure=True, httponly=True)

app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_credentials=True)
app.add_middleware(CORSMiddleware, allow_origins=["https://example.com"], allow_credentials=True)
app.add_middleware(CORSMiddleware, allow_origins=["*"])


def origin_allowed(self, origin):
    loose = self.allow_origin_regex.match(origin)
    strict = self.allow_origin_regex.fullmatch(origin)
    return loose and strict


ssl._create_default_https_context = ssl._create_unverified_context
ids = Hashids(salt=settings.SECRET_KEY, min_length=8)
own_ids = Hashids(salt=settings.HASHIDS_SALT, min_length=8)


def run(script):
    os.execl("/bin/sh", "/bin/sh", "-c", script)
    os.execl("/bin/sh", "/bin/sh", "-c", "ls -l /srv")
    os.execv("/usr/bin/rsync", ["/usr/bin/rsync", "-a", script])


def create_item(request):
    Item.objects.create(**request.POST)
    Item.objects.create(name=request.POST["name"])


def recent(session, column, direction):
    raw = session.query(Item).order_by(f"{column} {direction}")
    by_field = Item.objects.order_by(f"-{column}")
    by_column = session.query(Item).order_by(Item.created.desc())
    return raw, by_field, by_column


def page(request):
    return render(request, "page.html", globals())


def other_page(request):
    return render(request, "page.html", {"user": request.user})


TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "OPTIONS": {"autoescape": False},
    },
]


class TrustedHtml(SafeString):
    pass


class PlainText(str):
    pass


def bad_request(spec):
    return HttpResponseBadRequest(f"Invalid filter spec: {spec}")


def bad_request_text(spec):
    return HttpResponseBadRequest(f"Invalid filter spec: {spec}", content_type="text/plain")


def bad_request_escaped(spec):
    return HttpResponseBadRequest(f"Invalid filter spec: {escape(spec)}")


def active(session, name):
    wrong = session.query(User).filter(User.active == True and User.name == name)
    right = session.query(User).filter(and_(User.active, User.name == name))
    return wrong, right


@functools.lru_cache(maxsize=32)
def rows(path):
    yield from open(path)


@functools.lru_cache(maxsize=32)
def row_list(path):
    return list(open(path))


def debug_me(value):
    breakpoint()
    return value


@app.route("/tool")
def tool():
    subprocess.run(request.args["tool"] + " --version")
    subprocess.run([request.args["tool"], "--version"])
    subprocess.run(["git", "log", request.args["ref"]])
    subprocess.run([TOOLS[request.args["tool"]], "--version"])
    return "ok"


@app.route("/dispatch")
def dispatch():
    handler = globals().get(request.args["action"])
    known = HANDLERS.get(request.args["action"])
    return handler() + known()


def calculate(expression, name):
    built = eval(f"compute({expression})")
    fixed = eval("compute(1)")
    return built, fixed


def session_cookie(headers, name, data):
    plain = "%s=%s; path=/" % (name, data)
    headers.append("Set-Cookie", plain)
    flagged = "%s=%s; path=/; httponly; secure; samesite=lax" % (name, data)
    headers.append("Set-Cookie", flagged)


app.config["SECRET_KEY"] = "q8Zr2vLx0pT7"


def page_handler(event, context):
    body = f"<h1>Hello {event['name']}</h1>"
    note = f"Hello {event['name']}"
    print(f"<p>{event['name']}</p>")
    return {"statusCode": 200, "body": body + note}


@app.route("/run/<snippet>/<int:count>")
def run_snippet(snippet, count):
    _xxsubinterpreters.run_string(_xxsubinterpreters.create(), snippet)
    _xxsubinterpreters.run_string(_xxsubinterpreters.create(), "print(1)")
    return "ok"
app.config["SECRET_KEY"] = os.environ["SECRET_KEY"]
"""


def line_of(marker: str) -> int:
    """The 1-based number of the one line of the snippet that contains ``marker``."""
    found = [n for n, line in enumerate(APP_PY.splitlines(), start=1) if marker in line]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> list[ToolHit]:
    """Every hit of the bundled rules on the module: one semgrep-core run."""
    root = tmp_path_factory.mktemp("semgrep-python-more")
    (root / "app.py").write_text(APP_PY, encoding="utf-8")
    return SemgrepTool(tuple(Category)).run(root, ["app.py"])


@pytest.mark.parametrize(
    ("marker", "rule", "category"),
    [
        ('pickle.loads(request.cookies["state"])', "py-insecure-deserialization-taint",
         Category.INSECURE_DESERIALIZATION),
        ('pickle.loads(event["payload"])', "py-insecure-deserialization-taint",
         Category.INSECURE_DESERIALIZATION),
        ("Loader=yaml.UnsafeLoader", "py-insecure-deserialization-yaml",
         Category.INSECURE_DESERIALIZATION),
        ("yaml.unsafe_load(trusted)", "py-insecure-deserialization-yaml",
         Category.INSECURE_DESERIALIZATION),
        ('"verify_signature": False', "py-jwt-unverified-signature", Category.INSECURE_CONFIG),
        ('algorithm="none"', "py-jwt-none-algorithm", Category.WEAK_CRYPTO),
        ("@csrf_exempt", "py-csrf-protection-disabled", Category.INSECURE_CONFIG),
        ('route_name="home"', "py-csrf-protection-disabled", Category.INSECURE_CONFIG),
        ("app.config.update(WTF_CSRF_ENABLED=False)", "py-csrf-protection-disabled",
         Category.INSECURE_CONFIG),
        ("auth_weak =", "py-insecure-cookie-authtkt", Category.INSECURE_CONFIG),
        ('allow_origins=["*"], allow_credentials=True', "py-cors-wildcard-with-credentials",
         Category.INSECURE_CONFIG),
        ("allow_origin_regex.match(origin)", "py-cors-origin-regex-prefix-match",
         Category.INSECURE_CONFIG),
        ("ssl._create_default_https_context =", "py-ssl-unverified-default-context",
         Category.INSECURE_CONFIG),
        ("salt=settings.SECRET_KEY", "py-weak-crypto-hashids-secret-key", Category.WEAK_CRYPTO),
        ('"-c", script)', "py-command-injection-shell-argv", Category.COMMAND_INJECTION),
        ("create(**request.POST)", "py-mass-assignment-request-data", Category.OTHER),
        ('order_by(f"{column} {direction}")', "py-sql-injection-query-builder-text",
         Category.SQL_INJECTION),
        ('"page.html", globals()', "py-code-injection-globals-template-context",
         Category.CODE_INJECTION),
        ('"autoescape": False', "py-xss-django-autoescape-off", Category.XSS),
        ("class TrustedHtml(SafeString)", "py-xss-safestring-subclass", Category.XSS),
        ('Invalid filter spec: {spec}")', "py-xss-formatted-html-response", Category.XSS),
        ("User.active == True and", "py-orm-filter-python-operator", Category.OTHER),
        ("def rows(path)", "py-cached-generator", Category.OTHER),
        ("breakpoint()", "py-debugger-left-in", Category.OTHER),
        ('request.args["tool"] + " --version"', "py-command-injection-taint",
         Category.COMMAND_INJECTION),
        ('subprocess.run([request.args["tool"], "--version"])', "py-command-injection-taint",
         Category.COMMAND_INJECTION),
        ('globals().get(request.args["action"])', "py-code-injection-taint",
         Category.CODE_INJECTION),
        ('eval(f"compute({expression})")', "py-code-injection-eval-built-string",
         Category.CODE_INJECTION),
        ('plain = "%s=%s; path=/"', "py-insecure-cookie-set-cookie-header",
         Category.INSECURE_CONFIG),
        ('app.config["SECRET_KEY"] = "q8Zr2vLx0pT7"', "py-hardcoded-secret-app-config",
         Category.HARDCODED_SECRET),
        ("<h1>Hello {event['name']}</h1>", "py-xss-taint", Category.XSS),
        ("create(), snippet)", "py-code-injection-taint", Category.CODE_INJECTION),
    ],
)  # fmt: skip
def test_rule_hits_its_snippet(
    hits: list[ToolHit], marker: str, rule: str, category: Category
) -> None:
    found = [n for n, line in enumerate(APP_PY.splitlines(), start=1) if marker in line]
    lines = {(h.rule, n) for h in hits for n in range(h.line, h.end_line + 1)}
    assert any((rule, n) in lines for n in found), f"{rule} not on {found}; hits: {sorted(lines)}"
    info = lookup("semgrep", rule)
    assert info is not None
    assert info.category is category


@pytest.mark.parametrize(
    "marker",
    [
        'json.loads(request.cookies["settings"])',
        "Loader=yaml.SafeLoader",
        'algorithms=["HS256"]',
        'algorithm="HS256"',
        'route_name="about"',
        "TESTING=True",
        "auth_strong =",
        'allow_origins=["https://example.com"]',
        'allow_origins=["*"])',
        "fullmatch(origin)",
        "salt=settings.HASHIDS_SALT",
        '"ls -l /srv"',
        '"/usr/bin/rsync", "-a", script',
        'name=request.POST["name"]',
        'order_by(f"-{column}")',
        "Item.created.desc()",
        '{"user": request.user}',
        "class PlainText(str)",
        'content_type="text/plain"',
        "{escape(spec)}",
        "and_(User.active",
        "def row_list(path)",
        'subprocess.run(["git", "log", request.args["ref"]])',
        'TOOLS[request.args["tool"]]',
        'HANDLERS.get(request.args["action"])',
        'eval("compute(1)")',
        "httponly; secure; samesite=lax",
        'os.environ["SECRET_KEY"]',
        "note = f\"Hello {event['name']}\"",
        "print(f\"<p>{event['name']}</p>\")",
        '"print(1)"',
    ],
)
def test_safe_look_alike_is_not_flagged(hits: list[ToolHit], marker: str) -> None:
    line = line_of(marker)
    assert [h for h in hits if h.line <= line <= h.end_line] == []
