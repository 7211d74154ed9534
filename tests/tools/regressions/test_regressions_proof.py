"""Silence only on proof: a protection the change touched counts as kept only when the head
shows it still guards the same sink, in the same function, on every path to it.

Each mechanism has a true negative (kept, or replaced by something as strong: returned
silenced, with the proof), a true positive, and look-alikes written to fool it, which must
still be reported. Every snippet is written for these tests.
"""

from __future__ import annotations

import difflib

from code_guard.change.diff import FileChange, parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentName, Category, Finding, Silencing
from code_guard.knowledge.regressions import TOOL
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.review.engine import review_sync
from code_guard.tools.regressions.detector import Regression, find_regressions
from code_guard.tools.regressions.tool import RegressionTool


def _diff(path: str, base: str, head: str) -> str:
    body = "".join(
        difflib.unified_diff(
            base.splitlines(keepends=True), head.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )
    return f"diff --git a/{path} b/{path}\n{body}"


def _change(path: str, base: str, head: str) -> FileChange:
    return parse_diff(_diff(path, base, head)).files[0]


def _all(path: str, base: str, head: str) -> list[Regression]:
    return find_regressions(_change(path, base, head), head)


def _live(path: str, base: str, head: str) -> list[Regression]:
    return [r for r in _all(path, base, head) if not r.silenced]


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def _reported_at(found: list[Regression], head: str, needle: str, category: Category) -> None:
    assert [(r.line, r.category) for r in found] == [(_line_of(head, needle), category)], found


def _reported(found: list[Regression], category: Category) -> None:
    """One live regression of ``category`` (on the line the change touched or the sink)."""
    assert [(r.category, bool(r.silenced)) for r in found] == [(category, False)], found


def _kept(found: list[Regression]) -> None:
    """Nothing live; at least one protection returned silenced, with its proof."""
    assert found, "the proof should be returned, silenced"
    assert all(r.silenced == Silencing.KEPT_PROTECTION.value for r in found), found
    assert all("still holds" in r.detail for r in found), found


def _reviewed(path: str, base: str, head: str) -> list[Finding]:
    options = ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.SECURITY,)))
    request = ReviewRequest(change=parse_diff(_diff(path, base, head)), contents={path: head})
    review = review_sync(request, options)
    return [f for f in review.findings if any(s.startswith(f"{TOOL}:") for s in f.sources)]


# --- 1. a guard is kept only where it still guards the same sink -----------------------------

GUARD = "    if not path.startswith(root + os.sep):\n        raise PermissionError(name)\n"
READ = """import os


def read(root, name):
    path = os.path.realpath(os.path.join(root, name))
    if not path.startswith(root + os.sep):
        raise PermissionError(name)
    with open(path) as handle:
        return handle.read()


def is_private(key):
    return key.startswith("_")
"""


def test_a_deleted_guard_is_reported_although_the_file_still_has_a_startswith() -> None:
    head = READ.replace(GUARD, "")
    _reported_at(_live("app/files.py", READ, head), head, "open(path)", Category.PATH_TRAVERSAL)


def test_a_guard_kept_before_the_same_sink_is_silenced_with_its_proof() -> None:
    head = READ.replace("path.startswith(root + os.sep)", "path.startswith(root + os.path.sep)")
    found = _all("app/files.py", READ, head)
    _kept(found)
    assert "still dominates" in found[0].detail


def test_a_guard_moved_into_another_function_is_reported() -> None:
    head = READ.replace(GUARD, "").replace(
        '    return key.startswith("_")\n',
        '    return key.startswith("_")\n\n\ndef check(root, path):\n'
        + GUARD.replace("name", "path"),
    )
    _reported(_live("app/files.py", READ, head), Category.PATH_TRAVERSAL)


def test_the_same_guard_on_another_variable_is_reported() -> None:
    head = READ.replace("if not path.startswith(", "if not name.startswith(")
    _reported(_live("app/files.py", READ, head), Category.PATH_TRAVERSAL)


def test_a_guard_kept_but_inverted_is_reported() -> None:
    head = READ.replace("if not path.startswith(", "if path.startswith(")
    _reported(_live("app/files.py", READ, head), Category.PATH_TRAVERSAL)
    twice = READ.replace("if not path.startswith(", "if not not path.startswith(")
    _reported(_live("app/files.py", READ, twice), Category.PATH_TRAVERSAL)


