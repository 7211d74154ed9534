"""The Python taint check reads its sinks from the security model of Python
(knowledge/security/python.yml), the entries Semgrep's sink patterns are generated from: a call
the model lists is a sink for both readers, with the value at the position the model gives it
(``requests.request(method, url)``: the URL), and the literal keywords it names (``shell=True``).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml

from code_guard.knowledge.security.model import Sink, load_model
from code_guard.tools.python import taint
from code_guard.tools.python.sanitisers import CATEGORIES
from code_guard.tools.python.taint import PythonTaintTool

MODEL = load_model("python")
_names = itertools.count()


def rules_of(root: Path, text: str) -> list[str]:
    """The rules of the live taint hits on ``text``, in a file of its own."""
    name = f"mod{next(_names)}.py"
    (root / name).write_text(text, encoding="utf-8")
    return [h.rule for h in PythonTaintTool().run(root, [name]) if not h.silenced]


def test_the_sinks_are_the_models() -> None:
    listed = {
        (kind, call)
        for kind, sinks in MODEL.sinks.items()
        for sink in sinks
        for call in sink.call_shapes()
        if kind in CATEGORIES
    }
    assert set(taint._SINK_CALLS) == listed
    assert len(taint._SINK_CALLS) == len(listed)
    # every kind the check follows has sinks it reads
    assert {kind for kind, _ in listed} == CATEGORIES
    # sinks once only in Semgrep's rules, now read by both
    assert {"$X.exec_driver_sql", "subprocess.getoutput", "requests.put", "$X.redirect"} <= set(
        taint._SINKS
    )


def test_each_sink_call_is_rendered_for_semgrep() -> None:
    for sinks in MODEL.sinks.values():
        for sink in sinks:
            if not sink.calls:
                continue
            rendered = yaml.safe_dump(sink.pattern())
            expected = {
                "patterns": [
                    {"pattern-either": [{"pattern": c} for c in sink.calls] + list(sink.also)},
                    {"focus-metavariable": sink.focus},
                ]
            }
            assert rendered == yaml.safe_dump(expected)


@pytest.mark.parametrize(
    "call",
    [
        "os.system({v} + 'x')",  # a value not at the focus
        "$C.execute",  # not a call
        "subprocess.run(..., $CMD)",  # no fixed position
        "os.system($OTHER)",  # the focus is missing
        "os.system(f($CMD))",  # a shape the Python check cannot read
        "os.system($A, cmd=$CMD)",  # the value by name after a fixed argument
    ],
)
def test_a_call_neither_reader_reads_the_same_is_refused(call: str) -> None:
    with pytest.raises(ValueError, match="sink"):
        Sink(name="s", focus="$CMD", calls=(call,))


VIEW = """\
import os, subprocess, requests, flask
from flask import request, redirect
{imports}

app = flask.Flask(__name__)
{module}

@app.route("/x")
def view():
    value = request.args.get("v")
    {line}
