"""The dismissals file: read entry by entry, one clear line per bad or expired entry, and
matched to findings only when the rule and path agree with the fingerprint."""

from __future__ import annotations

import datetime as dt

import yaml

from code_guard.findings import AgentName, Category, Dismissal, DismissalKind, Finding, Severity
from code_guard.review.dismissals import (
    FileEntry,
    entries_yaml,
    file_entry,
    match_file_entries,
    read_dismissals_file,
    short_id,
)

TODAY = dt.date(2026, 11, 28)
FINDING = Finding(
    agent=AgentName.SECURITY,
    file_path="app/db.py",
    line_start=10,
    line_end=10,
    severity=Severity.HIGH,
    category=Category.SQL_INJECTION,
    title="SQL built with string formatting",
    description="",
    confidence=0.9,
    sources=("bandit",),
    anchor_text="query = base % name",
)
GOOD = {
    "fingerprint": FINDING.fingerprint,
    "rule": "sql_injection",
    "path": "app/db.py",
    "kind": "false-positive",
    "reason": "name is an enum member",
    "by": "alice",
}


def dump(*entries: object) -> str:
    return yaml.safe_dump({"dismissals": list(entries)})


def test_a_good_file_reads_and_matches_its_finding() -> None:
    read = read_dismissals_file(dump(GOOD), TODAY)
    assert read.problems == ()
    matched, problems = match_file_entries(read.entries, [FINDING])
    assert problems == ()
    assert matched == {
        FINDING.fingerprint: Dismissal(
            kind=DismissalKind.FALSE_POSITIVE,
            reason="name is an enum member",
            by="alice",
            source=".code-guard/dismissals.yml",
        )
    }


def test_each_bad_entry_is_one_line_and_the_others_count() -> None:
    text = dump(
        GOOD,
        {**GOOD, "kind": "meh"},
        {**GOOD, "fingerprint": "xyz"},
        {**GOOD, "colour": "red"},
        "just a string",
        {**GOOD, "expires": "2026-11-27"},
        {**GOOD, "expires": "2026-11-28"},  # the last day still counts
    )
    read = read_dismissals_file(text, TODAY)
    assert len(read.entries) == 2
    assert [p.split(":", 1)[0] for p in read.problems] == [
        ".code-guard/dismissals.yml entry 2",
        ".code-guard/dismissals.yml entry 3",
        ".code-guard/dismissals.yml entry 4",
        ".code-guard/dismissals.yml entry 5",
        f".code-guard/dismissals.yml entry 6 ({short_id(FINDING.fingerprint)}) expired on "
        "2026-11-27; not honoured",
    ]
    assert read.problems[0].startswith(".code-guard/dismissals.yml entry 2: kind: Input should be")
    assert "colour: Extra inputs are not permitted" in read.problems[2]
    assert all("\n" not in p for p in read.problems)


def test_a_file_that_does_not_read_is_one_line() -> None:
    for text in ("dismissals: [", "- a list\n", "dismissals: {a: 1}\n", "other: 1\n"):
        read = read_dismissals_file(text, TODAY)
        assert read.entries == () and len(read.problems) == 1, text
    assert read_dismissals_file("", TODAY).problems == ()


def test_an_entry_whose_rule_or_path_disagree_is_not_honoured() -> None:
    entry = FileEntry.model_validate({**GOOD, "path": "app/other.py"})
    matched, problems = match_file_entries([entry], [FINDING])
    assert matched == {}
    [problem] = problems
    assert (
        "names sql_injection in app/other.py, but that finding is sql_injection in app/db.py"
        in problem
    )


def test_the_offered_entry_reads_back() -> None:
    dismissal = Dismissal(kind=DismissalKind.WONT_FIX, reason="legacy: see #12", by="bob")
    text = entries_yaml([file_entry(FINDING, dismissal)])
    read = read_dismissals_file("dismissals:\n" + text, TODAY)
    assert read.problems == ()
    assert match_file_entries(read.entries, [FINDING])[0][FINDING.fingerprint].kind is (
        DismissalKind.WONT_FIX
    )