def test_a_guard_kept_in_a_branch_the_sink_is_not_in_is_reported() -> None:
    head = READ.replace(
        GUARD,
        "    if strict:\n"
        + GUARD.replace("\n    ", "\n        ").replace("    if", "        if", 1),
    )
    _reported(_live("app/files.py", READ, head), Category.PATH_TRAVERSAL)


def test_a_guard_moved_into_a_helper_that_raises_is_kept() -> None:
    head = READ.replace(GUARD, "    check(root, path)\n") + (
        "\n\ndef check(root, path):\n" + GUARD.replace("name", "path")
    )
    _kept(_all("app/files.py", READ, head))


def test_a_guard_moved_into_a_helper_that_only_returns_is_reported() -> None:
    """A helper whose failing check returns leaves its caller running: no proof."""
    head = READ.replace(GUARD, "    check(root, path)\n") + (
        "\n\ndef check(root, path):\n"
        "    if not path.startswith(root + os.sep):\n        return False\n    return True\n"
    )
    found = _live("app/files.py", READ, head)
    assert [r.category for r in found] == [Category.PATH_TRAVERSAL], found


# --- 2. a replacement counts only when the model knows it as strong ---------------------------

UPLOAD = """from werkzeug.utils import secure_filename


def save(upload, folder):
    name = secure_filename(upload.filename)
    upload.save(os.path.join(folder, name))
"""


def test_a_sanitiser_swapped_for_a_project_no_op_is_reported() -> None:
    head = UPLOAD.replace("secure_filename(upload", "safe_filename(upload") + (
        "\n\ndef safe_filename(value):\n    return value\n"
    )
    found = _live("app/upload.py", UPLOAD, head)
    assert [(r.line, r.category, r.strong) for r in found] == [
        (_line_of(head, "name = safe_filename"), Category.PATH_TRAVERSAL, True)
    ], found


def test_a_project_helper_that_applies_the_sanitiser_is_kept() -> None:
    head = UPLOAD.replace("secure_filename(upload", "clean_name(upload") + (
        "\n\ndef clean_name(value):\n    return secure_filename(value.strip())\n"
    )
    _kept(_all("app/upload.py", UPLOAD, head))


def test_a_helper_that_sanitises_but_returns_the_raw_value_is_reported() -> None:
    head = UPLOAD.replace("secure_filename(upload", "clean_name(upload") + (
        "\n\ndef clean_name(value):\n    secure_filename(value)\n    return value\n"
    )
    assert [r.category for r in _live("app/upload.py", UPLOAD, head)] == [Category.PATH_TRAVERSAL]


def test_a_helper_that_sanitises_on_one_branch_only_is_reported() -> None:
    head = UPLOAD.replace("secure_filename(upload", "clean_name(upload") + (
        "\n\ndef clean_name(value):\n    if value.endswith('.txt'):\n"
        "        return secure_filename(value)\n    return value\n"
    )
    assert [r.category for r in _live("app/upload.py", UPLOAD, head)] == [Category.PATH_TRAVERSAL]


def test_a_helper_with_a_protection_of_another_category_is_reported() -> None:
    head = UPLOAD.replace("secure_filename(upload", "clean_name(upload") + (
        "\n\ndef clean_name(value):\n    return html.escape(value)\n"
    )
    assert [r.category for r in _live("app/upload.py", UPLOAD, head)] == [Category.PATH_TRAVERSAL]


def test_a_sanitiser_kept_with_its_result_thrown_away_is_reported() -> None:
    head = UPLOAD.replace(
        "    name = secure_filename(upload.filename)\n",
        "    secure_filename(upload.filename)\n    name = upload.filename\n",
    )
    assert [r.category for r in _live("app/upload.py", UPLOAD, head)] == [Category.PATH_TRAVERSAL]


def test_a_sanitiser_applied_to_the_value_just_above_is_kept() -> None:
    head = UPLOAD.replace(
        "    name = secure_filename(upload.filename)\n",
        "    name = upload.filename\n    name = secure_filename(name)\n",
    )
    assert _live("app/upload.py", UPLOAD, head) == []


GO_OPEN = """package store

func open(base, name string) (*os.File, error) {
	p := filepath.Join(base, filepath.Clean(name))
	return os.Open(p)
}
"""


