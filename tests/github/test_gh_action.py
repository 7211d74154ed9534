"""The entrypoint, in process, with fake engine and renderers and the API stand-in."""

from __future__ import annotations

import inspect
import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from ghfakes import FAST_RETRY, TOKEN, FindingFactory, make_review, render_stub
from ghrunner import read_outputs, runner_environ, without_masks
from ghstandin import FIXTURES, Fault, GitHubStandIn

from code_guard.change.diff import Change
from code_guard.evaluation.command import EvalOutcome
from code_guard.evaluation.schema import CaseResult
from code_guard.findings import Finding, Review, Severity
from code_guard.github.action import main
from code_guard.github.client import GitHubClient
from code_guard.github.services import Services
from code_guard.options import ReviewOptions


def outcome(**changes: Any) -> EvalOutcome:
    values: dict[str, Any] = {
        "precision": 0.8,
        "recall": 0.5,
        "f1": 0.6154,
        "latency_p50_ms": 120.4,
        "latency_p95_ms": None,
        "passed": True,
        "markdown": "## Eval\n",
        "errors": 0,
    }
    return EvalOutcome(**{**values, **changes})


class Fakes:
    """Services whose review returns the findings it is given, and records its calls."""

    def __init__(self, findings: tuple[Finding, ...]) -> None:
        self.findings = findings
        self.reviewed: list[tuple[Change, Mapping[str, str], ReviewOptions]] = []
        self.model_paths: list[frozenset[str] | None] = []
        self.eval_calls: list[dict[str, Any]] = []
        self.outcome = outcome()

    def services(self) -> Services:
        def connect(token: str, api_url: str, repository: str, number: int) -> GitHubClient:
            return GitHubClient.connect(token, api_url, repository, number, FAST_RETRY)

        def review(
            change: Change,
            contents: Mapping[str, str],
            title: str,
            body: str,
            options: ReviewOptions,
            model_paths: frozenset[str] | None = None,
        ) -> Review:
            self.reviewed.append((change, contents, options))
            self.model_paths.append(model_paths)
            review = make_review(*self.findings)
            if options.model.enabled:  # as the engine does: a model review is not static-only
                review = review.model_copy(update={"static_only": False})
            return review

        def run_eval(**kwargs: Any) -> EvalOutcome:
            self.eval_calls.append(kwargs)
            kwargs["output"].write_text("{}\n", encoding="utf-8")  # as the real eval does
            kwargs["on_result"](1, 2, CaseResult(case_file="a.json", pr_id="a", error="bad JSON"))
            return self.outcome

        return Services(connect, review, render_stub, lambda r: '{"version": "2.1.0"}', run_eval)


@dataclass
class Run:
    code: int
    stdout: str  # without the ::add-mask:: lines, which are in ``masks``
    masks: list[str]
    outputs: dict[str, str]
    summary: str


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def run_action(
    github: GitHubStandIn, workspace: Path, fakes: Fakes, event: Path | None = None, **inputs: str
) -> Run:
    event_path = event or FIXTURES / "pull_request.opened.json"
    env = runner_environ(workspace, github.base_url, event_path, TOKEN, **inputs)
    out = io.StringIO()
    code = main(env, fakes.services(), out)
    printed = out.getvalue()
    return Run(
        code,
        without_masks(printed),
        [line for line in printed.splitlines() if line.startswith("::add-mask::")],
        read_outputs(Path(env["GITHUB_OUTPUT"])),
        Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8"),
    )


@pytest.fixture
def findings(make_finding: FindingFactory) -> tuple[Finding, ...]:
    return (
        make_finding(anchor_text="query"),
        make_finding(line_start=30, line_end=30, severity=Severity.MEDIUM, anchor_text="x"),
    )


