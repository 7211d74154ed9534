"""Security regressions: a protection the change takes away is reported on the added line that
lost it, with the protected sink's category; a protection kept, moved or strengthened is not.

Every snippet is written for these tests: each pair differs only in the protection.
"""

from __future__ import annotations

import difflib

import pytest

from code_guard.change.diff import FileChange, parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentName, Category, Finding
from code_guard.knowledge.catalogue import table
from code_guard.knowledge.explanations import explain_rule
from code_guard.knowledge.mapping import lookup
from code_guard.knowledge.protections import CatalogueError, Kind, catalogue, parse
from code_guard.knowledge.regressions import TOOL
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.review.engine import review_sync
from code_guard.tools.regressions.detector import Regression, find_regressions
from code_guard.tools.regressions.tool import RegressionTool


def _diff(path: str, base: str, head: str) -> str:
    body = "".join(
        difflib.unified_diff(
            base.splitlines(keepends=True),
            head.splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
            n=3,
        )
    )
    return f"diff --git a/{path} b/{path}\n{body}"


def _change(path: str, base: str, head: str) -> FileChange:
    return parse_diff(_diff(path, base, head)).files[0]


def _request(path: str, base: str, head: str) -> ReviewRequest:
    return ReviewRequest(change=parse_diff(_diff(path, base, head)), contents={path: head})


def _reviewed(path: str, base: str, head: str) -> list[Finding]:
    """The security agent's regression findings, through the whole review pipeline."""
    options = ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.SECURITY,)))
    review = review_sync(_request(path, base, head), options)
    return [f for f in review.findings if any(s.startswith(f"{TOOL}:") for s in f.sources)]


def _found(path: str, base: str, head: str) -> list[Regression]:
    """The live regressions (a protection proved kept is returned silenced, and left out)."""
    return [r for r in find_regressions(_change(path, base, head), head) if not r.silenced]


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def _only(found: list[Regression], head: str, needle: str, category: Category) -> Regression:
    assert [(r.line, r.category) for r in found] == [(_line_of(head, needle), category)], found
    return found[0]


# --- safe twin --------------------------------------------------------------------------

YAML_SAFE = """import yaml


def read_settings(stream):
    data = yaml.safe_load(stream)
    return data or {}
"""


def test_safe_twin_swapped_for_its_unsafe_twin_is_reported_on_the_replacement() -> None:
    head = YAML_SAFE.replace("yaml.safe_load(stream)", "yaml.load(stream)")
    found = _only(
        _found("app/settings.py", YAML_SAFE, head),
        head,
        "yaml.load(stream)",
        Category.INSECURE_DESERIALIZATION,
    )
    assert found.protection == "py-yaml-safe-load"
    assert found.base_line == _line_of(YAML_SAFE, "safe_load")
    assert "`yaml.safe_load` became `yaml.load`" in found.title
    assert f"Base line {found.base_line}" in found.detail


def test_safe_twin_kept_or_moved_is_quiet() -> None:
    renamed = YAML_SAFE.replace("data = yaml", "settings = yaml").replace("data or", "settings or")
    assert _found("app/settings.py", YAML_SAFE, renamed) == []
    moved = YAML_SAFE.replace(
        "    data = yaml.safe_load(stream)\n", "    text = stream.read()\n"
    ).replace("return data or {}", "return yaml.safe_load(text) or {}")
    assert _found("app/settings.py", YAML_SAFE, moved) == []


GO_JOIN_SAFE = """package extract

func target(dest string, name string) (string, error) {
	path, err := securejoin.SecureJoin(dest, name)
	if err != nil {
		return "", err
	}
	return path, nil
}
"""


def test_go_secure_join_swapped_for_filepath_join() -> None:
    head = GO_JOIN_SAFE.replace(
        "path, err := securejoin.SecureJoin(dest, name)", "path := filepath.Join(dest, name)"
    ).replace('\tif err != nil {\n\t\treturn "", err\n\t}\n', "")
    _only(
        _found("extract/x.go", GO_JOIN_SAFE, head),
        head,
        "filepath.Join(dest, name)",
        Category.PATH_TRAVERSAL,
    )


