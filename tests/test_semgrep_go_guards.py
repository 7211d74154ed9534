"""Tests of the sanitisers, guards and reference-model sinks of the Go taint rules (issue 22):
containment checks, escaping, host checks and bound placeholders silence a flow, and the file
system, response-body and client sinks of CodeQL's Go models are reported. Each snippet was
written for these tests; each flagged function has a guarded twin that stays quiet. They run
through the real ``SemgrepTool`` and semgrep-core.
"""

from __future__ import annotations

import pytest
from semgrep_snippets import assert_reported, line_containing, run_snippets

from code_guard.models import Category
from code_guard.tools.base import ToolHit

FILES_GO = """\
package files

func download(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	data, _ := os.ReadFile(filepath.Join("/srv/files", name))
	w.Write(data)
}

func downloadChecked(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	full := filepath.Join("/srv/files", filepath.Clean("/"+name))
	data, _ := os.ReadFile(full)
	w.Write(data)
}

func downloadPrefix(w http.ResponseWriter, r *http.Request) {
	full := filepath.Clean(filepath.Join("/srv/files", r.FormValue("name")))
	if !strings.HasPrefix(full, "/srv/files/") {
		http.Error(w, "bad path", 400)
		return
	}
	data, _ := os.ReadFile(full)
	w.Write(data)
}

func downloadLocal(c *gin.Context) {
	name := c.Query("name")
	if !filepath.IsLocal(name) {
		c.AbortWithStatus(400)
		return
	}
	c.File(filepath.Join("/srv/files", name))
}

func downloadDots(c *gin.Context) {
	name := c.Param("name")
	if strings.Contains(name, "..") {
		c.AbortWithStatus(400)
		return
	}
	c.FileAttachment(filepath.Join("/srv/files", name), name)
}

func upload(c *gin.Context) {
	name := c.PostForm("name")
	os.WriteFile(filepath.Join("/srv/up", name), []byte(c.PostForm("body")), 0o600)
}

func uploadRel(c *gin.Context) {
	name := c.PostForm("name")
	rel, err := filepath.Rel("/srv/up", filepath.Join("/srv/up", name))
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	os.WriteFile(filepath.Join("/srv/up", rel), []byte(c.PostForm("body")), 0o600)
}

func uploadSecure(c *gin.Context) {
	p, err := securejoin.SecureJoin("/srv/up", c.PostForm("name"))
	if err != nil {
		return
	}
	os.MkdirAll(p, 0o700)
}

func removeChecked(c *gin.Context) {
	name := c.PostForm("name")
	if err := validateFileName(name); err != nil {
		return
	}
	os.Remove(filepath.Join("/srv/up", name))
}

func readDoc(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("/srv/docs", name))
}

func serveDoc(w http.ResponseWriter, r *http.Request) {
	data, _ := readDoc(r.FormValue("doc"))
	w.Write(data)
}

func serveDocChecked(w http.ResponseWriter, r *http.Request) {
	doc := r.FormValue("doc")
	if !filepath.IsLocal(doc) {
		return
	}
	data, _ := readDoc(doc)
	w.Write(data)
}

func remove(c *gin.Context) {
	os.Remove(filepath.Join("/srv/up", c.PostForm("name")))
}

func renameTo(c *gin.Context) {
	os.Rename("/srv/up/tmp", filepath.Join("/srv/up", c.PostForm("name")))
}
"""

