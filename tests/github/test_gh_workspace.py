"""The workspace as the pull request leaves it: links are not followed, read or written.

Issue 20, classes 6a and 8, through the action's entrypoint against the API stand-in: a link
in the checkout to ``.git/config`` or ``.env`` never sends their lines to the review, and a
link at a report's name (``code-guard.sarif``, ``code-guard-eval.json``) is replaced by the
report, never written or ``chown``-ed through.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from ghfakes import TOKEN, FindingFactory
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, GitHubStandIn
from test_gh_action import Fakes, run_action

from code_guard.findings import Finding
from code_guard.github.action import SARIF_NAME, main
from code_guard.github.eval_mode import RESULTS_NAME
from code_guard.github.services import run_eval

CHECKOUT_TOKEN = "ghs_checkoutTokenPersisted000000000000000"
ENV_SECRET = "sk-proj-envfilesecret0000000000000000"


@pytest.fixture
def findings(make_finding: FindingFactory) -> tuple[Finding, ...]:
    return (make_finding(anchor_text="query"),)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def checkout_at_head(workspace: Path, head_sha: str) -> None:
    """What ``actions/checkout`` leaves: the head commit, and the token in ``.git/config``."""
    git = workspace / ".git"
    git.mkdir()
    (git / "HEAD").write_text(head_sha + "\n", encoding="utf-8")
    (git / "config").write_text(
        '[http "https://github.com/"]\n'
        f"\textraheader = AUTHORIZATION: basic {CHECKOUT_TOKEN}\n",
        encoding="utf-8",
    )
    (workspace / ".env").write_text(f"OPENAI_API_KEY={ENV_SECRET}\n", encoding="utf-8")


def test_links_to_git_config_and_env_are_not_read(github: GitHubStandIn, workspace: Path) -> None:
    # The pull request's two files are links in the checkout: app/db.py to the checkout's
    # credentials, docs/notes.md to .env. The diff says nothing of links (the files API
    # carries no mode), so only the read itself can refuse them.
    checkout_at_head(workspace, github.head_sha)
    (workspace / "app").mkdir()
    (workspace / "app" / "db.py").symlink_to("../.git/config")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "notes.md").symlink_to("../.env")
    fakes = Fakes(())
    run = run_action(github, workspace, fakes)
    assert run.code == 0
    _, contents, _ = fakes.reviewed[0]
    assert "app/db.py" not in contents and "docs/notes.md" not in contents
    sent = json.dumps(dict(contents))
    assert CHECKOUT_TOKEN not in sent and ENV_SECRET not in sent
    assert github.calls("GET", "/contents/") == []  # the checkout was used, as before


def test_a_linked_folder_is_not_walked_through(
    github: GitHubStandIn, workspace: Path, tmp_path: Path
) -> None:
    checkout_at_head(workspace, github.head_sha)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "db.py").write_text(f"KEY = '{ENV_SECRET}'\n", encoding="utf-8")
    (workspace / "app").symlink_to(outside)
    (workspace / "docs").symlink_to(".git")  # docs/notes.md -> .git/notes.md
    (workspace / ".git" / "notes.md").write_text(CHECKOUT_TOKEN, encoding="utf-8")
    fakes = Fakes(())
    run_action(github, workspace, fakes)
    _, contents, _ = fakes.reviewed[0]
    assert contents == {}


def test_a_regular_file_in_the_checkout_is_still_read(
    github: GitHubStandIn, workspace: Path
) -> None:
    checkout_at_head(workspace, github.head_sha)
    (workspace / "app").mkdir()
    (workspace / "app" / "db.py").write_text("local text\n", encoding="utf-8")
    fakes = Fakes(())
    run_action(github, workspace, fakes)
    assert fakes.reviewed[0][1] == {"app/db.py": "local text\n"}


def test_a_retargeted_link_in_the_diff_is_not_reviewed_or_read(
    github: GitHubStandIn, workspace: Path
) -> None:
    # A link already on the base, pointed by the pull request at .git/config: git's diff
    # shows it as a one-line change of mode 120000.
    checkout_at_head(workspace, github.head_sha)
    (workspace / "app").mkdir()
    (workspace / "app" / "settings.py").symlink_to("../.git/config")
    github.push(
        github.head_sha,
        "diff --git a/app/settings.py b/app/settings.py\n"
        "index 1add1fa..4f3c2e1 120000\n"
        "--- a/app/settings.py\n+++ b/app/settings.py\n"
        "@@ -1 +1 @@\n-defaults.py\n\\ No newline at end of file\n"
        "+../.git/config\n\\ No newline at end of file\n",
    )
    fakes = Fakes(())
    run_action(github, workspace, fakes)
    change, contents, _ = fakes.reviewed[0]
    assert contents == {}
    assert [f.reviewable for f in change.files] == [False]


# --- writes: reports replace a link at their name -----------------------------------------


def plant_link(workspace: Path, name: str, target: Path) -> None:
    (workspace / name).symlink_to(target)


def test_sarif_replaces_a_link_instead_of_writing_through_it(
    github: GitHubStandIn, workspace: Path, tmp_path: Path, findings: tuple[Finding, ...]
) -> None:
    victim = tmp_path / "victim.conf"
    victim.write_text("precious\n", encoding="utf-8")
    plant_link(workspace, SARIF_NAME, victim)
    run = run_action(github, workspace, Fakes(findings), fail_on="none")
    assert run.code == 0
    assert victim.read_text(encoding="utf-8") == "precious\n"
    sarif = workspace / run.outputs["sarif-file"]
    assert not sarif.is_symlink()
    assert sarif.read_text(encoding="utf-8") == '{"version": "2.1.0"}'
    assert [p.name for p in workspace.iterdir()] == [SARIF_NAME]  # no temporary file left


def test_a_dangling_link_does_not_create_its_target(
    github: GitHubStandIn, workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "etc" / "cron.d" / "planted"
    target.parent.mkdir(parents=True)
    plant_link(workspace, SARIF_NAME, target)
    run_action(github, workspace, Fakes(()))
    assert not target.exists()
    assert (workspace / SARIF_NAME).is_file() and not (workspace / SARIF_NAME).is_symlink()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give files to another user")
def test_the_owner_change_never_goes_through_a_link(
    github: GitHubStandIn, workspace: Path, tmp_path: Path, findings: tuple[Finding, ...]
) -> None:
    os.chown(workspace, 4321, 4322)
    victim = tmp_path / "victim.conf"
    victim.write_text("precious\n", encoding="utf-8")
    plant_link(workspace, SARIF_NAME, victim)
    run = run_action(github, workspace, Fakes(findings), fail_on="none")
    assert (victim.stat().st_uid, victim.stat().st_gid) == (0, 0)
    sarif = (workspace / SARIF_NAME).lstat()
    assert (sarif.st_uid, sarif.st_gid) == (4321, 4322)
    assert "::warning::" not in run.stdout


def test_eval_results_replace_a_link(
    github: GitHubStandIn, workspace: Path, tmp_path: Path
) -> None:
    # The real eval entry point, on a one-case dataset whose case cannot be read (so no review
    # runs): it still writes its results file, where the pull request put a link.
    cases = workspace / "evals"
    cases.mkdir()
    (cases / "broken.json").write_text("{]", encoding="utf-8")
    victim = tmp_path / "victim.conf"
    victim.write_text("precious\n", encoding="utf-8")
    plant_link(workspace, RESULTS_NAME, victim)
    if os.geteuid() == 0:
        os.chown(workspace, 4321, 4322)
    services = replace(Fakes(()).services(), run_eval=run_eval)
    env = runner_environ(
        workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN,
        mode="eval", dataset="evals",
    )
    out = io.StringIO()
    code = main(env, services, out)
    assert code == 1, out.getvalue()  # every case errored: the eval fails, as it should
    assert victim.read_text(encoding="utf-8") == "precious\n"
    results = workspace / RESULTS_NAME
    assert not results.is_symlink()
    assert json.loads(results.read_text(encoding="utf-8"))["summary"]["errors"] == 1
    assert read_outputs(Path(env["GITHUB_OUTPUT"]))["f1"] == "0.0000"
    if os.geteuid() == 0:
        assert victim.stat().st_uid == 0
        assert (results.lstat().st_uid, results.lstat().st_gid) == (4321, 4322)
