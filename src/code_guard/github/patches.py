"""A unified diff rebuilt from the per-file patches of GitHub's files API.

GitHub refuses the whole-PR diff past its size limits (406), but still lists each file with
its ``patch``. This module turns that list back into ``git diff`` text that ``parse_diff``
reads, and names the files whose patch GitHub left out (binary or too large) so they are
reported as not reviewed instead of silently dropped.

The rebuilt text goes through ``parse_diff`` like GitHub's own diff, so its paths are checked
and each path gets one file change there. Names are quoted as git quotes them: a newline in a
file name must not start a forged line of the rebuilt diff.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from code_guard.change.diff import quote_git_path
from code_guard.findings import SkippedFile

NO_PATCH_REASON = "GitHub sent no patch for this file (binary, or too large to show)"
MODE_ONLY_REASON = "file mode change only"  # the engine's words for the same change


@dataclass(frozen=True, slots=True)
class DiffFetch:
    """A pull request's diff, and the files it could not include."""

    text: str
    skipped: tuple[SkippedFile, ...]
    via_files_api: bool


def diff_from_files(files: Iterable[Mapping[str, object]]) -> DiffFetch:
    """Rebuild diff text from file entries (``filename``, ``status``, ``patch``...)."""
    parts: list[str] = []
    skipped: list[SkippedFile] = []
    for entry in files:
        path = str(entry["filename"])
        patch = entry.get("patch")
        status = str(entry.get("status", "modified"))
        if not patch:
            # A deletion or a pure rename has nothing to review; anything else was withheld,
            # except a mode change ("changed" without a changed line), which has no text.
            unchanged = not int(str(entry.get("changes") or 0))
            if status == "changed" and unchanged:
                skipped.append(SkippedFile(path=path, reason=MODE_ONLY_REASON))
            elif status != "removed" and not (status == "renamed" and unchanged):
                skipped.append(SkippedFile(path=path, reason=NO_PATCH_REASON, deliberate=False))
            continue
        previous = entry.get("previous_filename")
        parts.append(_file_diff(path, str(previous) if previous else None, status, str(patch)))
    return DiffFetch(text="".join(parts), skipped=tuple(skipped), via_files_api=True)


def _file_diff(path: str, previous: str | None, status: str, patch: str) -> str:
    old = previous or path
    a, b = quote_git_path(f"a/{old}"), quote_git_path(f"b/{path}")
    lines = [f"diff --git {a} {b}"]
    if status == "added":
        lines += ["new file mode 100644", "--- /dev/null", f"+++ {b}"]
    elif status == "removed":
        lines += ["deleted file mode 100644", f"--- {a}", "+++ /dev/null"]
    else:
        if previous and previous != path:
            lines += [
                f"rename from {quote_git_path(previous)}",
                f"rename to {quote_git_path(path)}",
            ]
        lines += [f"--- {a}", f"+++ {b}"]
    body = patch if patch.endswith("\n") else patch + "\n"
    return "\n".join(lines) + "\n" + body
