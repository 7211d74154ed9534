"""End to end in the real image: built from the Dockerfile, run the way the Actions runner runs it.

``scripts/ci/container.sh`` builds the image with buildah and sets ``CODE_GUARD_IMAGE``; these
tests then start it with podman as the runner starts a Docker action: the workspace, the
file-command directory, the workflow directory (with the event) and a home directory mounted
at the runner's paths, ``--workdir /github/workspace``, the ``GITHUB_*`` variables with
container paths, ``INPUT_*`` from ``action.yml``, and the REST API stand-in on the host
(``--network host``). The workspace is owned by another user, as on a self-hosted runner.

Without ``CODE_GUARD_IMAGE`` they are skipped; ``scripts/ci/container.sh`` fails on a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from ghfakes import TOKEN
from ghrunner import ROOT, read_outputs, runner_environ, without_masks
from ghstandin import FIXTURES, GitHubStandIn

from code_guard.github.comments import fingerprints_in
from code_guard.github.publish import SUMMARY_MARKER

IMAGE = os.environ.get("CODE_GUARD_IMAGE", "")
pytestmark = pytest.mark.skipif(
    not IMAGE or shutil.which("podman") is None,
    reason="set CODE_GUARD_IMAGE to an image built from the Dockerfile (scripts/ci/container.sh)",
)

# The runner's account on a self-hosted machine, which owns the checkout.
RUNNER_UID, RUNNER_GID = 1001, 1002


@dataclass
class Runner:
    """Host folders laid out as the runner's ``_work`` folder, and the container's view of them."""

    workspace: Path
    file_commands: Path
    workflow: Path
    home: Path
    elapsed: float = 0.0  # seconds from `podman run` to the container's exit

    @classmethod
    def under(cls, root: Path) -> Runner:
        temp = root / "_temp"
        runner = cls(
            root / "repo",
            temp / "_runner_file_commands",
            temp / "_github_workflow",
            temp / "_github_home",
        )
        for folder in (runner.workspace, runner.file_commands, runner.workflow, runner.home):
            folder.mkdir(parents=True)
        os.chown(runner.workspace, RUNNER_UID, RUNNER_GID)
        return runner

    def run(
        self, github: GitHubStandIn, event_fixture: Path, **inputs: str
    ) -> subprocess.CompletedProcess[str]:
        shutil.copyfile(event_fixture, self.workflow / "event.json")
        host = runner_environ(self.workspace, github.base_url, event_fixture, TOKEN, **inputs)
        env = {
            **host,
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_OUTPUT": "/github/file_commands/set_output",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
            "HOME": "/github/home",
            "CI": "true",
        }
        for name in ("set_output", "step_summary"):
            (self.file_commands / name).touch()
        command = [
            "podman", "run", "--rm", "--network", "host",
            "--workdir", "/github/workspace",
            "-v", f"{self.home}:/github/home",
            "-v", f"{self.workflow}:/github/workflow",
            "-v", f"{self.file_commands}:/github/file_commands",
            "-v", f"{self.workspace}:/github/workspace",
        ]  # fmt: skip
        for name in env:
            command += ["-e", name]  # values come from the environment, as the runner does
        started = time.monotonic()
        proc = subprocess.run(
            [*command, IMAGE],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.elapsed = time.monotonic() - started
        return proc

    def outputs(self) -> dict[str, str]:
        return read_outputs(self.file_commands / "set_output")

    def summary(self) -> str:
        return (self.file_commands / "step_summary").read_text(encoding="utf-8")


def owner(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_uid, info.st_gid


def test_review_mode_posts_the_review_and_gates(
    github: GitHubStandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = Runner.under(tmp_path)
    proc = runner.run(github, FIXTURES / "pull_request.opened.json")
    with capsys.disabled():  # the figure the README quotes
        print(f"\ncontainer: podman run to review posted and exit: {runner.elapsed:.1f} s")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert TOKEN not in without_masks(proc.stdout) + proc.stderr
    outputs = runner.outputs()
    assert int(outputs["findings"]) >= 1  # the diff adds shell=True and SQL built with %
    assert outputs["outcome"] == "reviewed", proc.stdout
    # The default gate (fail-on: high) fails the step exactly when a high finding was posted.
    failed = "at or above high" in proc.stdout
    assert proc.returncode == (1 if failed else 0), proc.stdout + proc.stderr

    [review] = github.visible_reviews()
    assert review["commit_id"] == github.head_sha
    bodies = [c["body"] for c in review["comments"]]
    assert bodies and len(fingerprints_in(bodies)) == len(bodies)  # inline comments landed
    assert outputs["review-url"] == review["html_url"]
    [comment] = github.issue_comments
    assert comment["body"].startswith(SUMMARY_MARKER)
    assert review["html_url"] in runner.summary()

    sarif = runner.workspace / outputs["sarif-file"]
    assert json.loads(sarif.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert owner(sarif) == (RUNNER_UID, RUNNER_GID)  # the next checkout can remove it


def test_review_mode_passes_with_the_gate_off(github: GitHubStandIn, tmp_path: Path) -> None:
    runner = Runner.under(tmp_path)
    proc = runner.run(github, FIXTURES / "pull_request.opened.json", fail_on="none")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert int(runner.outputs()["findings"]) >= 1


def test_eval_mode_scores_a_dataset_in_the_workspace(
    github: GitHubStandIn, tmp_path: Path
) -> None:
    runner = Runner.under(tmp_path)
    cases = runner.workspace / "evals"
    cases.mkdir()
    picked = sorted((ROOT / "dataset").glob("*.json"))[:4]
    for case in picked:
        shutil.copyfile(case, cases / case.name)
    proc = runner.run(
        github, FIXTURES / "pull_request.opened.json", mode="eval", dataset="evals", jobs="2"
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    outputs = runner.outputs()
    assert {"precision", "recall", "f1", "latency-p50-ms"} <= set(outputs)
    assert 0.0 <= float(outputs["f1"]) <= 1.0
    assert outputs["latency-p50-ms"].isdigit()
    assert f"[{len(picked)}/{len(picked)}]" in proc.stdout  # progress, case by case
    results = runner.workspace / "code-guard-eval.json"
    assert len(json.loads(results.read_text(encoding="utf-8"))["cases"]) == len(picked)
    assert owner(results) == (RUNNER_UID, RUNNER_GID)
    assert "F1" in runner.summary()
    assert github.requests == []  # eval mode never talks to the API
