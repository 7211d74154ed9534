"""Paths from the pull request, checked before any request names them (issue 20, class 10),
and a type change read the same way from the files API as from the diff (class 2).

Through the action's entrypoint against the API stand-in, which records every request.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gfm import render_gfm
from ghfakes import FAST_RETRY, TOKEN
from ghrunner import read_outputs, runner_environ, without_masks
from ghstandin import FIXTURES, GitHubStandIn
from test_gh_action import Fakes, run_action

from code_guard.change.diff import FileStatus
from code_guard.github.action import main
from code_guard.github.patches import diff_from_files
from code_guard.github.services import default_services

TRAVERSAL = "../../../../user"
FORGED = (
    f"diff --git a/{TRAVERSAL} b/{TRAVERSAL}\nnew file mode 100644\n--- /dev/null\n"
    f"+++ b/{TRAVERSAL}\n@@ -0,0 +1 @@\n+exec(data)\n"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def run_real(github: GitHubStandIn, workspace: Path) -> tuple[int, str, dict[str, str], str]:
    """The entrypoint with the real engine (static analysis only) and renderers."""
    env = runner_environ(workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN)
    out = io.StringIO()
    code = main(env, default_services(FAST_RETRY), out)
    # The summary as a reader sees it: its markdown rendered the way GitHub renders it.
    summary = render_gfm(Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8"))
    return code, without_masks(out.getvalue()), read_outputs(Path(env["GITHUB_OUTPUT"])), summary


def assert_refused_before_any_request(github: GitHubStandIn) -> None:
    assert github.calls("GET", r"^/user") == []
    assert [r.path for r in github.requests if ".." in r.path or "/user" in r.path] == []
    assert github.calls("GET", "/contents/app/db.py")  # the other file was still fetched


def test_a_dot_dot_path_in_the_diff_is_refused_before_any_request(
    github: GitHubStandIn, workspace: Path
) -> None:
    github.push(github.head_sha, FORGED + github.diff)
    code, stdout, outputs, summary = run_real(github, workspace)
    assert_refused_before_any_request(github)
    assert outputs["outcome"] == "partial"
    assert outputs["files-not-reviewed"] == "1"
    assert "path refused, it has a .. component" in summary
    assert int(outputs["findings"]) >= 1  # app/db.py was reviewed all the same
    assert code == 1, stdout  # its high findings fail the gate, which comes first


def test_a_refused_path_alone_makes_the_run_fail(
    github: GitHubStandIn, workspace: Path
) -> None:
    github.push(github.head_sha, FORGED)
    code, stdout, outputs, summary = run_real(github, workspace)
    assert github.requests and github.calls("GET", r"^/user") == []
    assert [r.path for r in github.requests if "/contents/" in r.path] == []
    # Nothing else to review: not "reviewed" with nothing found, but failed, exit 4.
    assert (code, outputs["outcome"], outputs["verdict"]) == (4, "failed", "comment")
    assert "::error::Review failed: no file was analysed (1 not reviewed)" in stdout
    assert "path refused, it has a .. component" in summary


def test_a_dot_dot_path_from_the_files_api_is_refused_before_any_request(
    github: GitHubStandIn, workspace: Path
) -> None:
    github.diff_too_large = True  # the files API route: patches rebuilt into a diff
    github.files.insert(
        0,
        {
            "sha": "bbcd538c8e72b8c175046e27cc8f907076331401",
            "filename": TRAVERSAL,
            "status": "added",
            "additions": 1,
            "deletions": 0,
            "changes": 1,
            "patch": "@@ -0,0 +1 @@\n+exec(data)",
        },
    )
    fakes = Fakes(())
    run = run_action(github, workspace, fakes)
    assert_refused_before_any_request(github)
    change, _, _ = fakes.reviewed[0]
    assert [f.path for f in change.not_parsed] == [TRAVERSAL]
    assert TRAVERSAL not in {f.path for f in change.files}
    assert run.outputs["files-not-reviewed"] == "0"  # the fake review ignores not_parsed
    assert run.code == 0


def entry(filename: str, status: str, patch: str | None, changes: int) -> dict[str, Any]:
    return {"filename": filename, "status": status, "patch": patch, "changes": changes}


CODE_PATCH = "@@ -0,0 +1,2 @@\n+import yaml\n+yaml.load(request.data)"


@pytest.mark.parametrize(
    "files",
    [
        # Two entries for the path, as git's own diff has two sections.
        [entry("app.py", "removed", "@@ -1 +0,0 @@\n-defaults.py", 1),
         entry("app.py", "added", CODE_PATCH, 2)],
        # One entry whose patch swaps the link's target for the code.
        [entry("app.py", "changed", "@@ -1 +1,2 @@\n-defaults.py\n+import yaml\n"
               "+yaml.load(request.data)", 3)],
    ],
)
def test_a_type_change_from_the_files_api_keeps_the_new_code(files: list[dict[str, Any]]) -> None:
    from code_guard.change.diff import parse_diff

    fetched = diff_from_files(files)
    change = parse_diff(fetched.text)
    [file] = change.files
    assert file.reviewable and file.status in (FileStatus.ADDED, FileStatus.MODIFIED)
    assert change.file("app.py") is file
    assert file.added[2] == "yaml.load(request.data)"
    assert fetched.skipped == change.not_parsed == ()


def test_a_mode_change_from_the_files_api_is_a_deliberate_skip() -> None:
    fetched = diff_from_files([entry("run.sh", "changed", None, 0)])
    [skipped] = fetched.skipped
    assert (skipped.reason, skipped.deliberate) == ("file mode change only", True)


def test_a_newline_in_a_file_name_cannot_forge_a_section() -> None:
    from code_guard.change.diff import parse_diff

    # Unquoted, the name's second line would be a hunk of its own, adding a line.
    name = "notes.md\n@@ -0,0 +1 @@\n+exec(data)"
    fetched = diff_from_files([entry(name, "added", "@@ -0,0 +1 @@\n+hello", 1)])
    change = parse_diff(fetched.text)
    [file] = change.files
    assert file.path == name and dict(file.added) == {1: "hello"}


def type_change_diff(tmp_path: Path) -> str:
    """``git diff`` of a real type change: app/db.py, a link on the base, is code in the PR."""
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def git(*args: str) -> str:
        command = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args]
        done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    git("init", "-q")
    (repo / "app" / "db.py").symlink_to("defaults.py")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    (repo / "app" / "db.py").unlink()
    (repo / "app" / "db.py").write_text(
        "import yaml\nfrom flask import request\n\n\ndef load():\n"
        "    return yaml.load(request.data)\n",
        encoding="utf-8",
    )
    git("add", "-A")
    git("commit", "-q", "-m", "pr")
    return git("diff", "HEAD~1", "HEAD")


@pytest.mark.parametrize("via_files_api", [False, True])
def test_a_link_replaced_by_code_reaches_the_review_with_its_new_lines(
    github: GitHubStandIn, workspace: Path, tmp_path: Path, via_files_api: bool
) -> None:
    github.push(github.head_sha, type_change_diff(tmp_path))
    github.diff_too_large = via_files_api
    assert [f["status"] for f in github.files] == ["removed", "added"]
    fakes = Fakes(())
    run_action(github, workspace, fakes)
    change, contents, _ = fakes.reviewed[0]
    [file] = change.files
    assert (file.path, file.status, file.reviewable) == ("app/db.py", FileStatus.ADDED, True)
    assert change.file("app/db.py") is file
    assert file.added[6] == "    return yaml.load(request.data)"
    assert contents["app/db.py"] == github.contents["app/db.py"]  # fetched for the new file
    assert change.not_parsed == ()
