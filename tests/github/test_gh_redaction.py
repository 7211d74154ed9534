"""What the action posts and writes holds no secret, even one a model echoes back escaped.

A pull request can show the model a secret (a symlink to ``.git/config``, a ``.env``), and a
model's answer quoting it reaches every output. The markdown renderers escape it
(``sk\\-proj\\-…``), which once hid it from redaction. Through the entrypoint, with the real
renderers and the API stand-in, every surface is checked: inline comments, the review, the
summary comment, the job summary, the SARIF file, annotations and the log; then each
boundary on its own, given text that only its own redaction can clean.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from ghfakes import FAST_RETRY, FindingFactory
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, NUMBER, OWNER, REPO, GitHubStandIn
from test_gh_action import Fakes, Run

from code_guard.findings import Finding, Severity
from code_guard.github.action import main
from code_guard.github.client import GitHubClient
from code_guard.github.services import Services, default_services
from code_guard.github.workflow import command, write_step_summary
from code_guard.trust.escaping import code_span, plain, plain_line
from code_guard.trust.sanitize import masking

# The workflow's token: not in any well-known key format, so only its variable gives it away,
# and full of characters markdown escapes.
SECRET = "t0ken-Value.With_Escapes-1234567890"
KEY = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2"  # a provider key the model quotes


def unescaped(text: str) -> str:
    """``text`` as a reader sees it: backslash escapes and invisible characters removed."""
    return re.sub(r"\\(.)", r"\1", text, flags=re.S).replace("\u2060", "")


def assert_clean(where: str, text: str) -> None:
    """No secret, nor any 12 characters of one, in ``text`` raw or as rendered."""
    for form in (text, unescaped(text)):
        for secret in (SECRET, KEY):
            pieces = {secret[i : i + 12] for i in range(len(secret) - 11)}
            leaked = [p for p in pieces if p in form]
            assert not leaked, f"{where} leaks {leaked[0]!r}"


class RenderingFakes(Fakes):
    """The fake review, rendered by the real markdown and SARIF renderers."""

    def services(self) -> Services:
        real = default_services()
        return replace(
            super().services(),
            render_markdown=real.render_markdown,
            render_sarif=real.render_sarif,
            render_linked=real.render_linked,
        )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def echoes(make_finding: FindingFactory) -> tuple[Finding, ...]:
    """Model findings quoting the token and a key: one inline, one in the summary only."""
    said = f"The config holds {SECRET} and {KEY}; see http://admin:{SECRET}@internal.example/"
    return (
        make_finding(
            sources=("model",),
            title=f"Token {KEY} in the {SECRET} file",
            description=said,
            suggested_fix=f'query = "{SECRET}"',
            anchor_text="query",
        ),
        make_finding(
            sources=("model",),
            line_start=30,
            line_end=30,
            severity=Severity.MEDIUM,
            title=f"Also {SECRET}",
            description=f"Authorization: Bearer {SECRET} and {KEY}",
        ),
    )


def run_with_token(github: GitHubStandIn, workspace: Path, fakes: Fakes) -> Run:
    env = runner_environ(workspace, github.base_url, FIXTURES / "pull_request.opened.json", SECRET)
    out = io.StringIO()
    code = main(env, fakes.services(), out)
    printed = out.getvalue()
    masks = [line for line in printed.splitlines() if line.startswith("::add-mask::")]
    return Run(
        code,
        printed,
        masks,
        read_outputs(Path(env["GITHUB_OUTPUT"])),
        Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8"),
    )


def sarif_strings(path: Path) -> str:
    """Every string in the SARIF file, decoded, one per line."""

    def strings(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [s for value in node.values() for s in strings(value)]
        if isinstance(node, list):
            return [s for item in node for s in strings(item)]
        return []

    return "\n".join(strings(json.loads(path.read_text(encoding="utf-8"))))


def test_a_models_echo_of_the_token_and_a_key_is_redacted_everywhere(
    github: GitHubStandIn, workspace: Path, echoes: tuple[Finding, ...]
) -> None:
    run = run_with_token(github, workspace, RenderingFakes(echoes))
    assert run.code == 1
    assert f"::add-mask::{SECRET}" in run.masks  # the runner hides it in the log from now on
    [review] = github.visible_reviews()
    [inline] = github.review_comments
    [summary] = github.issue_comments
    sarif = workspace / "code-guard.sarif"
    surfaces = {
        "the inline comment": str(inline["body"]),
        "the review": str(review["body"]),
        "the summary comment": str(summary["body"]),
        "the job summary": run.summary,
        "the SARIF file": sarif.read_text(encoding="utf-8"),
        "the SARIF file's strings": sarif_strings(sarif),
        "the log": "\n".join(line for line in run.stdout.splitlines() if line not in run.masks),
    }
    for where, text in surfaces.items():
        assert_clean(where, text)
    # The findings are there, with their secrets replaced (nothing was simply dropped).
    for where in ("the inline comment", "the summary comment", "the job summary"):
        assert "***" in surfaces[where], where
    assert "Token *** in the *** file" in surfaces["the SARIF file's strings"]
    json.loads(surfaces["the SARIF file"])  # still valid JSON


def test_annotations_of_a_read_only_run_are_redacted(
    github: GitHubStandIn, workspace: Path, echoes: tuple[Finding, ...]
) -> None:
    github.read_only = True
    run = run_with_token(github, workspace, RenderingFakes(echoes))
    annotations = [line for line in run.stdout.splitlines() if line.startswith("::error file=")]
    assert annotations and "title=[high] Token *** in the *** file::" in annotations[0]
    logged = [line for line in run.stdout.splitlines() if not line.startswith("::add-mask::")]
    assert_clean("the annotations", "\n".join(logged))


@pytest.mark.parametrize(
    "name", ["INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "INPUT_API-KEY", "OPENAI_API_KEY"]
)
def test_every_spelling_of_a_secret_variable_is_masked_and_redacted(
    github: GitHubStandIn, workspace: Path, echoes: tuple[Finding, ...], name: str
) -> None:
    event = FIXTURES / "pull_request.opened.json"
    env = runner_environ(workspace, github.base_url, event, "ghs_" + "t" * 36)
    env[name] = SECRET  # INPUT_API-KEY is not an input action.yml declares: exit 2
    out = io.StringIO()
    main(env, RenderingFakes(echoes).services(), out)
    printed = out.getvalue().splitlines()
    assert f"::add-mask::{SECRET}" in printed
    assert_clean("the log", "\n".join(line for line in printed if "add-mask" not in line))
    assert_clean("the job summary", Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8"))
    for comment in github.issue_comments:
        assert_clean("the summary comment", str(comment["body"]))


# --- each boundary on its own: text escaped after any earlier redaction ----------------------


def escaped_forms() -> list[str]:
    said = f"token {SECRET} and key {KEY}"
    return [plain(said), plain_line(said), code_span(said), said.replace("-", "\\-")]


def test_the_client_redacts_what_it_posts(github: GitHubStandIn) -> None:
    client = GitHubClient.connect("x", github.base_url, f"{OWNER}/{REPO}", NUMBER, FAST_RETRY)
    with masking([SECRET]):
        for text in escaped_forms():
            created = client.create_issue_comment(text)
            client.edit_issue_comment(created.id, text + " (edited)")
            comment = {"path": "app/db.py", "line": 10, "side": "RIGHT", "body": text}
            client.create_review(github.head_sha, text, [comment], "COMMENT")
    for recorded in github.requests:
        if recorded.body is not None:
            assert_clean(f"{recorded.method} {recorded.path}", json.dumps(recorded.body))


def test_workflow_commands_and_the_step_summary_are_redacted(tmp_path: Path) -> None:
    summary = tmp_path / "summary"
    with masking([SECRET]):
        for text in escaped_forms():
            line = command("warning", text, {"file": text, "title": f"[high] {text}"})
            assert_clean("a workflow command", line.replace("%2C", ",").replace("%3A", ":"))
            write_step_summary(summary, text + "\n")
    assert_clean("the step summary", summary.read_text(encoding="utf-8"))
