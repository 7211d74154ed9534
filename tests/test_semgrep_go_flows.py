"""Tests of the Go rules for request data from net/http, gorilla/mux, chi, gin, echo and fiber
reaching SQL, shells, files, outbound requests and redirects, and of query builders, built-in
credentials, weak key derivation and CORS. They run through the real ``SemgrepTool`` and
semgrep-core: each rule hits its snippet, and each safe look-alike stays quiet.
"""

from __future__ import annotations

import pytest
from semgrep_snippets import assert_reported, run_snippets

from code_guard.models import Category
from code_guard.tools.base import ToolHit

HANDLERS_GO = """\
package api

func userByName(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	query := "SELECT id FROM users WHERE name = '"
	query += name + "'"
	rows, _ := db.Query(query)
	safe, _ := db.Query("SELECT id FROM users WHERE name = $1", name)
	_, _ = rows, safe
}

func runTool(c *gin.Context) {
	var in struct{ Tool string }
	if err := c.ShouldBindJSON(&in); err != nil {
		return
	}
	out, _ := exec.Command(in.Tool, "--version").Output()
	lines, _ := strconv.Atoi(c.Query("lines"))
	log, _ := exec.Command("tail", "-n", strconv.Itoa(lines), "app.log").Output()
	c.String(200, string(out)+string(log))
}

func download(w http.ResponseWriter, r *http.Request) {
	f, _ := os.Open(filepath.Join("/srv/files", chi.URLParam(r, "name")))
	g, _ := os.Open(filepath.Join("/srv/files", filepath.Base(chi.URLParam(r, "name"))))
	_, _ = f, g
}

func preview(c *fiber.Ctx) error {
	resp, err := http.Get(c.Query("url"))
	if err != nil {
		return err
	}
	return c.SendStream(resp.Body)
}

func back(c echo.Context) error {
	return c.Redirect(302, c.QueryParam("next"))
}

func greet(c echo.Context) error {
	return c.HTML(200, "<h1>Hello "+c.QueryParam("name")+"</h1>")
}

func greetEscaped(c echo.Context) error {
	return c.HTML(200, "<h1>Hello "+html.EscapeString(c.QueryParam("name"))+"</h1>")
}

func trimSlash(c echo.Context) error {
	req := c.Request()
	u := req.URL
	path := u.Path
	path = path[:len(path)-1]
	return c.Redirect(301, path)
}

func trimSlashSafely(c echo.Context) error {
	req := c.Request()
	u := req.URL
	path := u.Path
	path = path[:len(path)-1]
	return c.Redirect(301, sanitizeURI(path))
}

func allowOrigin(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
}

func allowListedOrigin(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", allowed(r.Header.Get("Origin")))
}

func nextOf(r *http.Request) string {
	return r.FormValue("next")
}

func homeOf(r *http.Request) string {
	return "/home"
}

func login(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, nextOf(r), http.StatusFound)
}

func start(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, homeOf(r), http.StatusFound)
}

func callback(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("state")
	if !isValidRedirect(target) {
		target = "/"
	}
	http.Redirect(w, r, target, http.StatusFound)
}
"""

STORE_GO = """\
package store

type QueryBuilder struct {
	sortExpressions []string
	conditions      []string
	args            []any
}

func (q *QueryBuilder) WithSorting(column, direction string) *QueryBuilder {
	q.sortExpressions = append(q.sortExpressions, column+" "+direction)
	return q
}

func (q *QueryBuilder) WithQuotedSorting(column string) *QueryBuilder {
	q.sortExpressions = append(q.sortExpressions, pq.QuoteIdentifier(column)+" ASC")
	return q
}

func (q *QueryBuilder) WithTitle(title string) *QueryBuilder {
	q.conditions = append(q.conditions, fmt.Sprintf("title = $%d", len(q.args)+1))
	q.args = append(q.args, title)
	return q
}

func createAdmin() User {
	return User{
		Username: "admin",
		Hash:     "$2a$10$IYkPp0.QsM81lYYPrQx6W.U6oQGw7wMpozrKhKAHUBVL4mkm/EvAS",
	}
}

func createOperator(password string) Account {
	return Account{Name: "operator", Password: "changeme"}
}

func createUser(password string) Account {
	return Account{Name: "user", Password: password}
}

func checksum() File {
	return File{Name: "a.txt", Hash: "d41d8cd98f00b204e9800998ecf8427e"}
}

func deriveKey(password, salt []byte) []byte {
	return pbkdf2.Key(password, salt, 4096, 32, sha256.New)
}

func deriveKeyStrongly(password, salt []byte) []byte {
	return pbkdf2.Key(password, salt, 600000, 32, sha256.New)
}

func corsConfig() cors.Config {
	return cors.Config{AllowAllOrigins: true, AllowCredentials: true}
}

func corsListedConfig() cors.Config {
	return cors.Config{AllowOrigins: []string{"https://app.example"}, AllowCredentials: true}
}
"""

