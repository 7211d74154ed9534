"""Tests of the JavaScript and Go rules about values a request controls without meaning to:
its own URL and Referer, variables trusted by html/template, secrets with built-in defaults,
math/rand in code generators and query-builder SQL. Each rule hits its snippet, and each safe
look-alike (the fixed form of the same code) stays quiet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from code_guard.knowledge.mapping import lookup
from code_guard.models import Category
from code_guard.tools.base import ToolHit
from code_guard.tools.semgrep.tool import SemgrepTool

STATIC_JS = """\
const url = require("url");

function redirectToDirectory(request, reply) {
  const parsed = url.parse(request.raw.url);
  reply.redirect(301, parsed.pathname + "/" + (parsed.search || ""));
}

function redirectToDirectorySafely(request, reply) {
  reply.redirect(301, getRedirectUrl(request.raw.url));
}

module.exports = {
  back(alt) {
    const target = this.ctx.get("Referrer") || alt || "/";
    this.redirect(target);
  },

  backSafely(alt) {
    const referrer = this.ctx.get("Referrer");
    if (referrer && referrer.startsWith("/")) {
      this.redirect(referrer);
      return;
    }
    this.redirect(alt || "/");
  },
};
"""

SERVER_GO = """\
package server

import (
	"flag"
	"fmt"
	"html/template"
	"math/rand"
	"time"
)

func verificationCode(length int) string {
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	digits := make([]byte, length)
	for i := range digits {
		digits[i] = byte('0' + r.Intn(10))
	}
	return string(digits)
}

func retryDelay() time.Duration {
	return time.Duration(rand.Intn(100)) * time.Millisecond
}

func trustedURL(link string) template.URL {
	return template.URL(link)
}

func checkedURL(raw string) template.URL {
	if !hasAllowedScheme(raw) {
		return template.URL("#")
	}
	return template.URL(raw)
}

func registerFlags(f *flag.FlagSet, c *Config) {
	f.StringVar(&c.JwtSecret, "jwt-secret", "random key", "The secret that signs tokens")
	f.StringVar(&c.Host, "host", "localhost", "The address to listen on")
	f.StringVar(&c.APIToken, "api-token", "", "The token for the upstream API")
}

func addSlash(c echo.Context) error {
	u := c.Request().URL
	return c.Redirect(301, u.Path+"/")
}

func addSlashSafely(c echo.Context) error {
	u := c.Request().URL
	return c.Redirect(301, sanitizeURI(u.Path+"/"))
}

func filterBy(session *xorm.Session, field, value string) *xorm.Session {
	session = session.And(fmt.Sprintf("%s like ?", field), "%"+value+"%")
	return session.And("name like ?", "%"+value+"%")
}
"""

SOURCES = {"static.js": STATIC_JS, "server.go": SERVER_GO}


def line_of(file: str, marker: str) -> int:
    """The 1-based number of the one line of ``file``'s snippet that contains ``marker``."""
    lines = SOURCES[file].splitlines()
    found = [n for n, line in enumerate(lines, start=1) if marker in line]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[ToolHit]]:
    """Every hit of the bundled rules on each snippet file."""
    root: Path = tmp_path_factory.mktemp("semgrep-flows")
    for name, text in SOURCES.items():
        (root / name).write_text(text, encoding="utf-8")
    return {name: SemgrepTool(tuple(Category)).run(root, [name]) for name in SOURCES}


@pytest.mark.parametrize(
    ("file", "marker", "rule", "category"),
    [
        ("static.js", 'parsed.pathname + "/"', "js-open-redirect-request-location",
         Category.OPEN_REDIRECT),
        ("static.js", "this.redirect(target)", "js-open-redirect-request-location",
         Category.OPEN_REDIRECT),
        ("server.go", "rand.New(rand.NewSource(", "go-weak-crypto-math-rand-secret",
         Category.WEAK_CRYPTO),
        ("server.go", "return template.URL(link)", "go-xss-template-trusted-type",
         Category.XSS),
        ("server.go", '"jwt-secret", "random key"', "go-hardcoded-secret-flag-default",
         Category.HARDCODED_SECRET),
        ("server.go", 'c.Redirect(301, u.Path+"/")', "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        # a helper of another file whose name says it sanitises proves nothing (issue 27)
        ("server.go", "sanitizeURI(u.Path", "go-open-redirect-request-url",
         Category.OPEN_REDIRECT),
        ("server.go", 'fmt.Sprintf("%s like ?", field)', "go-sql-injection-formatted-query",
         Category.SQL_INJECTION),
    ],
)  # fmt: skip
def test_rule_hits_its_snippet(
    hits: dict[str, list[ToolHit]], file: str, marker: str, rule: str, category: Category
) -> None:
    line = line_of(file, marker)
    found = {(h.rule, h.line) for h in hits[file]}
    assert (rule, line) in found, f"{rule} not on line {line}; hits: {sorted(found)}"
    info = lookup("semgrep", rule)
    assert info is not None
    assert info.category is category


@pytest.mark.parametrize(
    ("file", "marker"),
    [
        ("static.js", "getRedirectUrl(request.raw.url)"),
        ("static.js", "this.redirect(referrer)"),
        ("server.go", "rand.Intn(100)"),
        ("server.go", 'template.URL("#")'),
        ("server.go", '"host", "localhost"'),
        ("server.go", '"api-token", ""'),
        ("server.go", 'session.And("name like ?"'),
    ],
)
def test_safe_look_alike_is_not_flagged(
    hits: dict[str, list[ToolHit]], file: str, marker: str
) -> None:
    line = line_of(file, marker)
    assert [h for h in hits[file] if h.line <= line <= h.end_line] == []
