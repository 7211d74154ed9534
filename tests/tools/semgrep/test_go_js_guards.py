"""No name trust left in the Go and JavaScript rules (issue 27): a check or a sanitiser counts
for what its code or its library shows, never for a word in a name the pull request chose.

Each group has its true negative (a real library call or check, silent), its true positive
(the bare flow, reported) and at least three look-alikes an author could write to pass the
gate, each still reported:

- Go checks named for what they prove (`isAllowedURL`, `isValidRedirect`, `validateFileName`)
  prove nothing; `filepath.IsLocal` and a parsed host in an allow-list do;
- a Go or JavaScript allow-list counts only as a literal of constants the file declares and
  does not write to, and a host only against a literal or a declared constant;
- a Go `*http.Client` is an SSRF sink by its type, whatever the author names it;
- a Go bluemonday policy counts by its type or its constructor, not a method named Sanitize;
- a Go function named like a reader (`loadPage`) is not a file read;
- JavaScript escaping libraries count through an import or a `const` require of their module,
  not a bare `escape` or an object the file builds itself;
- a JavaScript redirect check named `isSafeRedirect` proves nothing;
- `code = clean(code)` before `eval` excuses nothing; a value named `safeHtml`, a bare
  `sanitize()` or a home-made `DOMPurify` is no sanitised markup (a `const` holding imported
  DOMPurify's output, directly or through React's `useMemo`, is);
- Go's `template.URL(x)` after an `if` that calls something on `x`, or of `sanitize(x)`, is
  reported; a builder's column wrapped in the author's own `quote()` is SQL text;
- a discarded error of `json.Marshal` is reported unless the value's static type is one the
  encoder cannot fail on (a string, a bool, an integer).

They run through the real ``SemgrepTool`` and semgrep-core.
"""

from __future__ import annotations

import pytest
from semgrep_snippets import assert_reported, line_containing, run_snippets

from code_guard.findings import Category
from code_guard.tools.base import ToolHit

CHECKS_GO = """\
package web

func isAllowedURL(u string) bool { return true }

func isValidRedirect(u string) bool { return len(u) > 0 }

func validateFileName(n string) error { return nil }

var allowedHosts = map[string]bool{"api.example.com": true}

func fetchNamed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	if !isAllowedURL(target) {
		return
	}
	http.Post(target, "application/json", nil)
}

func fetchMethod(w http.ResponseWriter, r *http.Request, s *server) {
	target := r.FormValue("url")
	if !s.policy.IsAllowedHost(target) {
		return
	}
	http.Get(target)
}

func fetchParsedHost(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	u, err := url.Parse(target)
	if err != nil || !allowedHosts[u.Hostname()] {
		return
	}
	http.Head(u.String())
}

func redirectNamed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("next")
	if !isValidRedirect(target) {
		target = "/"
	}
	http.Redirect(w, r, target, http.StatusFound)
}

func redirectCheckedNamed(w http.ResponseWriter, r *http.Request) {
	to := r.FormValue("to")
	if !checkRedirectTarget(to) {
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func removeNamed(c *gin.Context) {
	name := c.PostForm("name")
	if err := validateFileName(name); err != nil {
		return
	}
	os.Remove(filepath.Join("/srv/up", name))
}

func removeVerified(c *gin.Context) {
	name := c.PostForm("name")
	if !verifyPathInside(name) {
		return
	}
	os.RemoveAll(filepath.Join("/srv/tmp", name))
}

var hc = &http.Client{Timeout: 5 * time.Second}

func fetchTypedClient(w http.ResponseWriter, r *http.Request, c *http.Client) {
	c.Get(r.FormValue("typed"))
	hc.Head(r.FormValue("global"))
}

func removeLocal(c *gin.Context) {
	name := c.PostForm("name")
	if !filepath.IsLocal(name) {
		return
	}
	os.Remove(filepath.Join("/srv/local", name))
}
"""

