"""Tests of the sanitisers, guards and reference-model sinks of the JavaScript and TypeScript
taint rules (issue 22): containment checks, escaping, host and allow-list checks silence a
flow, and the fs-extra, response, HTTP client, Location and jQuery sinks of CodeQL's JS models
are reported. Each snippet was written for these tests; each flagged route has a guarded twin
that stays quiet. They run through the real ``SemgrepTool`` and semgrep-core.
"""

from __future__ import annotations

import pytest
from semgrep_snippets import assert_reported, line_containing, run_snippets

from code_guard.models import Category
from code_guard.tools.base import ToolHit

ROUTES_JS = """\
const path = require("path");
const fs = require("fs");
const fse = require("fs-extra");
const axios = require("axios");
const he = require("he");
const ALLOWED_HOSTS = ["api.example.com"];

app.get("/file", (req, res) => {
  res.sendFile(path.join(__dirname, "public", req.query.name));
});

app.get("/file-checked", (req, res) => {
  const root = path.resolve(__dirname, "public");
  const full = path.resolve(root, req.query.name);
  if (!full.startsWith(root + path.sep)) {
    return res.status(400).end();
  }
  res.sendFile(full);
});

app.get("/file-relative", (req, res) => {
  const root = path.resolve(__dirname, "public");
  const full = path.resolve(root, req.query.name);
  const rel = path.relative(root, full);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    return res.status(400).end();
  }
  fs.readFile(full, (err, data) => res.send(data));
});

app.post("/save", async (req, res) => {
  await fse.outputFile(path.join("/srv/data", req.body.name), req.body.text);
  res.end();
});

app.post("/save-dots", async (req, res) => {
  const name = req.body.name;
  if (name.includes("..")) {
    throw new Error("bad name");
  }
  await fse.outputFile(path.join("/srv/data", name), req.body.text);
  res.end();
});

app.get("/hello", (req, res) => {
  res.end("<h1>Hello " + req.query.name + "</h1>");
});

app.get("/hello-escaped", (req, res) => {
  res.end("<h1>Hello " + he.encode(req.query.name) + "</h1>");
});

app.get("/hello-text", (req, res) => {
  res.end("Hello " + req.query.name);
});

app.get("/proxy", async (req, res) => {
  const r = await axios({ method: "get", url: req.query.target });
  res.json(r.data);
});

app.get("/proxy-checked", async (req, res) => {
  const raw = req.query.target;
  const target = new URL(raw);
  if (target.hostname !== "api.example.com") {
    return res.status(400).end();
  }
  const r = await axios.get(raw);
  res.json(r.data);
});

app.get("/proxy-allowed", async (req, res) => {
  const host = req.query.host;
  if (!ALLOWED_HOSTS.includes(host)) {
    return res.status(400).end();
  }
  const r = await got(host);
  res.json(r.body);
});

app.get("/item", async (req, res) => {
  const r = await fetch(`https://api.example.com/items/${req.params.id}`);
  res.json(await r.json());
});

app.get("/go", (req, res) => {
  res.location(req.query.next).status(302).end();
});

app.get("/go-checked", (req, res) => {
  const next = req.query.next;
  if (!isAllowedRedirect(next)) {
    return res.redirect("/");
  }
  res.redirect(next);
});

app.get("/go-origin", (req, res) => {
  const next = req.query.next;
  const u = new URL(next, "https://app.example.com");
  if (u.origin !== "https://app.example.com") {
    return res.redirect("/");
  }
  res.setHeader("Location", next);
  res.status(302).end();
});
"""

UI_JS = """\
function showNotice(n) {
  $("#notices").append($('<div class="notice">' + n.message + "</div>"));
}

function showNoticeEscaped(n) {
  $("#notices").append($('<div class="notice">' + _.escape(n.message) + "</div>"));
}

function showDialog(message) {
  return $("<div>", { width: 400, html: message });
}

function showDialogText(message) {
  return $("<div>", { width: 400, text: message });
}

function showDialogSafe(message) {
  return $("<div>", { width: 400, html: DOMPurify.sanitize(message) });
}
"""

