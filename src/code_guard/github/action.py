"""The action container's entrypoint: the one place that turns errors into exit codes.

Exit codes: 0 when the review found nothing at or above ``fail-on`` (or the event is not one
to review), 1 when it did (or an eval missed its bar), 2 when the run itself failed: bad
inputs, a missing event file, or GitHub refusing to take the review; 4 when the review was
partial or failed (something was not analysed) and ``on-error`` is ``fail``, the default.
Every failure is one ``::error::`` line; the provider keys in the environment are never
printed.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TextIO

from code_guard.change.diff import parse_diff
from code_guard.errors import CodeGuardError, ConfigError, GitHubError
from code_guard.findings import Review
from code_guard.github import eval_mode, feedback_mode
from code_guard.github.client import GitHubClient
from code_guard.github.comments import MAX_BODY
from code_guard.github.dismissals import Dismissals, collect
from code_guard.github.event import Skip, load_event
from code_guard.github.incremental import Increment, carry_over, plan_increment, record_trailer
from code_guard.github.inputs import (
    ActionInputs,
    RunnerEnv,
    build_review_options,
    read_inputs,
    read_runner_env,
)
from code_guard.github.ownership import give_to_workspace_owner
from code_guard.github.publish import SUMMARY_MARKER, PublishResult, Unplaced, publish_review
from code_guard.github.services import Services, default_services
from code_guard.github.sources import collect_contents
from code_guard.github.summary import (
    blob_url,
    dismissals_section,
    job_summary,
    summary_comment,
)
from code_guard.github.workflow import (
    annotation_lines,
    command,
    mask_commands,
    write_outputs,
    write_step_summary,
)
from code_guard.review.dismissals import apply_dismissals
from code_guard.review.synthesizer import with_not_reviewed
from code_guard.trust.nofollow import write_replacing
from code_guard.trust.sanitize import masking, redact, redact_review, secret_values

SARIF_NAME = "code-guard.sarif"
EXIT_INCOMPLETE = 4


def main(
    environ: Mapping[str, str] | None = None,
    services: Services | None = None,
    out: TextIO | None = None,
) -> int:
    """Run the action with the runner's environment; return the exit code."""
    env = os.environ if environ is None else environ
    stdout = sys.stdout if out is None else out
    # Before anything else can print them: the runner hides masked values in its log, and
    # this process redacts them from all it posts and writes.
    token = env.get("INPUT_GITHUB-TOKEN", "")
    for line in mask_commands(env, token):
        print(line, file=stdout)
    with masking([token, *secret_values(env)]):
        try:
            return _run(env, services or default_services(), stdout)
        except CodeGuardError as exc:
            print(command("error", str(exc)), file=stdout)
            return 2
        except Exception as exc:  # the last line of defence: a bug must still fail clearly
            print(command("error", f"internal error: {type(exc).__name__}: {exc}"), file=stdout)
            if env.get("RUNNER_DEBUG") == "1":
                traceback.print_exc()
            return 2


def _run(env: Mapping[str, str], services: Services, out: TextIO) -> int:
    runner = read_runner_env(env)
    inputs = read_inputs(env)
    if inputs.mode == "eval":
        return eval_mode.run(inputs, runner, services, out)
    if inputs.mode == "feedback":
        return feedback_mode.run(inputs, runner, out, services.now())
    target = load_event(runner.event_name, runner.event_path)
    if isinstance(target, Skip):
        print(command("notice", f"Ninja Code Guard skipped: {target.reason}"), file=out)
        return 0
    return _review(inputs, runner, target.repository, target.number, services, out, target.action)


