// Request data to Go sinks (CodeQL's Go models), each beside a safe look-alike; a helper of
// another file whose name says it sanitises proves nothing (issue 27).
package api

func userByName(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	query := "SELECT id FROM users WHERE name = '"
	query += name + "'"
	// ruleid: go-sql-injection-request-taint
	rows, _ := db.Query(query)
	// ok: go-command-injection-request-taint, go-insecure-config-cors, go-open-redirect-request-url, go-path-traversal-request-path, go-sql-injection-request-taint, go-ssrf-request-url, go-xss-unescaped-html
	safe, _ := db.Query("SELECT id FROM users WHERE name = $1", name)
	_, _ = rows, safe
}

func runTool(c *gin.Context) {
	var in struct{ Tool string }
	if err := c.ShouldBindJSON(&in); err != nil {
		return
	}
	// ruleid: go-command-injection-request-taint
	out, _ := exec.Command(in.Tool, "--version").Output()
	// ruleid: go-error-handling-discarded
	lines, _ := strconv.Atoi(c.Query("lines"))
	// ok: go-command-injection-request-taint, go-insecure-config-cors, go-open-redirect-request-url, go-path-traversal-request-path, go-sql-injection-request-taint, go-ssrf-request-url, go-xss-unescaped-html
	log, _ := exec.Command("tail", "-n", strconv.Itoa(lines), "app.log").Output()
	c.String(200, string(out)+string(log))
}

func download(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-path-traversal-request-path
	f, _ := os.Open(filepath.Join("/srv/files", chi.URLParam(r, "name")))
	// ok: go-command-injection-request-taint, go-insecure-config-cors, go-open-redirect-request-url, go-path-traversal-request-path, go-sql-injection-request-taint, go-ssrf-request-url, go-xss-unescaped-html
	g, _ := os.Open(filepath.Join("/srv/files", filepath.Base(chi.URLParam(r, "name"))))
	_, _ = f, g
}

func preview(c *fiber.Ctx) error {
	// ruleid: go-ssrf-request-url
	resp, err := http.Get(c.Query("url"))
	if err != nil {
		return err
	}
	return c.SendStream(resp.Body)
}

func back(c echo.Context) error {
	// ruleid: go-open-redirect-request-url
	return c.Redirect(302, c.QueryParam("next"))
}

func greet(c echo.Context) error {
	// ruleid: go-xss-unescaped-html
	return c.HTML(200, "<h1>Hello "+c.QueryParam("name")+"</h1>")
}

func greetEscaped(c echo.Context) error {
	// ok: go-command-injection-request-taint, go-insecure-config-cors, go-open-redirect-request-url, go-path-traversal-request-path, go-sql-injection-request-taint, go-ssrf-request-url, go-xss-unescaped-html
	return c.HTML(200, "<h1>Hello "+html.EscapeString(c.QueryParam("name"))+"</h1>")
}

func trimSlash(c echo.Context) error {
	req := c.Request()
	u := req.URL
	path := u.Path
	path = path[:len(path)-1]
	// ruleid: go-open-redirect-request-url
	return c.Redirect(301, path)
}

func trimSlashSafely(c echo.Context) error {
	req := c.Request()
	u := req.URL
	path := u.Path
	path = path[:len(path)-1]
	// ruleid: go-open-redirect-request-url
	return c.Redirect(301, sanitizeURI(path))
}

func allowOrigin(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-insecure-config-cors
	w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
}

func allowListedOrigin(w http.ResponseWriter, r *http.Request) {
	// ok: go-command-injection-request-taint, go-insecure-config-cors, go-open-redirect-request-url, go-path-traversal-request-path, go-sql-injection-request-taint, go-ssrf-request-url, go-xss-unescaped-html
	w.Header().Set("Access-Control-Allow-Origin", allowed(r.Header.Get("Origin")))
}

func nextOf(r *http.Request) string {
	return r.FormValue("next")
}

func homeOf(r *http.Request) string {
	return "/home"
}

func login(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-open-redirect-request-url
	http.Redirect(w, r, nextOf(r), http.StatusFound)
}

func start(w http.ResponseWriter, r *http.Request) {
	// ok: go-command-injection-request-taint, go-insecure-config-cors, go-open-redirect-request-url, go-path-traversal-request-path, go-sql-injection-request-taint, go-ssrf-request-url, go-xss-unescaped-html
	http.Redirect(w, r, homeOf(r), http.StatusFound)
}

func callback(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("state")
	if !isValidRedirect(target) {
		target = "/"
	}
	// ruleid: go-open-redirect-request-url
	// ok: go-command-injection-request-taint, go-insecure-config-cors, go-path-traversal-request-path, go-sql-injection-request-taint, go-ssrf-request-url, go-xss-unescaped-html
	http.Redirect(w, r, target, http.StatusFound)
}