SOURCES = {"handlers.go": HANDLERS_GO, "store.go": STORE_GO}


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[ToolHit]]:
    """Every hit of the bundled rules on each snippet file."""
    return run_snippets(tmp_path_factory.mktemp("semgrep-go-flows"), SOURCES)


@pytest.mark.parametrize(
    ("file", "marker", "rule", "category"),
    [
        ("handlers.go", "db.Query(query)", "go-sql-injection-request-taint",
         Category.SQL_INJECTION),
        ("handlers.go", "exec.Command(in.Tool", "go-command-injection-request-taint",
         Category.COMMAND_INJECTION),
        ("handlers.go", 'filepath.Join("/srv/files", chi.URLParam',
         "go-path-traversal-request-path", Category.PATH_TRAVERSAL),
        ("handlers.go", 'http.Get(c.Query("url"))', "go-ssrf-request-url", Category.SSRF),
        ("handlers.go", 'c.Redirect(302, c.QueryParam("next"))', "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("handlers.go", 'c.HTML(200, "<h1>Hello "+c.QueryParam', "go-xss-unescaped-html",
         Category.XSS),
        ("handlers.go", "c.Redirect(301, path)", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("handlers.go", 'r.Header.Get("Origin"))\n}\n\nfunc allowListed', "go-insecure-config-cors",
         Category.INSECURE_CONFIG),
        # a helper of another file whose name says it sanitises proves nothing (issue 27)
        ("handlers.go", "sanitizeURI(path)", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        # a same-file helper that returns request data is a source
        ("handlers.go", "nextOf(r), http.StatusFound", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("store.go", 'column+" "+direction', "go-sql-injection-builder-concat",
         Category.SQL_INJECTION),
        ("store.go", 'Hash:     "$2a$10$', "go-hardcoded-secret-default-credential",
         Category.HARDCODED_SECRET),
        ("store.go", 'Password: "changeme"', "go-hardcoded-secret-default-credential",
         Category.HARDCODED_SECRET),
        ("store.go", "salt, 4096, 32", "go-weak-crypto-pbkdf2-low-iterations",
         Category.WEAK_CRYPTO),
        ("store.go", "AllowAllOrigins: true, AllowCredentials: true", "go-insecure-config-cors",
         Category.INSECURE_CONFIG),
    ],
)  # fmt: skip
def test_rule_hits_its_snippet(
    hits: dict[str, list[ToolHit]], file: str, marker: str, rule: str, category: Category
) -> None:
    assert_reported(hits[file], _line_containing(file, marker), rule, category)


def _line_containing(file: str, marker: str) -> int:
    """The line where ``marker`` starts, for markers that span lines to be unique."""
    text = SOURCES[file]
    assert text.count(marker) == 1, f"marker {marker!r} is not unique"
    return text[: text.index(marker)].count("\n") + 1


@pytest.mark.parametrize(
    ("file", "marker"),
    [
        ("handlers.go", 'db.Query("SELECT id FROM users WHERE name = $1", name)'),
        ("handlers.go", 'exec.Command("tail"'),
        ("handlers.go", "filepath.Base(chi.URLParam"),
        ("handlers.go", "html.EscapeString(c.QueryParam"),
        ("handlers.go", "allowed(r.Header.Get"),
        ("handlers.go", "homeOf(r), http.StatusFound"),
        ("store.go", "pq.QuoteIdentifier(column)"),
        ("store.go", 'fmt.Sprintf("title = $%d"'),
        ("store.go", "Password: password"),
        ("store.go", 'Hash: "d41d8cd98f00b204e9800998ecf8427e"'),
        ("store.go", "salt, 600000, 32"),
        ("store.go", 'AllowOrigins: []string{"https://app.example"}'),
    ],
)  # fmt: skip
def test_safe_look_alike_is_not_flagged(
    hits: dict[str, list[ToolHit]], file: str, marker: str
) -> None:
    line = _line_containing(file, marker)
    assert [h for h in hits[file] if h.line <= line <= h.end_line] == []