UNTAR_GO = """\
package untar

import (
	"archive/tar"
	"archive/zip"
)

func extractTar(tr *tar.Reader, dest string) error {
	for {
		header, err := tr.Next()
		if err != nil {
			return err
		}
		target := filepath.Join(dest, header.Name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		f, _ := os.Create(target)
		io.Copy(f, tr)
	}
}

func extractTarChecked(tr *tar.Reader, dest string) error {
	for {
		header, err := tr.Next()
		if err != nil {
			return err
		}
		target := filepath.Join(dest, header.Name)
		if !strings.HasPrefix(target, filepath.Clean(dest)+string(os.PathSeparator)) {
			continue
		}
		f, _ := os.Create(target)
		io.Copy(f, tr)
	}
}

func writeEntry(header *tar.Header, dest string) error {
	return os.MkdirAll(filepath.Join(dest, header.Name), 0o755)
}

func writeEntrySecure(header *tar.Header, dest string) error {
	p, err := securejoin.SecureJoin(dest, header.Name)
	if err != nil {
		return err
	}
	return os.MkdirAll(p, 0o755)
}

func unzip(zr *zip.Reader, dest string) {
	for _, f := range zr.File {
		path := filepath.Join(dest, f.Name)
		out, _ := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, f.Mode())
		_ = out
	}
}

func unzipLocal(zr *zip.Reader, dest string) {
	for _, f := range zr.File {
		if !filepath.IsLocal(f.Name) {
			continue
		}
		out, _ := os.Create(filepath.Join(dest, f.Name))
		_ = out
	}
}

func zipEntry(f *zip.File, dest string) {
	os.WriteFile(filepath.Join(dest, f.Name), nil, 0o600)
}

func writeOut(filePath string, f *zip.File) error {
	out, err := os.OpenFile(filePath, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return out.Close()
}

func unzipAll(r *zip.Reader, dest string) error {
	for _, f := range r.File {
		if err := writeOut(filepath.Join(dest, f.Name), f); err != nil {
			return err
		}
	}
	return nil
}

func unzipGuarded(r *zip.Reader, dest string) error {
	for _, f := range r.File {
		target := filepath.Join(dest, f.Name)
		if !strings.HasPrefix(target, dest+string(os.PathSeparator)) {
			continue
		}
		if err := writeOut(target, f); err != nil {
			return err
		}
	}
	return nil
}

func extractDerived(tr *tar.Reader, dest string) error {
	for {
		header, err := tr.Next()
		if err != nil {
			return err
		}
		checked := filepath.Clean(filepath.Join(dest, header.Name))
		if !strings.HasPrefix(checked, dest) {
			continue
		}
		os.MkdirAll(filepath.Join(dest, filepath.Dir(header.Name)), 0o755)
	}
}

func rowsLoop(rows *sql.Rows) {
	for rows.Next() {
		var name string
		os.Open(name)
	}
}
"""

WEB_GO = """\
package web

func hello(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	w.Write([]byte("Hello " + name))
}

func helloEscaped(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	w.Write([]byte("Hello " + html.EscapeString(name)))
}

func helloText(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "Hello "+r.FormValue("name"))
}

func helloPrint(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "Hello %s", r.FormValue("name"))
}

func helloPolicy(w http.ResponseWriter, r *http.Request) {
	p := bluemonday.UGCPolicy()
	fmt.Fprintf(w, "Hello %s", p.Sanitize(r.FormValue("name")))
}

func fetch(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	resp, _ := http.Get(target)
	_ = resp
}

func fetchChecked(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	u, err := url.Parse(target)
	if err != nil || u.Host != "api.example.com" {
		http.Error(w, "host not allowed", 400)
		return
	}
	resp, _ := http.Get(u.String())
	_ = resp
}

func fetchFixedHost(w http.ResponseWriter, r *http.Request) {
	resp, _ := http.Get("https://api.example.com/items/" + r.FormValue("id"))
	_ = resp
}

func fetchAllowed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	if !isAllowedURL(target) {
		return
	}
	resp, _ := http.Post(target, "application/json", nil)
	_ = resp
}

func fetchScheme(w http.ResponseWriter, r *http.Request) {
	src := r.FormValue("src")
	if !strings.HasPrefix(src, "https://") {
		return
	}
	resp, _ := http.Head(src)
	_ = resp
}

func fetchPrefixed(w http.ResponseWriter, r *http.Request) {
	src := r.FormValue("src")
	if !strings.HasPrefix(src, "https://cdn.example.com/") {
		return
	}
	resp, _ := http.Head(src)
	_ = resp
}

func fetchForm(w http.ResponseWriter, r *http.Request) {
	resp, _ := http.PostForm(r.FormValue("callback"), url.Values{})
	_ = resp
}

func next(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("next")
	u, err := url.Parse(to)
	if err != nil || u.IsAbs() || u.Host != "" {
		to = "/"
	}
	http.Redirect(w, r, to, http.StatusFound)
}

func nextUnchecked(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("next")
	http.Redirect(w, r, to, http.StatusSeeOther)
}
"""

