"""The action container's entrypoint: the one place that turns errors into exit codes.

Exit codes: 0 when the review found nothing at or above ``fail-on`` (or the event is not one
to review), 1 when it did (or an eval missed its bar), 2 when the run itself failed: bad
inputs, a missing event file, or GitHub refusing to take the review. Every failure is one
``::error::`` line; the provider keys in the environment are never printed.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Mapping
from typing import TextIO

from code_guard.diff import parse_diff
from code_guard.errors import CodeGuardError, ConfigError, GitHubError
from code_guard.github import eval_mode
from code_guard.github.event import Skip, load_event
from code_guard.github.inputs import (
    ActionInputs,
    RunnerEnv,
    build_review_options,
    read_inputs,
    read_runner_env,
)
from code_guard.github.publish import PublishResult, Unplaced, publish_review
from code_guard.github.services import Services, default_services
from code_guard.github.sources import collect_contents
from code_guard.github.summary import job_summary, summary_comment
from code_guard.github.workflow import annotation, command, write_outputs, write_step_summary
from code_guard.models import Review

SARIF_NAME = "code-guard.sarif"


def main(
    environ: Mapping[str, str] | None = None,
    services: Services | None = None,
    out: TextIO | None = None,
) -> int:
    """Run the action with the runner's environment; return the exit code."""
    env = os.environ if environ is None else environ
    stdout = sys.stdout if out is None else out
    try:
        return _run(env, services or default_services(), stdout)
    except CodeGuardError as exc:
        print(command("error", str(exc)), file=stdout)
        return 2
    except Exception as exc:  # the last line of defence: a bug must still fail the step clearly
        print(command("error", f"internal error: {type(exc).__name__}: {exc}"), file=stdout)
        if env.get("RUNNER_DEBUG") == "1":
            traceback.print_exc()
        return 2


def _run(env: Mapping[str, str], services: Services, out: TextIO) -> int:
    runner = read_runner_env(env)
    inputs = read_inputs(env)
    if inputs.mode == "eval":
        return eval_mode.run(inputs, runner, services, out)
    target = load_event(runner.event_name, runner.event_path)
    if isinstance(target, Skip):
        print(command("notice", f"Ninja Code Guard skipped: {target.reason}"), file=out)
        return 0
    return _review(inputs, runner, target.repository, target.number, services, out)


def _review(
    inputs: ActionInputs,
    runner: RunnerEnv,
    repository: str,
    number: int,
    services: Services,
    out: TextIO,
) -> int:
    options = build_review_options(inputs, runner.workspace)
    token = inputs.github_token.get_secret_value()
    if not token:
        raise ConfigError("the github-token input is empty")
    client = services.connect(token, runner.api_url, repository, number)
    pr = client.pull_request()
    if pr.state != "open" or pr.draft:
        state = "a draft" if pr.draft else pr.state
        print(command("notice", f"Ninja Code Guard skipped: #{number} is now {state}"), file=out)
        return 0
    fetched = client.diff()
    change = parse_diff(fetched.text)
    contents = collect_contents(change, pr.head_sha, runner.workspace, client, options.paths_ignore)
    review = services.review(change, contents, pr.title, pr.body, options)
    if fetched.skipped:
        skipped = review.files_not_reviewed + fetched.skipped
        review = review.model_copy(update={"files_not_reviewed": skipped})

    def body(unplaced: Unplaced) -> str:
        return summary_comment(review, pr.head_sha, unplaced, services.render_markdown)

    result: PublishResult | None = None
    problem: str | None = None
    try:
        result = publish_review(
            client, review, change, pr.head_sha, inputs.max_inline_comments, body
        )
    except GitHubError as exc:
        problem = f"Publishing the review failed: {exc}"
    _report(review, result, problem, runner, services, out)
    if problem:
        print(command("error", problem), file=out)
        return 2
    if options.fail_on is not None and review.at_or_above(options.fail_on):
        worst = len(review.at_or_above(options.fail_on))
        print(command("error", f"{worst} findings at or above {options.fail_on.value}"), file=out)
        return 1
    return 0


def _report(
    review: Review,
    result: PublishResult | None,
    problem: str | None,
    runner: RunnerEnv,
    services: Services,
    out: TextIO,
) -> None:
    """Annotate what did not reach the pull request, then write SARIF, summary and outputs."""
    if result is None or result.denied:
        reason = result.denied if result else problem
        print(command("warning", f"Findings are shown as annotations: {reason}"), file=out)
        posted = result.posted_fingerprints if result else frozenset()
        for finding in review.findings:
            if finding.fingerprint not in posted:
                print(annotation(finding), file=out)
    sarif = runner.workspace / SARIF_NAME
    sarif.write_text(services.render_sarif(review), encoding="utf-8")
    write_step_summary(
        runner.step_summary, job_summary(review, services.render_markdown, result, problem)
    )
    url = (result.review_url or result.summary_url) if result else ""
    write_outputs(
        runner.output,
        {
            "findings": str(len(review.findings)),
            "verdict": review.verdict.value,
            "health-score": str(review.health_score),
            "sarif-file": SARIF_NAME,  # relative: the container's paths mean nothing to later steps
            "review-url": url,
        },
    )


if __name__ == "__main__":
    sys.exit(main())