JS_TEXT = """function show(box, message) {
  box.textContent = message;
}
"""


def test_js_text_content_swapped_for_inner_html() -> None:
    head = JS_TEXT.replace("box.textContent = message", "box.innerHTML = message")
    _only(_found("web/show.js", JS_TEXT, head), head, "innerHTML", Category.XSS)


def test_js_forward_fix_to_text_content_is_quiet() -> None:
    unsafe = JS_TEXT.replace("box.textContent = message", "box.innerHTML = message")
    assert _found("web/show.js", unsafe, JS_TEXT) == []


# --- protective argument ------------------------------------------------------------------

LXML_SAFE = """from lxml import etree


def parse(data):
    parser = etree.XMLParser(resolve_entities=False)
    return etree.fromstring(data, parser)
"""


def test_protective_argument_dropped_is_reported() -> None:
    head = LXML_SAFE.replace("etree.XMLParser(resolve_entities=False)", "etree.XMLParser()")
    found = _only(_found("app/xml.py", LXML_SAFE, head), head, "XMLParser()", Category.XXE)
    assert "resolve_entities=False" in found.title


def test_protective_argument_flipped_is_reported() -> None:
    base = "import requests\n\n\ndef fetch(url):\n    return requests.get(url, verify=True)\n"
    head = base.replace("verify=True", "verify=False")
    found = _only(_found("app/net.py", base, head), head, "verify=False", Category.INSECURE_CONFIG)
    assert "flipped" in found.title


def test_protective_argument_kept_while_the_call_changes_is_quiet() -> None:
    head = LXML_SAFE.replace(
        "etree.XMLParser(resolve_entities=False)",
        "etree.XMLParser(resolve_entities=False, no_network=True)",
    )
    assert _found("app/xml.py", LXML_SAFE, head) == []


# --- sanitiser ------------------------------------------------------------------------------

PY_ESCAPE = """import html


def greeting(name):
    return "<p>Hello " + html.escape(name) + "</p>"
"""


def test_sanitiser_unwrapped_is_reported_on_the_line_that_lost_it() -> None:
    head = PY_ESCAPE.replace("html.escape(name)", "name")
    found = _only(_found("app/views.py", PY_ESCAPE, head), head, '"<p>Hello "', Category.XSS)
    assert found.protection == "py-html-escape"
    assert "html.escape" in found.title


def test_sanitiser_swapped_for_another_is_quiet() -> None:
    head = PY_ESCAPE.replace("import html", "import markupsafe").replace(
        "html.escape(name)", "markupsafe.escape(name)"
    )
    assert _found("app/views.py", PY_ESCAPE, head) == []


GO_ESCAPE = """package page

func title(w io.Writer, name string) {
	safe := html.EscapeString(name)
	fmt.Fprintf(w, "<h1>%s</h1>", safe)
}
"""


def test_go_sanitiser_assignment_removed_reports_the_sink_that_uses_the_value() -> None:
    head = GO_ESCAPE.replace("\tsafe := html.EscapeString(name)\n", "").replace(
        '</h1>", safe)', '</h1>", name)'
    )
    _only(_found("page/title.go", GO_ESCAPE, head), head, "fmt.Fprintf", Category.XSS)


ESCAPED = "\tsafe := name\n\tsafe = html.EscapeString(safe)\n"


def test_a_sanitiser_line_only_deleted_is_reported_on_the_unchanged_sink_below() -> None:
    """The hunk only deletes the sanitiser: the sink that now gets the raw value is an
    unchanged line, and the finding goes there."""
    raw = GO_ESCAPE.replace("\tsafe := html.EscapeString(name)\n", "\tsafe := name\n")
    base = raw.replace("\tsafe := name\n", ESCAPED)
    head = raw
    found = _only(_found("page/title.go", base, head), head, "fmt.Fprintf", Category.XSS)
    assert found.unchanged and found.strong