LOOKALIKES_JS = """\
const ALLOWED_HOSTS = new Set(["api.example.com"]);

app.get("/fetch-scheme", async (req, res) => {
  const url = req.query.url;
  if (!/^https?:\\/\\//.test(url)) {
    return res.status(400).end();
  }
  const r = await fetch(url);
  res.json(await r.json());
});

app.get("/fetch-parsed", async (req, res) => {
  const raw = req.query.url;
  const u = new URL(raw);
  if (u.protocol !== "https:") {
    return res.status(400).end();
  }
  const r = await axios.get(raw);
  res.json(r.data);
});

app.get("/fetch-ignored", async (req, res) => {
  const target = req.query.target;
  isAllowedHost(target);
  const r = await got(target);
  res.json(r.body);
});

app.get("/fetch-logged", async (req, res) => {
  const target = req.query.target;
  if (!ALLOWED_HOSTS.includes(target)) {
    console.warn("unknown host", target);
  }
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
  const r = await ky(target);
  res.json(await r.json());
});

app.get("/fetch-and", async (req, res) => {
  const target = req.query.target;
  if (!isAllowedHost(target) && req.query.strict) {
    return res.status(400).end();
  }
  const r = await needle.get(target);
  res.json(r.body);
});

app.get("/fetch-negated-or", async (req, res) => {
  const target = req.query.target;
  if (!(isAllowedHost(target) || req.query.debug)) {
    return res.status(400).end();
  }
  const r = await request.get(target);
  res.json(r.body);
});

app.get("/fetch-string-return", async (req, res) => {
  const target = req.query.target;
  if (!ALLOWED_HOSTS.includes(target)) {
    console.log("; return");
  }
  const r = await undici.request(target);
  res.json(r.body);
});

app.get("/fetch-validish", async (req, res) => {
  const target = req.query.target;
  if (!isValidJson(target)) {
    return res.status(400).end();
  }
  const r = await superagent.get(target);
  res.json(r.body);
});

app.get("/fetch-url-format", async (req, res) => {
  const target = req.query.target;
  if (!validator.isURL(target)) {
    return res.status(400).end();
  }
  const r = await https.get(target);
  res.json(r.body);
});

app.get("/fetch-host-or", async (req, res) => {
  const target = req.query.target;
  const u = new URL(target);
  if (u.protocol !== "https:" || u.hostname !== "api.example.com") {
    return res.status(400).end();
  }
  const r = await http.get(target);
  res.json(r.body);
});

app.get("/fetch-host-list", async (req, res) => {
  const target = req.query.target;
  if (!ALLOWED_HOSTS.has(new URL(target).hostname)) {
    throw new Error("host not allowed");
  }
  const r = await http.request(target);
  res.json(r.body);
});

app.get("/next-slash", (req, res) => {
  const next = req.query.next;
  if (!next.startsWith("/")) {
    return res.redirect("/");
  }
  res.redirect(next);
});

app.get("/next-scheme", (req, res) => {
  const next = req.query.next;
  const u = new URL(next, "https://app.example.com");
  if (u.protocol !== "https:") {
    return res.redirect("/");
  }
  res.location(next);
});

app.get("/next-origin-prefix", (req, res) => {
  const next = req.query.to;
  if (!next.startsWith("https://app.example.com/")) {
    return res.redirect("/");
  }
  res.redirect(302, next);
});

function sanitizeFileName(name) {
  return name;
}

app.get("/read-named", (req, res) => {
  res.sendFile(path.join("/srv/public", sanitizeFileName(req.query.doc)));
});

app.get("/hello-named", (req, res) => {
  res.send("<p>Hello " + escapeForDisplay(req.query.who) + "</p>");
});

app.get("/read-ignored", (req, res) => {
  const name = req.query.name;
  isSafePath(name);
  res.sendFile(path.join("/srv/public", name));
});

app.get("/read-slash", (req, res) => {
  const full = path.resolve(req.query.name);
  if (!full.startsWith("/")) {
    return res.status(400).end();
  }
  res.download(full);
});

app.get("/read-dots-logged", (req, res) => {
  const name = req.query.file;
  if (name.includes("..")) {
    console.warn("dots in", name);
  }
  fs.createReadStream(path.join("/srv/public", name)).pipe(res);
});

app.get("/read-pattern", (req, res) => {
  const name = req.query.doc;
  if (!/^[\\w-]+$/.test(name)) {
    return res.status(400).end();
  }
  res.sendFile(path.join("/srv/docs", name + ".pdf"));
});

app.get("/read-dotted-pattern", (req, res) => {
  const name = req.query.sheet;
  if (!/^[\\w.-]+$/.test(name)) {
    return res.status(400).end();
  }
  fs.readFileSync(path.join("/srv/sheets", name));
});
"""


SOURCES = {"routes.js": ROUTES_JS, "ui.js": UI_JS, "lookalikes.js": LOOKALIKES_JS}


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[ToolHit]]:
    """Every hit of the bundled rules on each snippet file."""
    return run_snippets(tmp_path_factory.mktemp("semgrep-js-guards"), SOURCES)


def _line_containing(file: str, marker: str) -> int:
    return line_containing(SOURCES[file], marker)


