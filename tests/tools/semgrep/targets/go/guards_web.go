// Guards and sinks of the Go request-flow rules (issue 22, CodeQL's Go models): each flagged
// function has a guarded twin that stays quiet; a look-alike guard, which proves nothing of the
// sink's kind or does not control the path to it, does not (issue 27).
package web

func hello(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	// ruleid: go-xss-unescaped-html
	w.Write([]byte("Hello " + name))
}

func helloEscaped(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	// ok: go-open-redirect-request-url, go-ssrf-request-url, go-xss-unescaped-html
	w.Write([]byte("Hello " + html.EscapeString(name)))
}

func helloText(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	// ok: go-open-redirect-request-url, go-ssrf-request-url, go-xss-unescaped-html
	io.WriteString(w, "Hello "+r.FormValue("name"))
}

func helloPrint(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-xss-unescaped-html
	fmt.Fprintf(w, "Hello %s", r.FormValue("name"))
}

func helloPolicy(w http.ResponseWriter, r *http.Request) {
	p := bluemonday.UGCPolicy()
	// ok: go-open-redirect-request-url, go-ssrf-request-url, go-xss-unescaped-html
	fmt.Fprintf(w, "Hello %s", p.Sanitize(r.FormValue("name")))
}

func fetch(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	// ruleid: go-ssrf-request-url
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
	// ok: go-open-redirect-request-url, go-ssrf-request-url, go-xss-unescaped-html
	resp, _ := http.Get(u.String())
	_ = resp
}

func fetchFixedHost(w http.ResponseWriter, r *http.Request) {
	// ok: go-open-redirect-request-url, go-ssrf-request-url, go-xss-unescaped-html
	resp, _ := http.Get("https://api.example.com/items/" + r.FormValue("id"))
	_ = resp
}

func fetchAllowed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	if !isAllowedURL(target) {
		return
	}
	// ruleid: go-ssrf-request-url
	// ok: go-open-redirect-request-url, go-xss-unescaped-html
	resp, _ := http.Post(target, "application/json", nil)
	_ = resp
}

func fetchScheme(w http.ResponseWriter, r *http.Request) {
	src := r.FormValue("src")
	if !strings.HasPrefix(src, "https://") {
		return
	}
	// ruleid: go-ssrf-request-url
	resp, _ := http.Head(src)
	_ = resp
}

func fetchPrefixed(w http.ResponseWriter, r *http.Request) {
	src := r.FormValue("src")
	if !strings.HasPrefix(src, "https://cdn.example.com/") {
		return
	}
	// ok: go-open-redirect-request-url, go-ssrf-request-url, go-xss-unescaped-html
	resp, _ := http.Head(src)
	_ = resp
}

func fetchForm(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-ssrf-request-url
	resp, _ := http.PostForm(r.FormValue("callback"), url.Values{})
	_ = resp
}

func next(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("next")
	u, err := url.Parse(to)
	if err != nil || u.IsAbs() || u.Host != "" {
		to = "/"
	}
	// ok: go-open-redirect-request-url, go-ssrf-request-url, go-xss-unescaped-html
	http.Redirect(w, r, to, http.StatusFound)
}

func nextUnchecked(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("next")
	// ruleid: go-open-redirect-request-url
	http.Redirect(w, r, to, http.StatusSeeOther)
}
