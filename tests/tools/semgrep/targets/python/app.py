# More of the bundled Python rules (deserialisation, JWT, CSRF, CORS, command and code
# injection, templates, cookies, secrets), each beside its safe look-alikes.
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
    # ruleid: py-insecure-deserialization-taint
    state = pickle.loads(request.cookies["state"])
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    settings = json.loads(request.cookies["settings"])
    return str(state) + str(settings)


def lambda_handler(event, context):
    # ruleid: py-insecure-deserialization-taint
    return pickle.loads(event["payload"])


def read_config(stream, trusted):
    # ruleid: py-insecure-deserialization-yaml
    risky = yaml.load(stream, Loader=yaml.UnsafeLoader)
    # ruleid: py-insecure-deserialization-yaml
    unsafe = yaml.unsafe_load(trusted)
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    plain = yaml.load(stream, Loader=yaml.SafeLoader)
    return risky, unsafe, plain


def claims(token, key):
    # ruleid: py-jwt-unverified-signature
    unchecked = jwt.decode(token, key, options={"verify_signature": False})
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    checked = jwt.decode(token, key, algorithms=["HS256"])
    # ruleid: py-jwt-none-algorithm
    forged = jwt.encode({"sub": "x"}, None, algorithm="none")
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    signed = jwt.encode({"sub": "x"}, key, algorithm="HS256")
    return unchecked, checked, forged, signed


# ruleid: py-csrf-protection-disabled
@csrf_exempt
def webhook(request):
    return HttpResponse("ok")


# ruleid: py-csrf-protection-disabled
@view_config(route_name="home", require_csrf=False)
def home(request):
    return {}


# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
@view_config(route_name="about", require_csrf=True)
def about(request):
    return {}


# ruleid: py-csrf-protection-disabled
app.config.update(WTF_CSRF_ENABLED=False)
# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
test_app.config.update(WTF_CSRF_ENABLED=False, TESTING=True)

# ruleid: py-insecure-cookie-authtkt
auth_weak = AuthTktCookieHelper(secret=SECRET)
# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
auth_strong = AuthTktCookieHelper(secret=SECRET, secure=True, httponly=True)

# ruleid: py-cors-wildcard-with-credentials
app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_credentials=True)
# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
app.add_middleware(CORSMiddleware, allow_origins=["https://example.com"], allow_credentials=True)
# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
app.add_middleware(CORSMiddleware, allow_origins=["*"])


def origin_allowed(self, origin):
    # ruleid: py-cors-origin-regex-prefix-match
    loose = self.allow_origin_regex.match(origin)
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    strict = self.allow_origin_regex.fullmatch(origin)
    return loose and strict


# ruleid: py-ssl-unverified-default-context
ssl._create_default_https_context = ssl._create_unverified_context
# ruleid: py-weak-crypto-hashids-secret-key
ids = Hashids(salt=settings.SECRET_KEY, min_length=8)
# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
own_ids = Hashids(salt=settings.HASHIDS_SALT, min_length=8)


def run(script):
    # ruleid: py-command-injection-shell-argv
    os.execl("/bin/sh", "/bin/sh", "-c", script)
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    os.execl("/bin/sh", "/bin/sh", "-c", "ls -l /srv")
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    os.execv("/usr/bin/rsync", ["/usr/bin/rsync", "-a", script])


def create_item(request):
    # ruleid: py-mass-assignment-request-data
    Item.objects.create(**request.POST)
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    Item.objects.create(name=request.POST["name"])


def recent(session, column, direction):
    # ruleid: py-sql-injection-query-builder-text
    raw = session.query(Item).order_by(f"{column} {direction}")
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    by_field = Item.objects.order_by(f"-{column}")
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    by_column = session.query(Item).order_by(Item.created.desc())
    return raw, by_field, by_column


def page(request):
    # ruleid: py-code-injection-globals-template-context
    return render(request, "page.html", globals())


def other_page(request):
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    return render(request, "page.html", {"user": request.user})


TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # ruleid: py-xss-django-autoescape-off
        "OPTIONS": {"autoescape": False},
    },
]


# ruleid: py-xss-safestring-subclass
class TrustedHtml(SafeString):
    pass


# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
class PlainText(str):
    pass


def bad_request(spec):
    # ruleid: py-xss-formatted-html-response
    return HttpResponseBadRequest(f"Invalid filter spec: {spec}")


def bad_request_text(spec):
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    return HttpResponseBadRequest(f"Invalid filter spec: {spec}", content_type="text/plain")


