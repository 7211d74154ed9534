"""Tests of the static tools and the rule lookup: each agent runs its REAL tools on snippets.

Every agent's review runs once per module (the analysers take a few tenths of a second each);
the tests then check what category, severity and agent each tool result became.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_guard.agents import Agent, AgentContext
from code_guard.agents.performance import PerformanceAgent
from code_guard.agents.security import SecurityAgent
from code_guard.agents.style import StyleAgent
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.change.workspace import materialize
from code_guard.findings import AgentName, AgentReport, AgentState, Category, Severity
from code_guard.knowledge.mapping import UNMAPPED, lookup
from code_guard.options import AnalysisOptions
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import Tool
from code_guard.tools.ruff.tool import RuffTool

SECURITY_PY = """\
import pickle
import subprocess
from flask import Flask, redirect, request

app = Flask(__name__)
password = "hunter2hunter2"


def load(blob):
    return pickle.loads(blob)


def run(cmd):
    subprocess.call(cmd, shell=True)
    subprocess.run(["ls", "-l"])


@app.route("/user")
def user(db):
    name = request.args["name"]
    db.execute("SELECT * FROM users WHERE name = '" + name + "'")
    return redirect(request.args["next"])


@app.route("/by-id")
def by_id(db):
    uid = int(request.args["id"])
    return db.execute("SELECT * FROM users WHERE id = %s", (uid,))
"""

SETTINGS_YML = """\
service: billing
aws_access_key_id: AKIAIOSFODNN7EXAMPLE
db_password: "s3cr3t-Pa55word-xyz"
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA
-----END RSA PRIVATE KEY-----
"""

PERFORMANCE_PY = """\
import asyncio
import functools
import time

_seen = {}


async def handler():
    time.sleep(1)
    await asyncio.sleep(1)


def names(ids, session):
    out = []
    for i in ids:
        out.append(session.query(i).first())
    return out


def remember(key, value):
    _seen[key] = value


class Repo:
    @functools.lru_cache
    def get(self, key):
        return key
"""

STYLE_PY = """\
import os


def Fetch(l, seen=[]):
    try:
        return l[0]
    except:
        pass
    if seen == None:
        return None