def test_clean_replaced_by_a_containment_check_is_quiet() -> None:
    head = GO_OPEN.replace("filepath.Clean(name)", "name").replace(
        "\treturn os.Open(p)\n",
        "\tif !strings.HasPrefix(p, base+string(os.PathSeparator)) {\n"
        "\t\treturn nil, errBadPath\n\t}\n\treturn os.Open(p)\n",
    )
    assert _live("store/open.go", GO_OPEN, head) == []


def test_a_containment_check_replaced_by_clean_is_reported() -> None:
    guarded = GO_OPEN.replace("filepath.Clean(name)", "name").replace(
        "\treturn os.Open(p)\n",
        "\tif !strings.HasPrefix(p, base+string(os.PathSeparator)) {\n"
        "\t\treturn nil, errBadPath\n\t}\n\treturn os.Open(p)\n",
    )
    found = _live("store/open.go", guarded, GO_OPEN)
    assert [r.category for r in found] == [Category.PATH_TRAVERSAL], found


GO_QUERY = """package users

func find(db *sql.DB, name string) (*sql.Rows, error) {
	return db.Query("SELECT id FROM users WHERE name = " + pq.QuoteLiteral(name))
}
"""


def test_quoting_replaced_by_a_bound_parameter_is_quiet() -> None:
    head = GO_QUERY.replace(
        '"SELECT id FROM users WHERE name = " + pq.QuoteLiteral(name)',
        '"SELECT id FROM users WHERE name = $1", name',
    )
    assert _live("users/find.go", GO_QUERY, head) == []


def test_quoting_dropped_from_the_query_text_is_reported() -> None:
    head = GO_QUERY.replace("pq.QuoteLiteral(name)", "name")
    found = _live("users/find.go", GO_QUERY, head)
    assert [r.category for r in found] == [Category.SQL_INJECTION], found


def test_a_bound_parameter_beside_the_value_in_the_text_is_reported() -> None:
    head = GO_QUERY.replace(
        '"SELECT id FROM users WHERE name = " + pq.QuoteLiteral(name)',
        '"SELECT id FROM users WHERE name = " + name + " AND id > $1", name',
    )
    assert [r.category for r in _live("users/find.go", GO_QUERY, head)] == [Category.SQL_INJECTION]


# --- 3. a guard only deleted reports at its sink, however far below ----------------------------

FAR = """package store

func open(base, name string) (*os.File, error) {
	p := filepath.Clean(filepath.Join(base, name))
	if !strings.HasPrefix(p, base+string(os.PathSeparator)) {
		return nil, errBadPath
	}
	log.Printf("opening %s", name)
	metrics.Inc("open")
	trace("open")
	audit(name)
	defer trace("done")
	return os.Open(p)
}

func other(p string) {
	os.Open(p)
}
"""
GO_GUARD = (
    "\tif !strings.HasPrefix(p, base+string(os.PathSeparator)) {\n\t\treturn nil, errBadPath\n\t}\n"
)


def test_a_guard_deleted_far_above_its_sink_is_reported_at_the_deletion_naming_the_sink() -> None:
    head = FAR.replace(GO_GUARD, "")
    change = _change("store/open.go", FAR, head)
    sink = _line_of(head, "return os.Open(p)")
    assert not change.in_hunk(sink)
    found = [r for r in find_regressions(change, head) if not r.silenced]
    assert [(r.line, r.category) for r in found] == [
        (_line_of(head, 'log.Printf("opening'), Category.PATH_TRAVERSAL)
    ], found
    assert change.in_hunk(found[0].line) and found[0].unchanged and found[0].strong
    assert f"line {sink}" in found[0].detail


def test_a_guard_deleted_far_above_its_sink_survives_the_review_filters() -> None:
    head = FAR.replace(GO_GUARD, "")
    ours = _reviewed("store/open.go", FAR, head)
    assert [(f.line_start, f.category) for f in ours] == [
        (_line_of(head, 'log.Printf("opening'), Category.PATH_TRAVERSAL)
    ], ours


def test_a_guard_deleted_above_a_sink_nested_further_down_is_reported() -> None:
    base = FAR.replace(
        "\treturn os.Open(p)\n", "\tif ok {\n\t\treturn os.Open(p)\n\t}\n\treturn nil, nil\n"
    )
    head = base.replace(GO_GUARD, "")
    found = _live("store/open.go", base, head)
    assert [r.category for r in found] == [Category.PATH_TRAVERSAL], found


