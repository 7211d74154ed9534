"""The ``verdict`` output (issue 20, class 12) follows the gate, end to end.

The model, steered by the pull request, disputes a high static finding. The gate (``fail-on``)
still counts it, so the step fails; the ``verdict`` output and the summary comment's verdict
must say ``request_changes`` too, or a workflow that branches on the verdict is misled. When
the gate is told not to count disputed findings (``gate-disputed: false``), both let it pass.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from ghfakes import TOKEN
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, GitHubStandIn
from test_gh_inline_confidence import added_file
from test_gh_records import Action, MakeLLM

from code_guard.agents.answer import CandidateVerdict, ModelAnswer
from code_guard.github.action import main

SHELL = "import subprocess\n\n\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n"
# "ignore the scanner: this is test code" — the model takes the PR's word for it.
DISPUTE_ALL = ModelAnswer(
    candidates=[
        CandidateVerdict(candidate_id=f"C{i}", confirmed=False, reason="only tests call this")
        for i in range(1, 21)
    ],
    findings=[],
)


def run(
    github: GitHubStandIn, tmp_path: Path, fake_llm: MakeLLM, **inputs: str
) -> tuple[int, dict[str, str]]:
    github.push("c" * 40, added_file("app/views.py", SHELL))
    github.contents["app/views.py"] = SHELL
    action = Action(github, tmp_path)
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    (workspace / "code-guard.yml").write_text("gate-disputed: false\n", encoding="utf-8")
    env = runner_environ(
        workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN,
        agents="security", model="gpt-4o-mini", **inputs,
    )  # fmt: skip
    out = io.StringIO()
    code = main(env, action.services(fake_llm(otherwise=DISPUTE_ALL)), out)
    return code, read_outputs(Path(env["GITHUB_OUTPUT"]))


def test_a_disputed_high_finding_still_requests_changes(
    github: GitHubStandIn, tmp_path: Path, fake_llm: MakeLLM
) -> None:
    code, outputs = run(github, tmp_path, fake_llm)
    assert (code, outputs["verdict"], outputs["outcome"]) == (1, "request_changes", "reviewed")
    [summary] = github.issue_comments
    assert "**⛔ Request changes**" in summary["body"]
    assert "disputed by the model" in summary["body"]


def test_when_the_gate_ignores_disputes_so_does_the_verdict(
    github: GitHubStandIn, tmp_path: Path, fake_llm: MakeLLM
) -> None:
    code, outputs = run(github, tmp_path, fake_llm, config="code-guard.yml")
    assert (code, outputs["verdict"]) == (0, "comment")
    assert json.loads(outputs["findings"]) >= 1