STORE_GO = """\
package store

func get(db *sql.DB, table, key string) {
	query := fmt.Sprintf("SELECT val FROM '%s' WHERE key='%s';", table, key)
	row := db.QueryRow(query)
	_ = row
}

func (s *Store) getBound(db *sql.DB, key string) {
	query := fmt.Sprintf("SELECT val FROM '%s' WHERE key=?;", s.table)
	stmt, _ := db.Prepare(query)
	row := stmt.QueryRow(key)
	_ = row
}

func fetchItem(id string) {
	resp, _ := http.Get("https://api.example.com/items/" + id)
	_ = resp
}
"""

MARKUP_GO = """\
package markup

func inputField(label, name string, value any, id string) string {
	if id != "" {
		id = " id=\\"" + id + "\\""
	}
	return fmt.Sprintf(`%v<input%v name="%v" value="%v">`, label, id, name, value)
}

func inputFieldEscaped(label, name string, id string) string {
	safeID, safeName := template.HTMLEscapeString(id), html.EscapeString(name)
	return fmt.Sprintf(`%v<input id="%v" name="%v">`, html.EscapeString(label), safeID, safeName)
}

func callbackPage(path, code string) string {
	return fmt.Sprintf("<script>post({path: %s, code: %s})</script>", jsStr(path), jsStr(code))
}

func logLine(user string) string {
	return fmt.Sprintf("user %s logged in", user)
}

func resize(p string) error {
	return exec.Command("powershell", []string{"-command", fmt.Sprintf("Resize %s", p)}...).Run()
}

func listVMs() error {
	return exec.Command("powershell", []string{"-command", "Get-VM"}...).Run()
}

func resizeBy(n int) error {
	return exec.Command("powershell", "-command", fmt.Sprintf("Resize $ENV:IMG %d", n)).Run()
}

func winRun(line string) error {
	return exec.Command("cmd", "/c", line).Run()
}
"""