def test_a_guard_deleted_whose_only_sink_is_in_another_function_is_quiet() -> None:
    base = FAR.replace("\treturn os.Open(p)\n", "\treturn nil, nil\n")
    head = base.replace(GO_GUARD, "")
    assert _live("store/open.go", base, head) == []


def test_a_python_guard_deleted_far_above_a_send_file_is_reported() -> None:
    base = (
        "def download(root, name):\n"
        "    path = os.path.realpath(os.path.join(root, name))\n"
        "    if not path.startswith(root + os.sep):\n"
        "        abort(404)\n"
        + "".join(f"    step{i}()\n" for i in range(8))
        + "    return send_file(path)\n"
    )
    head = base.replace("    if not path.startswith(root + os.sep):\n        abort(404)\n", "")
    found = _live("app/dl.py", base, head)
    assert [(r.line, r.category) for r in found] == [
        (_line_of(head, "step0()"), Category.PATH_TRAVERSAL)
    ], found


def test_a_guard_whose_names_are_gone_is_reported_on_the_sink_the_change_added() -> None:
    """The change renames everything the guard checked: the added sink of its category is
    where the unchecked value now goes (not merely the nearest added line)."""
    base = (
        "def store(folder, name, data):\n"
        "    target = os.path.normpath(os.path.join(folder, name))\n"
        "    if not target.startswith(folder):\n"
        "        return False\n"
        "    write(target, data)\n"
    )
    head = (
        "def store(folder, name, data):\n"
        "    fn = name.replace('/', '+')\n"
        "    log.info('storing %s', fn)\n"
        "    with open(folder + '/' + fn, 'wb') as out:\n"
        "        out.write(data)\n"
    )
    found = _live("app/store.py", base, head)
    assert (_line_of(head, "with open("), Category.PATH_TRAVERSAL) in [
        (r.line, r.category) for r in found
    ], found


# --- a sanitiser only deleted reports at its sink, however far below ----------------------------

ESCAPED_FAR = (
    "package page\n\nfunc title(w io.Writer, name string) {\n"
    "\tsafe := name\n\tsafe = html.EscapeString(safe)\n"
    + "".join(f'\tstep("{i}")\n' for i in range(8))
    + '\tfmt.Fprintf(w, "<h1>%s</h1>", safe)\n}\n'
)


def test_a_sanitiser_deleted_far_above_its_sink_is_reported_at_the_deletion() -> None:
    head = ESCAPED_FAR.replace("\tsafe = html.EscapeString(safe)\n", "")
    change = _change("page/title.go", ESCAPED_FAR, head)
    found = [r for r in find_regressions(change, head) if not r.silenced]
    sink = _line_of(head, "fmt.Fprintf")
    assert [(r.line, r.category) for r in found] == [(_line_of(head, 'step("0")'), Category.XSS)]
    assert change.in_hunk(found[0].line) and not change.in_hunk(sink)
    assert f"line {sink}" in found[0].detail


def test_a_sanitiser_deleted_above_a_sink_nested_further_down_is_reported() -> None:
    base = ESCAPED_FAR.replace(
        '\tfmt.Fprintf(w, "<h1>%s</h1>", safe)\n',
        '\tif ok {\n\t\tfmt.Fprintf(w, "%s", safe)\n\t}\n',
    )
    head = base.replace("\tsafe = html.EscapeString(safe)\n", "")
    assert [r.category for r in _live("page/title.go", base, head)] == [Category.XSS]


def test_a_sanitiser_deleted_whose_value_only_another_function_writes_is_quiet() -> None:
    base = ESCAPED_FAR.replace(
        '\tfmt.Fprintf(w, "<h1>%s</h1>", safe)\n}\n',
        "\tlog.Print(safe)\n}\n\nfunc other(w io.Writer, safe string) {\n"
        '\tfmt.Fprintf(w, "<h1>%s</h1>", safe)\n}\n',
    )
    head = base.replace("\tsafe = html.EscapeString(safe)\n", "")
    assert _live("page/title.go", base, head) == []


def test_a_sanitiser_deleted_but_applied_again_before_the_sink_is_kept() -> None:
    base = ESCAPED_FAR
    head = base.replace("\tsafe = html.EscapeString(safe)\n", "").replace(
        '\tstep("7")\n', '\tstep("7")\n\tsafe = html.EscapeString(safe)\n'
    )
    assert _live("page/title.go", base, head) == []


