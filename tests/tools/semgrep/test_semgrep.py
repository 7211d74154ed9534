"""Tests of the bundled semgrep rules, run through the real ``SemgrepTool`` and semgrep-core.

Each language's snippets share one file, so the whole module costs a dozen semgrep-core runs
(about 0.15 s each): every vulnerable snippet must be hit by its rule on its line, and every
safe twin must be hit by nothing. Lines are found by a marker in the snippet, never by number.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from code_guard.errors import ToolError
from code_guard.findings import Category
from code_guard.knowledge.catalogue import table
from code_guard.knowledge.mapping import UNPARSABLE_RULE, lookup
from code_guard.knowledge.records import RuleRecord
from code_guard.tools.base import ToolHit, run_process
from code_guard.tools.secrets.tool import SecretsTool
from code_guard.tools.semgrep.command import rules_file, semgrep_core
from code_guard.tools.semgrep.tool import SemgrepTool, run_rules

RULES_DIR = rules_file("python.yml").parent
RULE_FILES = sorted(RULES_DIR.glob("*.yml"))
assert len(RULE_FILES) == 3, RULES_DIR  # a moved folder must not make these tests vacuous
ALL = tuple(Category)

# --- (1) every rule is mapped, and every mapping names a rule ------------------------------


def _rule_ids() -> list[str]:
    ids: list[str] = []
    for path in RULE_FILES:
        ids += [str(rule["id"]) for rule in yaml.safe_load(path.read_text("utf-8"))["rules"]]
    return ids


def test_the_rules_directory_is_the_one_the_tool_loads() -> None:
    assert {p.name for p in RULE_FILES} == {"javascript.yml", "go.yml", "python.yml"}
    assert all(rules_file(p.name).samefile(p) for p in RULE_FILES)


def test_rule_ids_are_unique() -> None:
    ids = _rule_ids()
    assert len(ids) == len(set(ids))


def test_every_rule_has_a_record_and_every_record_is_a_rule() -> None:
    ids = set(_rule_ids())
    semgrep = table("semgrep")
    assert semgrep is not None
    assert sorted(ids - semgrep.rules.keys()) == [], "rules without a record"
    assert sorted(semgrep.rules.keys() - ids) == [UNPARSABLE_RULE], "records of no rule"
    assert all(isinstance(semgrep.rules[rule], RuleRecord) for rule in ids), "a rule is ignored"


# --- (2) semgrep-core loads each rules file ----------------------------------------------

TINY = {
    "tiny.js": "const answer = 42;\nmodule.exports = { answer };\n",
    "tiny.ts": "export const answer: number = 42;\n",
    "tiny.tsx": "export const Answer = (): JSX.Element => <span>{42}</span>;\n",
    "tiny.go": "package main\n\nfunc main() {}\n",
    "tiny.py": "ANSWER = 42\n",
}


LANGUAGES = {
    ".js": ("js", "javascript.yml"),
    ".ts": ("ts", "javascript.yml"),
    ".tsx": ("ts", "javascript.yml"),
    ".go": ("go", "go.yml"),
    ".py": ("python", "python.yml"),
}


def _rule_errors(workspace: Path, name: str) -> list[str]:
    """Rule errors semgrep-core reports when our rules for ``name``'s language load."""
    language, rules = LANGUAGES[Path(name).suffix]
    args = [str(semgrep_core()), "-rules", str(rules_file(rules)), "-lang", language, "-json", name]
    out = run_process(args, cwd=workspace)
    report: dict[str, Any] = json.loads(out[out.find("{") :])
    # semgrep-core names the kind ``error_type``: a string, or a list for parse errors.
    kinds = [(e.get("error_type"), e.get("rule_id")) for e in report["errors"]]
    return [f"{rule}: {kind}" for kind, rule in kinds if isinstance(kind, str) and "Rule" in kind]


