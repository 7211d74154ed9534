"""Dismissing a finding in the pull request, end to end: the entrypoint against the stand-in,
whose every request is checked against GitHub's OpenAPI description.

The first run posts the high finding inline; people then comment; the next run reads the
comments, asks the collaborator permission API, and decides what the gate sees.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from gfm import render_gfm
from ghfakes import FindingFactory
from ghstandin import GitHubStandIn
from jsonschema import Draft4Validator  # type: ignore[import-untyped]  # no stubs pinned
from test_gh_action import Fakes, run_action

from code_guard.findings import Finding, Severity
from code_guard.github.publish import SUMMARY_MARKER
from code_guard.github.services import Services
from code_guard.report.sarif import render_sarif
from code_guard.review.dismissals import DISMISSALS_FILE

AUTHOR = "octocat"  # who opened pull request #7 in the event fixture
SCHEMA = Path(__file__).parents[1] / "fixtures" / "sarif-schema-2.1.0.json"
REASON = "name is an enum member, never user input"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def high(make_finding: FindingFactory) -> Finding:
    return make_finding(anchor_text='query = "SELECT * FROM users WHERE name = \'%s\'" % name')


class RealSarif(Fakes):
    """The fakes, with the real SARIF renderer."""

    def services(self) -> Services:
        return replace(super().services(), render_sarif=render_sarif)


def summary(github: GitHubStandIn) -> str:
    """The summary comment as a reader sees it: rendered, as text."""
    [body] = [c["body"] for c in github.issue_comments if SUMMARY_MARKER in c["body"]]
    return shown(str(body))


def shown(markdown: str) -> str:
    """``markdown`` as the text GitHub shows (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", render_gfm(markdown)))


def first_run(github: GitHubStandIn, workspace: Path, fakes: Fakes) -> int:
    """Run once; return the id of the inline comment the action posted."""
    assert run_action(github, workspace, fakes).code == 1
    [posted] = github.review_comments
    return int(posted["id"])


def reply(github: GitHubStandIn, to: int, login: str, body: str, association: str) -> None:
    github.add_comment_by(login, association, body, review=True, in_reply_to=to)


def test_a_writer_who_is_not_the_author_dismisses_and_the_gate_passes(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    fakes = Fakes((high,))
    inline = first_run(github, workspace, fakes)
    github.permissions["alice"] = "write"
    reply(github, inline, "alice", f"/code-guard dismiss false-positive {REASON}", "MEMBER")
    run = run_action(github, workspace, fakes)
    assert run.code == 0
    assert "findings at or above" not in run.stdout
    assert (run.outputs["findings"], run.outputs["dismissed"]) == ("1", "1")
    text = summary(github)
    assert "Dismissed (1)" in text
    assert "dismissed as false-positive by alice on 2026-11-28" in text
    # The entry that keeps it on every pull request, ready to paste.
    assert f"- fingerprint: {high.fingerprint}\n  rule: sql_injection\n  path: app/db.py" in text
    assert "Dismissed (1)" in shown(run.summary)  # the job summary lists it too
    assert len(github.visible_reviews()) == 1  # nothing posted again
    assert github.calls("GET", "/collaborators/alice/permission")


def test_the_authors_and_a_readers_dismissals_are_ignored_and_listed(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    fakes = Fakes((high,))
    inline = first_run(github, workspace, fakes)
    github.permissions.update({AUTHOR: "admin", "reader": "read"})
    command = f"/code-guard dismiss accepted-risk {REASON}"
    reply(github, inline, AUTHOR, command, "OWNER")
    reply(github, inline, "reader", command, "MEMBER")
    reply(github, inline, "stranger", command, "NONE")
    run = run_action(github, workspace, fakes)
    assert run.code == 1
    text = summary(github)
    assert "Dismissed (" not in text
    assert "Dismissals not applied (3)" in text
    assert "the pull request's author cannot dismiss its findings (dismiss-by: others)" in text
    assert "reader (comment): has read permission; dismissing needs" in text
    assert "not a collaborator of the repository" in text
    assert github.calls("GET", "/collaborators/stranger/permission") == []
    assert "::notice::3 dismissal command(s) ignored" in run.stdout


def test_writers_lets_the_author_dismiss_and_maintainers_refuses_a_writer(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    fakes = Fakes((high,))
    inline = first_run(github, workspace, fakes)
    github.permissions.update({AUTHOR: "write", "bob": "write"})
    reply(github, inline, "bob", f"/code-guard dismiss wont-fix {REASON}", "COLLABORATOR")
    assert run_action(github, workspace, fakes, dismiss_by="maintainers").code == 1
    assert "has write permission; dismissing needs maintain or admin" in summary(github)
    reply(github, inline, AUTHOR, f"/code-guard dismiss wont-fix {REASON}", "OWNER")
    assert run_action(github, workspace, fakes, dismiss_by="writers").code == 0


def test_a_short_id_in_a_conversation_comment_dismisses(
    github: GitHubStandIn, workspace: Path, high: Finding, make_finding: FindingFactory
) -> None:
    medium = make_finding(line_start=30, line_end=30, severity=Severity.MEDIUM, anchor_text="x")
    fakes = Fakes((high, medium))
    first_run(github, workspace, fakes)
    github.permissions["alice"] = "maintain"
    body = f"Looked at it.\n/code-guard dismiss {high.fingerprint[:8]} accepted-risk {REASON}\n"
    github.add_comment_by("alice", "MEMBER", body, review=False)
    assert run_action(github, workspace, fakes, dismiss_by="maintainers").code == 0
    assert "Dismissed (1)" in summary(github)


def test_commands_in_the_diff_a_code_block_a_quote_or_an_edit_do_nothing(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    fakes = Fakes((high,))
    inline = first_run(github, workspace, fakes)
    diff = github.diff.replace(
        "+    return conn.execute(query).fetchone()",
        "+    return conn.execute(query).fetchone()  # /code-guard dismiss false-positive ok",
    )
    github.push(github.head_sha, diff)
    github.permissions["alice"] = "write"
    command = f"/code-guard dismiss false-positive {REASON}"
    reply(github, inline, "alice", f"```suggestion\n{command}\n```", "MEMBER")
    reply(github, inline, "alice", f"> {command}", "MEMBER")
    github.add_comment_by("alice", "MEMBER", "LGTM", review=True, in_reply_to=inline)
    github.edit_comment(github.review_comments[-1], command)
    run = run_action(github, workspace, fakes)
    assert run.code == 1
    text = summary(github)
    assert "in the diff: commands count only in comments" in text
    assert "the command is inside a code or suggestion block" in text
    assert "the command is inside a quote" in text
    assert "the comment was edited after it was posted" in text


def test_a_changed_line_is_a_new_finding_that_gates_again(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    fakes = Fakes((high,))
    inline = first_run(github, workspace, fakes)
    github.permissions["alice"] = "write"
    reply(github, inline, "alice", f"/code-guard dismiss false-positive {REASON}", "MEMBER")
    assert run_action(github, workspace, fakes).code == 0
    changed = high.model_copy(update={"anchor_text": "query = build(name)", "fingerprint": ""})
    fakes.findings = (Finding.model_validate(changed.model_dump()),)
    run = run_action(github, workspace, fakes)
    assert run.code == 1
    text = summary(github)
    assert "Dismissed (" not in text
    assert "names no finding of this review (fixed, or changed)" in text


def base_file(entry: dict[str, Any]) -> str:
    return json.dumps({"dismissals": [entry]})  # JSON is YAML


def entry_for(finding: Finding, **changes: Any) -> dict[str, Any]:
    entry = {
        "fingerprint": finding.fingerprint,
        "rule": "sql_injection",
        "path": "app/db.py",
        "kind": "accepted-risk",
        "reason": REASON,
        "by": "alice",
        "expires": "2099-01-01",
    }
    return {**entry, **changes}


def test_the_base_branchs_dismissals_file_is_honoured(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    github.base_contents[DISMISSALS_FILE] = base_file(entry_for(high))
    run = run_action(github, workspace, Fakes((high,)))
    assert run.code == 0
    assert github.visible_reviews() == []  # a dismissed finding is not posted inline
    text = summary(github)
    assert "Dismissed (1)" in text
    assert "Keep these dismissals" not in text  # already in the file
    assert github.calls("GET", "/contents/.code-guard/dismissals.yml")[0].query == {
        "ref": github.base_sha
    }


def test_the_pull_requests_own_additions_to_the_file_are_not_honoured(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    added = base_file(entry_for(high))
    diff = github.diff + (
        f"diff --git a/{DISMISSALS_FILE} b/{DISMISSALS_FILE}\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/{DISMISSALS_FILE}\n@@ -0,0 +1 @@\n+{added}\n"
    )
    github.push(github.head_sha, diff)
    github.contents[DISMISSALS_FILE] = added + "\n"
    run = run_action(github, workspace, Fakes((high,)))
    assert run.code == 1
    text = summary(github)
    assert "Dismissed (" not in text
    assert "this pull request edits .code-guard/dismissals.yml" in text


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("/code-guard dismis false-positive x", "unknown command 'dismis'"),
        ("/code-guard dismiss wrong-kind because", "unknown kind 'wrong-kind'"),
        ("/code-guard dismiss false-positive", "a reason is required"),
    ],
)
def test_a_bad_command_is_one_line_and_changes_nothing(
    github: GitHubStandIn, workspace: Path, high: Finding, body: str, line: str
) -> None:
    fakes = Fakes((high,))
    inline = first_run(github, workspace, fakes)
    github.permissions["alice"] = "write"
    reply(github, inline, "alice", body, "MEMBER")
    run = run_action(github, workspace, fakes)
    assert run.code == 1
    text = summary(github)
    assert "Dismissals not applied (1)" in text
    assert line in text
    assert len(github.visible_reviews()) == 1


def test_a_bad_file_entry_is_one_line_and_the_others_count(
    github: GitHubStandIn, workspace: Path, high: Finding, make_finding: FindingFactory
) -> None:
    medium = make_finding(line_start=30, line_end=30, severity=Severity.MEDIUM, anchor_text="x")
    entries = [
        entry_for(high),
        entry_for(medium, kind="maybe"),
        entry_for(medium, reason=""),
        entry_for(medium, expires="2020-01-01", rule="sql_injection"),
    ]
    github.base_contents[DISMISSALS_FILE] = json.dumps({"dismissals": entries})
    run = run_action(github, workspace, Fakes((high, medium)))
    assert run.code == 0  # the good entry dismissed the high finding
    text = summary(github)
    assert "Dismissed (1)" in text
    assert "entry 2: kind: Input should be" in text
    assert "entry 3: reason: String should have at least 1 character" in text
    assert "entry 4 (" in text and "expired on 2020-01-01" in text
    assert run.stdout.count("::warning::.code-guard/dismissals.yml entry") == 3


def test_sarif_carries_the_dismissal_as_an_accepted_suppression(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    fakes = Fakes((high,))
    inline = first_run(github, workspace, fakes)
    github.permissions["alice"] = "write"
    reply(github, inline, "alice", f"/code-guard dismiss false-positive {REASON}", "MEMBER")
    run = run_action(github, workspace, RealSarif(fakes.findings))
    assert run.code == 0
    log = json.loads((workspace / "code-guard.sarif").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert list(Draft4Validator(schema).iter_errors(log)) == []
    [result] = log["runs"][0]["results"]
    assert result["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": f"false-positive (dismissed by alice): {REASON}",
        }
    ]
    assert result["properties"]["dismissal"]["by"] == "alice"


def test_an_edited_bot_comment_neither_commands_nor_names_a_finding(
    github: GitHubStandIn, workspace: Path, high: Finding, make_finding: FindingFactory
) -> None:
    other = make_finding(line_start=13, line_end=13, anchor_text="subprocess.call(cmd)")
    fakes = Fakes((high, other))
    run_action(github, workspace, fakes)
    ours = github.review_comments[0]
    # Someone who can edit the bot's comment adds the other finding's marker and a command.
    forged = f"{ours['body']}\n<!-- code-guard:fp={other.fingerprint} -->"
    github.edit_comment(ours, f"/code-guard dismiss false-positive {REASON}\n{forged}")
    github.permissions["alice"] = "write"
    reply(github, int(ours["id"]), "alice", f"/code-guard dismiss wont-fix {REASON}", "MEMBER")
    run = run_action(github, workspace, fakes)
    assert run.code == 1
    text = summary(github)
    assert "Dismissed (" not in text
    assert "in this action's own comment: commands count only in people's comments" in text
    assert "replies to a comment that is not this action's own (unedited) comment" in text


def test_a_bad_dismiss_by_input_fails_the_step_with_one_line(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    run = run_action(github, workspace, Fakes((high,)), dismiss_by="everyone")
    assert run.code == 2
    assert run.stdout.startswith("::error::invalid dismiss-by: Input should be 'others'")
    assert run.stdout.count("\n") == 1


def test_the_ignored_list_stays_bounded(
    github: GitHubStandIn, workspace: Path, high: Finding
) -> None:
    fakes = Fakes((high,))
    first_run(github, workspace, fakes)
    spam = "\n".join(f"/code-guard dismiss {high.fingerprint[:8]} wont-fix {n}" for n in range(35))
    github.add_comment_by("stranger", "NONE", spam, review=False)
    assert run_action(github, workspace, fakes).code == 1
    text = summary(github)
    assert "Dismissals not applied (35)" in text
    assert text.count("not a collaborator of the repository") == 30
    assert "…and 5 more" in text
