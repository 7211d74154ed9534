"""The action's feedback mode: the reviewer's precision on this repository, for a scheduled
workflow. It reads the action's inline comments and their dismissals on the pull requests
updated since ``since`` (default ``30d``), writes the table to the job summary and the numbers
to ``code-guard-feedback.json`` in the workspace, and exits 0."""

from __future__ import annotations

import datetime as dt
from typing import TextIO

from code_guard.errors import ConfigError, InputError
from code_guard.github.feedback_command import build_report, since_date
from code_guard.github.history import RepoHistory
from code_guard.github.inputs import ActionInputs, RunnerEnv, build_review_options
from code_guard.github.ownership import give_to_workspace_owner
from code_guard.github.retry import RetrySettings
from code_guard.github.workflow import command, write_step_summary
from code_guard.trust.nofollow import write_replacing

RESULTS_NAME = "code-guard-feedback.json"
DEFAULT_SINCE = "30d"


def run(
    inputs: ActionInputs,
    runner: RunnerEnv,
    out: TextIO,
    now: dt.datetime,
    retry: RetrySettings | None = None,
) -> int:
    """Build the report for ``runner.repository``; return 0."""
    token = inputs.github_token.get_secret_value()
    if not token:
        raise ConfigError("the github-token input is empty")
    if not runner.repository:
        raise ConfigError("GITHUB_REPOSITORY is not set")
    dismiss_by = build_review_options(inputs, runner.workspace).gate.dismiss_by
    try:
        since = since_date(inputs.since.strip() or DEFAULT_SINCE, now)
    except InputError as exc:
        raise ConfigError(f"invalid action input 'since': {inputs.since.strip()!r}") from exc
    settings = retry or RetrySettings()
    history = RepoHistory.connect(token, runner.api_url, runner.repository, settings)
    report = build_report(history, since, dismiss_by)
    write_step_summary(runner.step_summary, report.markdown())
    results = runner.workspace / RESULTS_NAME
    try:
        write_replacing(results, report.json())
    except OSError as error:
        print(command("warning", f"could not write {RESULTS_NAME}: {error.strerror}"), file=out)
    else:
        if problem := give_to_workspace_owner(results, runner.workspace):
            print(command("warning", problem), file=out)
    posted = sum(r.posted for r in report.rows)
    message = f"feedback: {posted} finding(s) posted on {report.pulls} pull request(s)"
    print(command("notice", message), file=out)
    return 0