def test_a_deleted_sanitiser_whose_value_no_sink_below_uses_is_quiet() -> None:
    logged = GO_ESCAPE.replace('fmt.Fprintf(w, "<h1>%s</h1>", safe)', 'log.Print("title")')
    base = logged.replace("\tsafe := html.EscapeString(name)\n", ESCAPED)
    head = base.replace("\tsafe = html.EscapeString(safe)\n", "")
    assert _found("page/title.go", base, head) == []


def test_named_helper_of_the_project_counts_as_a_sanitiser() -> None:
    base = "function row(value) {\n  $('#list').append('<li>' + encodeHtml(value) + '</li>');\n}\n"
    head = base.replace("encodeHtml(value)", "value")
    found = _only(_found("web/list.js", base, head), head, "append", Category.XSS)
    assert found.protection == "any-named-sanitiser"


def test_sanitiser_replaced_by_a_helper_that_applies_one_is_quiet() -> None:
    base = (
        "package archive\n\nfunc target(root, name string) string {\n"
        "\treturn filepath.Join(root, filepath.Base(name))\n}\n"
    )
    head = base.replace("filepath.Base(name)", "inside(root, name)") + (
        "\nfunc inside(root, name string) string {\n"
        "\tif !strings.HasPrefix(filepath.Join(root, name), root) {\n"
        '\t\treturn "invalid"\n\t}\n\treturn name\n}\n'
    )
    assert _found("archive/t.go", base, head) == []


# --- guard --------------------------------------------------------------------------------

PY_GUARD = """import os


def read(root, name):
    path = os.path.realpath(os.path.join(root, name))
    if not path.startswith(root + os.sep):
        raise PermissionError(name)
    with open(path) as handle:
        return handle.read()
"""


def test_guard_removed_is_reported_on_the_sink_that_uses_the_value() -> None:
    head = PY_GUARD.replace(
        "    if not path.startswith(root + os.sep):\n        raise PermissionError(name)\n", ""
    ).replace(
        "path = os.path.realpath(os.path.join(root, name))", "path = os.path.join(root, name)"
    )
    found = _only(
        _found("app/files.py", PY_GUARD, head), head, "os.path.join(root", Category.PATH_TRAVERSAL
    )
    assert found.strong
    assert "startswith" in found.title


def test_guard_moved_into_a_helper_is_quiet() -> None:
    head = PY_GUARD.replace(
        "    if not path.startswith(root + os.sep):\n        raise PermissionError(name)\n",
        "    check(root, path)\n",
    ) + (
        "\n\ndef check(root, path):\n"
        "    if not path.startswith(root + os.sep):\n"
        "        raise PermissionError(path)\n"
    )
    assert _found("app/files.py", PY_GUARD, head) == []


def test_a_positive_check_is_not_a_guard() -> None:
    base = (
        "function back(ctx, referrer) {\n"
        "  if (referrer.startsWith('/')) {\n"
        "    return ctx.redirect(referrer);\n"
        "  }\n"
        "  return ctx.redirect('/');\n"
        "}\n"
    )
    head = base.replace("  if (referrer.startsWith('/')) {\n", "  if (referrer) {\n")
    assert _found("web/back.js", base, head) == []


GO_GUARD = """package store

func open(base, name string) (*os.File, error) {
	p := filepath.Clean(filepath.Join(base, name))
	if !strings.HasPrefix(p, base+string(os.PathSeparator)) {
		return nil, errBadPath
	}
	return os.Open(p)
}
"""


def test_go_containment_guard_removed() -> None:
    guard = "\tif !strings.HasPrefix(p, base+string(os.PathSeparator)) {\n"
    head = GO_GUARD.replace(guard + "\t\treturn nil, errBadPath\n\t}\n", "").replace(
        "return os.Open(p)", "return os.Open(p) // opened"
    )
    _only(_found("store/open.go", GO_GUARD, head), head, "os.Open(p)", Category.PATH_TRAVERSAL)