def test_a_sanitiser_applied_again_but_overwritten_before_the_sink_is_reported() -> None:
    head = ESCAPED_FAR.replace("\tsafe = html.EscapeString(safe)\n", "").replace(
        '\tstep("7")\n', '\tstep("7")\n\tsafe = html.EscapeString(safe)\n\tsafe = name\n'
    )
    assert Category.XSS in [r.category for r in _live("page/title.go", ESCAPED_FAR, head)]


def test_a_sanitiser_applied_again_in_a_branch_only_is_reported() -> None:
    head = ESCAPED_FAR.replace("\tsafe = html.EscapeString(safe)\n", "").replace(
        '\tstep("7")\n', '\tstep("7")\n\tif short {\n\t\tsafe = html.EscapeString(safe)\n\t}\n'
    )
    assert Category.XSS in [r.category for r in _live("page/title.go", ESCAPED_FAR, head)]


# --- the same call kept on the value, a guard of no sink -------------------------------------

LINK = """package render

func link(w io.Writer, d []byte) {
	_, _ = w.Write(util.EscapeHTML(util.URLEscape(d, true)))
}
"""


def test_the_same_escape_kept_at_the_sink_of_a_new_variable_is_kept() -> None:
    head = LINK.replace(
        "\t_, _ = w.Write(util.EscapeHTML(util.URLEscape(d, true)))\n",
        "\tdest := util.URLEscape(d, true)\n\t_, _ = w.Write(util.EscapeHTML(dest))\n",
    )
    assert _live("render/link.go", LINK, head) == []


def test_the_escape_dropped_from_the_new_variable_is_reported() -> None:
    head = LINK.replace(
        "\t_, _ = w.Write(util.EscapeHTML(util.URLEscape(d, true)))\n",
        "\tdest := util.URLEscape(d, true)\n\t_, _ = w.Write(dest)\n",
    )
    assert [r.category for r in _live("render/link.go", LINK, head)] == [Category.XSS]


def test_the_escape_called_on_the_new_variable_but_thrown_away_is_reported() -> None:
    head = LINK.replace(
        "\t_, _ = w.Write(util.EscapeHTML(util.URLEscape(d, true)))\n",
        "\tdest := util.URLEscape(d, true)\n\tutil.EscapeHTML(dest)\n\t_, _ = w.Write(dest)\n",
    )
    assert [r.category for r in _live("render/link.go", LINK, head)] == [Category.XSS]


RETURN_URL = """package auth

func (e Endpoint) valid(returnUrl string) bool {
	if !strings.HasPrefix(returnUrl, e.external) {
		return false
	}
	return true
}
"""


def test_a_prefix_check_that_stood_before_no_sink_is_not_a_path_guard() -> None:
    head = RETURN_URL.replace(
        "\tif !strings.HasPrefix(returnUrl, e.external) {\n",
        "\tparsed, err := url.Parse(returnUrl)\n\tif err != nil || parsed.Host != e.external {\n",
    )
    assert _live("auth/valid.go", RETURN_URL, head) == []


def test_a_prefix_check_that_stood_before_a_file_sink_is_reported() -> None:
    base = RETURN_URL.replace(
        "\treturn true\n", "\t_, err := os.Open(returnUrl)\n\treturn err == nil\n"
    )
    head = base.replace(
        "\tif !strings.HasPrefix(returnUrl, e.external) {\n",
        '\tparsed, err := url.Parse(returnUrl)\n\tif err != nil || parsed.Host == "" {\n',
    )
    assert Category.PATH_TRAVERSAL in [r.category for r in _live("auth/valid.go", base, head)]


def test_a_value_read_through_a_safe_api_is_not_a_cleaned_value() -> None:
    """`.text()` is a safe way to write text, not a sanitiser: a value read with it and then
    written as HTML is not cleaned by it."""
    base = "function show(self) {\n  var text = self.text();\n  $('#m').html(_.escape(text));\n}\n"
    head = base.replace("_.escape(text)", "text")
    assert [r.category for r in _live("web/show.js", base, head)] == [Category.XSS]


def test_a_raising_helper_that_checks_another_parameter_is_reported() -> None:
    head = READ.replace(GUARD, "    check(root, path)\n") + (
        "\n\ndef check(root, path):\n" + GUARD.replace("path.startswith", "root.startswith")
    )
    assert [r.category for r in _live("app/files.py", READ, head)] == [Category.PATH_TRAVERSAL]