MARKUP_GO = """\
package markup

import "github.com/microcosm-cc/bluemonday"

var ugc = bluemonday.UGCPolicy()

type passThrough struct{}

func (passThrough) Sanitize(s string) string { return s }

var lookalike = passThrough{}

type server struct{ policy passThrough }

func loadPage(name string) string { return name }

func fetchData(r *http.Request) string { return r.FormValue("d") }

func bare(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(r.FormValue("bare")))
}

func typedPolicy(w http.ResponseWriter, r *http.Request, p *bluemonday.Policy) {
	w.Write([]byte(p.Sanitize(r.FormValue("typed"))))
}

func constructedPolicy(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(ugc.Sanitize(r.FormValue("ugc"))))
}

func localPolicy(w http.ResponseWriter, r *http.Request) {
	strict := bluemonday.StrictPolicy()
	w.Write([]byte(strict.Sanitize(r.FormValue("strict"))))
}

func ownSanitize(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(lookalike.Sanitize(r.FormValue("own"))))
}

func fieldSanitize(w http.ResponseWriter, r *http.Request, s *server) {
	w.Write([]byte(s.policy.Sanitize(r.FormValue("field"))))
}

func localSanitize(w http.ResponseWriter, r *http.Request) {
	policy := passThrough{}
	w.Write([]byte(policy.Sanitize(r.FormValue("local"))))
}

func namedReader(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(loadPage(r.FormValue("page"))))
}

func namedFetcher(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(fetchData(r)))
}

func fileContent(w http.ResponseWriter, r *http.Request) {
	page := r.FormValue("f")
	if !filepath.IsLocal(page) {
		return
	}
	data, _ := os.ReadFile(filepath.Join("/srv/pages", page))
	w.Write(data)
}

func trustedNamedCheck(link string) template.URL {
	if !hasAllowedScheme(link) {
		return template.URL("#")
	}
	return template.URL(link)
}

func trustedOwnSanitize(body string) template.HTML {
	return template.HTML(sanitize(body))
}

func trustedLength(body string) template.HTML {
	if len(strings.TrimSpace(body)) == 0 {
		return ""
	}
	return template.HTML(body)
}

func trustedEscaped(body string) template.HTML {
	return template.HTML(html.EscapeString(body))
}

func trustedPolicy(body string) template.HTML {
	return template.HTML(ugc.Sanitize(body))
}

type finder struct{ orderBy []string }

func (f *finder) OrderQuoted(column string) *finder {
	f.orderBy = append(f.orderBy, pq.QuoteIdentifier(column)+" ASC")
	return f
}

func (f *finder) OrderOwnQuote(column string) *finder {
	f.orderBy = append(f.orderBy, quote(column)+" DESC")
	return f
}

func (f *finder) OrderTrimmed(column string) *finder {
	f.orderBy = append(f.orderBy, strings.TrimSpace(column)+" ASC")
	return f
}
"""

JSON_GO = """\
package enc

type Name string

func (Name) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

func jsStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func flag(ok bool) []byte {
	b, _ := json.Marshal(ok)
	return b
}

func count(n int) []byte {
	b, _ := json.Marshal(n)
	return b
}

func anything(v interface{}) []byte {
	anyOut, _ := json.Marshal(v)
	return anyOut
}

func ratio(f float64) []byte {
	floatOut, _ := json.Marshal(f)
	return floatOut
}

func named(n Name) []byte {
	namedOut, _ := json.Marshal(n)
	return namedOut
}

func table(m map[string]interface{}) []byte {
	mapOut, _ := json.Marshal(m)
	return mapOut
}
"""