"""


def view(line: str, imports: str = "", module: str = "") -> str:
    """A module whose route handler runs ``line`` with request data in ``value``, after
    ``imports`` and the module-level code ``module``."""
    return VIEW.format(imports=imports, module=module, line=line)


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        # once only Semgrep's sinks
        ("requests.put(value)", "taint-ssrf"),
        ("subprocess.getoutput(value)", "taint-command_injection"),
        ("requests.request('GET', value)", "taint-ssrf"),
        ("self_db.exec_driver_sql(value)", "taint-sql_injection"),
        ("os.makedirs(value)", "taint-path_traversal"),
        ("flask.Response(value)", "taint-xss"),
        # as before
        ("subprocess.run(value, shell=True)", "taint-command_injection"),
        ("User.objects.raw(value)", "taint-sql_injection"),
        ("conn.cursor().execute(value)", "taint-sql_injection"),
        ("flask.redirect(value)", "taint-open_redirect"),
        # the value passed by name (CodeQL's models read the keyword as well as the position)
        ("requests.get(url=value)", "taint-ssrf"),
        ("requests.request('GET', url=value, timeout=3)", "taint-ssrf"),
        ("requests.post(timeout=3, json={}, url=value)", "taint-ssrf"),
        ("flask.redirect(location=value)", "taint-open_redirect"),
        ("os.system(command=value)", "taint-command_injection"),
        ("subprocess.run(shell=True, args=value)", "taint-command_injection"),
        ("open(file=value)", "taint-path_traversal"),
        ("conn.cursor().execute(query=value)", "taint-sql_injection"),
    ],
)
def test_a_model_sink_is_reported(tmp_path: Path, line: str, rule: str) -> None:
    assert rules_of(tmp_path, view(line)) == [rule]
    # the same call given a literal: no flow
    assert rules_of(tmp_path, view(line.replace("value", "'v'"))) == []


@pytest.mark.parametrize(
    "line",
    [
        # the request's value where the call does not take the sink's value
        "requests.request(value, 'https://api.example/')",
        "subprocess.run(value, shell=False)",
        "subprocess.run(value)",
        "flask.Response(value, mimetype='application/json')",
        # another keyword than the one that passes the value
        "requests.get(url='https://api.example/', params=value)",
        "requests.get(params=value, url='https://api.example/')",
        "flask.redirect(location='/home', code=value)",
        "subprocess.run(args=value)",
        "subprocess.run(args=value, shell=False)",
        "open(file='/srv/app.log', mode=value)",
    ],
)
def test_a_value_off_the_sinks_position_is_no_flow(tmp_path: Path, line: str) -> None:
    assert rules_of(tmp_path, view(line)) == []


@pytest.mark.parametrize(
    "line",
    [
        # look-alikes of the calls above that still take the value where it does harm
        "requests.request('GET', value, timeout=3)",
        "subprocess.run(value, check=True, shell=True)",
        "subprocess.Popen(value, shell=True, cwd='/')",
        "flask.Response(value, 200)",
        "os.popen(value, 'r')",
        # the keyword among others, or beside unpacked options
        "requests.get(url=value, **options)",
        "requests.get(*[], url=value)",
        "requests.head(url=value, allow_redirects=True)",
    ],
)
def test_look_alikes_of_a_sinks_shape_are_reported(tmp_path: Path, line: str) -> None:
    assert rules_of(tmp_path, view(line)) != []


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        # a mapping unpacked into the call passes the keys it spells as keywords
        ("requests.get(**{'url': value})", "taint-ssrf"),
        ("requests.get(**{'url': value}, timeout=3)", "taint-ssrf"),
        ("requests.get(**dict(url=value))", "taint-ssrf"),
        ("flask.redirect(**{'location': value})", "taint-open_redirect"),
        ("subprocess.run(value, **{'shell': True})", "taint-command_injection"),
        # a name the function binds once to such a mapping
        ("options = {'url': value}; requests.get(**options)", "taint-ssrf"),
        ("options = dict(url=value, timeout=3); requests.get(**options)", "taint-ssrf"),
    ],
)
def test_a_keyword_passed_in_an_unpacked_mapping_is_read(
    tmp_path: Path, line: str, rule: str
) -> None:
    assert rules_of(tmp_path, view(line)) == [rule]
    assert rules_of(tmp_path, view(line.replace("value", "'v'"))) == []


@pytest.mark.parametrize(
    "line",
    [
        # the request's value under another key than the sink's, or no sink at all
        "requests.get(**{'url': 'https://api.example/', 'params': value})",
        "requests.get(**{'params': value}, url='https://api.example/')",
        "subprocess.run(value, **{'shell': False})",
        "options = {'params': value}; requests.get('https://api.example/', **options)",
        "print(**{'sep': value})",
    ],
)
def test_another_key_of_an_unpacked_mapping_is_no_flow(tmp_path: Path, line: str) -> None:
    assert rules_of(tmp_path, view(line)) == []


@pytest.mark.parametrize(
    ("line", "module"),
    [
        # the key among others, inside another mapping, or the later of two
        ("requests.get(**{**options, 'url': value})", ""),
        ("requests.get(**{'url': 'https://api.example/', **{'url': value}})", ""),
        ("requests.get(**{'timeout': 3}, **{'url': value})", ""),
        ("base = {'url': value}; options = {**base}; requests.get(**options)", ""),
        ("requests.get(**dict({'url': value}))", ""),
        ("requests.get(**(options := {'url': value}))", ""),
        # no keyword at all, where the sink takes the value alone
        ("os.system(value, **{})", ""),
        # a function of the file, given its parameter in a mapping
        ("fetch(**{'u': value})", "def fetch(u):\n    return requests.get(u)"),
        # a guard at the call checks a name rebound since the mapping was made
        (
            "options = {'url': value}\n    value = 'https://api.example/'\n"
            "    if value not in ALLOWED:\n        return ''\n    requests.get(**options)",
            "ALLOWED = ('https://api.example/',)",
        ),
    ],
)
def test_look_alikes_of_an_unpacked_keyword_are_reported(
    tmp_path: Path, line: str, module: str
) -> None:
    assert rules_of(tmp_path, view(line, module=module)) != []


def test_the_python_only_tables_are_the_models() -> None:
    from code_guard.tools.python import sanitisers

    guards = {g.call(): g for g in MODEL.guards if g.slots}
    assert set(sanitisers.VALIDATORS) == set(guards)
    for call, (slots, trusted, kinds) in sanitisers.VALIDATORS.items():
        assert (slots, trusted) == (guards[call].slots, guards[call].trusted)
        assert kinds == MODEL.expand(guards[call].proves) & CATEGORIES
    assert set(sanitisers.SAME_ORIGIN) == {g.call() for g in MODEL.guards if g.same_origin}
    assert {c for s in MODEL.sanitisers for c in s.alone} == sanitisers._ONE_ARGUMENT
    assert dict(sanitisers._DISARMING) == {
        c: frozenset(k) for s in MODEL.sanitisers for c, k in s.disarming.items()
    }
    assert set(MODEL.decoders) == sanitisers.DECODERS
    # a same-origin check is no guard of Semgrep's: it cannot tell which URL is the app's
    assert not any(g.same_origin for kind in MODEL.kinds for g in MODEL.guards_for(kind))


@pytest.mark.parametrize(
    ("field", "value"),
    [("alone", ("html.escape",)), ("disarming", {"bleach.clean": ("protocols",)})],
)
def test_a_sanitisers_option_must_name_one_of_its_calls(field: str, value: object) -> None:
    from code_guard.knowledge.security.model import Sanitiser

    with pytest.raises(ValueError, match="not in its calls"):
        Sanitiser.model_validate(
            {"name": "s", "neutralises": ["xss"], "calls": ["shlex.quote"], field: value}
        )


@pytest.mark.parametrize(
    ("imports", "module", "line", "rule"),
    [
        # an import's alias
        ("from requests import get as fetch", "", "fetch(value)", "taint-ssrf"),
        ("import subprocess as sp", "", "sp.getoutput(value)", "taint-command_injection"),
        ("from os import system", "", "system(value)", "taint-command_injection"),
        # a name the function is assigned to, in the function or the module
        ("", "", "getter = requests.get; getter(value)", "taint-ssrf"),
        ("", "run = os.system", "run(value)", "taint-command_injection"),
        ("", "shell = subprocess", "shell.getoutput(value)", "taint-command_injection"),
        # getattr of a literal name
        ("", "", 'getattr(os, "system")(value)', "taint-command_injection"),
        ("", 'run = getattr(os, "system")', "run(value)", "taint-command_injection"),
        # an alias of an alias
        ("", "run = os.system\nexecute = run", "execute(value)", "taint-command_injection"),
        # a name bound twice: either binding may be the one called
        ("", "run = print\nrun = os.system", "run(value)", "taint-command_injection"),
        ("", "run = os.system\nrun = print", "run(value)", "taint-command_injection"),
        # the keyword shapes through an alias
        ("from requests import get as fetch", "", "fetch(url=value)", "taint-ssrf"),
    ],
)
def test_a_sink_called_through_another_name_is_reported(
    tmp_path: Path, imports: str, module: str, line: str, rule: str
) -> None:
    text = view(line, imports, module)
    assert rules_of(tmp_path, text) == [rule]
    # and the same call given a literal: no flow
    literal = view(line.replace("value", "'v'"), imports, module)
    assert rules_of(tmp_path, literal) == []


@pytest.mark.parametrize(
    ("imports", "module", "line"),
    [
        # a name assigned something that is no sink
        ("", "run = print", "run(value)"),
        ("", "", 'getattr(os, "getcwd")(value)'),
        # getattr of a name that is not literal: unknown, not guessed
        ("", "NAME = 'sys' + 'tem'", "getattr(os, NAME)(value)"),
        # the file's own getattr
        ("", "def getattr(o, n):\n    return print", 'getattr(os, "system")(value)'),
        # the value at another argument than the sink's
        ("from requests import get as fetch", "", "fetch('https://api.example/', params=value)"),
    ],
)
def test_another_name_for_no_sink_is_no_flow(
    tmp_path: Path, imports: str, module: str, line: str
) -> None:
    assert rules_of(tmp_path, view(line, imports, module)) == []


CLASSES = """\
class Client:
    def fetch(self, url):
        return requests.get(url, timeout=5)

    def name(self, url):
        return url.upper()

