"""The action end to end, with the real (static) engine against the API stand-in: only
findings as confident as ``inline-confidence`` become inline comments, the rest are listed in
the summary comment with their confidence."""

from __future__ import annotations

import io
from pathlib import Path

from gfm import render_gfm
from ghfakes import FAST_RETRY, TOKEN
from ghrunner import runner_environ, without_masks
from ghstandin import FIXTURES, GitHubStandIn

from code_guard.github.action import main
from code_guard.github.services import default_services

VIEWS = """\
import random
import subprocess

from flask import request


def run():
    command = request.args.get("cmd")
    subprocess.call(command, shell=True)


def jitter():
    return random.random() * 5
"""


def added_file(name: str, text: str) -> str:
    """The diff that adds ``name`` holding ``text``."""
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{name} b/{name}\nnew file mode 100644\n--- /dev/null\n+++ b/{name}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def review_views(github: GitHubStandIn, workspace: Path, **inputs: str) -> tuple[int, str]:
    """Run the action on a pull request that adds ``app/views.py``; the exit code and stdout."""
    github.push("c" * 40, added_file("app/views.py", VIEWS))
    github.contents["app/views.py"] = VIEWS
    env = runner_environ(
        workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN,
        agents="security", **inputs,
    )  # fmt: skip
    out = io.StringIO()
    code = main(env, default_services(FAST_RETRY), out)
    return code, without_masks(out.getvalue())


def test_a_taint_flow_goes_inline_and_a_bare_weak_pattern_to_the_summary(
    github: GitHubStandIn, tmp_path: Path
) -> None:
    code, stdout = review_views(github, tmp_path)
    assert code == 1, stdout  # the flow is high: fail-on counts it wherever it is shown
    [review] = github.visible_reviews()
    [comment] = review["comments"]
    assert (comment["path"], comment["line"]) == ("app/views.py", 9)
    assert "confidence 0.95 · found by bandit:B602, python-taint:" in render_gfm(comment["body"])
    [summary] = github.issue_comments
    shown = render_gfm(summary["body"])
    assert "Not posted inline (1)" in shown
    assert (
        "<code>app/views.py:13</code> Standard pseudo-random generators are not suitable for "
        "security/cryptographic purposes.: confidence 0.40 is below inline-confidence 0.70"
    ) in shown


def test_inline_confidence_zero_posts_every_anchorable_finding(
    github: GitHubStandIn, tmp_path: Path
) -> None:
    review_views(github, tmp_path, inline_confidence="0")
    [review] = github.visible_reviews()
    assert [c["line"] for c in review["comments"]] == [9, 13]
    assert "Not posted inline" not in github.issue_comments[0]["body"]
