// Guards and sinks of the JavaScript/TypeScript request-flow rules (issue 22, CodeQL's JS
// models): each flagged route has a guarded twin that stays quiet; a look-alike guard, which
// proves nothing of the sink's kind or does not control the path to it, does not (issue 27).
const path = require("path");
const fs = require("fs");
const fse = require("fs-extra");
const axios = require("axios");

app.get("/file", (req, res) => {
  // ruleid: js-path-traversal-request-path
  res.sendFile(path.join(__dirname, "public", req.query.name));
});

app.get("/file-checked", (req, res) => {
  const root = path.resolve(__dirname, "public");
  const full = path.resolve(root, req.query.name);
  if (!full.startsWith(root + path.sep)) {
    return res.status(400).end();
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.sendFile(full);
});

app.get("/file-relative", (req, res) => {
  const root = path.resolve(__dirname, "public");
  const full = path.resolve(root, req.query.name);
  const rel = path.relative(root, full);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    return res.status(400).end();
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  fs.readFile(full, (err, data) => res.send(data));
});

app.post("/save", async (req, res) => {
  // ruleid: js-path-traversal-request-path
  await fse.outputFile(path.join("/srv/data", req.body.name), req.body.text);
  res.end();
});

app.post("/save-dots", async (req, res) => {
  const name = req.body.name;
  if (name.includes("..")) {
    throw new Error("bad name");
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  await fse.outputFile(path.join("/srv/data", name), req.body.text);
  res.end();
});

app.get("/hello", (req, res) => {
  // ruleid: js-xss-html-from-input
  res.end("<h1>Hello " + req.query.name + "</h1>");
});

app.get("/hello-escaped", (req, res) => {
  // ruleid: js-xss-html-from-input
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url
  res.end("<h1>Hello " + he.encode(req.query.name) + "</h1>");
});

app.get("/hello-text", (req, res) => {
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.end("Hello " + req.query.name);
});

app.get("/proxy", async (req, res) => {
  // ruleid: js-ssrf-request-url
  const r = await axios({ method: "get", url: req.query.target });
  res.json(r.data);
});

app.get("/proxy-checked", async (req, res) => {
  const raw = req.query.target;
  const target = new URL(raw);
  if (target.hostname !== "api.example.com") {
    return res.status(400).end();
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  const r = await axios.get(raw);
  res.json(r.data);
});

app.get("/proxy-allowed", async (req, res) => {
  const host = req.query.host;
  if (!ALLOWED_HOSTS.includes(host)) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-xss-html-from-input
  const r = await got(host);
  res.json(r.body);
});

app.get("/item", async (req, res) => {
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  const r = await fetch(`https://api.example.com/items/${req.params.id}`);
  res.json(await r.json());
});

app.get("/go", (req, res) => {
  // ruleid: js-open-redirect-request-url
  res.location(req.query.next).status(302).end();
});

app.get("/go-checked", (req, res) => {
  const next = req.query.next;
  if (!isAllowedRedirect(next)) {
    return res.redirect("/");
  }
  // ruleid: js-open-redirect-request-url
  // ok: js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.redirect(next);
});

app.get("/go-origin", (req, res) => {
  const next = req.query.next;
  const u = new URL(next, "https://app.example.com");
  if (u.origin !== "https://app.example.com") {
    return res.redirect("/");
  }
  // ok: js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.setHeader("Location", next);
  res.status(302).end();
});
