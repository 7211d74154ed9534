"""One view of a file per path, and paths git never writes refused (issue 20, classes 2, 10).

git writes a type change (a symbolic link or a submodule replaced by a regular file, or the
reverse) as two sections: the old type's deletion, then the new type's addition. The review
used to keep the first, so a link replaced by vulnerable code was approved unread. These
tests make real type changes in a temporary git repository and review ``git diff``'s own
output through the command line.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from code_guard.change.diff import (
    FileStatus,
    parse_diff,
    path_problem,
    quote_git_path,
    unquote_git_path,
)
from code_guard.cli import main
from code_guard.errors import DiffError
from code_guard.findings import Outcome, Review

VULNERABLE = (
    "import yaml\n"
    "from flask import request\n"
    "\n"
    "\n"
    "def load():\n"
    "    return yaml.load(request.data)\n"
    "\n"
    "\n"
    "def run():\n"
    "    exec(request.args['code'])\n"
)


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity and no user or system configuration."""
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    command = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    (path / "defaults.py").write_text("DEBUG = False\n", encoding="utf-8")
    return path


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def review(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[int, Review]:
    """Review the last commit's ``git diff`` through the command line, as JSON."""
    diff = repo.parent / "change.diff"
    diff.write_text(git(repo, "diff", "HEAD~1", "HEAD"), encoding="utf-8")
    code = main(["review", str(diff), "--root", str(repo), "--format", "json", "-q", "--offline"])
    out, _ = capsys.readouterr()
    return code, Review.model_validate_json(out)


def test_a_link_replaced_by_vulnerable_code_is_reviewed(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "app.py").symlink_to("defaults.py")
    commit_all(repo, "base: app.py is a link")
    (repo / "app.py").unlink()
    (repo / "app.py").write_text(VULNERABLE, encoding="utf-8")
    commit_all(repo, "pr: app.py is code")
    text = git(repo, "diff", "HEAD~1", "HEAD")
    assert "deleted file mode 120000" in text and "new file mode 100644" in text  # two sections
    _, result = review(capsys, repo)
    lines = {f.line_start for f in result.findings if f.file_path == "app.py"}
    assert {6, 10} <= lines, result.findings  # yaml.load and exec, both found
    assert "app.py" in result.files_reviewed
    assert result.verdict.value != "approve"


def test_a_submodule_replaced_by_vulnerable_code_is_reviewed(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_all(repo, "first")
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},vendor_lib.py")
    git(repo, "commit", "-q", "-m", "base: a submodule")
    git(repo, "rm", "-q", "--cached", "vendor_lib.py")
    (repo / "vendor_lib.py").write_text(VULNERABLE, encoding="utf-8")
    commit_all(repo, "pr: the submodule's path is code")
    assert "deleted file mode 160000" in git(repo, "diff", "HEAD~1", "HEAD")
    _, result = review(capsys, repo)
    assert {6, 10} <= {f.line_start for f in result.findings if f.file_path == "vendor_lib.py"}


def test_code_replaced_by_a_link_is_listed_not_reviewed_as_text(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "app.py").write_text("x = 1\n", encoding="utf-8")
    commit_all(repo, "base: app.py is code")
    (repo / "app.py").unlink()
    (repo / "app.py").symlink_to("../../etc/passwd")
    commit_all(repo, "pr: app.py is a link")
    _, result = review(capsys, repo)
    skipped = {s.path: s for s in result.files_not_reviewed}
    assert skipped["app.py"].reason.startswith("symbolic link")
    assert skipped["app.py"].deliberate and result.outcome is Outcome.REVIEWED


def test_git_diff_of_a_type_change_parses_to_one_file_per_path(repo: Path) -> None:
    (repo / "a.py").symlink_to("defaults.py")
    (repo / "b.py").write_text("b = 1\n", encoding="utf-8")
    commit_all(repo, "base")
    (repo / "a.py").unlink()
    (repo / "a.py").write_text("a = 2\nb = 3\n", encoding="utf-8")
    (repo / "b.py").unlink()
    (repo / "b.py").symlink_to("a.py")
    (repo / "defaults.py").unlink()
    (repo / "defaults.py").symlink_to("b.py")  # a file to a link: one more type change
    commit_all(repo, "pr")
    change = parse_diff(git(repo, "diff", "HEAD~1", "HEAD"))
    by_path = {f.path: f for f in change.files}
    assert [f.path for f in change.files] == sorted(by_path)  # each path once
    assert by_path["a.py"].status is FileStatus.ADDED
    assert dict(by_path["a.py"].added) == {1: "a = 2", 2: "b = 3"}
    assert change.file("a.py") is by_path["a.py"]
    assert by_path["b.py"].status is by_path["defaults.py"].status is FileStatus.SYMLINK
    assert change.not_parsed == ()


def test_a_retargeted_link_and_a_moved_submodule_are_not_reviewable(repo: Path) -> None:
    (repo / "link").symlink_to("defaults.py")
    commit_all(repo, "base")
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "link").unlink()
    (repo / "link").symlink_to(".git/config")
    git(repo, "add", "-A")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},sub")  # no folder: no add
    git(repo, "commit", "-q", "-m", "pr")
    change = parse_diff(git(repo, "diff", "HEAD~1", "HEAD"))
    statuses = {f.path: f.status for f in change.files}
    assert statuses == {"link": FileStatus.SYMLINK, "sub": FileStatus.SUBMODULE}
    assert change.reviewable_files == ()