class Other:
    def load(self, url):
        return url

class Twin:
    def get_page(self, url):
        return requests.get(url, timeout=5)

class Echo:
    def get_page(self, url):
        return url

class Base:
    def send(self, url):
        return requests.get(url, timeout=5)

class Child(Base):
    pass

class Grandchild(Child):
    pass

class Quiet(Base):
    def send(self, url):
        return url

class Loud(Echo):
    def get_page(self, url):
        return requests.get(url, timeout=5)

class Either(Echo, Twin):
    pass

class Lambdas:
    fetch = lambda self, url: requests.get(url, timeout=5)
"""


@pytest.mark.parametrize(
    ("module", "line", "reported"),
    [
        # a method of the file's own class, on an instance made there or named once
        ("", "Client().fetch(value)", True),
        ("client = Client()", "client.fetch(value)", True),
        ("", "client = Client(); client.fetch(url=value)", True),
        # a method that reaches no sink, or a literal
        ("", "Client().name(value)", False),
        ("", "Client().fetch('https://api.example/')", False),
        # an instance of no class of the file, or a name bound twice: not known to be one
        ("", "dict().fetch(value)", False),
        ("client = Client()\nclient = dict()", "client.fetch(value)", False),
        ("", "Other().load(value)", False),
        # a method whose name another class's method shares: each class's is its own
        ("", "Twin().get_page(value)", True),
        ("twin = Twin()", "twin.get_page(value)", True),
        ("", "Echo().get_page(value)", False),
        # a method the class takes from a base of the file, unless it overrides it
        ("", "Child().send(value)", True),
        ("", "Grandchild().send(value)", True),
        ("", "Quiet().send(value)", False),
        ("", "Loud().get_page(value)", True),
        ("", "Child().send('https://api.example/')", False),
        # several bases: which one Python takes is not worked out, either may be called
        ("", "Either().get_page(value)", True),
        # a name of the class's body bound to a lambda is a method too
        ("", "Lambdas().fetch(value)", True),
    ],
)
def test_a_method_of_the_files_own_class_is_followed(
    tmp_path: Path, module: str, line: str, reported: bool
) -> None:
    rules = rules_of(tmp_path, view(line, module=CLASSES + module))
    assert rules == (["taint-ssrf"] if reported else [])


@pytest.mark.parametrize(
    ("module", "line"),
    [
        # a name bound to a lambda is followed as a def of that name is
        ("fetch = lambda u: requests.get(u)", "fetch(value)"),
        ("fetch = lambda u: requests.get(u)", "fetch(u=value)"),
        ("fetch: object = lambda u: requests.get(u)", "fetch(value)"),
        ("", "fetch = lambda u: requests.get(u); fetch(value)"),
        ("", "(fetch := lambda u: requests.get(u))(value); fetch(value)"),
        # through another lambda, or under either of two names
        ("get = lambda u: requests.get(u)\nfetch = lambda u: get(u)", "fetch(value)"),
        ("fetch = go = lambda u: requests.get(u)", "go(value)"),
        # a name bound twice: either binding may be the one called
        ("fetch = lambda u: u\nfetch = lambda u: requests.get(u)", "fetch(value)"),
        ("fetch = lambda u: requests.get(u)\nfetch = lambda u: u", "fetch(value)"),
        ("def fetch(u):\n    return u\nfetch = lambda u: requests.get(u)", "fetch(value)"),
    ],
)
def test_a_sink_in_a_lambda_bound_to_a_name_is_followed(
    tmp_path: Path, module: str, line: str
) -> None:
    assert rules_of(tmp_path, view(line, module=module)) == ["taint-ssrf"]
    literal = view(line.replace("value", "'https://api.example/'"), module=module)
    assert rules_of(tmp_path, literal) == []


@pytest.mark.parametrize(
    ("module", "line", "reported"),
    [
        # a lambda that hands on no request data, or not to the sink's argument
        ("fetch = lambda u: u.upper()", "fetch(value)", False),
        ("fetch = lambda u: requests.get('https://api.example/', params=u)", "fetch(value)", False),
        ("fetch = lambda u, v: requests.get(v)", "fetch(value, 'https://api.example/')", False),
        # a lambda that returns request data is a source; one outside any def is checked
        ("url_of = lambda: request.args['u']", "requests.get(url_of())", True),
        ("url_of = lambda: 'https://api.example/'", "requests.get(url_of())", False),
        ("proxy = lambda: requests.get(request.args['u'])", "pass", True),
    ],
)
def test_a_lambda_bound_to_a_name_is_read_as_a_def(
    tmp_path: Path, module: str, line: str, reported: bool
) -> None:
    assert rules_of(tmp_path, view(line, module=module)) == (["taint-ssrf"] if reported else [])


@pytest.mark.parametrize(
    ("imports", "module", "value", "reported"),
    [
        # the request under another name: an import's alias, or a name assigned it
        ("from flask import request as rq", "", "rq.args['cmd']", True),
        ("from flask import request as rq", "", "rq.form.get('cmd')", True),
        ("", "incoming = flask.request", "incoming.args['cmd']", True),
        # its attribute by getattr of a literal name
        ("", "", "getattr(flask.request, 'args')['cmd']", True),
        ("from flask import request as rq", "", "getattr(rq, 'form').get('cmd')", True),
        # the same attribute of something else is no request data
        ("from flask import g as rq", "", "rq.args['cmd']", False),
        ("", "incoming = flask.session", "incoming.args['cmd']", False),
        ("", "", "getattr(flask.g, 'args')['cmd']", False),
        ("", "", "getattr(flask.request, 'endpoint')", False),
        ("", "def getattr(o, n):\n    return 'ls'", "getattr(flask.request, 'args')", False),
    ],
)
def test_the_request_under_another_name_is_a_source(
    tmp_path: Path, imports: str, module: str, value: str, reported: bool
) -> None:
    text = view(f"os.system({value})", imports, module)
    assert rules_of(tmp_path, text) == (["taint-command_injection"] if reported else [])
