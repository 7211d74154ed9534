"""Reads and writes in a checkout that a pull request controls: no link is followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from code_guard.cli import main
from code_guard.trust.nofollow import components, read_beneath, write_replacing


@pytest.fixture
def root(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    (checkout / "app").mkdir(parents=True)
    (checkout / "app" / "main.py").write_text("x = 1\n", encoding="utf-8")
    (checkout / ".git").mkdir()
    (checkout / ".git" / "config").write_text("token\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("secret\n", encoding="utf-8")
    return checkout


def test_a_regular_file_is_read(root: Path) -> None:
    assert read_beneath(root, "app/main.py") == b"x = 1\n"
    assert read_beneath(root, "app/main.py", max_bytes=6) == b"x = 1\n"
    assert read_beneath(root, "app/main.py", max_bytes=5) is None


@pytest.mark.parametrize(
    "relative",
    [".git/config", ".GIT/config", "app/../.git/config", "../secret.txt", "/etc/passwd",
     "app//main.py", "./app/main.py", "app/main.py\0", "app", "app/missing.py", ""],
)
def test_refused_or_missing_paths_read_nothing(root: Path, relative: str) -> None:
    assert read_beneath(root, relative) is None


def test_a_link_is_never_followed_at_any_component(root: Path, tmp_path: Path) -> None:
    (root / "to_config").symlink_to(".git/config")
    (root / "to_secret").symlink_to(tmp_path / "secret.txt")
    (root / "inside").symlink_to("app/main.py")  # even one that stays in the checkout
    (root / "gitdir").symlink_to(".git")
    (root / "outdir").symlink_to(tmp_path)
    for relative in ("to_config", "to_secret", "inside", "gitdir/config", "outdir/secret.txt"):
        assert read_beneath(root, relative) is None, relative


def test_a_fifo_is_not_waited_on(root: Path) -> None:
    os.mkfifo(root / "app" / "pipe.py")
    assert read_beneath(root, "app/pipe.py") is None  # returns at once: no writer is awaited


def test_components_refuses_what_git_never_records() -> None:
    assert components("a/b.py") == ["a", "b.py"]
    assert components("a/.git/hooks") is None
    assert components("a/.github/ok.yml") == ["a", ".github", "ok.yml"]


def test_write_replaces_a_link_and_leaves_its_target_alone(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    report = tmp_path / "out" / "report.sarif"
    report.parent.mkdir()
    report.symlink_to(victim)
    write_replacing(report, "{}\n")
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not report.is_symlink() and report.read_text(encoding="utf-8") == "{}\n"
    hard = report.parent / "hard"
    os.link(victim, hard)  # a hard link is replaced too, never written through
    write_replacing(hard, "new\n")
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert sorted(p.name for p in report.parent.iterdir()) == ["hard", "report.sarif"]


def test_write_over_a_directory_fails_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "report.sarif").mkdir()
    with pytest.raises(OSError):
        write_replacing(tmp_path / "report.sarif", "{}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["report.sarif"]


def test_write_makes_an_ordinary_file_under_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_replacing(tmp_path / "r.json", "{}")
    finally:
        os.umask(old)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644


def test_cli_output_through_a_link_replaces_the_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    (tmp_path / "report.json").symlink_to(victim)
    diff = tmp_path / "change.diff"
    diff.write_text("--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+hello\n", encoding="utf-8")
    code = main(
        [
            "review", str(diff), "--root", str(tmp_path), "--format", "json", "--quiet",
            "--output", str(tmp_path / "report.json"), "--agents", "style", "--offline",
        ]
    )
    assert code == 0
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert (tmp_path / "report.json").read_text(encoding="utf-8").startswith("{")