def test_a_guard_only_deleted_is_reported_on_the_unchanged_sink_below_it() -> None:
    """A pure deletion: the hunk adds nothing, so the finding goes on the sink it guarded."""
    guard = "\tif !strings.HasPrefix(p, base+string(os.PathSeparator)) {\n"
    head = GO_GUARD.replace(guard + "\t\treturn nil, errBadPath\n\t}\n", "")
    change = _change("store/open.go", GO_GUARD, head)
    assert not any(ln.kind.value == "+" for h in change.hunks for ln in h.lines)
    found = _only(find_regressions(change, head), head, "os.Open(p)", Category.PATH_TRAVERSAL)
    assert found.strong and found.unchanged
    assert "this unchanged line now runs without it" in found.detail


def test_a_python_guard_only_deleted_is_reported_on_the_unchanged_open() -> None:
    head = PY_GUARD.replace(
        "    if not path.startswith(root + os.sep):\n        raise PermissionError(name)\n", ""
    )
    found = _only(
        _found("app/files.py", PY_GUARD, head), head, "open(path)", Category.PATH_TRAVERSAL
    )
    assert found.unchanged


def test_a_deleted_guard_with_no_sink_below_it_in_the_hunk_is_quiet() -> None:
    base = PY_GUARD.replace(
        "    with open(path) as handle:\n        return handle.read()\n", "    return path\n"
    )
    head = base.replace(
        "    if not path.startswith(root + os.sep):\n        raise PermissionError(name)\n", ""
    )
    assert _found("app/files.py", base, head) == []


def test_a_deleted_line_that_is_no_guard_leaves_the_sink_below_quiet() -> None:
    base = PY_GUARD.replace("    with open(path)", "    log(path)\n    with open(path)")
    assert _found("app/files.py", base, PY_GUARD) == []


def test_a_guard_only_deleted_survives_the_added_lines_filter_of_a_review() -> None:
    guard = "\tif !strings.HasPrefix(p, base+string(os.PathSeparator)) {\n"
    head = GO_GUARD.replace(guard + "\t\treturn nil, errBadPath\n\t}\n", "")
    ours = _reviewed("store/open.go", GO_GUARD, head)
    assert [(f.line_start, f.category) for f in ours] == [
        (_line_of(head, "os.Open(p)"), Category.PATH_TRAVERSAL)
    ], ours


def test_go_url_prefix_check_is_not_path_containment() -> None:
    base = GO_GUARD.replace(
        "strings.HasPrefix(p, base+string(os.PathSeparator))", 'strings.HasPrefix(p, "https://")'
    )
    head = base.replace(
        '\tif !strings.HasPrefix(p, "https://") {\n\t\treturn nil, errBadPath\n\t}\n', ""
    ).replace("return os.Open(p)", "return os.Open(p) // opened")
    assert all(
        r.category is not Category.PATH_TRAVERSAL for r in _found("store/open.go", base, head)
    )


# --- secret default ------------------------------------------------------------------------


def test_secret_gaining_a_literal_default_is_reported() -> None:
    base = "import os\n\nSECRET_KEY = os.environ['SECRET_KEY']\nDEBUG = False\n"
    head = base.replace("os.environ['SECRET_KEY']", "os.environ.get('SECRET_KEY', 'dev-secret')")
    found = _only(
        _found("app/config.py", base, head), head, "SECRET_KEY =", Category.HARDCODED_SECRET
    )
    assert "SECRET_KEY" in found.title


def test_js_secret_gaining_a_fallback_and_a_non_secret_default_are_told_apart() -> None:
    base = "const key = process.env.JWT_SECRET;\nconst port = process.env.PORT;\n"
    head = base.replace("process.env.JWT_SECRET", "process.env.JWT_SECRET || 'changeme'").replace(
        "process.env.PORT", "process.env.PORT || '8080'"
    )
    _only(_found("server/config.js", base, head), head, "JWT_SECRET", Category.HARDCODED_SECRET)


