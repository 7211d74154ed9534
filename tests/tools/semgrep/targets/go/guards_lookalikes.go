// Guards and sinks of the Go request-flow rules (issue 22, CodeQL's Go models): each flagged
// function has a guarded twin that stays quiet; a look-alike guard, which proves nothing of the
// sink's kind or does not control the path to it, does not (issue 27).
package lookalikes

func fetchScheme(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "https" {
		http.Error(w, "https only", 400)
		return
	}
	// ruleid: go-ssrf-request-url
	resp, _ := http.Get(u.String())
	_ = resp
}

func fetchParsed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	if _, err := url.Parse(target); err != nil {
		return
	}
	// ruleid: go-ssrf-request-url
	resp, _ := http.Head(target)
	_ = resp
}

func fetchPattern(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	if !httpURL.MatchString(target) {
		return
	}
	// ruleid: go-ssrf-request-url
	resp, _ := http.Post(target, "text/plain", nil)
	_ = resp
}

func fetchIgnored(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("hook")
	isAllowedURL(target)
	// ruleid: go-ssrf-request-url
	resp, _ := http.PostForm(target, url.Values{})
	_ = resp
}

func fetchLogged(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("feed")
	if !slices.Contains(allowedFeeds, target) {
		log.Printf("unknown feed %s", target)
	}
	// ruleid: go-error-handling-discarded, go-ssrf-request-url
	req, _ := http.NewRequest("GET", target, nil)
	_ = req
}

func fetchAnd(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("image")
	if !isAllowedURL(target) && strict {
		return
	}
	// ruleid: go-ssrf-request-url
	resp, _ := client.Get(target)
	_ = resp
}

func fetchValidish(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("avatar")
	if !isValidJSON(target) {
		return
	}
	// ruleid: go-ssrf-request-url
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
	// ruleid: go-ssrf-request-url
	resp, _ := http.Get(target)
	_ = resp
}

func fetchHostListed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("api")
	u, err := url.Parse(target)
	if err != nil || !allowedHosts[u.Hostname()] {
		return
	}
	// ruleid: go-ssrf-request-url
	// ok: go-open-redirect-request-url, go-path-traversal-request-path
	resp, _ := http.Get(u.String())
	_ = resp
}

func nextParsed(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("next")
	u, err := url.Parse(to)
	if err != nil {
		to = "/"
	}
	// ruleid: go-open-redirect-request-url
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func nextScheme(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("return")
	if !strings.HasPrefix(to, "https://") {
		to = "/"
	}
	// ruleid: go-open-redirect-request-url
	http.Redirect(w, r, to, http.StatusFound)
}

func nextNamed(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("continue")
	invalidateCache(to)
	// ruleid: go-open-redirect-request-url
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func sanitizePath(p string) string {
	return p
}

func readNamed(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-error-handling-discarded, go-path-traversal-request-path
	data, _ := os.ReadFile(sanitizePath(r.FormValue("doc")))
	w.Write(data)
}

func readIgnored(w http.ResponseWriter, r *http.Request) {
	name := r.FormValue("file")
	filepath.IsLocal(name)
	// ruleid: go-error-handling-discarded, go-path-traversal-request-path
	data, _ := os.ReadFile(filepath.Join("/srv/files", name))
	w.Write(data)
}

func readRel(w http.ResponseWriter, r *http.Request) {
	rel, _ := filepath.Rel("/srv/files", r.FormValue("path"))
	// ruleid: go-error-handling-discarded, go-path-traversal-request-path
	data, _ := os.ReadFile(filepath.Join("/srv/files", rel))
	w.Write(data)
}

func readRoot(w http.ResponseWriter, r *http.Request) {
	p := filepath.Clean(r.FormValue("p"))
	if !strings.HasPrefix(p, "/") {
		return
	}
	// ruleid: go-path-traversal-request-path
	os.Remove(p)
}
