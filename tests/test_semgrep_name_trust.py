"""A helper is not trusted for its name (issue 27): in the JavaScript taint rules a path check
or a host check counts only for what its code shows, not for a word in its name
(`isSafePath`, `isAllowedUrl`), and a method `escape` counts only on an escaping library; in
the Go rules, a response counts as another server's data only from an *http.Client by its type,
not from any receiver named client. An author can define `function isAllowedUrl(u) { return
true }` in the same pull request. Each look-alike below is reported; the real checks beside
them stay quiet."""

from __future__ import annotations

import pytest
from semgrep_snippets import assert_reported, line_containing, run_snippets

from code_guard.models import Category
from code_guard.tools.base import ToolHit

NAMED_JS = """\
const express = require("express");
const fs = require("fs");
const path = require("path");
const axios = require("axios");
const _ = require("lodash");
const app = express();

function isSafePath(p) {
  return true;
}

function isAllowedUrl(u) {
  return u.length > 0;
}

const cache = { escape: (s) => s };

app.get("/named-path", (req, res) => {
  const name = req.query.name;
  if (!isSafePath(name)) {
    return res.status(400).end();
  }
  res.sendFile(path.join("/srv/docs", name));
});

app.get("/imported-path", (req, res) => {
  const name = req.query.name;
  if (!utils.isInsideDir(name)) {
    throw new Error("bad path");
  }
  fs.readFile(path.join("/srv/notes", name), () => {});
});

app.get("/named-host", async (req, res) => {
  const target = req.query.url;
  if (!isAllowedUrl(target)) {
    return res.status(400).end();
  }
  const reply = await axios.get(target);
  res.json(reply.data);
});

app.get("/checked-host", async (req, res) => {
  const target = req.query.url;
  if (!validateTarget(target)) {
    return res.status(400).end();
  }
  await fetch(target);
});

app.get("/own-escape", (req, res) => {
  res.send(`<p>${cache.escape(req.query.name)}</p>`);
});

app.get("/real-escape", (req, res) => {
  res.send(`<p>${_.escape(req.query.name)}</p>`);
});

app.get("/real-path", (req, res) => {
  const name = req.query.name;
  if (name.includes("..")) {
    return res.status(400).end();
  }
  res.sendFile(path.join("/srv/real", name));
});

const ALLOWED = new Set(["https://api.example.com/v1"]);

app.get("/real-host", async (req, res) => {
  const target = req.query.url;
  if (!ALLOWED.has(target)) {
    return res.status(400).end();
  }
  await axios.post(target);
});
"""

SOURCES = {"named.js": NAMED_JS}


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[ToolHit]]:
    return run_snippets(tmp_path_factory.mktemp("semgrep-name-trust"), SOURCES)


@pytest.mark.parametrize(
    ("marker", "rule", "category"),
    [
        ('res.sendFile(path.join("/srv/docs", name))', "js-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ('fs.readFile(path.join("/srv/notes", name)', "js-path-traversal-request-path",
         Category.PATH_TRAVERSAL),
        ("axios.get(target)", "js-ssrf-request-url", Category.SSRF),
        ("await fetch(target)", "js-ssrf-request-url", Category.SSRF),
        ("cache.escape(req.query.name)", "js-xss-html-from-input", Category.XSS),
    ],
)  # fmt: skip
def test_a_check_named_for_what_it_proves_proves_nothing(
    hits: dict[str, list[ToolHit]], marker: str, rule: str, category: Category
) -> None:
    assert_reported(hits["named.js"], line_containing(NAMED_JS, marker), rule, category)


@pytest.mark.parametrize(
    "marker",
    [
        "_.escape(req.query.name)",
        'res.sendFile(path.join("/srv/real", name))',
        "axios.post(target)",
    ],
)
def test_a_real_check_or_escape_stays_quiet(hits: dict[str, list[ToolHit]], marker: str) -> None:
    line = line_containing(NAMED_JS, marker)
    assert [h for h in hits["named.js"] if h.line == line and h.rule.startswith("js-")] == []


CLIENTS_GO = """\
package proxy

type echoClient struct{}

func (c echoClient) Get(s string) string { return s }
func (c echoClient) Do(s string) string  { return s }

type server struct{ upstream echoClient }

var client = &http.Client{Timeout: 5 * time.Second}
var apiClient = echoClient{}

func proxyReal(w http.ResponseWriter, r *http.Request) {
	resp, _ := client.Get("https://api.example.com/v1?q=" + r.FormValue("q"))
	body, _ := io.ReadAll(resp.Body)
	w.Write(body)
}

func proxyParam(w http.ResponseWriter, r *http.Request, hc *http.Client) {
	resp, _ := hc.Get("https://api.example.com/v2?q=" + r.FormValue("q"))
	body, _ := io.ReadAll(resp.Body)
	w.Write(body)
}

func proxyDefault(w http.ResponseWriter, r *http.Request) {
	resp, _ := http.DefaultClient.Get("https://api.example.com/v3?q=" + r.FormValue("q"))
	body, _ := io.ReadAll(resp.Body)
	w.Write(body)
}

func echoLocal(w http.ResponseWriter, r *http.Request) {
	myClient := echoClient{}
	w.Write([]byte(myClient.Get(r.FormValue("a"))))
}

func echoGlobal(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(apiClient.Do(r.FormValue("b"))))
}

func (s *server) echoField(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(s.upstream.Get(r.FormValue("c"))))
}
"""


@pytest.fixture(scope="module")
def go_hits(tmp_path_factory: pytest.TempPathFactory) -> list[ToolHit]:
    return run_snippets(tmp_path_factory.mktemp("semgrep-go-clients"), {"proxy.go": CLIENTS_GO})[
        "proxy.go"
    ]


@pytest.mark.parametrize(
    "marker",
    [
        'myClient.Get(r.FormValue("a"))',
        'apiClient.Do(r.FormValue("b"))',
        's.upstream.Get(r.FormValue("c"))',
    ],
)
def test_a_receiver_named_client_is_not_another_server(go_hits: list[ToolHit], marker: str) -> None:
    line = line_containing(CLIENTS_GO, marker)
    assert_reported(go_hits, line, "go-xss-unescaped-html", Category.XSS)


@pytest.mark.parametrize("function", ["proxyReal", "proxyParam", "proxyDefault"])
def test_an_http_client_response_is_not_the_request(go_hits: list[ToolHit], function: str) -> None:
    start = line_containing(CLIENTS_GO, f"func {function}(")
    assert [
        h for h in go_hits if h.rule == "go-xss-unescaped-html" and start < h.line < start + 5
    ] == []
