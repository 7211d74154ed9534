"""Deterministic fixes, applied for real: each rule fires on its line, the rewrite is put in
its place, the real analyser runs again, and the finding is gone while the code still parses.

Each tool runs once over all its "before" files and once over all its "after" files.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from code_guard.agents.filtering import hit_finding
from code_guard.findings import FIX_CHARS, AgentName, Category, Severity
from code_guard.knowledge.catalogue import records
from code_guard.knowledge.fixes import needs
from code_guard.knowledge.fixes import rewrite as rewrite_line
from code_guard.knowledge.mapping import UNMAPPED, lookup
from code_guard.review.limits import MAX_LINE_CHARS
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import Tool, ToolHit
from code_guard.tools.python.settings import PythonSettingsTool
from code_guard.tools.ruff.tool import STYLE_RULES, RuffTool
from code_guard.tools.secrets.tool import SecretsTool
from code_guard.tools.semgrep.tool import SemgrepTool


def rewrite(tool: str, rule: str, line: str) -> str | None:
    """The rewrite of ``line`` that the record of ``tool``'s ``rule`` names."""
    return rewrite_line(lookup(tool, rule), line)


def rewritable() -> set[tuple[str, str]]:
    """Every rule whose record names a rewrite."""
    return {(r.tool, r.id) for r in records() if r.rewrite is not None}


@dataclass(frozen=True)
class Case:
    """One flagged line, with the code before and after it that makes the file real."""

    tool: str
    rule: str
    line: str
    before: str = ""
    after: str = ""
    suffix: str = ".py"


CASES = (
    Case("bandit", "B113", "    resp = requests.get(url, headers=h)", "import requests\nif 1:\n"),
    Case("bandit", "B506", "data = yaml.load(text, Loader=yaml.Loader)", "import yaml\n"),
    Case("bandit", "B501", "requests.get(url, timeout=5, verify=False)", "import requests\n"),
    Case("bandit", "B201", "app.run(debug=True)", "import flask\napp = flask.Flask(__name__)\n"),
    Case("bandit", "B324", "digest = hashlib.md5(data).hexdigest()", "import hashlib\n"),
    Case("bandit", "B104", "server.bind(('0.0.0.0', 8080))", "import socket\n"),
    Case("bandit", "B103", "os.chmod(path, 0o777)", "import os\n"),
    Case("bandit", "B307", "value = eval(text)"),
    Case("bandit", "B311", "token = random.choice(alphabet)", "import random\n"),
    Case("bandit", "B323", "ctx = ssl._create_unverified_context()", "import ssl\n"),
    Case("bandit", "B507", "client.set_missing_host_key_policy(paramiko.AutoAddPolicy())",
         "import paramiko\nclient = paramiko.SSHClient()\n"),  # fmt: skip
    Case("bandit", "B701", "env = jinja2.Environment(autoescape=False)", "import jinja2\n"),
    Case("bandit", "B608", """cur.execute(f"SELECT * FROM users WHERE name = '{name}'")"""),
    Case("bandit", "B105", 'password = "hunter2-but-longer"'),
    Case("detect-secrets", "AWS Access Key", 'AWS_KEY = "AKIAZ4WBQ7XKD2M3JN5P"'),
    Case("ruff", "E711", "if value == None:", "value = 1\n", "    pass\n"),
    Case("ruff", "E722", "except:", "try:\n    pass\n", "    pass\n"),
    Case("ruff", "F401", "import os", "", "print(1)\n"),
    Case("python-settings", "insecure-setting", "SESSION_COOKIE_SECURE = False"),
    Case("semgrep", "js-insecure-config-tls",
         "const agent = new https.Agent({ rejectUnauthorized: false });",
         'const https = require("https");\n', "module.exports = agent;\n", ".js"),  # fmt: skip
    Case("semgrep", "js-weak-crypto-hash", 'const h = crypto.createHash("md5");',
         'const crypto = require("crypto");\n', "module.exports = h;\n", ".js"),  # fmt: skip
)
SEMGREP_GO = Case(
    "semgrep", "go-insecure-config-tls", "\tcfg := &tls.Config{InsecureSkipVerify: true}",
    'package main\n\nimport "crypto/tls"\n\nfunc main() {\n', "\t_ = cfg\n}\n", ".go",
)  # fmt: skip
ALL = (*CASES, SEMGREP_GO)


def _tools() -> dict[str, Tool]:
    return {
        "bandit": BanditTool(),
        "ruff": RuffTool(STYLE_RULES),
        "detect-secrets": SecretsTool(),
        "python-settings": PythonSettingsTool(),
        "semgrep": SemgrepTool(tuple(Category)),
    }


def _write(root: Path, cases: Sequence[Case], fixed: bool) -> dict[str, int]:
    """Write one file per case; return each file's flagged line number."""
    lines: dict[str, int] = {}
    for index, case in enumerate(cases):
        name = f"case{index}{case.suffix}"
        line = case.line
        header = case.before
        if fixed:
            new = rewrite(case.tool, case.rule, case.line)
            line = case.line if new is None else new
            need = needs(lookup(case.tool, case.rule))
            header = f"{need}\n{header}" if need else header
        text = header + (line + "\n" if line else "") + case.after
        (root / name).write_text(text, encoding="utf-8")
        lines[name] = header.count("\n") + 1
    return lines


