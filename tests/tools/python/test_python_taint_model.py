"""The Python taint check reads its sources and sanitisers from the security model of Python
(knowledge/security/python.yml), the list Semgrep's rules are generated from: a source the
model gives is one for both readers, and a sanitiser cleans for the kinds the model gives it.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from code_guard.knowledge.security.model import load_model
from code_guard.tools.python.sanitisers import CATEGORIES, SANITISERS
from code_guard.tools.python.sources import SOURCE_ATTRS
from code_guard.tools.python.taint import PythonTaintTool

MODEL = load_model("python")
_names = itertools.count()


def rules_of(root: Path, text: str) -> list[str]:
    """The rules of the live taint hits on ``text``, in a file of its own."""
    name = f"mod{next(_names)}.py"
    (root / name).write_text(text, encoding="utf-8")
    return [h.rule for h in PythonTaintTool().run(root, [name]) if not h.silenced]


def test_the_request_attributes_are_the_models() -> None:
    listed = {a for s in MODEL.sources for a in s.attributes}
    assert listed == SOURCE_ATTRS
    # those that were once only in Semgrep's rules, or only in the taint check
    assert {"get_data", "match_info", "query_string", "referrer", "params"} <= SOURCE_ATTRS


def test_the_sanitisers_are_the_models() -> None:
    calls = {c: MODEL.expand(s.neutralises) & CATEGORIES for s in MODEL.sanitisers for c in s.calls}
    assert calls == dict(SANITISERS)
    # a number is still a host: no cast clears an SSRF or a redirect target
    assert "ssrf" not in SANITISERS["int"]
    assert "open_redirect" not in SANITISERS["int"]


ZOPE = """\
import os

def view(self, REQUEST):
    name = {read}
    os.system("cat " + name)
"""


@pytest.mark.parametrize("read", ["REQUEST.get('f')", "REQUEST['f']"])
def test_a_zope_request_is_a_source(tmp_path: Path, read: str) -> None:
    assert rules_of(tmp_path, ZOPE.format(read=read)) == ["taint-command_injection"]
    # the same sink given a literal: no flow
    assert rules_of(tmp_path, ZOPE.format(read="'notes.txt'")) == []


LAMBDA = """\
import os

def {name}({params}):
    os.system("echo " + event["x"])
"""


def test_a_lambda_event_is_a_source(tmp_path: Path) -> None:
    text = LAMBDA.format(name="handler", params="event, context")
    assert rules_of(tmp_path, text) == ["taint-command_injection"]
    # another signature is not the Lambda runtime's
    assert rules_of(tmp_path, LAMBDA.format(name="handler", params="event")) == []


@pytest.mark.parametrize("attr", ["get_data()", "referrer", "query_string", "params['x']"])
def test_every_request_attribute_of_the_model_is_a_source(tmp_path: Path, attr: str) -> None:
    text = f"import os\n\ndef work(request):\n    os.system(request.{attr})\n"
    assert rules_of(tmp_path, text) == ["taint-command_injection"]


def test_json_dumps_is_no_html_escape(tmp_path: Path) -> None:
    """json.dumps keeps `<` and `>`: its text sent as HTML runs, so it cleans no XSS."""
    text = (
        "import json\nfrom flask import Flask, request, make_response\napp = Flask(__name__)\n\n"
        "@app.route('/a')\ndef a():\n    return make_response(json.dumps(request.args['x']))\n"
    )
    assert rules_of(tmp_path, text) == ["taint-xss"]


HOST_CHECK = """\
from urllib.parse import urlparse

import requests
from flask import Flask, redirect, request

app = Flask(__name__)
ALLOWED = {{"good.example"}}


@app.route("/a")
def a():
    url = request.args["next"]
    if urlparse(url).{part} not in ALLOWED:
        return "no"
    return {sink}
"""


@pytest.mark.parametrize(
    ("part", "sink", "expected"),
    [
        # the whole netloc of `https://evil.example\\@good.example` is no allowed host
        ("netloc", "redirect(url)", []),
        ("netloc", "requests.get(url, timeout=5).text", []),
        # Python's hostname of it is good.example; a browser goes to evil.example
        ("hostname", "redirect(url)", ["taint-open_redirect"]),
        # a server-side client reads the host as Python does
        ("hostname", "requests.get(url, timeout=5).text", []),
    ],
)
def test_only_the_netloc_proves_a_redirects_host(
    tmp_path: Path, part: str, sink: str, expected: list[str]
) -> None:
    text = HOST_CHECK.format(part=part, sink=sink)
    assert rules_of(tmp_path, text) == expected
    # without the check, the flow is reported
    check = f"    if urlparse(url).{part} not in ALLOWED:\n        return 'no'\n"
    unchecked = text.replace(check.replace("'", '"'), "")
    assert unchecked != text
    assert rules_of(tmp_path, unchecked) != []
