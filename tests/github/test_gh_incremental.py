"""Incremental reviews: after a push, the model sees only what changed since its last review.

The action runs in process with fake engine services (which record what the model was asked
to review) against the REST API stand-in, whose compare API answers as a test scripts it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from ghfakes import TOKEN, FindingFactory, make_review
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, GitHubStandIn
from test_gh_action import Fakes

from code_guard.change.diff import parse_diff
from code_guard.findings import Finding, Severity, SkippedFile
from code_guard.github.action import main
from code_guard.github.incremental import (
    Record,
    RecordError,
    carry_over,
    read_record,
    record_trailer,
)

NEW_SHA = "c" * 40


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def event(tmp_path: Path, action: str) -> Path:
    payload = json.loads((FIXTURES / "pull_request.opened.json").read_text(encoding="utf-8"))
    payload["action"] = action
    payload["pull_request"]["head"]["sha"] = NEW_SHA
    path = tmp_path / f"{action}.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def run(github: GitHubStandIn, workspace: Path, fakes: Fakes, event_path: Path) -> str:
    env = runner_environ(workspace, github.base_url, event_path, TOKEN, model="gpt-4o-mini")
    out = io.StringIO()
    main(env, fakes.services(), out)
    assert read_outputs(Path(env["GITHUB_OUTPUT"]))["outcome"] in ("reviewed", "partial")
    return out.getvalue()


@pytest.fixture
def model_finding(make_finding: FindingFactory) -> Finding:
    return make_finding(
        sources=("model",), severity=Severity.MEDIUM, title="Query built from input",
        anchor_text="query = \"SELECT * FROM users WHERE name = '%s'\" % name",
    )  # fmt: skip


def summary(github: GitHubStandIn) -> str:
    [comment] = github.issue_comments
    return str(comment["body"])


def record_of(body: str) -> Record:
    record = read_record(body)
    assert record is not None, body[-300:]
    return record


def test_the_summary_records_the_commit_and_the_models_findings(
    model_finding: Finding, make_finding: FindingFactory
) -> None:
    tool = make_finding(line_start=30, line_end=30)
    review = make_review(model_finding, tool).model_copy(update={"static_only": False})
    body = "report\n" + record_trailer("a" * 40, review)
    assert record_of(body).reviewed == "a" * 40
    assert record_of(body).findings == (model_finding,)  # only the model's own
    with pytest.raises(RecordError):
        read_record(body.replace("record ", "record x"))
    assert read_record(body + "\nmore text") is None  # only the last line is a record


def test_a_record_anywhere_but_the_last_line_is_not_read(model_finding: Finding) -> None:
    review = make_review(model_finding).model_copy(update={"static_only": False})
    forged = record_trailer("f" * 40, make_review().model_copy(update={"static_only": False}))
    body = f"{forged}\n`{forged}`\n" + record_trailer("a" * 40, review)
    assert record_of(body) == Record(reviewed="a" * 40, findings=(model_finding,))


def test_nothing_is_recorded_unless_the_model_saw_every_file(model_finding: Finding) -> None:
    seen = make_review(model_finding).model_copy(update={"static_only": False})
    assert record_trailer("a" * 40, seen)
    assert record_trailer("a" * 40, make_review(model_finding)) == ""  # static-only
    capped = SkippedFile(path="app/db.py", reason="not sent: the token cap", deliberate=False)
    assert record_trailer("a" * 40, seen.model_copy(update={"not_sent_to_model": (capped,)})) == ""
    unchanged = SkippedFile(path="docs/notes.md", reason="unchanged since the last review")
    assert record_trailer("a" * 40, seen.model_copy(update={"not_sent_to_model": (unchanged,)}))


def test_a_push_sends_only_the_changed_files_and_carries_the_rest_over(
    github: GitHubStandIn, workspace: Path, tmp_path: Path, model_finding: Finding
) -> None:
    run(github, workspace, Fakes((model_finding,)), FIXTURES / "pull_request.opened.json")
    first = summary(github)
    assert record_of(first).reviewed == github.head_sha
    reviewed = github.head_sha
    github.push(NEW_SHA, github.diff)
    github.comparisons[f"{reviewed}...{NEW_SHA}"] = ("ahead", ["docs/notes.md"])
    fakes = Fakes(())  # this time the model finds nothing on what it is shown
    run(github, workspace, fakes, event(tmp_path, "synchronize"))
    assert fakes.model_paths == [frozenset({"docs/notes.md"})]
    second = summary(github)
    assert record_of(second).reviewed == NEW_SHA
    assert "incremental: the model reviewed the 1 file(s) changed since" in second
    assert record_of(second).findings == (model_finding,)  # app/db.py did not change: kept


def test_a_force_push_falls_back_to_a_full_review(
    github: GitHubStandIn, workspace: Path, tmp_path: Path, model_finding: Finding
) -> None:
    run(github, workspace, Fakes((model_finding,)), FIXTURES / "pull_request.opened.json")
    github.comparisons[f"{github.head_sha}...{NEW_SHA}"] = ("diverged", ["app/db.py"])
    github.push(NEW_SHA, github.diff)
    fakes = Fakes(())
    run(github, workspace, fakes, event(tmp_path, "synchronize"))
    assert fakes.model_paths == [None]
    assert "force-push or rebase" in summary(github)


def test_an_unknown_commit_or_a_first_review_is_full(
    github: GitHubStandIn, workspace: Path, tmp_path: Path, model_finding: Finding
) -> None:
    fakes = Fakes((model_finding,))
    run(github, workspace, fakes, event(tmp_path, "synchronize"))  # no summary yet
    assert "no earlier review of this pull request" in summary(github)
    run(github, workspace, fakes, event(tmp_path, "synchronize"))  # a re-run, same commit
    assert fakes.model_paths == [None, None]
    assert "is reviewed again" in summary(github)
    assert github.calls("GET", "/compare/") == []
    github.push(NEW_SHA, github.diff)  # a commit GitHub cannot compare (404): full review
    run(github, workspace, fakes, event(tmp_path, "synchronize"))
    assert fakes.model_paths[-1] is None
    assert "comparing with" in summary(github)


def test_static_only_reviews_never_compare(github: GitHubStandIn, workspace: Path) -> None:
    env = runner_environ(workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN)
    fakes = Fakes(())
    main(env, fakes.services(), io.StringIO())
    assert fakes.model_paths == [None]
    assert github.calls("GET", "/compare/") == []


def test_carried_findings_stay_only_on_lines_still_added(
    change_diff: str, model_finding: Finding
) -> None:
    change = parse_diff(change_diff)
    kept = carry_over(make_review(), [model_finding], change)
    assert kept.findings == (model_finding,)
    moved = model_finding.model_copy(update={"anchor_text": "something else"})
    assert carry_over(make_review(), [moved], change).findings == ()


@pytest.fixture
def change_diff() -> str:
    return (FIXTURES / "pull_request.diff").read_text(encoding="utf-8")


def test_the_record_redacts_the_models_prose_and_still_reads(model_finding: Finding) -> None:
    key = "sk-proj-" + "a1" * 12
    # Redacting the record's JSON as one text once matched a "URL with credentials" from the
    # title's URL to the description's "@", across the fields, and broke the record.
    leaky = model_finding.model_copy(
        update={"title": "https://evil.example", "description": f"@ uses {key}"}
    )
    review = make_review(leaky).model_copy(update={"static_only": False})
    [carried] = record_of(record_trailer("a" * 40, review)).findings
    assert (carried.title, carried.description) == ("https://evil.example", "@ uses ***")
    assert carried.fingerprint == leaky.fingerprint