def _review(
    inputs: ActionInputs,
    runner: RunnerEnv,
    repository: str,
    number: int,
    services: Services,
    out: TextIO,
    action: str = "opened",
) -> int:
    options = build_review_options(inputs, runner.workspace)
    gate = options.gate
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
    ignore = options.analysis.paths_ignore
    contents = collect_contents(change, pr.head_sha, runner.workspace, client, ignore)
    if contents.failed:  # review the rest; these are listed as not reviewed
        unfetched = {f.path for f in contents.failed}
        # replace: the files the diff refused (not_parsed) stay listed as not reviewed.
        change = replace(change, files=tuple(f for f in change.files if f.path not in unfetched))
    increment = Increment(None, "")
    if options.model.enabled:  # a static-only review is cheap: it always looks at everything
        increment = plan_increment(client, action, pr.head_sha, _summary_body(client))
    if increment.model_paths is None:
        review = services.review(change, contents.texts, pr.title, pr.body, options)
    else:
        review = services.review(
            change, contents.texts, pr.title, pr.body, options, increment.model_paths
        )
    review = carry_over(
        review,
        increment.carried,
        change,
        gate.fail_on,
        count_disputed=gate.count_disputed,
    )
    review = with_not_reviewed(review, (*fetched.skipped, *contents.failed))
    # A trusted person's reasoned decision, judged afresh on every run; the findings stay.
    today = services.now().date()
    dismissals = collect(client, pr, change, review.findings, gate.dismiss_by, today)
    review = apply_dismissals(
        review, dismissals.by_fingerprint, gate.fail_on, count_disputed=gate.count_disputed
    )
    # Before rendering, so that no escaping or cut can split a secret the model echoed.
    review = redact_review(review)

    blob_base = blob_url(pr.html_url, pr.head_sha)
    linked = services.render_linked

    def render(value: Review) -> str:
        if linked is None or not blob_base:
            return services.render_markdown(value)
        return linked(value, blob_base)

    # The record for the next run's incremental review: the comment's last line, the only
    # place it is read from. Outside the redaction, which could break its encoding (its
    # findings' text is redacted inside it).
    trailer = record_trailer(pr.head_sha, review)
    record = "\n" + trailer if trailer else ""

    decided = dismissals_section(dismissals, review)

    def body(unplaced: Unplaced) -> str:
        limit = MAX_BODY - len(record)
        text = summary_comment(
            review, pr.head_sha, unplaced, render, increment.note, limit, decided
        )
        return redact(text) + record

    result: PublishResult | None = None
    problem: str | None = None
    try:
        result = publish_review(
            client,
            review,
            change,
            pr.head_sha,
            inputs.max_inline_comments,
            body,
            inline_confidence=options.publishing.inline_confidence,
            trust_disputes=not gate.count_disputed,
        )
    except GitHubError as exc:
        problem = f"Publishing the review failed: {exc}"
    _report(review, result, problem, runner, services, out, render=render, decided=decided)
    _say_dismissals(dismissals, out)
    for text in client.trust_problems:
        print(command("warning", text), file=out)
    strict = gate.on_error == "fail"
    problems = ([problem] if problem else []) + list(result.problems if result else ())
    for text in problems:
        print(command("error" if strict else "warning", text), file=out)
    if problems and strict:
        return 2
    gated = (
        review.at_or_above(gate.fail_on, count_disputed=gate.count_disputed)
        if gate.fail_on is not None
        else ()
    )
    if gate.fail_on is not None and gated:
        worst = len(gated)
        print(command("error", f"{worst} findings at or above {gate.fail_on.value}"), file=out)
        return 1
    if not review.complete:
        first = review.outcome_reasons[0] if review.outcome_reasons else "see the summary"
        message = f"Review {review.outcome.value}: {first}"
        print(command("error" if strict else "warning", message), file=out)
        if strict:
            return EXIT_INCOMPLETE
    return 0


def _say_dismissals(dismissals: Dismissals, out: TextIO) -> None:
    """A warning per problem with the dismissals, a notice counting the ignored commands:
    the log says what did not change the gate, and the summary says why."""
    for text in dismissals.problems:
        print(command("warning", text), file=out)
    if dismissals.ignored:
        count = len(dismissals.ignored)
        message = f"{count} dismissal command(s) ignored; the summary comment says why"
        print(command("notice", message), file=out)


def _summary_body(client: GitHubClient) -> str | None:
    """The body of this action's summary comment, or None (none yet, or unreadable)."""
    try:
        found = client.find_issue_comment(SUMMARY_MARKER)
    except GitHubError:
        return None
    return found.body if found else None


def _report(
    review: Review,
    result: PublishResult | None,
    problem: str | None,
    runner: RunnerEnv,
    services: Services,
    out: TextIO,
    render: Callable[[Review], str] | None = None,
    decided: str = "",
) -> None:
    """Annotate what did not reach the pull request, then write SARIF, summary and outputs.

    ``render`` renders the report in the job summary (with linked locations, when given);
    ``decided`` is the dismissals section.
    """
    if result is None or result.denied or result.problems:
        reason = (result.denied or "; ".join(result.problems)) if result else problem
        print(command("warning", f"Findings are shown as annotations: {reason}"), file=out)
        posted = result.posted_fingerprints if result else frozenset()
        shown = [f for f in review.findings if f.fingerprint not in posted and not f.dismissal]
        for line in annotation_lines(shown):
            print(line, file=out)
    sarif = runner.workspace / SARIF_NAME
    try:  # a fresh file: a link the pull request put at this name is replaced, not followed
        write_replacing(sarif, redact(services.render_sarif(review)))
    except OSError as error:
        print(command("warning", f"could not write {SARIF_NAME}: {error.strerror}"), file=out)
    else:
        if owner_problem := give_to_workspace_owner(sarif, runner.workspace):
            print(command("warning", owner_problem), file=out)
    write_step_summary(
        runner.step_summary,
        redact(
            job_summary(review, render or services.render_markdown, result, problem, decided)
        ),
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
            "outcome": review.outcome.value,
            "files-not-reviewed": str(len(review.files_not_reviewed)),
            "dismissed": str(sum(f.dismissal is not None for f in review.findings)),
        },
    )


if __name__ == "__main__":
    sys.exit(main())