"""

FILES = {
    "app/views.py": SECURITY_PY,
    "config/settings.yml": SETTINGS_YML,
    "app/perf.py": PERFORMANCE_PY,
    "app/style.py": STYLE_PY,
}

# (file, line, "tool:rule") -> (category, severity)
Mapped = dict[tuple[str, int, str], tuple[Category, Severity]]


def new_file_diff(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}"


@pytest.fixture(scope="module")
def context() -> Iterator[AgentContext]:
    """All snippets as one change, written to a workspace, reviewed without a model."""
    change = parse_diff("".join(new_file_diff(p, t) for p, t in FILES.items()))
    request = ReviewRequest(change=change)
    with materialize(request, tuple(FILES)) as workspace:
        yield AgentContext(
            request=request, files=change.files, workspace=workspace.root, options=AnalysisOptions()
        )


def review(agent: Agent, context: AgentContext) -> AgentReport:
    report = asyncio.run(agent.review(context))
    assert report.status.state is AgentState.OK, report.status.reason
    assert {f.agent for f in report.findings} == {agent.name}
    return report


def mapped(report: AgentReport) -> Mapped:
    return {
        (f.file_path, f.line_start, source): (f.category, f.severity)
        for f in report.findings
        for source in f.sources
    }


@pytest.fixture(scope="module")
def security(context: AgentContext) -> Mapped:
    return mapped(review(SecurityAgent(), context))


@pytest.fixture(scope="module")
def performance(context: AgentContext) -> Mapped:
    return mapped(review(PerformanceAgent(), context))


@pytest.fixture(scope="module")
def style(context: AgentContext) -> Mapped:
    return mapped(review(StyleAgent(), context))


def test_security_maps_bandit_results(security: Mapped) -> None:
    views = "app/views.py"
    assert security[(views, 10, "bandit:B301")] == (
        Category.INSECURE_DESERIALIZATION,
        Severity.HIGH,
    )
    assert security[(views, 14, "bandit:B602")] == (Category.COMMAND_INJECTION, Severity.HIGH)
    assert security[(views, 21, "bandit:B608")] == (Category.SQL_INJECTION, Severity.HIGH)
    assert security[(views, 6, "bandit:B105")] == (Category.HARDCODED_SECRET, Severity.HIGH)


def test_security_drops_ignored_bandit_rules(security: Mapped, context: AgentContext) -> None:
    raw = BanditTool().run(context.workspace, ["app/views.py"])
    raw_rules = {(h.line, h.rule) for h in raw}
    # Bandit does flag the imports and the list-argv call...
    assert {(1, "B403"), (2, "B404"), (15, "B603")} <= raw_rules
    # ...and the table ignores them.
    assert not [key for key in security if key[0] == "app/views.py" and key[1] in (1, 2, 15)]


def test_security_maps_taint_results(security: Mapped) -> None:
    views = "app/views.py"
    assert security[(views, 21, "python-taint:taint-sql_injection")] == (
        Category.SQL_INJECTION,
        Severity.HIGH,
    )
    assert security[(views, 22, "python-taint:taint-open_redirect")] == (
        Category.OPEN_REDIRECT,
        Severity.MEDIUM,
    )
    # int() sanitises the id, and the query is parameterised.
    assert not [key for key in security if key[1] in (27, 28) and key[0] == views]


def test_security_maps_secrets_in_any_file(security: Mapped) -> None:
    settings = "config/settings.yml"
    assert security[(settings, 2, "detect-secrets:AWS Access Key")] == (
        Category.HARDCODED_SECRET,
        Severity.CRITICAL,
    )
    assert security[(settings, 4, "detect-secrets:Private Key")] == (
        Category.HARDCODED_SECRET,
        Severity.CRITICAL,
    )
    assert security[(settings, 3, "detect-secrets:Secret Keyword")] == (
        Category.HARDCODED_SECRET,
        Severity.HIGH,
    )
    # Bandit and the taint check read Python only.
    assert {key[2].split(":")[0] for key in security if key[0] == settings} == {"detect-secrets"}


def test_performance_maps_ruff_and_ast_results(performance: Mapped) -> None:
    perf = "app/perf.py"
    assert performance[(perf, 9, "ruff:ASYNC251")] == (Category.BLOCKING_IO, Severity.MEDIUM)
    assert performance[(perf, 9, "python-ast:blocking-in-async")] == (
        Category.BLOCKING_IO,
        Severity.MEDIUM,
    )
    assert performance[(perf, 16, "python-ast:n-plus-one")] == (
        Category.N_PLUS_ONE_QUERY,
        Severity.MEDIUM,
    )
    assert performance[(perf, 16, "ruff:PERF401")] == (Category.INEFFICIENT_LOOP, Severity.LOW)
    assert performance[(perf, 21, "python-ast:unbounded-cache")] == (
        Category.MEMORY_LEAK,
        Severity.MEDIUM,
    )
    assert performance[(perf, 25, "ruff:B019")] == (Category.MEMORY_LEAK, Severity.MEDIUM)


def test_performance_skips_awaited_calls_and_other_files(performance: Mapped) -> None:
    assert not [key for key in performance if key[1] == 10]  # await asyncio.sleep(1)
    assert {key[0] for key in performance} == {"app/perf.py"}


def test_style_maps_ruff_results(style: Mapped) -> None:
    path = "app/style.py"
    assert style[(path, 1, "ruff:F401")] == (Category.UNUSED_CODE, Severity.LOW)
    assert style[(path, 4, "ruff:N802")] == (Category.NAMING, Severity.INFO)  # prefix N8
    assert style[(path, 4, "ruff:E741")] == (Category.NAMING, Severity.LOW)
    assert style[(path, 4, "ruff:B006")] == (Category.OTHER, Severity.MEDIUM)
    assert style[(path, 7, "ruff:E722")] == (Category.ERROR_HANDLING, Severity.MEDIUM)
    assert style[(path, 9, "ruff:E711")] == (Category.OTHER, Severity.LOW)
    assert {key[0] for key in style} == {"app/style.py"}


def test_a_crashing_tool_fails_the_agent_not_the_run(context: AgentContext) -> None:
    class BrokenStyle(StyleAgent):
        def tools(self) -> tuple[Tool, ...]:
            return (RuffTool(["NOT-A-RULE"]),)

    report = asyncio.run(BrokenStyle().review(context))
    assert report.status.state is AgentState.FAILED
    assert report.status.reason is not None
    assert report.status.reason.startswith("ruff failed: ")
    assert report.findings == ()


@pytest.mark.parametrize(
    ("tool", "rule", "category", "severity"),
    [
        ("bandit", "B602", Category.COMMAND_INJECTION, Severity.HIGH),  # exact
        ("ruff", "PERF203", Category.INEFFICIENT_LOOP, Severity.LOW),  # exact beats prefix
        ("ruff", "PERF401", Category.INEFFICIENT_LOOP, Severity.LOW),  # prefix PERF
        ("ruff", "ASYNC105", Category.OTHER, Severity.MEDIUM),  # exact beats prefix ASYNC
        ("ruff", "ASYNC251", Category.BLOCKING_IO, Severity.MEDIUM),  # prefix ASYNC
        ("ruff", "PLR0913", Category.COMPLEXITY, Severity.LOW),  # prefix PLR09
        ("python-taint", "taint-ssrf", Category.SSRF, Severity.HIGH),
        ("detect-secrets", "Some Future Plugin", Category.HARDCODED_SECRET, Severity.HIGH),
    ],
)
def test_lookup_by_exact_id_then_longest_prefix(
    tool: str, rule: str, category: Category, severity: Severity
) -> None:
    info = lookup(tool, rule)
    assert info is not None
    assert (info.category, info.severity) == (category, severity)


def test_lookup_prefers_the_longest_prefix() -> None:
    # "ASYNC1" is not listed, but "ASYNC" and the exact ids are: ASYNC199 falls to "ASYNC".
    info = lookup("ruff", "ASYNC199")
    assert info is not None
    assert info.category is Category.BLOCKING_IO


@pytest.mark.parametrize(("tool", "rule"), [("bandit", "B404"), ("bandit", "B603")])
def test_lookup_of_an_ignored_rule_is_none(tool: str, rule: str) -> None:
    assert lookup(tool, rule) is None


@pytest.mark.parametrize(("tool", "rule"), [("ruff", "XYZ123"), ("bandit", "B999"), ("new", "R1")])
def test_lookup_of_an_unmapped_rule_is_other(tool: str, rule: str) -> None:
    assert lookup(tool, rule) == UNMAPPED
    assert UNMAPPED.category is Category.OTHER


def test_every_agent_is_named_in_the_registry() -> None:
    from code_guard.agents import AGENTS

    assert [cls.name for cls in AGENTS] == list(AgentName)


def test_large_changes_scan_for_secrets_in_worker_processes_with_the_same_results(
    tmp_path: Path,
) -> None:
    from code_guard.tools.runtime import batches
    from code_guard.tools.secrets.tool import SecretsTool

    # Enough added text to go past the parallel threshold, split over several files, with a
    # token in a known place in each.
    paths, expected = [], set()
    for index in range(4):
        lines = [f"value_{index}_{n} = compute({n}, 'label {n}')" for n in range(1500)]
        lines[700 + index] = f'AWS_KEY = "AKIA{"Q" * 12}{index:04d}"'
        path = f"pkg/settings_{index}.py"
        (tmp_path / "pkg").mkdir(exist_ok=True)
        (tmp_path / path).write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
        expected.add((path, 701 + index))
    focus = {p: range(1, 1501) for p in paths}
    assert sum((tmp_path / p).stat().st_size for p in paths) > batches.MIN_PARALLEL_BYTES
    hits = SecretsTool().run_focused(tmp_path, paths, focus)
    aws = {(h.file_path, h.line) for h in hits if h.rule == "AWS Access Key"}
    assert aws == expected
    # The same scan in this process finds the same.
    direct = SecretsTool().run(tmp_path, paths)
    assert {(h.file_path, h.line) for h in direct if h.rule == "AWS Access Key"} == expected


def test_batches_are_balanced_and_cover_every_file() -> None:
    from code_guard.tools.runtime.batches import batches

    sizes = {"a": 90, "b": 50, "c": 40, "d": 10, "e": 10}
    parts = batches(list(sizes), sizes.__getitem__, 2)
    assert sorted(p for part in parts for p in part) == sorted(sizes)
    totals = sorted(sum(sizes[p] for p in part) for part in parts)
    assert totals == [100, 100]
