"""Tests of the renderers: exact text and markdown, JSON round trips, schema-valid SARIF."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator  # type: ignore[import-untyped]  # no stubs pinned

from code_guard.findings import (
    AgentName,
    AgentState,
    AgentStatus,
    Category,
    Dismissal,
    DismissalKind,
    Finding,
    Review,
    Severity,
    Silenced,
    Silencing,
    SkippedFile,
    Usage,
    Verdict,
    silenced_counts,
)
from code_guard.knowledge.explanations import explain
from code_guard.report import RENDERERS, OutputFormat
from code_guard.report.json import render_json
from code_guard.report.markdown import render_markdown
from code_guard.report.sarif import render_sarif
from code_guard.report.silenced import count_line
from code_guard.report.text import render_text
from code_guard.review.dismissals import apply_dismissals

SCHEMA = Path(__file__).parents[1] / "fixtures" / "sarif-schema-2.1.0.json"
NO_MODEL = "no model is configured (set --model, or the action's `model` input)"

SQL = Finding(
    agent=AgentName.SECURITY,
    file_path="app/db.py",
    line_start=12,
    line_end=13,
    severity=Severity.HIGH,
    category=Category.SQL_INJECTION,
    title="SQL built from request data | unsafe",
    description="The query concatenates `name`.",
    suggested_fix='cur.execute("SELECT * FROM t WHERE n = %s", (name,))',
    cwe_id="CWE-89",
    confidence=0.85,
    sources=("bandit:B608", "model"),
    anchor_text='cur.execute("SELECT * FROM t WHERE n = " + name)',
)
UNUSED = Finding(
    agent=AgentName.STYLE,
    file_path="app/util.py",
    line_start=3,
    line_end=3,
    severity=Severity.LOW,
    category=Category.UNUSED_CODE,
    title="`os` imported but unused",
    description="`os` imported but unused",
    cwe_id="CWE-1164",
    confidence=0.8,
    sources=("ruff:F401",),
    anchor_text="import os",
)
FAILED_PERFORMANCE = AgentStatus(
    agent=AgentName.PERFORMANCE,
    state=AgentState.FAILED,
    reason="model gpt-4o-mini failed: 503 overloaded",
    tools=("ruff", "python-ast"),
    model="gpt-4o-mini",
    duration_ms=800,
    notes=("tool findings are reported unconfirmed",),
)
REVIEW = Review(
    findings=(SQL, UNUSED),
    health_score=80,
    verdict=Verdict.REQUEST_CHANGES,
    summary="2 finding(s): 1 high, 1 low. Incomplete: the performance agent(s) failed, "
    "see agent status.",
    agents=(
        AgentStatus(
            agent=AgentName.SECURITY,
            state=AgentState.OK,
            tools=("bandit", "detect-secrets", "python-taint"),
            model="gpt-4o-mini",
            usage=Usage(prompt_tokens=1000, completion_tokens=200, cost_usd=0.0012),
            duration_ms=1200,
        ),
        FAILED_PERFORMANCE,
        AgentStatus(
            agent=AgentName.STYLE,
            state=AgentState.OK,
            tools=("ruff",),
            model="gpt-4o-mini",
            duration_ms=400,
            notes=("model rejected 1 tool candidate(s) as false positives",),
        ),
    ),
    usage=Usage(prompt_tokens=2000, completion_tokens=300, cost_usd=0.0025),
    duration_ms=2500,
    static_only=False,
    files_reviewed=("app/db.py", "app/util.py"),
    files_not_reviewed=(SkippedFile(path="logo.png", reason="binary file"),),
)
STATIC_CLEAN = Review(
    findings=(),
    health_score=100,
    verdict=Verdict.APPROVE,
    summary=f"No findings. Static analysis only: {NO_MODEL}.",
    agents=(
        AgentStatus(
            agent=AgentName.SECURITY, state=AgentState.OK, tools=("bandit",), duration_ms=5
        ),
    ),
    static_only=True,
    static_only_reason=NO_MODEL,
    files_reviewed=("a.py",),
)
FAILED_CLEAN = Review(
    findings=(),
    health_score=100,
    verdict=Verdict.COMMENT,
    summary="No findings. Incomplete: the performance agent(s) failed, see agent status.",
    agents=(FAILED_PERFORMANCE,),
    static_only=False,
)

# --- text -----------------------------------------------------------------------------


def test_text_of_a_review_with_findings() -> None:
    assert render_text(REVIEW) == (
        "app/db.py:12: high sql_injection: SQL built from request data | unsafe "
        "[bandit:B608, model]\n"
        "    why: The query is built by string formatting, so a value can change the SQL "
        "itself.\n"
        '    fix: cur.execute("SELECT * FROM t WHERE n = %s", (name,))\n'
        "    see: "
        "https://bandit.readthedocs.io/en/latest/plugins/b608_hardcoded_sql_expressions.html\n"
        "app/util.py:3: low unused_code: `os` imported but unused [ruff:F401]\n"
        "    why: An unused import slows start-up and suggests code that was meant to "
        "use it.\n"
        "    fix: Remove the import.\n"
        "    see: https://docs.astral.sh/ruff/rules/unused-import/\n"
        "partial: the performance agent failed: model gpt-4o-mini failed: 503 overloaded\n"
        "not reviewed: logo.png (binary file)\n"
        "verdict: request_changes  outcome: partial  health: 80/100  2 finding(s): 1 "
        "high, 1 low. Incomplete: the performance agent(s) failed, see agent status.\n"
    )


def test_text_of_a_static_only_review() -> None:
    assert render_text(STATIC_CLEAN) == (
        f"verdict: approve  health: 100/100  No findings. Static analysis only: {NO_MODEL}.\n"
    )


# --- markdown -------------------------------------------------------------------------



def test_markdown_of_a_review_with_findings() -> None:
    assert render_markdown(REVIEW) == (
        "## Ninja Code Guard review\n"
        "\n"
        "**⛔ Request changes** · health 80/100 · 2 finding(s)\n"
        "\n"
        "🔴 0 critical · 🟠 1 high · 🟡 0 medium · 🔵 1 low · ⚪ 0 info\n"
        "\n"
        "> [!WARNING]\n"
        "> This review is incomplete: part of the change was not analysed. No findings "
        "there does not mean it is clean.\n"
        ">\n"
        "> - the performance agent failed\\: model gpt\\-4o\\-mini failed\\: 503 overloaded\n"
        "\n"
        "#### 🟠 High (1)\n"
        "\n"
        "- <code>app/db\\.py\\:12\\-13</code> SQL built from request data \\| unsafe <sub>sql "
        "injection</sub>\n"
        "\n"
        "#### 🔵 Low (1)\n"
        "\n"
        "- <code>app/util\\.py\\:3</code> \\`os\\` imported but unused <sub>unused code</sub>\n"
        "\n"
        "<details>\n"
        "<summary>Why these matter and how to fix them</summary>\n"
        "\n"
        "**SQL built from request data \\| unsafe** · <code>app/db\\.py\\:12\\-13</code>\n"
        "\n"
        "The query concatenates \\`name\\`\\.\n"
        "\n"
        "*Why it matters:* The query is built by string formatting, so a value can "
        "change the SQL itself.\n"
        "\n"
        "*Fix:* Use placeholders and pass the values separately to `execute`.\n"
        "\n"
        "<sub>🟠 high · CWE-89 · [bandit B608](https://bandit.readthedocs.io/en/latest/"
        "plugins/b608_hardcoded_sql_expressions.html) "
        "· confidence 0.85 · found by bandit\\:B608, model · "
        f"id <code>{SQL.fingerprint[:8]}</code></sub>\n"
        "\n"
        "---\n"
        "\n"
        "**\\`os\\` imported but unused** · <code>app/util\\.py\\:3</code>\n"
        "\n"
        "*Why it matters:* An unused import slows start-up and suggests code that was "
        "meant to use it.\n"
        "\n"
        "*Fix:* Remove the import.\n"
        "\n"
        "<sub>🔵 low · CWE-1164 · [ruff "
        "F401](https://docs.astral.sh/ruff/rules/unused-import/) · confidence 0.80 · "
        f"found by ruff\\:F401 · id <code>{UNUSED.fingerprint[:8]}</code></sub>\n"
        "\n"
        "</details>\n"
        "\n"
        "#### Files not reviewed\n"
        "\n"
        "- <code>logo\\.png</code>: binary file\n"
        "\n"
        "<details>\n"
        "<summary>Agents, time and cost</summary>\n"
        "\n"
        "| Agent | State | Tools | Model | Time | Notes |\n"
        "|---|---|---|---|---|---|\n"
        "| security | ok | bandit, detect-secrets, python-taint | gpt\\-4o\\-mini | 1200 ms "
        "| — |\n"
        "| performance | failed | ruff, python-ast | gpt\\-4o\\-mini | 800 ms | model "
        "gpt\\-4o\\-mini failed\\: 503 overloaded; tool findings are reported unconfirmed |\n"
        "| style | ok | ruff | gpt\\-4o\\-mini | 400 ms | model rejected 1 tool "
        "candidate\\(s\\) as false positives |\n"
        "\n"
        "2 file(s) reviewed in 2500 ms · tokens: 2000 in / 300 out · cost: $0.0025\n"
        "\n"
        "</details>\n"
    )


def test_markdown_of_a_static_only_review() -> None:
    assert render_markdown(STATIC_CLEAN) == (
        "## Ninja Code Guard review\n"
        "\n"
        "**✅ Approve** · health 100/100 · 0 finding(s)\n"
        "\n"
        "🔴 0 critical · 🟠 0 high · 🟡 0 medium · 🔵 0 low · ⚪ 0 info\n"
        "\n"
        "> [!NOTE]\n"
        "> Static analysis only — no model is configured (set --model, or the action's "
        "`model` input). Findings come from the static tools without model confirmation.\n"
        "\n"
        "<details>\n"
        "<summary>Agents, time and cost</summary>\n"
        "\n"
        "| Agent | State | Tools | Model | Time | Notes |\n"
        "|---|---|---|---|---|---|\n"
        "| security | ok | bandit | none | 5 ms | — |\n"
        "\n"
        "1 file(s) reviewed in 0 ms · tokens: 0 in / 0 out · cost: $0.0000\n"
        "\n"
        "</details>\n"
    )


def test_markdown_limit_says_how_many_are_left_out() -> None:
    text = render_markdown(REVIEW, limit=1)
    assert "<code>app/db\\.py\\:12\\-13</code>" in text
    assert "app/util" not in text.partition("<details>")[0]
    assert "\n\n…and 1 more (see the JSON or SARIF output).\n\n<details>" in text


# --- JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize("review", [REVIEW, STATIC_CLEAN, FAILED_CLEAN])
def test_json_round_trips(review: Review) -> None:
    back = Review.model_validate_json(render_json(review))
    # The rule's knowledge is added to each finding; everything else reads back unchanged.
    unexplained = [f.model_copy(update={"why": None, "fix": None, "help_uri": None})
                   for f in back.findings]
    assert back.model_copy(update={"findings": tuple(unexplained)}) == review


def test_json_findings_carry_the_rules_why_fix_and_link() -> None:
    sql, unused = json.loads(render_json(REVIEW))["findings"]
    b608 = explain(SQL)
    assert (sql["why"], sql["fix"], sql["help_uri"]) == (b608.why, b608.fix, b608.url)
    assert "formatting" in sql["why"] and sql["help_uri"].startswith("https://")
    # The rewrite stays apart from the rule's fix text.
    assert sql["suggested_fix"] == SQL.suggested_fix != sql["fix"]
    f401 = explain(UNUSED)
    assert (unused["why"], unused["fix"], unused["help_uri"]) == (f401.why, f401.fix, f401.url)
    assert unused["why"] != sql["why"]


def test_json_of_a_static_only_review_says_why() -> None:
    data = json.loads(render_json(STATIC_CLEAN))
    assert (data["static_only"], data["static_only_reason"]) == (True, NO_MODEL)


# --- SARIF ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator() -> Draft4Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema)


def sarif(review: Review, validator: Draft4Validator) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(render_sarif(review))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []
    return log


def test_the_validator_rejects_invalid_sarif(sarif_validator: Draft4Validator) -> None:
    log = json.loads(render_sarif(REVIEW))
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert not sarif_validator.is_valid(log)


def test_sarif_with_findings(sarif_validator: Draft4Validator) -> None:
    (run,) = sarif(REVIEW, sarif_validator)["runs"]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rules == ["code-guard/sql_injection", "code-guard/unused_code"]
    first, second = run["results"]
    assert (first["ruleId"], first["ruleIndex"], first["level"]) == (
        "code-guard/sql_injection",
        0,
        "error",
    )
    assert (second["ruleIndex"], second["level"]) == (1, "note")
    assert first["message"]["text"] == f"{SQL.title}\n\n{SQL.description}"
    assert second["message"]["text"] == UNUSED.title  # description repeats the title
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 12, "endLine": 13}
    assert first["partialFingerprints"] == {"codeGuardFingerprint/v1": SQL.fingerprint}
    assert first["properties"]["tags"] == ["CWE-89"]
    assert "security-severity" not in first["properties"]  # GitHub reads it from the rule
    b608 = explain(SQL)
    assert (first["properties"]["why"], first["properties"]["fix"]) == (b608.why, b608.fix)
    assert first["properties"]["helpUri"] == b608.url


def test_sarif_rule_help_explains_each_tool_rule_behind_it(
    sarif_validator: Draft4Validator,
) -> None:
    (run,) = sarif(REVIEW, sarif_validator)["runs"]
    sql, unused = run["tool"]["driver"]["rules"]
    b608, f401 = explain(SQL), explain(UNUSED)
    assert f"`bandit:B608`: {b608.why}" in sql["help"]["markdown"]
    assert f"bandit:B608: {b608.why}" in sql["help"]["text"]
    assert b608.url in sql["help"]["markdown"]
    assert f401.fix in unused["help"]["text"]


def test_sarif_carries_what_github_code_scanning_reads(sarif_validator: Draft4Validator) -> None:
    """The fields GitHub documents for code scanning uploads ("SARIF support for code
    scanning"): rule-level security-severity and tags, helpUri, partialFingerprints."""
    (run,) = sarif(REVIEW, sarif_validator)["runs"]
    assert run["tool"]["driver"]["name"]
    sql, unused = run["tool"]["driver"]["rules"]
    assert sql["properties"]["security-severity"] == "8.0"  # high: 7.0-8.9
    assert float(sql["properties"]["security-severity"]) >= 7.0
    assert sql["properties"]["tags"][:3] == ["security", "sql_injection", "CWE-89"]
    assert "external/cwe/cwe-089" in sql["properties"]["tags"]
    assert "security-severity" not in unused["properties"]  # a style finding is no alert
    assert "security" not in unused["properties"]["tags"]
    for rule in (sql, unused):
        assert rule["helpUri"].startswith("https://") and "#categories" not in rule["helpUri"]
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["markdown"]
        assert rule["properties"]["precision"] in ("very-high", "high", "medium", "low")
    for result in run["results"]:
        assert result["message"]["text"]
        assert len(result["ruleId"]) <= 255
        location = result["locations"][0]["physicalLocation"]
        assert not location["artifactLocation"]["uri"].startswith("/")
        assert location["region"]["startLine"] >= 1
        (value,) = result["partialFingerprints"].values()
        assert len(value) == 16


def test_sarif_without_findings(sarif_validator: Draft4Validator) -> None:
    (run,) = sarif(STATIC_CLEAN, sarif_validator)["runs"]
    assert (run["results"], run["tool"]["driver"]["rules"]) == ([], [])
    assert run["invocations"][0]["executionSuccessful"] is True
    assert run["properties"]["staticOnly"] is True


def test_sarif_with_a_failed_agent(sarif_validator: Draft4Validator) -> None:
    (run,) = sarif(FAILED_CLEAN, sarif_validator)["runs"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"] == [
        {
            "level": "error",
            "message": {
                "text": "review partial: the performance agent failed: "
                "model gpt-4o-mini failed: 503 overloaded"
            },
        }
    ]


def test_sarif_of_a_static_only_review_says_why() -> None:
    assert NO_MODEL in render_sarif(STATIC_CLEAN)


def test_every_output_format_has_a_renderer() -> None:
    assert set(RENDERERS) == set(OutputFormat)
    assert all(RENDERERS[f](REVIEW).endswith("\n") for f in OutputFormat)


def test_markdown_of_many_findings_fits_a_comment() -> None:
    many = tuple(
        SQL.model_copy(update={"line_start": n, "line_end": n, "fingerprint": f"{n:016x}"})
        for n in range(1, 301)
    )
    text = render_markdown(REVIEW.model_copy(update={"findings": many}))
    assert len(text) < 65_536 // 2
    assert text.count("*Why it matters:*") == 25
    assert "…the other 275 findings are explained in their inline comments" in text
    assert "…and 200 more (see the JSON or SARIF output)." in text


# --- silenced candidates ----------------------------------------------------------------

HELD = (
    Silenced(
        mechanism=Silencing.PRE_EXISTING,
        tool="bandit",
        rule="B307",
        file_path="a.py",
        line=3,
        reason="the base already had this bandit B307 result on `return eval(data)`",
    ),
    Silenced(
        mechanism=Silencing.SUPPRESSION,
        tool="bandit",
        rule="B113",
        file_path="a.py",
        line=7,
        reason="suppression comment `# nosec` that the pull request adds on the line",
    ),
    Silenced(
        mechanism=Silencing.PRE_EXISTING,
        tool="ruff",
        rule="F401",
        file_path="b.py",
        line=1,
        reason="the base already had this ruff F401 result on `import os`",
    ),
)
COUNTED = STATIC_CLEAN.model_copy(update={"silenced": silenced_counts(HELD)})
LISTED = COUNTED.model_copy(update={"silenced_candidates": HELD})


def test_text_counts_silenced_candidates_on_one_line_or_lists_them() -> None:
    verdict = f"verdict: approve  health: 100/100  No findings. Static analysis only: {NO_MODEL}.\n"
    counted = "3 candidate(s) silenced on proof (pre-existing 2, suppression 1)"
    assert render_text(COUNTED) == f"{counted}; --show-silenced lists them\n" + verdict
    assert render_text(LISTED) == (
        f"{counted}:\n"
        "    a.py:3 pre-existing bandit:B307 — the base already had this bandit B307 result on "
        "`return eval(data)`\n"
        "    a.py:7 suppression bandit:B113 — suppression comment `# nosec` that the pull "
        "request adds on the line\n"
        "    b.py:1 pre-existing ruff:F401 — the base already had this ruff F401 result on "
        "`import os`\n" + verdict
    )


def test_markdown_counts_silenced_candidates_or_folds_their_list() -> None:
    counted = "3 candidate(s) silenced on proof (pre-existing 2, suppression 1)"
    assert f"\n\n<sub>🔕 {counted}; `show-silenced` lists them.</sub>\n\n" in (
        render_markdown(COUNTED)
    )
    assert (
        f"<details>\n<summary>🔕 {counted}</summary>\n\n"
        "- <code>b\\.py\\:1</code> pre-existing <code>ruff\\:F401</code> — the base already "
        "had this ruff F401 result on \\`import os\\`\n\n</details>"
    ) in render_markdown(LISTED.model_copy(update={"silenced_candidates": HELD[2:]}))
    assert "🔕" not in render_markdown(STATIC_CLEAN)


def test_json_carries_the_counts_and_the_listed_candidates() -> None:
    data = json.loads(render_json(LISTED))
    assert data["silenced"] == {
        "disabled": 0, "folding": 0, "guard": 0, "kept-protection": 0, "pre-existing": 2,
        "rule-declined": 0, "sanitiser": 0, "suppression": 1, "test-file": 0,
    }  # fmt: skip
    assert [(c["mechanism"], c["file_path"], c["line"]) for c in data["silenced_candidates"]] == [
        ("pre-existing", "a.py", 3), ("suppression", "a.py", 7), ("pre-existing", "b.py", 1),
    ]  # fmt: skip
    assert Review.model_validate_json(render_json(LISTED)) == LISTED


def test_sarif_lists_silenced_candidates_as_accepted_suppressions(
    sarif_validator: Draft4Validator,
) -> None:
    assert sarif(COUNTED, sarif_validator)["runs"][0]["results"] == []
    log = sarif(LISTED, sarif_validator)
    results = log["runs"][0]["results"]
    assert [r["suppressions"][0]["kind"] for r in results] == ["external", "inSource", "external"]
    assert {r["suppressions"][0]["status"] for r in results} == {"accepted"}
    assert results[1]["suppressions"][0]["justification"] == f"suppression: {HELD[1].reason}"
    rules = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert [rules[r["ruleIndex"]] for r in results] == [r["ruleId"] for r in results]
    assert [r["ruleId"] for r in results] == [
        "code-guard/code_injection", "code-guard/other", "code-guard/unused_code",
    ]  # fmt: skip
    # never a finding's fingerprint key: a silenced result cannot close a finding's alert
    assert all(list(r["partialFingerprints"]) == ["codeGuardSilenced/v1"] for r in results)


# --- dismissed findings -----------------------------------------------------------------

DISMISSAL = Dismissal(
    kind=DismissalKind.ACCEPTED_RISK,
    reason="internal tool; names come from an enum",
    by="alice",
    at="2026-11-28T00:00:05Z",
    source="https://github.com/o/r/pull/7#discussion_r1",
)
DISMISSED = apply_dismissals(REVIEW, {SQL.fingerprint: DISMISSAL}, Severity.HIGH)


def test_a_dismissed_finding_stays_and_no_longer_gates() -> None:
    assert [f.dismissal for f in DISMISSED.findings] == [DISMISSAL, None]
    assert DISMISSED.at_or_above(Severity.LOW) == (DISMISSED.findings[1],)
    assert (REVIEW.verdict, DISMISSED.verdict) == (Verdict.REQUEST_CHANGES, Verdict.COMMENT)
    assert DISMISSED.health_score > REVIEW.health_score
    # Judged afresh each time: a dismissal not given again is dropped.
    assert apply_dismissals(DISMISSED, {}, Severity.HIGH).findings == REVIEW.findings


def test_text_markdown_and_json_mark_the_dismissal() -> None:
    assert (
        "    dismissed as accepted-risk by alice on 2026-11-28: internal tool; names come "
        "from an enum\n" in render_text(DISMISSED)
    )
    assert (
        " 🚫 *dismissed as accepted-risk by alice on 2026-11-28:* internal tool; names come "
        "from an enum" in render_markdown(DISMISSED)
    )
    sql = json.loads(render_json(DISMISSED))["findings"][0]
    assert sql["dismissal"] == DISMISSAL.model_dump(mode="json")
    assert Review.model_validate_json(render_json(DISMISSED)).findings[0].dismissal == DISMISSAL


def test_sarif_suppresses_a_dismissed_finding(sarif_validator: Draft4Validator) -> None:
    sql, unused = sarif(DISMISSED, sarif_validator)["runs"][0]["results"]
    assert sql["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": "accepted-risk (dismissed by alice): internal tool; names come "
            "from an enum",
        }
    ]
    assert sql["partialFingerprints"] == {"codeGuardFingerprint/v1": SQL.fingerprint}
    assert sql["properties"]["dismissal"]["source"] == DISMISSAL.source
    assert "suppressions" not in unused


def test_the_count_line_tells_rules_the_owner_turned_off_from_proof() -> None:
    # disable-rules is the repository owner's choice, not a proof: the summary says which.
    counts = dict.fromkeys(Silencing, 0)
    counts.update({Silencing.DISABLED: 2, Silencing.GUARD: 1})
    review = Review(
        findings=(), health_score=100, verdict=Verdict.APPROVE, summary="", agents=(),
        silenced=counts,
    )  # fmt: skip
    line = count_line(review)
    assert line is not None
    assert line.startswith("3 candidate(s) held back: 2 by disable-rules, the rest on proof")
