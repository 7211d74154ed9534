"""Where the reviewed files' full text comes from: the checkout, or the contents API.

The checkout in ``GITHUB_WORKSPACE`` is used only when its ``HEAD`` is exactly the head SHA
that was diffed: ``actions/checkout`` checks out the merge commit by default, whose files
differ from the head's, and line numbers must match the diff. Reading ``.git`` directly avoids
needing ``git`` in the image and its "dubious ownership" check on the mounted workspace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec

from code_guard.change.diff import Change, FileStatus, decode_diff
from code_guard.errors import GitHubError
from code_guard.findings import SkippedFile
from code_guard.github.client import GitHubClient
from code_guard.trust.nofollow import read_beneath

MAX_FILE_BYTES = 1024 * 1024  # the contents API sends no text past 1 MB either


def workspace_head(workspace: Path) -> str | None:
    """The commit the checkout in ``workspace`` is at, or None if it cannot be told."""
    git = workspace / ".git"
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref: "):
        return head or None
    ref = head[len("ref: ") :]
    try:
        return (git / ref).read_text(encoding="utf-8").strip() or None
    except OSError:
        return _packed_ref(git, ref)


def _packed_ref(git: Path, ref: str) -> str | None:
    try:
        lines = (git / "packed-refs").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        sha, _, name = line.partition(" ")
        if name == ref:
            return sha
    return None


@dataclass(frozen=True, slots=True)
class Contents:
    """The files' full texts, and the files whose fetch failed (not to be reviewed)."""

    texts: dict[str, str]
    failed: tuple[SkippedFile, ...] = ()


def collect_contents(
    change: Change,
    head_sha: str,
    workspace: Path,
    client: GitHubClient,
    ignore: Sequence[str] = (),
) -> Contents:
    """Full text of each reviewable, not-ignored file at ``head_sha``.

    Files that are missing, binary or too large are left out and reviewed from the diff alone
    (the engine rebuilds them from the hunks). A file git showed as binary is fetched too, as
    it may be source (``binary.py``), unless its suffix names a binary format
    (``Change.reviewable_files``). A file whose fetch keeps failing (after the client's
    retries) is reported in ``failed`` and the others still go on to be reviewed.
    """
    ignored = pathspec.GitIgnoreSpec.from_lines(ignore)
    local = workspace_head(workspace) == head_sha
    texts: dict[str, str] = {}
    failed: list[SkippedFile] = []
    for file in change.reviewable_files:
        if ignored.match_file(file.path):
            continue
        binary = file.status is FileStatus.BINARY
        try:
            text = (
                _read_local(workspace, file.path, binary=binary)
                if local
                else client.file_text(file.path, head_sha)
            )
        except GitHubError as exc:
            reason = f"its contents could not be fetched: {exc}"
            failed.append(SkippedFile(path=file.path, reason=reason, deliberate=False))
            continue
        if text is not None:
            texts[file.path] = text
    return Contents(texts=texts, failed=tuple(failed))


def _read_local(workspace: Path, relative: str, *, binary: bool = False) -> str | None:
    # The pull request controls the checkout: a link in it (to ../.git/config, ../.env, or out
    # of the workspace) is not followed, and nothing under .git is read. Such a file is
    # reviewed from the diff alone.
    data = read_beneath(workspace, relative, MAX_FILE_BYTES)
    if data is None:
        return None
    if binary:
        # git showed no hunks to fall back on: its bytes, decoded as the diff is, let
        # binary.py tell source (a NUL in a comment) from an asset by what they hold.
        return decode_diff(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
