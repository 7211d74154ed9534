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

SOURCES = {"routes.js": ROUTES_JS, "ui.js": UI_JS}


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
        ("routes.js", "res.redirect(next)"),  # isAllowedRedirect guard
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