ESCAPES_JS = """\
const express = require("express");
const escapeHtml = require("escape-html");
const he = require("he");
const _ = require("lodash");
import { escape as lodashEscape } from "lodash";
import { escape as mine } from "./strings";
let swapped = require("escape-html");
swapped = (s) => s;
const entities = { encode: (s) => s };
const app = express();

function escape(s) {
  return s;
}

app.get("/bare", (req, res) => {
  res.send(`<p>${req.query.bare}</p>`);
});

app.get("/escape-html", (req, res) => {
  res.send(`<p>${escapeHtml(req.query.a)}</p>`);
});

app.get("/he", (req, res) => {
  res.send(`<p>${he.encode(req.query.b)}</p>`);
});

app.get("/lodash", (req, res) => {
  res.send(`<p>${_.escape(req.query.c)}</p>`);
});

app.get("/lodash-named", (req, res) => {
  res.send(`<p>${lodashEscape(req.query.d)}</p>`);
});

app.get("/own-escape", (req, res) => {
  res.send(`<p>${escape(req.query.e)}</p>`);
});

app.get("/local-module", (req, res) => {
  res.send(`<p>${mine(req.query.f)}</p>`);
});

app.get("/rebound", (req, res) => {
  res.send(`<p>${swapped(req.query.g)}</p>`);
});

app.get("/own-object", (req, res) => {
  res.send(`<p>${entities.encode(req.query.h)}</p>`);
});
"""

PLAIN_TS = """\
import express from "express";
import { escape } from "lodash";
const app = express();

app.get("/plain", (req, res) => {
  res.send(`<p>${escape(req.query.name)}</p>`);
});
"""

REPLACED_JS = """\
const express = require("express");
const _ = require("lodash");
_.escape = (s) => s;
const app = express();

app.get("/replaced", (req, res) => {
  res.send(`<p>${_.escape(req.query.name)}</p>`);
});
"""

REDIRECT_JS = """\
const express = require("express");
const app = express();

function isSafeRedirect(u) {
  return true;
}

app.get("/named", (req, res) => {
  const next = req.query.next;
  if (!isSafeRedirect(next)) {
    return res.redirect("/");
  }
  res.redirect(next);
});

app.get("/named-method", (req, res) => {
  const back = req.query.back;
  if (!urls.isLocalUrl(back)) {
    throw new Error("bad target");
  }
  res.redirect(back);
});

app.get("/named-validate", (req, res) => {
  const to = req.query.to;
  if (!validateRedirect(to)) {
    return res.status(400).end();
  }
  res.location(to);
});

app.get("/origin-checked", (req, res) => {
  const target = req.query.target;
  const parsed = new URL(target, "https://app.example.com");
  if (parsed.origin !== "https://app.example.com") {
    return res.redirect("/");
  }
  res.redirect(target);
});
"""

EVAL_JS = """\
function run(code) {
  code = clean(code);
  return eval(code);
}

function runChecked(code, strict) {
  if (strict) code = String(code);
  return eval(code);
}

function runBlock(code, strict) {
  if (strict) { code = code.trim(); }
  return new Function("data", code);
}

function deserializeFiltered(str) {
  str = sanitize(str);
  return new Function("return " + str)();
}
"""

MARKUP_JSX = """\
import DOMPurify from "dompurify";

const purifier = { sanitize: (s) => s };

export function Raw({ body }) {
  return <div dangerouslySetInnerHTML={{ __html: body }} />;
}

export function Purified({ body }) {
  return <div dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(body) }} />;
}

export function NamedSafe({ safeHtml }) {
  return <div dangerouslySetInnerHTML={{ __html: safeHtml }} />;
}

export function BareSanitize({ body }) {
  return <div dangerouslySetInnerHTML={{ __html: sanitize(body) }} />;
}

export function OwnPurifier({ body }) {
  return <div dangerouslySetInnerHTML={{ __html: purifier.sanitize(body) }} />;
}

export function setCleanMarkup(el, cleanMarkup) {
  el.innerHTML = cleanMarkup;
}
"""

