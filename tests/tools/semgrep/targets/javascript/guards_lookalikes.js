// Guards and sinks of the JavaScript/TypeScript request-flow rules (issue 22, CodeQL's JS
// models): each flagged route has a guarded twin that stays quiet; a look-alike guard, which
// proves nothing of the sink's kind or does not control the path to it, does not (issue 27).
app.get("/fetch-scheme", async (req, res) => {
  const url = req.query.url;
  if (!/^https?:\/\//.test(url)) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  const r = await fetch(url);
  res.json(await r.json());
});

app.get("/fetch-parsed", async (req, res) => {
  const raw = req.query.url;
  const u = new URL(raw);
  if (u.protocol !== "https:") {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  const r = await axios.get(raw);
  res.json(r.data);
});

app.get("/fetch-ignored", async (req, res) => {
  const target = req.query.target;
  isAllowedHost(target);
  // ruleid: js-ssrf-request-url
  const r = await got(target);
  res.json(r.body);
});

app.get("/fetch-logged", async (req, res) => {
  const target = req.query.target;
  if (!ALLOWED_HOSTS.includes(target)) {
    console.warn("unknown host", target);
  }
  // ruleid: js-ssrf-request-url
  const r = await fetch(target);
  res.json(await r.json());
});

app.get("/fetch-nested-return", async (req, res) => {
  const target = req.query.target;
  if (!ALLOWED_HOSTS.includes(target)) {
    if (req.query.strict) {
      return res.status(400).end();
    }
  }
  // ruleid: js-ssrf-request-url
  const r = await ky(target);
  res.json(await r.json());
});

app.get("/fetch-and", async (req, res) => {
  const target = req.query.target;
  if (!isAllowedHost(target) && req.query.strict) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  const r = await needle.get(target);
  res.json(r.body);
});

app.get("/fetch-negated-or", async (req, res) => {
  const target = req.query.target;
  if (!(isAllowedHost(target) || req.query.debug)) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  const r = await request.get(target);
  res.json(r.body);
});

app.get("/fetch-string-return", async (req, res) => {
  const target = req.query.target;
  if (!ALLOWED_HOSTS.includes(target)) {
    console.log("; return");
  }
  // ruleid: js-ssrf-request-url
  const r = await undici.request(target);
  res.json(r.body);
});

app.get("/fetch-validish", async (req, res) => {
  const target = req.query.target;
  if (!isValidJson(target)) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  const r = await superagent.get(target);
  res.json(r.body);
});

app.get("/fetch-url-format", async (req, res) => {
  const target = req.query.target;
  if (!validator.isURL(target)) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  const r = await https.get(target);
  res.json(r.body);
});

app.get("/fetch-host-or", async (req, res) => {
  const target = req.query.target;
  const u = new URL(target);
  if (u.protocol !== "https:" || u.hostname !== "api.example.com") {
    return res.status(400).end();
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  const r = await http.get(target);
  res.json(r.body);
});

app.get("/fetch-host-list", async (req, res) => {
  const target = req.query.target;
  if (!ALLOWED_HOSTS.has(new URL(target).hostname)) {
    throw new Error("host not allowed");
  }
  // ruleid: js-ssrf-request-url
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-xss-html-from-input
  const r = await http.request(target);
  res.json(r.body);
});

app.get("/next-slash", (req, res) => {
  const next = req.query.next;
  if (!next.startsWith("/")) {
    return res.redirect("/");
  }
  // ruleid: js-open-redirect-request-url
  res.redirect(next);
});

app.get("/next-scheme", (req, res) => {
  const next = req.query.next;
  const u = new URL(next, "https://app.example.com");
  if (u.protocol !== "https:") {
    return res.redirect("/");
  }
  // ruleid: js-open-redirect-request-url
  res.location(next);
});

app.get("/next-origin-prefix", (req, res) => {
  const next = req.query.to;
  if (!next.startsWith("https://app.example.com/")) {
    return res.redirect("/");
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.redirect(302, next);
});

function sanitizeFileName(name) {
  return name;
}

app.get("/read-named", (req, res) => {
  // ruleid: js-path-traversal-request-path
  res.sendFile(path.join("/srv/public", sanitizeFileName(req.query.doc)));
});

app.get("/hello-named", (req, res) => {
  // ruleid: js-xss-html-from-input
  res.send("<p>Hello " + escapeForDisplay(req.query.who) + "</p>");
});

app.get("/read-ignored", (req, res) => {
  const name = req.query.name;
  isSafePath(name);
  // ruleid: js-path-traversal-request-path
  res.sendFile(path.join("/srv/public", name));
});

app.get("/read-slash", (req, res) => {
  const full = path.resolve(req.query.name);
  if (!full.startsWith("/")) {
    return res.status(400).end();
  }
  // ruleid: js-path-traversal-request-path
  res.download(full);
});

app.get("/read-dots-logged", (req, res) => {
  const name = req.query.file;
  if (name.includes("..")) {
    console.warn("dots in", name);
  }
  // ruleid: js-path-traversal-request-path
  fs.createReadStream(path.join("/srv/public", name)).pipe(res);
});

app.get("/read-pattern", (req, res) => {
  const name = req.query.doc;
  if (!/^[\w-]+$/.test(name)) {
    return res.status(400).end();
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.sendFile(path.join("/srv/docs", name + ".pdf"));
});

app.get("/read-dotted-pattern", (req, res) => {
  const name = req.query.sheet;
  if (!/^[\w.-]+$/.test(name)) {
    return res.status(400).end();
  }
  // ruleid: js-blocking-io-sync-fs-in-handler, js-path-traversal-request-path
  fs.readFileSync(path.join("/srv/sheets", name));
});