@pytest.mark.parametrize(
    ("file", "marker", "rule", "category"),
    [
        ("routes.js", 'res.sendFile(path.join(__dirname, "public", req.query.name))',
         "js-path-traversal-request-path", Category.PATH_TRAVERSAL),
        # fs-extra's outputFile: the path, not the data written
        ("routes.js", 'fse.outputFile(path.join("/srv/data", req.body.name)',
         "js-path-traversal-request-path", Category.PATH_TRAVERSAL),
        ("routes.js", 'res.end("<h1>Hello " + req.query.name', "js-xss-html-from-input",
         Category.XSS),
        ("routes.js", "axios({ method", "js-ssrf-request-url", Category.SSRF),
        ("routes.js", "res.location(req.query.next)", "js-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("ui.js", "' + n.message + \"</div>\"));", "js-xss-jquery-html-string",
         Category.XSS),
        ("ui.js", "{ width: 400, html: message }", "js-xss-jquery-html-property", Category.XSS),
    ],
)  # fmt: skip
def test_unguarded_flow_is_reported(
    hits: dict[str, list[ToolHit]], file: str, marker: str, rule: str, category: Category
) -> None:
    assert_reported(hits[file], _line_containing(file, marker), rule, category)


@pytest.mark.parametrize(
    ("file", "marker"),
    [
        ("routes.js", "res.sendFile(full)"),  # path.resolve + startsWith guard
        ("routes.js", "fs.readFile(full"),  # path.relative + ".." check
        ("routes.js", 'fse.outputFile(path.join("/srv/data", name)'),  # includes("..") guard
        ("routes.js", "he.encode(req.query.name)"),
        ("routes.js", 'res.end("Hello " + req.query.name)'),  # no markup: text
        ("routes.js", "axios.get(raw)"),  # new URL(x) and a hostname check
        ("routes.js", "got(host)"),  # allow-list includes
        ("routes.js", "fetch(`https://api.example.com/items/"),  # fixed host
        ("routes.js", 'res.setHeader("Location", next)'),  # new URL(x) and an origin check
        ("ui.js", "_.escape(n.message)"),
        ("ui.js", "{ width: 400, text: message }"),
        ("ui.js", "DOMPurify.sanitize(message)"),
    ],
)  # fmt: skip
def test_guarded_flow_is_not_reported(
    hits: dict[str, list[ToolHit]], file: str, marker: str
) -> None:
    line = _line_containing(file, marker)
    assert [h for h in hits[file] if h.line == line] == []


@pytest.mark.parametrize(
    ("marker", "rule", "category"),
    [
        # a scheme test proves nothing about the host
        ("fetch(url)", "js-ssrf-request-url", Category.SSRF),
        ("axios.get(raw)", "js-ssrf-request-url", Category.SSRF),
        # a host check whose result is ignored, or whose failing branch goes on
        ("got(target)", "js-ssrf-request-url", Category.SSRF),
        ("fetch(target)", "js-ssrf-request-url", Category.SSRF),
        ("ky(target)", "js-ssrf-request-url", Category.SSRF),
        ("undici.request(target)", "js-ssrf-request-url", Category.SSRF),
        # a check `&&`-ed with another test, or negated as a whole with an `||`
        ("needle.get(target)", "js-ssrf-request-url", Category.SSRF),
        ("request.get(target)", "js-ssrf-request-url", Category.SSRF),
        # a name that only says valid, and a URL format check
        ("superagent.get(target)", "js-ssrf-request-url", Category.SSRF),
        ("https.get(target)", "js-ssrf-request-url", Category.SSRF),
        # "/" lets //evil.example through; a protocol check keeps any host
        ("res.redirect(next);", "js-open-redirect-request-url", Category.OPEN_REDIRECT),
        ("res.location(next)", "js-open-redirect-request-url", Category.OPEN_REDIRECT),
        # a helper named like a sanitiser is not one (its body returns the name unchanged)
        ("sanitizeFileName(req.query.doc)", "js-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ("escapeForDisplay(req.query.who)", "js-xss-html-from-input", Category.XSS),
        ('res.sendFile(path.join("/srv/public", name))', "js-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ("res.download(full)", "js-path-traversal-request-path", Category.PATH_TRAVERSAL),
        ('fs.createReadStream(path.join("/srv/public", name))', "js-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ('fs.readFileSync(path.join("/srv/sheets", name))', "js-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
    ],
)  # fmt: skip
def test_look_alike_guard_does_not_silence(
    hits: dict[str, list[ToolHit]], marker: str, rule: str, category: Category
) -> None:
    """A check that proves nothing about the sink's category, or does not control the path to
    it, leaves the flow reported (issue 27)."""
    file = "lookalikes.js"
    assert_reported(hits[file], _line_containing(file, marker), rule, category)


@pytest.mark.parametrize(
    "marker",
    [
        "http.get(target)",  # host compared, in an `||` whose every failure returns
        "http.request(target)",  # the parsed host in an allow-list, else throw
        "res.redirect(302, next)",  # a constant origin and a slash
        'res.sendFile(path.join("/srv/docs", name + ".pdf"))',  # no "." nor "/" can pass
    ],
)
def test_host_and_containment_guard_silences(hits: dict[str, list[ToolHit]], marker: str) -> None:
    """A check that proves the host or the containment, on every path to the sink."""
    line = _line_containing("lookalikes.js", marker)
    assert [h for h in hits["lookalikes.js"] if h.line == line] == []