def test_review_publishes_writes_outputs_and_fails_on_high(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    fakes = Fakes(findings)
    run = run_action(github, workspace, fakes)
    assert run.code == 1
    assert "::error::1 findings at or above high" in run.stdout
    [review] = github.visible_reviews()
    assert run.outputs == {
        "findings": "2",
        "verdict": "request_changes",
        "health-score": "60",
        "sarif-file": "code-guard.sarif",
        "review-url": review["html_url"],
        "outcome": "reviewed",
        "files-not-reviewed": "0",
        "dismissed": "0",
    }
    assert (workspace / "code-guard.sarif").read_text(encoding="utf-8") == '{"version": "2.1.0"}'
    assert "## Report: request_changes, 2 findings" in run.summary
    assert "Not posted inline (1)" in run.summary
    change, contents, options = fakes.reviewed[0]
    assert [f.path for f in change.files] == ["app/db.py", "docs/notes.md"]
    assert contents["app/db.py"] == github.contents["app/db.py"]
    assert options.gate.fail_on is Severity.HIGH


def test_fail_on_none_passes_and_paths_ignore_skips_fetching(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    fakes = Fakes(findings)
    run = run_action(github, workspace, fakes, fail_on="none", paths_ignore="docs/")
    assert run.code == 0
    assert github.calls("GET", "/contents/docs") == []
    assert fakes.reviewed[0][2].analysis.paths_ignore == ("docs/",)


def test_checkout_at_the_head_commit_is_read_instead_of_the_api(
    github: GitHubStandIn, workspace: Path
) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "HEAD").write_text(github.head_sha + "\n", encoding="utf-8")
    (workspace / "app").mkdir()
    (workspace / "app" / "db.py").write_text("local text\n", encoding="utf-8")
    fakes = Fakes(())
    assert run_action(github, workspace, fakes).code == 0
    assert fakes.reviewed[0][1]["app/db.py"] == "local text\n"
    assert github.calls("GET", "/contents/app/") == []


def test_clean_review_still_updates_the_summary_and_posts_no_review(
    github: GitHubStandIn, workspace: Path
) -> None:
    run = run_action(github, workspace, Fakes(()))
    assert run.code == 0
    assert github.visible_reviews() == []
    assert run.outputs["review-url"] == github.issue_comments[0]["html_url"]


def test_read_only_token_falls_back_to_annotations(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    github.read_only = True
    run = run_action(github, workspace, Fakes(findings))
    assert run.code == 1
    lines = run.stdout.splitlines()
    assert run.masks == [f"::add-mask::{TOKEN}"]
    assert lines[0].startswith("::warning::Findings are shown as annotations: posting a review")
    assert lines[1] == (
        "::error file=app/db.py,line=10,endLine=10,title=[high] SQL built with string formatting"
        "::The query interpolates `name`, so a crafted name rewrites the SQL."
    )
    assert lines[2].startswith("::warning file=app/db.py,line=30,endLine=30,title=[medium] ")
    assert "Traceback" not in run.stdout
    assert "The token cannot write to this pull request" in run.summary
    assert run.outputs["review-url"] == ""


def test_github_failing_while_publishing_exits_2_after_reporting(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    github.faults.append(Fault("POST", "/reviews$", 500, {"message": "Server Error"}, times=9))
    run = run_action(github, workspace, Fakes(findings))
    assert run.code == 2
    assert run.stdout.splitlines()[-1].startswith("::error::posting the review failed")
    assert "::error file=app/db.py,line=10" in run.stdout
    assert run.outputs["findings"] == "2"
    assert "posting the review failed" in run.summary
    # Nothing is lost: the summary comment still lists every finding, and its URL is output.
    (comment,) = github.issue_comments
    assert "Not posted inline (1)" in comment["body"] or "posting the review failed" in (
        comment["body"]
    )
    assert run.outputs["review-url"] == comment["html_url"]


def test_draft_and_non_pr_events_are_skipped_with_a_notice(
    github: GitHubStandIn, workspace: Path, tmp_path: Path
) -> None:
    event = json.loads((FIXTURES / "pull_request.opened.json").read_text(encoding="utf-8"))
    event["pull_request"]["draft"] = True
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(event), encoding="utf-8")
    run = run_action(github, workspace, Fakes(()), event=draft)
    assert (run.code, run.stdout) == (
        0,
        "::notice::Ninja Code Guard skipped: pull request #7 "
        "is a draft; it is reviewed once marked ready\n",
    )
    env = runner_environ(workspace, github.base_url, FIXTURES / "push.json", TOKEN, "push")
    out = io.StringIO()
    assert main(env, Fakes(()).services(), out) == 0
    assert without_masks(out.getvalue()).startswith(
        "::notice::Ninja Code Guard skipped: event 'push'"
    )
    assert github.requests == []


@pytest.mark.parametrize("content", [None, "{]"])
def test_missing_or_malformed_event_file_is_one_error_line(
    github: GitHubStandIn, workspace: Path, tmp_path: Path, content: str | None
) -> None:
    event = tmp_path / "event.json"
    if content is not None:
        event.write_text(content, encoding="utf-8")
    run = run_action(github, workspace, Fakes(()), event=event)
    assert run.code == 2
    assert run.stdout.count("\n") == 1 and run.stdout.startswith("::error::")
    assert run.outputs == {}


def test_bad_input_is_an_error_before_any_request(github: GitHubStandIn, workspace: Path) -> None:
    run = run_action(github, workspace, Fakes(()), max_inline_comments="-1")
    assert (run.code, github.requests) == (2, [])
    assert run.stdout.startswith("::error::invalid action input 'max-inline-comments'")


def test_eval_mode_reports_metrics(github: GitHubStandIn, workspace: Path) -> None:
    fakes = Fakes(())
    run = run_action(github, workspace, fakes, mode="eval", min_f1="0.5", jobs="2")
    assert run.code == 0
    assert run.outputs == {
        "precision": "0.8000",
        "recall": "0.5000",
        "f1": "0.6154",
        "latency-p50-ms": "120",
        "latency-p95-ms": "",
    }
    assert run.summary == "## Eval\n"
    assert "[1/2] a  ERROR bad JSON\n" in run.stdout  # progress while it runs
    [call] = fakes.eval_calls
    assert (call["dataset"], call["jobs"], call["min_f1"], call["baseline"]) == (
        None,  # the bundled dataset
        2,
        0.5,
        None,
    )
    run_action(github, workspace, fakes, mode="eval", dataset="evals/cases")
    assert fakes.eval_calls[-1]["dataset"] == workspace / "evals/cases"
    fakes.outcome = outcome(passed=False, failure="F1 0.61 < 0.70", errors=1)
    run = run_action(github, workspace, fakes, mode="eval")
    assert run.code == 1
    assert "::warning::eval: 1 case(s) could not be run" in run.stdout
    assert "::error::eval quality gate failed: F1 0.61 < 0.70" in run.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give files to another user")
def test_files_written_to_the_workspace_belong_to_its_owner(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    # A self-hosted runner's account owns the workspace; the container runs as root.
    os.chown(workspace, 4321, 4322)
    run = run_action(github, workspace, Fakes(findings), fail_on="none")
    sarif = (workspace / run.outputs["sarif-file"]).stat()
    assert (sarif.st_uid, sarif.st_gid) == (4321, 4322)
    run_action(github, workspace, Fakes(()), mode="eval")
    results = (workspace / "code-guard-eval.json").stat()
    assert (results.st_uid, results.st_gid) == (4321, 4322)


def test_eval_wiring_matches_the_evaluation_entry_point() -> None:
    from code_guard.evaluation.command import run_eval_for_action

    params = inspect.signature(run_eval_for_action).parameters
    wired = {"dataset", "options", "jobs", "min_f1", "baseline", "output"}
    assert wired <= set(params)
    assert all(
        p.default is not inspect.Parameter.empty for n, p in params.items() if n not in wired
    )


# --- partial failures: the rest is still reviewed and published ------------------------------


def test_a_file_whose_contents_keep_failing_is_not_reviewed_and_the_rest_is(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    github.faults.append(Fault("GET", "/contents/app", 503, {"message": "Unavailable"}, times=20))
    fakes = Fakes(findings)
    run = run_action(github, workspace, fakes, fail_on="none")
    change, _, _ = fakes.reviewed[0]
    assert [f.path for f in change.files] == ["docs/notes.md"]
    assert run.outputs["outcome"] == "partial"
    assert run.outputs["files-not-reviewed"] == "1"
    assert run.code == 4
    assert "::error::Review partial: app/db.py was not reviewed: its contents could not be" in (
        run.stdout
    )
    assert github.issue_comments  # the summary was still published


def test_on_error_warn_lets_a_partial_review_pass(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    github.faults.append(Fault("GET", "/contents/app", 503, {"message": "Unavailable"}, times=20))
    run = run_action(github, workspace, Fakes(findings), fail_on="none", on_error="warn")
    assert run.code == 0
    assert "::warning::Review partial" in run.stdout


def test_a_failing_summary_comment_keeps_the_review_url(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    github.faults.append(Fault("POST", "/issues/7/comments$", 500, {"message": "Oops"}, times=9))
    run = run_action(github, workspace, Fakes(findings), fail_on="none")
    [review] = github.visible_reviews()
    assert run.outputs["review-url"] == review["html_url"]
    assert run.code == 2
    assert "::error::updating the summary comment failed" in run.stdout


class LinkingFakes(Fakes):
    """Fakes whose services also render the report with linked locations."""

    def services(self) -> Services:
        plain = super().services()
        return replace(plain, render_linked=lambda review, base: f"## Report at {base}\n")


def test_summary_comment_and_job_summary_link_to_the_head_commit(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    run = run_action(github, workspace, LinkingFakes(findings))
    blob = f"/blob/{github.head_sha}"
    (comment,) = github.issue_comments
    assert "## Report at https://github.com/" in comment["body"] and blob in comment["body"]
    assert "## Report at https://github.com/" in run.summary and blob in run.summary


def test_an_unknown_rule_in_disable_rules_is_one_error_line_and_exit_2(
    github: GitHubStandIn, workspace: Path, findings: tuple[Finding, ...]
) -> None:
    run = run_action(github, workspace, Fakes(findings), disable_rules="semgrep:no-such-rule")
    assert run.code == 2
    assert run.stdout.splitlines() == [
        "::error::invalid disable-rules: 'semgrep:no-such-rule' is not a rule of the catalogue "
        "(got ('semgrep:no-such-rule',))"
    ]
    assert "Traceback" not in run.stdout