ALLOW_GO = """\
package proxy

var allowedHosts = map[string]bool{"api.example.com": true}

var hosts = []string{"a.example.com", "b.example.com"}

var mirrors = []string{"m.example.com"}

const apiHost = "api.example.com"

func fetchListed(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("listed")
	if !allowedHosts[target] {
		return
	}
	http.Get(target)
}

func fetchSliced(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("sliced")
	if !slices.Contains(hosts, target) {
		return
	}
	http.Get(target)
}

func fetchConstHost(w http.ResponseWriter, r *http.Request) {
	u, err := url.Parse(r.FormValue("const"))
	if err != nil || u.Hostname() != apiHost {
		return
	}
	http.Get(u.String())
}

func fetchRuntimeList(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("runtime")
	allowed := map[string]bool{target: true}
	if !allowed[target] {
		return
	}
	http.Head(target)
}

func fetchWrittenList(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("written")
	allowedHosts[target] = true
	if !allowedHosts[target] {
		return
	}
	http.Post(target, "text/plain", nil)
}

func fetchReassignedList(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("reassigned")
	mirrors = []string{target}
	if !slices.Contains(mirrors, target) {
		return
	}
	http.PostForm(target, nil)
}

func fetchVariableHost(w http.ResponseWriter, r *http.Request) {
	want := r.FormValue("host")
	u, err := url.Parse(r.FormValue("variable"))
	if err != nil || u.Host != want {
		return
	}
	http.NewRequest("GET", u.String(), nil)
}
"""

BANNER_TSX = """\
import DOMPurify from "dompurify";
import React, { useMemo } from "react";

export function Notes({ notesHtml }) {
  const purified = useMemo(() => DOMPurify.sanitize(notesHtml), [notesHtml]);
  return <div dangerouslySetInnerHTML={{ __html: purified }} />;
}

export function Direct({ notesHtml }) {
  const direct = DOMPurify.sanitize(notesHtml);
  return <div dangerouslySetInnerHTML={{ __html: direct }} />;
}

export function Memoised({ notesHtml }) {
  const cleanHtml = useMemo(() => notesHtml, [notesHtml]);
  return <div dangerouslySetInnerHTML={{ __html: cleanHtml }} />;
}

export function Rebound({ notesHtml }) {
  let sanitized = DOMPurify.sanitize(notesHtml);
  sanitized = notesHtml;
  return <div dangerouslySetInnerHTML={{ __html: sanitized }} />;
}
"""

OWN_MEMO_TSX = """\
import DOMPurify from "dompurify";
import { useMemo as memo } from "react";
const useMemo = (make, deps) => window.name;

export function Notes({ notesHtml }) {
  const safeHtml = useMemo(() => DOMPurify.sanitize(notesHtml), [notesHtml]);
  return <div dangerouslySetInnerHTML={{ __html: safeHtml }} />;
}
"""

ALLOW_JS = """\
const express = require("express");
const axios = require("axios");
const ALLOWED = ["https://api.example.com/v1", "https://api.example.com/v2"];
const HOSTS = new Set(["api.example.com"]);
const API_HOST = "api.example.com";
const app = express();

app.get("/listed", async (req, res) => {
  const target1 = req.query.url;
  if (!ALLOWED.includes(target1)) {
    return res.status(400).end();
  }
  await axios.get(target1);
});

app.get("/host-set", async (req, res) => {
  const target2 = req.query.url;
  const u = new URL(target2);
  if (!HOSTS.has(u.hostname)) {
    return res.status(400).end();
  }
  await axios.get(target2);
});

app.get("/host-const", async (req, res) => {
  const target3 = req.query.url;
  const u = new URL(target3);
  if (u.hostname !== API_HOST) {
    return res.status(400).end();
  }
  await axios.get(target3);
});

app.get("/runtime", async (req, res) => {
  const target4 = req.query.url;
  const allowed = [target4];
  if (!allowed.includes(target4)) {
    return res.status(400).end();
  }
  await axios.get(target4);
});

app.get("/pushed", async (req, res) => {
  const target5 = req.query.url;
  ALLOWED.push(target5);
  if (!ALLOWED.includes(target5)) {
    return res.status(400).end();
  }
  await axios.get(target5);
});

app.get("/substring", async (req, res) => {
  const target6 = req.query.url;
  const prefix = "https://api.example.com/";
  if (!prefix.includes(target6)) {
    return res.status(400).end();
  }
  await axios.get(target6);
});

app.get("/var-host", async (req, res) => {
  const target7 = req.query.url;
  const want = req.query.host;
  const u = new URL(target7);
  if (u.hostname !== want) {
    return res.status(400).end();
  }
  await axios.get(target7);
});

app.get("/inline", async (req, res) => {
  const target8 = req.query.url;
  if (!HOSTS.has(new URL(target8).hostname)) {
    throw new Error("no");
  }
  await axios.get(target8);
});
"""