def bad_request_escaped(spec):
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    return HttpResponseBadRequest(f"Invalid filter spec: {escape(spec)}")


def active(session, name):
    # ruleid: py-orm-filter-python-operator
    wrong = session.query(User).filter(User.active == True and User.name == name)
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    right = session.query(User).filter(and_(User.active, User.name == name))
    return wrong, right


# ruleid: py-cached-generator
@functools.lru_cache(maxsize=32)
def rows(path):
    yield from open(path)


@functools.lru_cache(maxsize=32)
# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
def row_list(path):
    return list(open(path))


def debug_me(value):
    # ruleid: py-debugger-left-in
    breakpoint()
    return value


@app.route("/tool")
def tool():
    # ruleid: py-command-injection-taint
    subprocess.run(request.args["tool"] + " --version")
    # ruleid: py-command-injection-taint
    subprocess.run([request.args["tool"], "--version"])
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    subprocess.run(["git", "log", request.args["ref"]])
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    subprocess.run([TOOLS[request.args["tool"]], "--version"])
    return "ok"


@app.route("/dispatch")
def dispatch():
    # ruleid: py-code-injection-taint
    handler = globals().get(request.args["action"])
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    known = HANDLERS.get(request.args["action"])
    return handler() + known()


def calculate(expression, name):
    # ruleid: py-code-injection-eval-built-string
    built = eval(f"compute({expression})")
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    fixed = eval("compute(1)")
    return built, fixed


def session_cookie(headers, name, data):
    # ruleid: py-insecure-cookie-set-cookie-header
    plain = "%s=%s; path=/" % (name, data)
    headers.append("Set-Cookie", plain)
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    flagged = "%s=%s; path=/; httponly; secure; samesite=lax" % (name, data)
    headers.append("Set-Cookie", flagged)


# ruleid: py-hardcoded-secret-app-config
app.config["SECRET_KEY"] = "q8Zr2vLx0pT7"


def page_handler(event, context):
    # ruleid: py-xss-taint
    body = f"<h1>Hello {event['name']}</h1>"
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    note = f"Hello {event['name']}"
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    print(f"<p>{event['name']}</p>")
    return {"statusCode": 200, "body": body + note}


@app.route("/run/<snippet>/<int:count>")
def run_snippet(snippet, count):
    # ruleid: py-code-injection-taint
    _xxsubinterpreters.run_string(_xxsubinterpreters.create(), snippet)
    # ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
    _xxsubinterpreters.run_string(_xxsubinterpreters.create(), "print(1)")
    return "ok"
# ok: py-cached-generator, py-code-injection-eval-built-string, py-code-injection-globals-template-context, py-code-injection-taint, py-command-injection-shell-argv, py-command-injection-taint, py-cors-origin-regex-prefix-match, py-cors-wildcard-with-credentials, py-csrf-protection-disabled, py-debugger-left-in, py-hardcoded-secret-app-config, py-insecure-cookie-authtkt, py-insecure-cookie-set-cookie-header, py-insecure-deserialization-taint, py-insecure-deserialization-yaml, py-jwt-none-algorithm, py-jwt-unverified-signature, py-mass-assignment-request-data, py-orm-filter-python-operator, py-sql-injection-query-builder-text, py-ssl-unverified-default-context, py-weak-crypto-hashids-secret-key, py-xss-django-autoescape-off, py-xss-formatted-html-response, py-xss-safestring-subclass, py-xss-taint
app.config["SECRET_KEY"] = os.environ["SECRET_KEY"]


# os.exec* and os.spawn* run the program the request names; each condition on the function's
# name sits with its own pattern (together, each dropped the other's matches).
@app.route("/exec")
def exec_tool():
    # ruleid: py-command-injection-taint
    os.execv(request.args["tool"], ["tool"])


@app.route("/spawn")
def spawn_tool():
    # ruleid: py-command-injection-taint
    return os.spawnl(os.P_WAIT, request.args["tool"], "tool")


@app.route("/exec-fixed")
def exec_fixed():
    # ok: py-command-injection-taint
    os.execv("/usr/bin/true", [request.args["tool"]])


# Django's QuerySet.extra takes SQL text in select, where, tables and order_by.
@app.route("/extra")
def extra_where():
    # ruleid: py-sql-injection-taint
    return Entry.objects.extra(where=["headline = '%s'" % request.args["q"]])


@app.route("/extra-params")
def extra_params():
    # ok: py-sql-injection-taint
    return Entry.objects.extra(where=["headline = %s"], params=[request.args["q"]])