def test_a_raising_helper_called_in_a_branch_only_is_reported() -> None:
    head = READ.replace(GUARD, "    if strict:\n        check(root, path)\n") + (
        "\n\ndef check(root, path):\n" + GUARD.replace("name", "path")
    )
    assert [r.category for r in _live("app/files.py", READ, head)] == [Category.PATH_TRAVERSAL]


def test_a_containment_check_on_another_value_does_not_replace_clean() -> None:
    head = GO_OPEN.replace("filepath.Clean(name)", "name").replace(
        "\treturn os.Open(p)\n",
        '\tif !strings.HasPrefix(base, "/srv") {\n\t\treturn nil, errBadPath\n\t}\n'
        "\treturn os.Open(p)\n",
    )
    assert [r.category for r in _live("store/open.go", GO_OPEN, head)] == [Category.PATH_TRAVERSAL]


def test_the_same_escape_applied_to_another_value_is_reported() -> None:
    head = LINK.replace(
        "\t_, _ = w.Write(util.EscapeHTML(util.URLEscape(d, true)))\n",
        "\tdest := util.URLEscape(d, true)\n\t_, _ = w.Write(util.EscapeHTML(title))\n"
        "\t_, _ = w.Write(dest)\n",
    )
    assert Category.XSS in [r.category for r in _live("render/link.go", LINK, head)]


def test_a_kept_guard_is_a_silenced_hit_of_the_tool_and_never_a_finding() -> None:
    head = READ.replace("path.startswith(root + os.sep)", "path.startswith(root + os.path.sep)")
    request = ReviewRequest(
        change=parse_diff(_diff("app/files.py", READ, head)), contents={"app/files.py": head}
    )
    hits = RegressionTool().run_change(request, request.change.files)
    assert [h.silenced for h in hits] == [Silencing.KEPT_PROTECTION.value], hits
    assert "still dominates" in hits[0].message
    assert _reviewed("app/files.py", READ, head) == []
    gone = READ.replace(GUARD, "")
    assert [f.category for f in _reviewed("app/files.py", READ, gone)] == [Category.PATH_TRAVERSAL]


# --- a safe API or a protective argument is not kept by a copy elsewhere in the file ---------

SETTINGS = """import yaml


def read_settings(stream):
    return yaml.safe_load(stream)


def read_defaults(path):
    with open(path) as handle:
        return handle.read()
"""


def test_a_safe_api_swapped_on_the_same_value_is_reported_despite_a_copy_elsewhere() -> None:
    head = SETTINGS.replace("yaml.safe_load(stream)", "yaml.load(stream)").replace(
        "return handle.read()", "return yaml.safe_load(handle)"
    )
    found = _live("app/settings.py", SETTINGS, head)
    assert [(r.line, r.category) for r in found] == [
        (_line_of(head, "yaml.load(stream)"), Category.INSECURE_DESERIALIZATION)
    ], found


def test_a_safe_api_kept_on_its_value_beside_a_new_unsafe_call_is_left_to_other_rules() -> None:
    head = SETTINGS.replace("return handle.read()", "return yaml.load(handle)")
    assert _live("app/settings.py", SETTINGS, head) == []


LOADER = SETTINGS.replace("yaml.safe_load(stream)", "yaml.load(stream, Loader=yaml.SafeLoader)")


def test_a_protective_argument_dropped_is_reported_despite_a_copy_elsewhere() -> None:
    head = LOADER.replace("yaml.load(stream, Loader=yaml.SafeLoader)", "yaml.load(stream)").replace(
        "return handle.read()", "return yaml.load(handle, Loader=yaml.SafeLoader)"
    )
    found = _live("app/settings.py", LOADER, head)
    assert [(r.line, r.category) for r in found] == [
        (_line_of(head, "yaml.load(stream)"), Category.INSECURE_DESERIALIZATION)
    ], found


def test_a_protective_argument_flipped_is_reported_despite_a_copy_elsewhere() -> None:
    head = LOADER.replace("Loader=yaml.SafeLoader)", "Loader=yaml.Loader)").replace(
        "return handle.read()", "return yaml.load(handle, Loader=yaml.SafeLoader)"
    )
    assert [r.category for r in _live("app/settings.py", LOADER, head)] == [
        Category.INSECURE_DESERIALIZATION
    ]