@pytest.mark.parametrize(
    "name",
    [
        "tiny.js",
        "tiny.ts",
        "tiny.tsx",
        "tiny.go",
        "tiny.py",
    ],
)
def test_rules_load_without_errors(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(TINY[name], encoding="utf-8")
    assert SemgrepTool(ALL).run(tmp_path, [name]) == []
    assert _rule_errors(tmp_path, name) == []


def test_a_broken_rule_is_a_tool_error(tmp_path: Path) -> None:
    rules = tmp_path / "broken.yml"
    rules.write_text(
        "rules:\n  - id: broken\n    languages: [javascript]\n    severity: ERROR\n"
        "    message: m\n    pattern: for (... of $XS) { ... }\n",
        encoding="utf-8",
    )
    (tmp_path / "a.js").write_text(TINY["tiny.js"], encoding="utf-8")
    with pytest.raises(ToolError, match="rule error"):
        run_rules(tmp_path, ["a.js"], rules)


# --- (3) each rule family hits real snippets, and their safe twins stay quiet ---------------

ROUTES_JS = """\
const { exec, execFile } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

async function findUser(db, name) {
  return db.query(`SELECT * FROM users WHERE name = '${name}'`);
}

async function findUserSafely(db, name) {
  return db.query("SELECT * FROM users WHERE name = $1", [name]);
}

async function findOrderSafely(db, id) {
  return db.query("SELECT * FROM orders WHERE id = ?", [id]);
}

function runTool(cmd) {
  exec(cmd, (err, out) => console.log(out));
}

function runToolSafely(file) {
  execFile("git", ["log", "--", file], (err, out) => console.log(out));
}

function calculate(expr) {
  return eval(expr);
}

app.get("/login", (req, res) => {
  res.redirect(req.query.next);
});

app.get("/logout", (req, res) => {
  res.redirect("/home");
});

app.get("/files/:name", (req, res) => {
  fs.readFile(path.join(uploads, req.params.name), (err, data) => res.send(data));
});

app.get("/proxy", async (req, res) => {
  const upstream = await fetch(req.query.url);
  res.send(await upstream.text());
});

function fingerprint(data) {
  return crypto.createHash("md5").update(data).digest("hex");
}

function loadSettings(text) {
  try {
    return JSON.parse(text);
  } catch (e) {}
}

async function ownersOf(orders) {
  const owners = [];
  for (const order of orders) {
    owners.push(await User.findOne({ id: order.userId }));
  }
  return owners;
}
"""

COMMENT_TSX = """\
import DOMPurify from "dompurify";
import { useEffect, useState } from "react";

export function Comment({ body }: { body: string }) {
  return <div dangerouslySetInnerHTML={{ __html: body }} />;
}

export function SafeComment({ body }: { body: string }) {
  return <div dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(body) }} />;
}

export function WindowWidth() {
  const [width, setWidth] = useState(window.innerWidth);
  const onResize = () => setWidth(window.innerWidth);
  useEffect(() => {
    window.addEventListener("resize", onResize);
  }, []);
  return <span>{width}</span>;
}

export function ScrollDepth() {
  const [depth, setDepth] = useState(0);
  useEffect(() => {
    window.addEventListener("scroll", () => setDepth(window.scrollY));
  }, []);
  return <span>{depth}</span>;
}
"""

HANDLERS_GO = """\
package main

import (
	"crypto/md5"
	"crypto/tls"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"
)

func findUser(db *sql.DB, name string) (*sql.Rows, error) {
	return db.Query(fmt.Sprintf("SELECT * FROM users WHERE name = '%s'", name))
}

func findUserSafely(db *sql.DB, name string) (*sql.Rows, error) {
	return db.Query("SELECT * FROM users WHERE name = $1", name)
}

func findOrderSafely(db *sql.DB, id int) (*sql.Rows, error) {
	return db.Query("SELECT * FROM orders WHERE id = ?", id)
}

func runTool(cmd string) error {
	return exec.Command("sh", "-c", cmd).Run()
}

func login(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, r.URL.Query().Get("next"), http.StatusFound)
}

func insecureClient() *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	return &http.Client{Transport: tr}
}

func checksum(data []byte) [16]byte {
	return md5.Sum(data)
}

func countMatches(patterns []string, s string) int {
	n := 0
	for _, p := range patterns {
		if regexp.MustCompile(p).MatchString(s) {
			n++
		}
	}
	return n
}

func poll(done chan bool) {
	leaky := time.NewTicker(time.Second)
	for {
		select {
		case <-done:
			return
		case <-leaky.C:
			fmt.Println("tick")
		}
	}
}

func pollSafely(done chan bool) {
	stopped := time.NewTicker(time.Second)
	defer stopped.Stop()
	for {
		select {
		case <-done:
			return
		case <-stopped.C:
			fmt.Println("tick")
		}
	}
}

func save(write func() error) {
	err := write()
	_ = err
}

func download(w http.ResponseWriter, r *http.Request) {
	f, err := os.Open(filepath.Join("files", r.URL.Query().Get("name")))
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	defer f.Close()
}

func downloadSafely(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if !filepath.IsLocal(name) {
		http.Error(w, "bad name", http.StatusBadRequest)
		return
	}
	f, err := os.Open(filepath.Join("files", name))
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	defer f.Close()
}

func greet(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "<h1>Hello %s</h1>", r.URL.Query().Get("name"))
}

func proxy(w http.ResponseWriter, r *http.Request) {
	resp, err := client.Get(allowed(r.URL.Query().Get("u")))
	if err != nil {
		return
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return
	}
	w.Write(body)
}
"""

SOURCES = {"routes.js": ROUTES_JS, "Comment.tsx": COMMENT_TSX, "handlers.go": HANDLERS_GO}


def line_of(source: str, marker: str) -> int:
    """The 1-based number of the one line of ``source`` that contains ``marker``."""
    found = [n for n, line in enumerate(source.splitlines(), start=1) if marker in line]
    assert len(found) == 1, f"marker {marker!r} is on lines {found}"
    return found[0]


@pytest.fixture(scope="module")
def snippets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace holding the snippet files."""
    root = tmp_path_factory.mktemp("semgrep")
    for name, text in SOURCES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def hits(snippets: Path) -> dict[str, list[ToolHit]]:
    """Every hit of the bundled rules on each snippet file: one semgrep-core run per file."""
    return {name: SemgrepTool(ALL).run(snippets, [name]) for name in SOURCES}


@pytest.mark.parametrize(
    ("file", "marker", "rule", "category"),
    [
        pytest.param(
            "routes.js", "name = '${name}'", "js-sql-injection-string-query",
            Category.SQL_INJECTION,
        ),
        pytest.param(
            "routes.js", "exec(cmd,", "js-command-injection-exec",
            Category.COMMAND_INJECTION,
        ),
        ("routes.js", "eval(expr)", "js-code-injection-eval", Category.CODE_INJECTION),
        (
            "routes.js", "res.redirect(req.query.next)", "js-open-redirect-request-url",
            Category.OPEN_REDIRECT,
        ),
        (
            "routes.js", "fs.readFile(path.join(", "js-path-traversal-request-path",
            Category.PATH_TRAVERSAL,
        ),
        ("routes.js", "fetch(req.query.url)", "js-ssrf-request-url", Category.SSRF),
        ("routes.js", 'createHash("md5")', "js-weak-crypto-hash", Category.WEAK_CRYPTO),
        (
            "routes.js", "catch (e) {}", "js-error-handling-empty-catch",
            Category.ERROR_HANDLING,
        ),
        pytest.param(
            "routes.js", "await User.findOne(", "js-n-plus-one-await-in-loop",
            Category.N_PLUS_ONE_QUERY,
        ),
        ("Comment.tsx", "__html: body }", "js-xss-raw-html-sink", Category.XSS),
        (
            "Comment.tsx", 'addEventListener("resize"', "js-memory-leak-listener-without-cleanup",
            Category.MEMORY_LEAK,
        ),
        pytest.param(
            "Comment.tsx", 'addEventListener("scroll"', "js-memory-leak-listener-without-cleanup",
            Category.MEMORY_LEAK,
        ),
        ("handlers.go", "fmt.Sprintf(", "go-sql-injection-formatted-query", Category.SQL_INJECTION),
        ("handlers.go", '"sh", "-c"', "go-command-injection-shell", Category.COMMAND_INJECTION),
        ("handlers.go", "http.Redirect(", "go-open-redirect-request-url", Category.OPEN_REDIRECT),
        ("handlers.go", "InsecureSkipVerify", "go-insecure-config-tls", Category.INSECURE_CONFIG),
        ("handlers.go", "md5.Sum(", "go-weak-crypto-hash", Category.WEAK_CRYPTO),
        (
            "handlers.go", "regexp.MustCompile(", "go-inefficient-loop-regexp-compile",
            Category.INEFFICIENT_LOOP,
        ),
        (
            "handlers.go", "leaky := time.NewTicker", "go-memory-leak-ticker-not-stopped",
            Category.MEMORY_LEAK,
        ),
        ("handlers.go", "_ = err", "go-error-handling-discarded", Category.ERROR_HANDLING),
        (
            "handlers.go", 'os.Open(filepath.Join("files", r.URL', "go-path-traversal-request-path",
            Category.PATH_TRAVERSAL,
        ),
        ("handlers.go", "<h1>Hello %s</h1>", "go-xss-unescaped-html", Category.XSS),
    ],
)  # fmt: skip
def test_rule_hits_its_snippet(
    hits: dict[str, list[ToolHit]], file: str, marker: str, rule: str, category: Category
) -> None:
    line = line_of(SOURCES[file], marker)
    found = {(h.rule, h.line) for h in hits[file]}
    assert (rule, line) in found, f"{rule} not on line {line}; hits: {sorted(found)}"
    info = lookup("semgrep", rule)
    assert info is not None
    assert info.category is category


@pytest.mark.parametrize(
    ("file", "marker"),
    [
        ("routes.js", "name = $1"),
        ("routes.js", "id = ?"),
        ("routes.js", 'execFile("git"'),
        ("routes.js", 'res.redirect("/home")'),
        ("Comment.tsx", "DOMPurify.sanitize(body)"),
        ("handlers.go", "name = $1"),
        ("handlers.go", "id = ?"),
        ("handlers.go", "stopped := time.NewTicker"),
        ("handlers.go", 'os.Open(filepath.Join("files", name))'),
    ],
)
def test_safe_twin_is_not_flagged(hits: dict[str, list[ToolHit]], file: str, marker: str) -> None:
    line = line_of(SOURCES[file], marker)
    assert [h for h in hits[file] if h.line <= line <= h.end_line] == []


def test_hits_name_the_file_and_carry_a_message(hits: dict[str, list[ToolHit]]) -> None:
    for name, found in hits.items():
        assert found, f"no hit at all on {name}"
        assert all(h.tool == "semgrep" and h.file_path == name for h in found)
        assert all(h.message and not h.message.startswith("js-") for h in found)


# --- (4) each agent's tool keeps only its own categories ---------------------------------


@pytest.mark.parametrize(
    "categories",
    [
        (Category.WEAK_CRYPTO,),
        (Category.MEMORY_LEAK, Category.INEFFICIENT_LOOP),
        (Category.ERROR_HANDLING, Category.NAMING),
        (Category.XXE,),
    ],
)
def test_tool_keeps_only_its_categories(
    snippets: Path, hits: dict[str, list[ToolHit]], categories: tuple[Category, ...]
) -> None:
    kept = SemgrepTool(categories).run(snippets, ["handlers.go"])
    expected = [h for h in hits["handlers.go"] if _category(h) in categories]
    assert kept == expected
    assert {_category(h) for h in kept} <= set(categories)


def test_tool_with_no_categories_keeps_nothing(
    snippets: Path, hits: dict[str, list[ToolHit]]
) -> None:
    assert hits["handlers.go"], "the file must have hits for this test to mean anything"
    assert SemgrepTool(()).run(snippets, ["handlers.go"]) == []


def _category(hit: ToolHit) -> Category:
    info = lookup(hit.tool, hit.rule)
    assert info is not None
    return info.category


# --- (5) the secrets tool's second, line-by-line pass ------------------------------------

# Assembled at run time so that this file itself holds no token-shaped literal.
GITHUB_TOKEN = "ghp_" + "R7kq2VxN9mTbL4wZ" + "p8sYc3HdJf6GaE1uQo5K"

SETTINGS_PY = f"""\
import os

API = "https://api.github.com"
TOKEN = os.environ.get("GITHUB_TOKEN", "{GITHUB_TOKEN}")
API_KEY = os.environ["API_KEY"]
TIMEOUT = 15
"""


def test_a_token_used_as_an_env_default_is_found(tmp_path: Path) -> None:
    (tmp_path / "settings.py").write_text(SETTINGS_PY, encoding="utf-8")
    found = SecretsTool().run(tmp_path, ["settings.py"])
    token_line = line_of(SETTINGS_PY, "GITHUB_TOKEN")
    assert [(h.rule, h.line) for h in found] == [("GitHub Token", token_line)]
    info = lookup(found[0].tool, found[0].rule)
    assert info is not None
    assert info.category is Category.HARDCODED_SECRET


def test_a_key_read_from_the_environment_is_not_a_secret(tmp_path: Path) -> None:
    text = 'import os\n\nAPI_KEY = os.environ["API_KEY"]\nSECRET = os.getenv("SECRET")\n'
    (tmp_path / "config.py").write_text(text, encoding="utf-8")
    assert SecretsTool().run(tmp_path, ["config.py"]) == []


def test_receiver_and_name_filters_match_anywhere_in_the_name(tmp_path: Path) -> None:
    """metavariable-regex anchors at the start: `this.db` and `makeInviteToken` must match."""
    source = (
        "async function f(id) {\n"
        "  return this.db.query(`SELECT * FROM t WHERE id = ${id}`);\n"
        "}\n"
        "function makeInviteToken() {\n"
        "  return Math.random().toString(36).slice(2);\n"
        "}\n"
    )
    (tmp_path / "svc.js").write_text(source, encoding="utf-8")
    found = {(h.rule, h.line) for h in SemgrepTool(ALL).run(tmp_path, ["svc.js"])}
    assert found == {
        ("js-sql-injection-string-query", 2),
        ("js-weak-crypto-math-random-token", 5),
    }


def test_sync_fs_calls_in_request_handlers_block_the_event_loop(tmp_path: Path) -> None:
    source = (
        "const fs = require('fs');\n"
        "const TEMPLATE = fs.readFileSync('template.html', 'utf8');\n"
        "app.get('/avatar/:id', (req, res) => {\n"
        "  res.send(fs.readFileSync(pathFor(req.params.id)));\n"
        "});\n"
    )
    (tmp_path / "server.js").write_text(source, encoding="utf-8")
    found = {(h.rule, h.line) for h in SemgrepTool(ALL).run(tmp_path, ["server.js"])}
    assert ("js-blocking-io-sync-fs-in-handler", 4) in found
    assert ("js-blocking-io-sync-fs-in-handler", 2) not in found  # start-up code may block