def test_secret_read_kept_strict_is_quiet() -> None:
    base = "import os\n\nSECRET_KEY = os.environ['SECRET_KEY']\n"
    head = base.replace("os.environ['SECRET_KEY']", "os.environ.get('SECRET_KEY')")
    assert _found("app/config.py", base, head) == []


# --- the catalogue, the rules, the pipeline ---------------------------------------------------


def test_every_kind_of_protection_is_in_the_catalogue() -> None:
    kinds = {p.kind for p in catalogue().protections}
    assert kinds == set(Kind)
    assert all(p.reference.strip() for p in catalogue().protections)


def test_a_bad_catalogue_fails_with_one_line() -> None:
    with pytest.raises(CatalogueError, match=r"protections\.0\.protection: .*bad regular"):
        parse(
            "sinks: []\nname_hints: []\ngeneric_sanitiser: 'x'\nprotections:\n"
            "  - {id: bad-one, kind: sanitiser, category: xss, languages: [python],"
            " protection: '(', severity: high, confidence: 0.5, why: w, fix: f, reference: r}\n"
        )
    with pytest.raises(CatalogueError, match="needs `unsafe`"):
        parse(
            "sinks: []\nname_hints: []\ngeneric_sanitiser: 'x'\nprotections:\n"
            "  - {id: twin, kind: safe_twin, category: xss, languages: [go],"
            " protection: 'a', severity: high, confidence: 0.5, why: w, fix: f, reference: r}\n"
        )


def test_every_rule_maps_and_explains_from_the_catalogue() -> None:
    rules = table(TOOL)
    assert rules is not None
    assert "py-yaml-safe-load.insecure_deserialization" in rules.rules
    weak = lookup(TOOL, "py-html-escape.xss.weak")
    strong = lookup(TOOL, "py-html-escape.xss")
    assert weak is not None and strong is not None
    assert weak.confidence < strong.confidence
    entry = next(p for p in catalogue().protections if p.id == "py-html-escape")
    assert explain_rule(TOOL, "py-html-escape.xss", Category.XSS, "CWE-79").why == entry.why


def test_the_security_agent_reports_a_regression_through_the_pipeline() -> None:
    head = YAML_SAFE.replace("yaml.safe_load(stream)", "yaml.load(stream, Loader=yaml.Loader)")
    ours = _reviewed("app/settings.py", YAML_SAFE, head)
    assert ours
    assert ours[0].line_start == _line_of(head, "yaml.load(")
    assert ours[0].category is Category.INSECURE_DESERIALIZATION


def test_test_files_are_read_and_their_regressions_are_quiet_in_tests() -> None:
    # The path alone proves nothing: a "test" module production imports is production. The
    # tool reads it; its rules are quiet in tests, and the filters decide (testfiles.py).
    head = YAML_SAFE.replace("yaml.safe_load(stream)", "yaml.load(stream)")
    request = _request("tests/test_settings.py", YAML_SAFE, head)
    assert request.change.files[0].has_base
    hits = RegressionTool().run_change(request, request.change.files)
    assert hits
    for hit in hits:
        record = lookup(hit.tool, hit.rule)
        assert record is not None and record.quiet_in_tests


def test_guard_that_throws_the_value_away_is_a_guard() -> None:
    base = (
        "def after_login(request):\n"
        "    target = request.GET.get('next')\n"
        "    if target and not url_has_allowed_host_and_scheme(target, request.get_host()):\n"
        "        target = None\n"
        "    return redirect(target or '/')\n"
    )
    head = base.replace(
        "    if target and not url_has_allowed_host_and_scheme(target, request.get_host()):\n"
        "        target = None\n",
        "",
    ).replace("request.GET.get('next')", "request.GET.get('next', '/')")
    _only(_found("app/auth.py", base, head), head, "request.GET.get", Category.OPEN_REDIRECT)


