// Guards and sinks of the Go request-flow rules (issue 22, CodeQL's Go models): each flagged
// function has a guarded twin that stays quiet; a look-alike guard, which proves nothing of the
// sink's kind or does not control the path to it, does not (issue 27).
package files

func download(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	// ruleid: go-error-handling-discarded, go-path-traversal-request-path
	data, _ := os.ReadFile(filepath.Join("/srv/files", name))
	w.Write(data)
}

func downloadChecked(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	full := filepath.Join("/srv/files", filepath.Clean("/"+name))
	// ruleid: go-error-handling-discarded
	// ok: go-path-traversal-request-path
	data, _ := os.ReadFile(full)
	w.Write(data)
}

func downloadPrefix(w http.ResponseWriter, r *http.Request) {
	full := filepath.Clean(filepath.Join("/srv/files", r.FormValue("name")))
	if !strings.HasPrefix(full, "/srv/files/") {
		http.Error(w, "bad path", 400)
		return
	}
	// ruleid: go-error-handling-discarded
	// ok: go-path-traversal-request-path
	data, _ := os.ReadFile(full)
	w.Write(data)
}

func downloadLocal(c *gin.Context) {
	name := c.Query("name")
	if !filepath.IsLocal(name) {
		c.AbortWithStatus(400)
		return
	}
	// ok: go-path-traversal-request-path
	c.File(filepath.Join("/srv/files", name))
}

func downloadDots(c *gin.Context) {
	name := c.Param("name")
	if strings.Contains(name, "..") {
		c.AbortWithStatus(400)
		return
	}
	// ok: go-path-traversal-request-path
	c.FileAttachment(filepath.Join("/srv/files", name), name)
}

func upload(c *gin.Context) {
	name := c.PostForm("name")
	// ruleid: go-path-traversal-request-path
	os.WriteFile(filepath.Join("/srv/up", name), []byte(c.PostForm("body")), 0o600)
}

func uploadRel(c *gin.Context) {
	name := c.PostForm("name")
	rel, err := filepath.Rel("/srv/up", filepath.Join("/srv/up", name))
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	// ok: go-path-traversal-request-path
	os.WriteFile(filepath.Join("/srv/up", rel), []byte(c.PostForm("body")), 0o600)
}

func uploadSecure(c *gin.Context) {
	p, err := securejoin.SecureJoin("/srv/up", c.PostForm("name"))
	if err != nil {
		return
	}
	// ok: go-path-traversal-request-path
	os.MkdirAll(p, 0o700)
}

func removeChecked(c *gin.Context) {
	name := c.PostForm("name")
	if err := validateFileName(name); err != nil {
		return
	}
	// ruleid: go-path-traversal-request-path
	os.Remove(filepath.Join("/srv/up", name))
}

func readDoc(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("/srv/docs", name))
}

func serveDoc(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-path-traversal-request-path
	data, _ := readDoc(r.FormValue("doc"))
	// ruleid: go-xss-unescaped-html
	// ok: go-path-traversal-request-path
	w.Write(data)
}

func serveDocChecked(w http.ResponseWriter, r *http.Request) {
	doc := r.FormValue("doc")
	if !filepath.IsLocal(doc) {
		return
	}
	// ok: go-path-traversal-request-path
	data, _ := readDoc(doc)
	// ruleid: go-xss-unescaped-html
	w.Write(data)
}

func remove(c *gin.Context) {
	// ruleid: go-path-traversal-request-path
	os.Remove(filepath.Join("/srv/up", c.PostForm("name")))
}

func renameTo(c *gin.Context) {
	// ruleid: go-path-traversal-request-path
	os.Rename("/srv/up/tmp", filepath.Join("/srv/up", c.PostForm("name")))
}