LOOKALIKES_GO = """\
package lookalikes

var allowedHosts = map[string]bool{"api.example.com": true}

func fetchScheme(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "https" {
		http.Error(w, "https only", 400)
		return
	}
	resp, _ := http.Get(u.String())
	_ = resp
}

func fetchParsed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	if _, err := url.Parse(target); err != nil {
		return
	}
	resp, _ := http.Head(target)
	_ = resp
}

func fetchPattern(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	if !httpURL.MatchString(target) {
		return
	}
	resp, _ := http.Post(target, "text/plain", nil)
	_ = resp
}

func fetchIgnored(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("hook")
	isAllowedURL(target)
	resp, _ := http.PostForm(target, url.Values{})
	_ = resp
}

func fetchLogged(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("feed")
	if !slices.Contains(allowedFeeds, target) {
		log.Printf("unknown feed %s", target)
	}
	req, _ := http.NewRequest("GET", target, nil)
	_ = req
}

func fetchAnd(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("image")
	if !isAllowedURL(target) && strict {
		return
	}
	resp, _ := client.Get(target)
	_ = resp
}

func fetchValidish(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("avatar")
	if !isValidJSON(target) {
		return
	}
	resp, _ := client.Head(target)
	_ = resp
}

func fetchNested(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("doc")
	if !allowedDocs[target] {
		if strict {
			return
		}
	}
	resp, _ := http.Get(target)
	_ = resp
}

func fetchHostListed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("api")
	u, err := url.Parse(target)
	if err != nil || !allowedHosts[u.Hostname()] {
		return
	}
	resp, _ := http.Get(u.String())
	_ = resp
}

func nextParsed(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("next")
	u, err := url.Parse(to)
	if err != nil {
		to = "/"
	}
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func nextScheme(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("return")
	if !strings.HasPrefix(to, "https://") {
		to = "/"
	}
	http.Redirect(w, r, to, http.StatusFound)
}

func nextNamed(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("continue")
	invalidateCache(to)
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func sanitizePath(p string) string {
	return p
}

func readNamed(w http.ResponseWriter, r *http.Request) {
	data, _ := os.ReadFile(sanitizePath(r.FormValue("doc")))
	w.Write(data)
}

func readIgnored(w http.ResponseWriter, r *http.Request) {
	name := r.FormValue("file")
	filepath.IsLocal(name)
	data, _ := os.ReadFile(filepath.Join("/srv/files", name))
	w.Write(data)
}

func readRel(w http.ResponseWriter, r *http.Request) {
	rel, _ := filepath.Rel("/srv/files", r.FormValue("path"))
	data, _ := os.ReadFile(filepath.Join("/srv/files", rel))
	w.Write(data)
}

func readRoot(w http.ResponseWriter, r *http.Request) {
	p := filepath.Clean(r.FormValue("p"))
	if !strings.HasPrefix(p, "/") {
		return
	}
	os.Remove(p)
}
"""

SOURCES = {
    "lookalikes.go": LOOKALIKES_GO,
    "files.go": FILES_GO,
    "untar.go": UNTAR_GO,
    "web.go": WEB_GO,
    "store.go": STORE_GO,
    "markup.go": MARKUP_GO,
}


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[ToolHit]]:
    """Every hit of the bundled rules on each snippet file."""
    return run_snippets(tmp_path_factory.mktemp("semgrep-go-guards"), SOURCES)


def _line_containing(file: str, marker: str) -> int:
    return line_containing(SOURCES[file], marker)


