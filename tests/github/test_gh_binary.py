"""A file git calls binary, through the action's entrypoint with the real engine (issue 27):
a NUL byte in a JavaScript file does not hide it, whether its text comes from the contents
API or the checkout; an image stays a deliberate skip and is never fetched."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from gfm import render_gfm
from ghfakes import FAST_RETRY, TOKEN
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, GitHubStandIn

from code_guard.github.action import main
from code_guard.github.services import default_services

NUL_JS = (
    "// build \0 marker\n"
    "const cp = require('child_process');\n"
    "function handler(req, res) {\n"
    "  cp.exec('ls ' + req.query.dir);\n"
    "}\n"
    "module.exports = handler;\n"
)


def binary_section(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..2b532ea\n"
        f"Binary files /dev/null and b/{path} differ\n"
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def run_real(github: GitHubStandIn, workspace: Path) -> tuple[int, dict[str, str], str]:
    env = runner_environ(workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN)
    code = main(env, default_services(FAST_RETRY), io.StringIO())
    # The summary as a reader sees it: its markdown rendered the way GitHub renders it.
    summary = render_gfm(Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8"))
    return code, read_outputs(Path(env["GITHUB_OUTPUT"])), summary


def test_a_nul_byte_in_a_fetched_javascript_file_does_not_hide_it(
    github: GitHubStandIn, workspace: Path
) -> None:
    github.push(github.head_sha, binary_section("web/app.js"))
    github.contents["web/app.js"] = NUL_JS
    code, outputs, _ = run_real(github, workspace)
    assert github.calls("GET", "/contents/web/app.js")
    assert outputs["outcome"] == "reviewed"
    assert outputs["verdict"] == "request_changes"
    assert int(outputs["findings"]) == 1
    assert code == 1


def test_a_binary_javascript_file_the_api_does_not_send_makes_the_review_partial(
    github: GitHubStandIn, workspace: Path
) -> None:
    github.push(github.head_sha, binary_section("web/app.js"))  # no contents: a 404
    code, outputs, summary = run_real(github, workspace)
    assert outputs["outcome"] == "partial"
    assert outputs["verdict"] != "approve"
    assert "web/app.js" in summary
    assert code == 4


def test_a_binary_javascript_file_is_read_from_the_checkout_at_the_head(
    github: GitHubStandIn, workspace: Path
) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "HEAD").write_text(github.head_sha + "\n", encoding="utf-8")
    (workspace / "web").mkdir()
    # Not UTF-8 either: a Latin-1 byte in a comment. Node reads it all the same.
    latin1 = NUL_JS.replace("marker", "caf\xe9").encode("latin-1")
    (workspace / "web" / "app.js").write_bytes(latin1)
    github.push(github.head_sha, binary_section("web/app.js"))
    code, outputs, _ = run_real(github, workspace)
    assert github.calls("GET", "/contents/web/") == []  # read from the checkout, not fetched
    assert (outputs["outcome"], int(outputs["findings"]), code) == ("reviewed", 1, 1)


def test_an_image_is_neither_fetched_nor_a_gap(github: GitHubStandIn, workspace: Path) -> None:
    github.push(github.head_sha, binary_section("img/logo.png"))
    code, outputs, _ = run_real(github, workspace)
    assert github.calls("GET", "/contents/img/") == []
    assert outputs["outcome"] == "reviewed"
    assert outputs["verdict"] == "approve"
    assert code == 0