def test_two_sections_giving_one_path_new_content_are_refused() -> None:
    one = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    two = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+exec(x)\n"
    change = parse_diff(one + two)
    assert change.files == ()
    [refused] = change.not_parsed
    assert refused.path == "app.py" and not refused.deliberate
    assert "2 sections" in refused.reason


# --- paths git never writes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("../../../../user", "it has a .. component"),
        ("app/../../x.py", "it has a .. component"),
        ("..\\..\\user", "it has a .. component"),
        ("/etc/passwd", "it is absolute"),
        ("\\\\server\\share\\x.py", "it is absolute"),
        ("C:/x.py", "it is absolute"),
        ("a\0b.py", "it holds a NUL byte"),
        ("./app.py", "it has a . component"),
        (".git/config", "it is inside .git"),
        ("sub/.GIT/hooks/x", "it is inside .git"),
        ("", "it is empty"),
    ],
)
def test_paths_git_never_writes_are_refused(path: str, problem: str) -> None:
    assert path_problem(path) == problem


@pytest.mark.parametrize("path", ["app.py", ".github/workflows/ci.yml", "a b/c.py", "x/", "a..b"])
def test_ordinary_paths_are_kept(path: str) -> None:
    assert path_problem(path) is None


def test_a_refused_path_is_listed_with_its_reason_and_makes_the_review_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diff = tmp_path / "forged.diff"
    diff.write_text(
        "diff --git a/../../../../user b/../../../../user\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/../../../../user\n@@ -0,0 +1 @@\n+exec(x)\n"
        "diff --git a/ok.py b/ok.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/ok.py\n@@ -0,0 +1 @@\n+x = 1\n",
        encoding="utf-8",
    )
    code = main(["review", str(diff), "--root", str(tmp_path), "--format", "json", "-q"])
    result = Review.model_validate_json(capsys.readouterr().out)
    assert code == 4  # partial, under the default --on-error fail
    assert result.outcome is Outcome.PARTIAL
    [refused] = result.files_not_reviewed
    assert refused.path == "../../../../user"
    assert refused.reason.startswith("path refused, it has a .. component")
    assert result.files_reviewed == ("ok.py",)


@pytest.mark.parametrize(
    "name", ["b/plain.py", "b/café x.py", 'b/we\tird\nname\\".py', "b/\x7f\x01.py"]
)
def test_quoting_a_path_is_undone_by_unquoting(name: str) -> None:
    quoted = quote_git_path(name)
    assert "\n" not in quoted and "\t" not in quoted
    assert unquote_git_path(quoted) == name


@pytest.mark.parametrize("folder", ["x b", "a b/c b", "docs b "])
def test_a_path_holding_space_b_slash_is_reviewed_in_git_diff_output(
    repo: Path, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    """git writes ``diff --git a/x b/app.py b/x b/app.py`` unquoted; it used to be refused
    as malformed, so the whole review failed with exit code 2."""
    (repo / folder).mkdir(parents=True)
    (repo / folder / "old.py").write_text("x = 1\n", encoding="utf-8")
    (repo / folder / "app.py").write_text("import yaml\n", encoding="utf-8")
    commit_all(repo, "base")
    (repo / folder / "app.py").write_text(VULNERABLE, encoding="utf-8")  # modified
    (repo / folder / "old.py").unlink()  # deleted
    (repo / folder / "new.py").write_text(VULNERABLE, encoding="utf-8")  # added
    commit_all(repo, "pr")
    code, result = review(capsys, repo)
    assert code in (0, 1)
    for name in ("app.py", "new.py"):
        lines = {f.line_start for f in result.findings if f.file_path == f"{folder}/{name}"}
        assert {6, 10} <= lines, (name, result.findings)
    assert sorted(result.files_reviewed) == [f"{folder}/app.py", f"{folder}/new.py"]


def test_a_hand_written_header_whose_halves_differ_is_still_refused_as_malformed() -> None:
    text = (
        "diff --git a/x b/one.py b/x b/two.py\n--- a/x b/one.py\n+++ b/x b/two.py\n"
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    with pytest.raises(DiffError, match="malformed diff"):
        parse_diff(text)
