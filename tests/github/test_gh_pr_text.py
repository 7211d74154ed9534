"""Markup through file names (issue 20, class 9): a path is shown as the characters it is.

The pull request names a file ``@org/team ✅ **Approved by security** [re-run](…) <img …>.py``
and gives it a real vulnerability; another hostile name's contents cannot be fetched, so it
is named in the outcome's reasons too. The action runs end to end (real static engine and
renderers) against the API stand-in: every place the names reach (findings list, details,
reasons, files not reviewed, the not-inline list, the job summary, the inline comments)
shows them as plain text, and nothing renders, links or pings.
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

from gfm import render_gfm
from ghfakes import FAST_RETRY, TOKEN
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, Fault, GitHubStandIn
from test_gh_inline_confidence import added_file

from code_guard.github.action import main
from code_guard.github.services import default_services

APPROVED = "@org/team ✅ **Approved by security** [re-run](x.html) <img src=x onerror=alert(1)>.py"
UNFETCHED = "@org/admins <b>LGTM</b> ![ok](ok.png) <!-- code-guard:summary -->.py"
SHELL = "import subprocess\n\n\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n"
WORD_JOINER = "\u2060"


def visible(markdown: str) -> tuple[str, str]:
    """The HTML GitHub would show, and its text without tags (as a reader sees it)."""
    shown = render_gfm(markdown)
    return shown, html.unescape(re.sub(r"<[^>]+>", "", shown)).replace(WORD_JOINER, "")


def assert_inert(markdown: str) -> None:
    """No image, HTML, emphasis or link of the attacker's renders, and nobody is mentioned."""
    shown, _ = visible(markdown)
    for tag in ("<img", "<b>", "<strong>Approved", "<strong>LGTM"):
        assert tag not in shown, tag
    hrefs = re.findall(r'<a href="([^"]*)"', shown)
    assert not [h for h in hrefs if h in ("x.html", "ok.png")], hrefs
    for mention in ("@org/team", "@org/admins"):
        assert mention not in markdown, mention  # GitHub links and pings it in plain text


def test_hostile_file_names_render_as_text_everywhere(
    github: GitHubStandIn, tmp_path: Path
) -> None:
    diff = added_file(APPROVED, SHELL) + added_file(UNFETCHED, "x = 1\n")
    github.push("c" * 40, diff)
    github.contents[APPROVED] = SHELL
    github.faults.append(Fault("GET", "/contents/.*LGTM", 503, {"message": "down"}, times=20))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    env = runner_environ(
        workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN,
        agents="security", inline_confidence="1",
    )  # fmt: skip
    out = io.StringIO()
    code = main(env, default_services(FAST_RETRY), out)
    outputs = read_outputs(Path(env["GITHUB_OUTPUT"]))
    assert (code, outputs["outcome"]) == (1, "partial"), out.getvalue()  # the flow is high

    [summary] = github.issue_comments
    body = str(summary["body"])
    job = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    for markdown in (body, job):
        assert_inert(markdown)
        _, text = visible(markdown)
        assert f"{APPROVED}:5" in text  # the finding's location, as written
        assert f"{UNFETCHED} was not reviewed" in text  # the outcome's reason
        assert "Not posted inline (1)" in text
    for review in github.reviews:
        assert_inert(str(review["body"]))
    for comment in github.review_comments:
        assert_inert(str(comment["body"]))