def _hits(root: Path, cases: Sequence[Case]) -> list[ToolHit]:
    tools = _tools()
    hits: list[ToolHit] = []
    for tool_name in sorted({c.tool for c in cases}):
        tool = tools[tool_name]
        paths = [f"case{i}{c.suffix}" for i, c in enumerate(cases) if c.tool == tool_name]
        hits.extend(tool.run(root, [p for p in paths if tool.applies_to(p)]))
    return hits


Run = tuple[Path, dict[str, int], list[ToolHit]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Run]:
    """Each tool's hits over the files before and after the fixes."""
    out = {}
    for fixed in (False, True):
        root = tmp_path_factory.mktemp("fixed" if fixed else "before")
        lines = _write(root, ALL, fixed)
        out[fixed] = (root, lines, _hits(root, ALL))
    return out


def _fires(hits: list[ToolHit], case: Case, name: str, line: int) -> bool:
    return any(
        h.tool == case.tool and h.rule == case.rule and h.file_path == name and h.line == line
        for h in hits
    )


def test_at_least_fifteen_rules_have_a_deterministic_fix() -> None:
    assert len(rewritable()) >= 15
    assert len({(c.tool, c.rule) for c in ALL}) >= 15
    assert {(c.tool, c.rule) for c in ALL} <= rewritable()


@pytest.mark.parametrize("index", range(len(ALL)), ids=[f"{c.tool}-{c.rule}" for c in ALL])
def test_the_fix_removes_the_finding_and_the_code_still_parses(
    index: int, runs: dict[bool, Run]
) -> None:
    case = ALL[index]
    name = f"case{index}{case.suffix}"
    _, before_lines, before_hits = runs[False]
    after_root, after_lines, after_hits = runs[True]
    assert _fires(before_hits, case, name, before_lines[name]), "the case must be a real hit"
    assert rewrite(case.tool, case.rule, case.line) is not None
    assert not any(
        h.tool == case.tool and h.rule == case.rule and h.file_path == name for h in after_hits
    )
    if case.suffix == ".py":
        ast.parse((after_root / name).read_text(encoding="utf-8"))


def test_rewrites_keep_indentation_and_refuse_what_they_cannot_do_safely() -> None:
    fixed = rewrite("bandit", "B113", "    r = requests.get(u)")
    assert fixed == "    r = requests.get(u, timeout=10)"
    # A call that continues on the next line cannot be fixed from one line.
    assert rewrite("bandit", "B113", "    r = requests.get(") is None
    # A query assembled elsewhere has no shape to parameterise.
    assert rewrite("bandit", "B608", 'query = "SELECT * FROM t WHERE id = " + uid') is None
    assert rewrite("bandit", "B608", 'db.execute("SELECT * FROM t WHERE id = %s" % (uid,))') == (
        "db.execute('SELECT * FROM t WHERE id = %s', (uid,))"
    )
    assert rewrite("bandit", "B608", 'sqlite_conn.execute(f"DELETE FROM t WHERE id={i}")') == (
        "sqlite_conn.execute('DELETE FROM t WHERE id=?', (i,))"
    )
    assert rewrite("ruff", "F401", "from a import b, c") is None
    assert rewrite("bandit", "B999", "anything") is None


def _padded(line: str, suffix: str) -> list[str]:
    """``line`` grown to the longest line a review accepts, in every way that keeps its
    meaning: a trailing comment, a longer string literal, deeper indentation, spaces."""
    room = MAX_LINE_CHARS - len(line)
    comment = "  // " if suffix in (".js", ".go") else "  # "
    out = [line + comment + "x" * (room - len(comment)), " " * room + line, line + " " * room]
    quote = min((i for i in (line.find('"'), line.find("'")) if i >= 0), default=-1)
    if quote >= 0:
        out.append(line[: quote + 1] + "x" * room + line[quote + 1 :])
    return out


def test_the_longest_legal_line_never_fails_a_finding_through_any_rewrite() -> None:
    lines = {(c.tool, c.rule): (c.line, c.suffix) for c in ALL}
    lines[("detect-secrets", "Secret Keyword")] = ('password = "hunter2-but-longer"', ".py")
    info = UNMAPPED.model_copy(update={"severity": Severity.HIGH, "confidence": 0.8})
    dropped = 0
    for tool, rule in sorted(rewritable()):
        line, suffix = lines[(tool, rule)]
        fixed = [
            (long, fix)
            for long in _padded(line, suffix)
            if (fix := rewrite(tool, rule, long)) is not None
        ]
        assert fixed, f"no long form of the {tool} {rule} line is rewritten"
        for long, fix in fixed:
            assert len(long) == MAX_LINE_CHARS
            hit = ToolHit(tool, rule, "app" + suffix, 3, 3, long)  # the message may echo it
            finding = hit_finding(
                AgentName.SECURITY, hit, info, long, suggested_fix=fix, fix_lines=(3, 3)
            )
            if len(fix) <= FIX_CHARS:
                assert finding.suggested_fix == fix
            else:
                dropped += 1
                assert finding.suggested_fix is None and finding.fix_lines is None
                assert "A one-line fix is not attached" in finding.description
            assert len(finding.title) <= 200 and len(finding.description) <= 4000
    assert dropped > 0  # the limit was reached, not only approached
