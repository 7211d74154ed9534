"""End to end: the Dockerfile's exact ENTRYPOINT, run as the runner would run the container.

There is no Docker engine here, so the venv's Python stands in for the image's; everything
else is as on a runner: the ``GITHUB_*`` variables, ``INPUT_*`` built from ``action.yml``'s
defaults, the workspace as the working directory, and the REST API (the stand-in) at
``GITHUB_API_URL``. The real engine reviews the fixture diff, static analysis only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ghfakes import TOKEN
from ghrunner import ROOT, read_outputs, runner_environ, without_masks
from ghstandin import FIXTURES, GitHubStandIn

from code_guard.github.comments import fingerprints_in
from code_guard.github.publish import SUMMARY_MARKER


def entrypoint() -> list[str]:
    """The Dockerfile's ENTRYPOINT, which must be in exec (JSON) form."""
    lines = (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
    [line] = [line for line in lines if line.startswith("ENTRYPOINT ")]
    command = json.loads(line.removeprefix("ENTRYPOINT "))
    assert isinstance(command, list) and all(isinstance(arg, str) for arg in command)
    return [str(arg) for arg in command]


def run_container(
    workspace: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    command = [sys.executable if arg == "python" else arg for arg in entrypoint()]
    full_env = {
        **env,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        "HOME": str(workspace.parent),
    }
    proc = subprocess.run(
        command, cwd=workspace, env=full_env, capture_output=True, text=True, timeout=240
    )
    return proc, Path(env["GITHUB_OUTPUT"]), Path(env["GITHUB_STEP_SUMMARY"])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    # The workspace holds the pull request's files; a package named like ours must not be
    # imported instead of the installed one (the entrypoint runs Python with -P).
    (path / "code_guard").mkdir()
    (path / "code_guard" / "__init__.py").write_text(
        "open('PWNED', 'w').close()\nraise SystemExit(99)\n", encoding="utf-8"
    )
    return path


def test_entrypoint_reviews_the_pull_request(github: GitHubStandIn, workspace: Path) -> None:
    env = runner_environ(workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN)
    proc, output, summary = run_container(workspace, env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not (workspace / "PWNED").exists()
    assert f"::add-mask::{TOKEN}" in proc.stdout  # the runner hides it from then on
    assert TOKEN not in without_masks(proc.stdout) + proc.stderr
    outputs = read_outputs(output)
    assert set(outputs) == {
        "findings", "verdict", "health-score", "sarif-file", "review-url", "outcome",
        "files-not-reviewed", "dismissed",
    }
    assert int(outputs["findings"]) >= 1  # the diff adds shell=True and SQL built with %
    assert outputs["verdict"] in {"approve", "comment", "request_changes"}
    assert 0 <= int(outputs["health-score"]) <= 100
    failed = "at or above high" in proc.stdout
    assert proc.returncode == (1 if failed else 0), proc.stdout + proc.stderr

    [review] = github.visible_reviews()
    assert review["commit_id"] == github.head_sha
    assert outputs["review-url"] == review["html_url"]
    bodies = [c["body"] for c in review["comments"]]
    assert bodies and len(fingerprints_in(bodies)) == len(bodies)
    [comment] = github.issue_comments
    assert comment["body"].startswith(SUMMARY_MARKER)
    assert github.calls("GET", "/contents/app/db.py")  # the checkout is not at the head

    sarif = json.loads((workspace / outputs["sarif-file"]).read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    text = summary.read_text(encoding="utf-8")
    assert review["html_url"] in text and comment["html_url"] in text


def test_entrypoint_without_an_event_file_fails_cleanly(
    github: GitHubStandIn, workspace: Path
) -> None:
    env = runner_environ(workspace, github.base_url, workspace / "missing.json", TOKEN)
    proc, output, _ = run_container(workspace, env)
    assert proc.returncode == 2
    shown = without_masks(proc.stdout)
    assert shown.startswith("::error::cannot read the event payload")
    assert shown.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert read_outputs(output) == {}
    assert github.requests == []