@pytest.mark.parametrize(
    ("file", "marker", "rule", "category"),
    [
        ("files.go", 'os.ReadFile(filepath.Join("/srv/files", name))',
         "go-path-traversal-request-path", Category.PATH_TRAVERSAL),
        ("files.go", 'os.WriteFile(filepath.Join("/srv/up", name), []byte',
         "go-path-traversal-request-path", Category.PATH_TRAVERSAL),
        ("files.go", 'os.Remove(filepath.Join("/srv/up", c.PostForm',
         "go-path-traversal-request-path", Category.PATH_TRAVERSAL),
        # os.Rename's second path is a sink too
        ("files.go", 'os.Rename("/srv/up/tmp"', "go-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        # zip slip: tar headers from a reader, header parameters, zip entries
        ("untar.go", "os.MkdirAll(filepath.Dir(target), 0o755)",
         "go-path-traversal-archive-entry", Category.PATH_TRAVERSAL),
        ("untar.go", "return os.MkdirAll(filepath.Join(dest, header.Name), 0o755)",
         "go-path-traversal-archive-entry", Category.PATH_TRAVERSAL),
        ("untar.go", "os.OpenFile(path, os.O_CREATE", "go-path-traversal-archive-entry",
         Category.PATH_TRAVERSAL),
        ("untar.go", "os.WriteFile(filepath.Join(dest, f.Name), nil",
         "go-path-traversal-archive-entry", Category.PATH_TRAVERSAL),
        # a same-file helper above its caller that reads or writes its path parameter is a sink
        ("files.go", 'readDoc(r.FormValue("doc"))', "go-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ("untar.go", "writeOut(filepath.Join(dest, f.Name), f)", "go-path-traversal-archive-entry",
         Category.PATH_TRAVERSAL),
        # the join that builds the path, when its result is written unchecked
        ("untar.go", "target := filepath.Join(dest, header.Name)\n\t\tif err := os.MkdirAll",
         "go-path-traversal-archive-entry", Category.PATH_TRAVERSAL),
        # the response body: Go sniffs it, and reflected markup is served as HTML
        ("web.go", 'w.Write([]byte("Hello " + name))', "go-xss-unescaped-html", Category.XSS),
        ("web.go", 'fmt.Fprintf(w, "Hello %s", r.FormValue', "go-xss-unescaped-html",
         Category.XSS),
        ("web.go", "http.Get(target)", "go-ssrf-request-url", Category.SSRF),
        ("web.go", 'http.PostForm(r.FormValue("callback")', "go-ssrf-request-url", Category.SSRF),
        # a scheme check is no host check
        ("web.go", "http.Head(src)\n\t_ = resp\n}\n\nfunc fetchPrefixed", "go-ssrf-request-url",
         Category.SSRF),
        ("web.go", "http.Redirect(w, r, to, http.StatusSeeOther)", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("store.go", "db.QueryRow(query)", "go-sql-injection-formatted-query",
         Category.SQL_INJECTION),
        # markup formatted from the function's string parameters, unescaped
        ("markup.go", "fmt.Sprintf(`%v<input%v", "go-xss-html-format-parameter", Category.XSS),
        # powershell -command and cmd /c take one command line, as sh -c does
        ("markup.go", 'exec.Command("powershell", []string{"-command", fmt.Sprintf',
         "go-command-injection-shell", Category.COMMAND_INJECTION),
        ("markup.go", 'exec.Command("cmd", "/c", line)', "go-command-injection-shell",
         Category.COMMAND_INJECTION),
    ],
)  # fmt: skip
def test_unguarded_flow_is_reported(
    hits: dict[str, list[ToolHit]], file: str, marker: str, rule: str, category: Category
) -> None:
    assert_reported(hits[file], _line_containing(file, marker), rule, category)


@pytest.mark.parametrize(
    ("file", "marker"),
    [
        # filepath.Clean("/" + name) cannot climb above the root
        ("files.go", "data, _ := os.ReadFile(full)\n\tw.Write(data)\n}\n\nfunc downloadPrefix"),
        # strings.HasPrefix guard that returns
        ("files.go", "data, _ := os.ReadFile(full)\n\tw.Write(data)\n}\n\nfunc downloadLocal"),
        ("files.go", 'c.File(filepath.Join("/srv/files", name))'),  # filepath.IsLocal guard
        ("files.go", "c.FileAttachment("),  # strings.Contains(name, "..") guard
        ("files.go", 'os.WriteFile(filepath.Join("/srv/up", rel)'),  # filepath.Rel
        ("files.go", "os.MkdirAll(p, 0o700)"),  # securejoin.SecureJoin
        ("untar.go", "f, _ := os.Create(target)\n\t\tio.Copy(f, tr)\n\t}\n}\n\nfunc writeEntry"),
        ("untar.go", "return os.MkdirAll(p, 0o755)"),  # securejoin on a header's name
        ("untar.go", "out, _ := os.Create(filepath.Join(dest, f.Name))"),  # IsLocal guard
        ("untar.go", "os.Open(name)"),  # rows.Next() is no archive
        ("files.go", "data, _ := readDoc(doc)"),  # IsLocal guard before the helper
        ("untar.go", "if err := writeOut(target, f)"),  # HasPrefix guard before the helper
        # a guard on a path derived from the entry clears the entry (CodeQL's backtracking)
        ("untar.go", "os.MkdirAll(filepath.Join(dest, filepath.Dir(header.Name)), 0o755)"),
        ("web.go", 'html.EscapeString(name)'),
        ("web.go", 'io.WriteString(w, "Hello "+r.FormValue'),  # text/plain content type
        ("web.go", "p.Sanitize(r.FormValue"),  # bluemonday
        ("web.go", "http.Get(u.String())"),  # url.Parse and a host check
        ("web.go", 'http.Get("https://api.example.com/items/" + r.FormValue'),  # fixed host
        ("web.go", "http.Head(src)\n\t_ = resp\n}\n\nfunc fetchForm"),  # host prefix guard
        ("web.go", "http.Redirect(w, r, to, http.StatusFound)"),  # url.Parse, host checked
        ("markup.go", "fmt.Sprintf(`%v<input id="),  # escaped values
        ("markup.go", "jsStr(path)"),  # passed through an encoding helper
        ("markup.go", 'fmt.Sprintf("user %s logged in"'),  # no markup
        ("markup.go", '"-command", "Get-VM"'),  # a fixed command line
        ("markup.go", 'fmt.Sprintf("Resize $ENV:IMG %d", n)'),  # numbers only
        ("store.go", "db.Prepare(query)"),  # values bound, only the table name formatted
        ("store.go", 'http.Get("https://api.example.com/items/" + id)'),  # a request, no SQL
    ],
)  # fmt: skip
def test_guarded_flow_is_not_reported(
    hits: dict[str, list[ToolHit]], file: str, marker: str
) -> None:
    line = _line_containing(file, marker)
    security = [h for h in hits[file] if h.line == line and h.rule != "go-error-handling-discarded"]
    assert security == []


@pytest.mark.parametrize(
    ("marker", "rule", "category"),
    [
        # a scheme check, a parse that succeeds, a pattern of unknown strength
        ("http.Get(u.String())\n\t_ = resp\n}\n\nfunc fetchParsed", "go-ssrf-request-url",
         Category.SSRF),
        ("http.Head(target)", "go-ssrf-request-url", Category.SSRF),
        ('http.Post(target, "text/plain", nil)', "go-ssrf-request-url", Category.SSRF),
        # a check whose result is ignored, whose failing branch goes on, or `&&`-ed
        ("http.PostForm(target, url.Values{})", "go-ssrf-request-url", Category.SSRF),
        ('http.NewRequest("GET", target, nil)', "go-ssrf-request-url", Category.SSRF),
        ("client.Get(target)", "go-ssrf-request-url", Category.SSRF),
        ("http.Get(target)", "go-ssrf-request-url", Category.SSRF),
        # a name that only says valid
        ("client.Head(target)", "go-ssrf-request-url", Category.SSRF),
        ("http.Redirect(w, r, u.String(), http.StatusFound)", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("http.Redirect(w, r, to, http.StatusFound)", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("http.Redirect(w, r, to, http.StatusSeeOther)", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        # a helper named like a sanitiser is not one (its body returns the path unchanged)
        ('os.ReadFile(sanitizePath(r.FormValue("doc")))', "go-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ('os.ReadFile(filepath.Join("/srv/files", name))', "go-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ('os.ReadFile(filepath.Join("/srv/files", rel))', "go-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ("os.Remove(p)", "go-path-traversal-request-path", Category.PATH_TRAVERSAL),
    ],
)  # fmt: skip
def test_look_alike_guard_does_not_silence(
    hits: dict[str, list[ToolHit]], marker: str, rule: str, category: Category
) -> None:
    """A check that proves nothing about the sink's category, or does not control the path to
    it, leaves the flow reported (issue 27)."""
    file = "lookalikes.go"
    assert_reported(hits[file], _line_containing(file, marker), rule, category)


def test_parsed_host_in_an_allow_list_silences(hits: dict[str, list[ToolHit]]) -> None:
    """The parsed host looked up in an allow-list, as a later operand of `||` whose every failure
    returns."""
    marker = "http.Get(u.String())\n\t_ = resp\n}\n\nfunc nextParsed"
    line = _line_containing("lookalikes.go", marker)
    assert [h for h in hits["lookalikes.go"] if h.line == line] == []