def test_helper_named_safe_is_a_sanitiser_and_a_thread_safe_one_is_not() -> None:
    base = (
        "package proxy\n\nfunc fetch(target string) (*http.Response, error) {\n"
        "\treturn client.SafeGet(target)\n}\n"
    )
    head = base.replace("client.SafeGet(target)", "http.Get(target)")
    assert _found("proxy/fetch.go", base, head) == []  # `safe get` says nothing of security
    base = base.replace("client.SafeGet(target)", "netguard.FetchSafely(target)")
    head = base.replace("netguard.FetchSafely(target)", "http.Get(target)")
    found = _only(_found("proxy/fetch.go", base, head), head, "http.Get", Category.SSRF)
    assert found.protection == "any-named-sanitiser"


def test_jquery_text_option_swapped_for_an_html_string() -> None:
    base = "function note(n) {\n  return $('<div />', {text: n.message});\n}\n"
    head = base.replace("$('<div />', {text: n.message})", "$('<div>' + n.message + '</div>')")
    _only(_found("web/note.js", base, head), head, "n.message", Category.XSS)


def test_go_import_twin_is_reported_where_the_package_is_used() -> None:
    base = (
        'package token\n\nimport (\n\t"crypto/rand"\n\t"encoding/hex"\n)\n\n'
        "func New() string {\n\tb := make([]byte, 16)\n\t_, _ = rand.Read(b)\n"
        "\treturn hex.EncodeToString(b)\n}\n"
    )
    head = base.replace('\t"crypto/rand"\n\t"encoding/hex"\n', '\t"encoding/hex"\n\t"math/rand"\n')
    head = head.replace("_, _ = rand.Read(b)", "_, _ = rand.Read(b) // seeded at start")
    _only(_found("token/new.go", base, head), head, "rand.Read", Category.WEAK_CRYPTO)


def test_helper_replaced_by_a_check_just_above_is_quiet() -> None:
    base = (
        "def after_login(request, target):\n"
        "    log.info('login')\n"
        "    return redirect(get_safe_redirect(target))\n"
    )
    unchecked = base.replace("get_safe_redirect(target)", "target")
    assert [r.category for r in _found("app/auth.py", base, unchecked)] == [Category.OPEN_REDIRECT]
    checked = unchecked.replace(
        "    log.info('login')\n",
        "    log.info('login')\n"
        "    if urlparse(target).netloc != request.host:\n"
        "        abort(400)\n",
    )
    assert _found("app/auth.py", base, checked) == []


def test_a_regression_finding_carries_the_base_line_of_the_removed_protection() -> None:
    # A deleted guard: reported on the unchanged line below, with the guard's base line.
    guard = "\tif !strings.HasPrefix(p, base+string(os.PathSeparator)) {\n"
    head = GO_GUARD.replace(guard + "\t\treturn nil, errBadPath\n\t}\n", "")
    (deleted,) = _reviewed("store/open.go", GO_GUARD, head)
    assert deleted.line_start == _line_of(head, "os.Open(p)")
    assert deleted.removed_at == _line_of(GO_GUARD, "strings.HasPrefix(p, base")
    # The removed line itself goes with it: the model pass quotes it, and JSON shows it.
    assert deleted.removed_line == guard.strip()
    # A replaced safe call: reported on the added line, with the removed one's base line.
    head = YAML_SAFE.replace("yaml.safe_load(stream)", "yaml.load(stream, Loader=yaml.Loader)")
    (replaced,) = _reviewed("app/settings.py", YAML_SAFE, head)
    assert replaced.line_start == _line_of(head, "yaml.load(")
    assert replaced.removed_at == _line_of(YAML_SAFE, "yaml.safe_load(stream)")
    assert replaced.removed_line is not None and "yaml.safe_load(stream)" in replaced.removed_line