SOURCES = {
    "checks.go": CHECKS_GO,
    "allow.go": ALLOW_GO,
    "allow.js": ALLOW_JS,
    "markup.go": MARKUP_GO,
    "enc.go": JSON_GO,
    "escapes.js": ESCAPES_JS,
    "plain.ts": PLAIN_TS,
    "replaced.js": REPLACED_JS,
    "redirect.js": REDIRECT_JS,
    "run.js": EVAL_JS,
    "Markup.jsx": MARKUP_JSX,
    "Banner.tsx": BANNER_TSX,
    "OwnMemo.tsx": OWN_MEMO_TSX,
}


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[ToolHit]]:
    return run_snippets(tmp_path_factory.mktemp("go-js-guards"), SOURCES)


def _line(file: str, marker: str) -> int:
    return line_containing(SOURCES[file], marker)


@pytest.mark.parametrize(
    ("file", "marker", "rule", "category"),
    [
        # Go: a check known only by its name, as a predicate, a method or an error
        ("checks.go", 'http.Post(target, "application/json", nil)', "go-ssrf-request-url",
         Category.SSRF),
        ("checks.go", "http.Get(target)", "go-ssrf-request-url", Category.SSRF),
        ("checks.go", "http.Redirect(w, r, target, http.StatusFound)",
         "go-open-redirect-request-url", Category.OPEN_REDIRECT),
        ("checks.go", "http.Redirect(w, r, to, http.StatusSeeOther)",
         "go-open-redirect-request-url", Category.OPEN_REDIRECT),
        ("checks.go", 'os.Remove(filepath.Join("/srv/up", name))',
         "go-path-traversal-request-path", Category.PATH_TRAVERSAL),
        ("checks.go", 'os.RemoveAll(filepath.Join("/srv/tmp", name))',
         "go-path-traversal-request-path", Category.PATH_TRAVERSAL),
        # Go: an allow-list built at run time, written to or reassigned before the check, or a
        # host compared with a variable, proves nothing
        ("allow.go", "http.Head(target)", "go-ssrf-request-url", Category.SSRF),
        ("allow.go", 'http.Post(target, "text/plain", nil)', "go-ssrf-request-url",
         Category.SSRF),
        ("allow.go", "http.PostForm(target, nil)", "go-ssrf-request-url", Category.SSRF),
        ("allow.go", 'http.NewRequest("GET", u.String(), nil)', "go-ssrf-request-url",
         Category.SSRF),
        # JavaScript: the same for a collection built at run time, added to, a string's
        # substring test, and a host compared with a variable
        ("allow.js", "axios.get(target4)", "js-ssrf-request-url", Category.SSRF),
        ("allow.js", "axios.get(target5)", "js-ssrf-request-url", Category.SSRF),
        ("allow.js", "axios.get(target6)", "js-ssrf-request-url", Category.SSRF),
        ("allow.js", "axios.get(target7)", "js-ssrf-request-url", Category.SSRF),
        # Go: an *http.Client known by its type, whatever its name
        ("checks.go", 'c.Get(r.FormValue("typed"))', "go-ssrf-request-url", Category.SSRF),
        ("checks.go", 'hc.Head(r.FormValue("global"))', "go-ssrf-request-url", Category.SSRF),
        # Go: markup through no sanitiser, or through a method named Sanitize of the author's type
        ("markup.go", 'r.FormValue("bare")', "go-xss-unescaped-html", Category.XSS),
        ("markup.go", 'lookalike.Sanitize(r.FormValue("own"))', "go-xss-unescaped-html",
         Category.XSS),
        ("markup.go", 's.policy.Sanitize(r.FormValue("field"))', "go-xss-unescaped-html",
         Category.XSS),
        ("markup.go", 'policy.Sanitize(r.FormValue("local"))', "go-xss-unescaped-html",
         Category.XSS),
        # Go: a function named like a reader returns what it was given
        ("markup.go", 'loadPage(r.FormValue("page"))', "go-xss-unescaped-html", Category.XSS),
        ("markup.go", "w.Write([]byte(fetchData(r)))", "go-xss-unescaped-html", Category.XSS),
        # Go: a trusted template type after a check or a sanitiser known only by name
        ("markup.go", "return template.URL(link)", "go-xss-template-trusted-type", Category.XSS),
        ("markup.go", "template.HTML(sanitize(body))", "go-xss-template-trusted-type",
         Category.XSS),
        ("markup.go", "return template.HTML(body)", "go-xss-template-trusted-type", Category.XSS),
        # Go: a builder's column through the author's own quote or a trim
        ("markup.go", 'quote(column)+" DESC"', "go-sql-injection-builder-concat",
         Category.SQL_INJECTION),
        ("markup.go", 'strings.TrimSpace(column)+" ASC"', "go-sql-injection-builder-concat",
         Category.SQL_INJECTION),
        # JavaScript: escaping through no library, or a name the file binds to its own code
        ("escapes.js", "req.query.bare", "js-xss-html-from-input", Category.XSS),
        ("escapes.js", "escape(req.query.e)", "js-xss-html-from-input", Category.XSS),
        ("escapes.js", "mine(req.query.f)", "js-xss-html-from-input", Category.XSS),
        ("escapes.js", "swapped(req.query.g)", "js-xss-html-from-input", Category.XSS),
        ("escapes.js", "entities.encode(req.query.h)", "js-xss-html-from-input", Category.XSS),
        ("replaced.js", "_.escape(req.query.name)", "js-xss-html-from-input", Category.XSS),
        # JavaScript: a redirect check known only by its name
        ("redirect.js", "res.redirect(next);", "js-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("redirect.js", "res.redirect(back);", "js-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("redirect.js", "res.location(to);", "js-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        # JavaScript: no call makes a string safe to run
        ("run.js", "return eval(code);\n}\n\nfunction runChecked", "js-code-injection-eval",
         Category.CODE_INJECTION),
        ("run.js", "return eval(code);\n}\n\nfunction runBlock", "js-code-injection-eval",
         Category.CODE_INJECTION),
        ('run.js', 'new Function("data", code)', "js-code-injection-eval",
         Category.CODE_INJECTION),
        ("run.js", 'new Function("return " + str)', "js-insecure-deserialization-eval",
         Category.INSECURE_DESERIALIZATION),
        # JavaScript: raw markup named safe, or through a sanitiser of the author's own
        ("Markup.jsx", "__html: body }", "js-xss-raw-html-sink", Category.XSS),
        ("Markup.jsx", "__html: safeHtml", "js-xss-raw-html-sink", Category.XSS),
        ("Markup.jsx", "__html: sanitize(body)", "js-xss-raw-html-sink", Category.XSS),
        ("Markup.jsx", "__html: purifier.sanitize(body)", "js-xss-raw-html-sink", Category.XSS),
        ("Markup.jsx", "el.innerHTML = cleanMarkup", "js-xss-raw-html-sink", Category.XSS),
        # a const named clean that holds the raw value, a sanitised value rebound, and the
        # file's own useMemo beside React's imported under another name
        ("Banner.tsx", "__html: cleanHtml", "js-xss-raw-html-sink", Category.XSS),
        ("Banner.tsx", "__html: sanitized", "js-xss-raw-html-sink", Category.XSS),
        ("OwnMemo.tsx", "__html: safeHtml", "js-xss-raw-html-sink", Category.XSS),
    ],
)  # fmt: skip
def test_a_name_proves_nothing(
    hits: dict[str, list[ToolHit]], file: str, marker: str, rule: str, category: Category
) -> None:
    assert_reported(hits[file], _line(file, marker), rule, category)


@pytest.mark.parametrize(
    ("file", "marker"),
    [
        # Go: real checks and real sanitisers
        ("checks.go", "http.Head(u.String())"),
        ("checks.go", 'os.Remove(filepath.Join("/srv/local", name))'),
        ("allow.go", "http.Get(target)\n}\n\nfunc fetchSliced"),
        ("allow.go", "http.Get(target)\n}\n\nfunc fetchConstHost"),
        ("allow.go", "http.Get(u.String())\n}\n\nfunc fetchRuntimeList"),
        ("allow.js", "axios.get(target1)"),
        ("allow.js", "axios.get(target2)"),
        ("allow.js", "axios.get(target3)"),
        ("allow.js", "axios.get(target8)"),
        ("markup.go", 'p.Sanitize(r.FormValue("typed"))'),
        ("markup.go", 'ugc.Sanitize(r.FormValue("ugc"))'),
        ("markup.go", 'strict.Sanitize(r.FormValue("strict"))'),
        ("markup.go", "w.Write(data)"),
        ("markup.go", "template.HTML(html.EscapeString(body))"),
        ("markup.go", "template.HTML(ugc.Sanitize(body))"),
        ("markup.go", 'pq.QuoteIdentifier(column)+" ASC"'),
        # JavaScript: escaping libraries known by their import or const require
        ("escapes.js", "escapeHtml(req.query.a)"),
        ("escapes.js", "he.encode(req.query.b)"),
        ("escapes.js", "_.escape(req.query.c)"),
        ("escapes.js", "lodashEscape(req.query.d)"),
        ("plain.ts", "escape(req.query.name)"),
        ("redirect.js", "res.redirect(target);"),
        ("Markup.jsx", "DOMPurify.sanitize(body)"),
        ("Banner.tsx", "__html: purified"),
        ("Banner.tsx", "__html: direct"),
    ],
)  # fmt: skip
def test_a_real_check_or_library_stays_quiet(
    hits: dict[str, list[ToolHit]], file: str, marker: str
) -> None:
    line = _line(file, marker)
    found = [h for h in hits[file] if h.line == line and h.rule != "go-error-handling-discarded"]
    assert found == []


@pytest.mark.parametrize(
    "marker", ["anyOut, _ :=", "floatOut, _ :=", "namedOut, _ :=", "mapOut, _ :="]
)
def test_a_marshal_that_can_fail_keeps_its_discarded_error(
    hits: dict[str, list[ToolHit]], marker: str
) -> None:
    """An interface, a float (NaN), a type with its own MarshalJSON and a map of interfaces
    can all make json.Marshal fail."""
    assert_reported(
        hits["enc.go"], _line("enc.go", marker), "go-error-handling-discarded",
        Category.ERROR_HANDLING,
    )  # fmt: skip


@pytest.mark.parametrize("function", ["jsStr", "flag", "count"])
def test_a_marshal_that_cannot_fail_is_not_a_discarded_error(
    hits: dict[str, list[ToolHit]], function: str
) -> None:
    """json.Marshal of a string, a bool or an int cannot fail: the compiler holds the type."""
    start = _line("enc.go", f"func {function}(")
    assert [h for h in hits["enc.go"] if start < h.line <= start + 3] == []
