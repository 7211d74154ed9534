"""Files git calls binary: reviewed from their text when they are text, else named.

git calls a file binary when it holds a NUL byte in its first 8,000 bytes, or when a
``.gitattributes`` line (``*.js -diff``, ``binary``) says so, and then shows no hunks. Both
are the pull request's to write: one NUL in a JavaScript comment (Node still runs the file) or
an added ``-diff`` line would hide a whole file from the review. So a binary-looking file is
read from its full text (the checkout, or the contents the action fetched) whenever that text
can be had and is text, as a file written whole, every line changed. What stays unread is
listed: as a deliberate skip only when it is plainly an asset (an image, archive, font...),
otherwise as a gap that makes the review partial.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

from code_guard.change.diff import Change, FileChange, FileStatus, Hunk, HunkLine, LineKind
from code_guard.change.request import ReviewRequest
from code_guard.findings import SkippedFile
from code_guard.languages import is_binary_asset, language_of

ASSET_REASON = "binary file"
UNREAD_REASON = (
    "git shows it as binary (a NUL byte or a -diff attribute is enough) and its text "
    "could not be read"
)
# Leading bytes of binary formats, read as the Latin-1 characters a decoded file starts with.
_MAGIC = (
    "\x89PNG", "GIF8", "\xff\xd8\xff", "PK\x03\x04", "%PDF-", "\x7fELF", "\x1f\x8b",
    "\x00asm", "\xca\xfe\xba\xbe", "BZh", "\xfd7zXZ", "7z\xbc\xaf", "RIFF", "wOF2", "wOFF",
    "SQLite format 3",
)  # fmt: skip
# How much of a file is looked at, and the share of control characters in it past which it is
# binary. Source has a few at most (a NUL in a comment, a form feed); binaries have many.
_SAMPLE = 8_000
_CONTROL_SHARE = 0.1
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b")


def looks_binary(text: str) -> bool:
    """True when ``text`` starts like a binary format or is full of control characters.

    A few NUL bytes do not make a file binary here, as they do for git: the file's runtime
    decides what runs, and a NUL in a comment does not stop it.
    """
    if text.startswith(_MAGIC):
        return True
    sample = text[:_SAMPLE]
    controls = sum(1 for c in sample if (c < " " and c not in _TEXT_CONTROLS) or c == "\x7f")
    return controls > _CONTROL_SHARE * len(sample)


def read_binaries(
    request: ReviewRequest,
) -> tuple[ReviewRequest, tuple[SkippedFile, ...], tuple[str, ...]]:
    """``request`` with each file git called binary either read as a whole-file addition or
    taken out of the change; the files taken out, each with why; and the paths read.

    A file is read when its text is at hand and either its name says it is in a language we
    know (source, config, markup or prose: text formats, whatever bytes the author put in),
    or its text does not look binary.
    """
    files: list[FileChange] = []
    skipped: list[SkippedFile] = []
    read: list[str] = []
    for file in request.change.files:
        if file.status is not FileStatus.BINARY:
            files.append(file)
            continue
        text = request.contents.get(file.path)
        known = language_of(file.path) is not None
        if text is not None and (known or not looks_binary(text)):
            files.append(whole_file(file, text))
            read.append(file.path)
        else:
            skipped.append(_not_read(file.path, text))
    if not read and not skipped:
        return request, (), ()
    change = replace(request.change, files=tuple(files))
    return _with_change(request, change), tuple(skipped), tuple(read)


def whole_file(file: FileChange, text: str) -> FileChange:
    """``file`` (which git showed without hunks) as a change that writes ``text`` whole: one
    hunk in which every line is added, so nothing in it can pass for unchanged code.

    A file git says existed stays modified (or renamed), with an empty base: what the base
    says of its name (a generated or vendored path, a ``.gitattributes`` pattern) still holds,
    while no line of it can match a base result and pass as pre-existing.
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    shown = tuple(
        HunkLine(LineKind.ADDED, line.removesuffix("\r"), None, number)
        for number, line in enumerate(lines, start=1)
    )
    hunks = (Hunk(0, 0, 1, len(shown), "", shown),) if shown else ()
    added = {line.new_number: line.text for line in shown if line.new_number is not None}
    if file.new_file:
        status = FileStatus.ADDED
    else:
        status = FileStatus.MODIFIED if file.old_path is None else FileStatus.RENAMED
    return FileChange(
        path=file.path,
        old_path=file.old_path,
        status=status,
        hunks=hunks,
        added=MappingProxyType(added),
        new_file=file.new_file,
    )


def _not_read(path: str, text: str | None) -> SkippedFile:
    """Why a binary file was not read: a deliberate skip only when it is plainly an asset
    (its text looks binary, or there is none and its suffix names a binary format)."""
    asset = text is not None or is_binary_asset(path)
    if asset:
        return SkippedFile(path=path, reason=ASSET_REASON)
    return SkippedFile(path=path, reason=UNREAD_REASON, deliberate=False)


def _with_change(request: ReviewRequest, change: Change) -> ReviewRequest:
    """A new request for ``change``, with fresh caches (the old ones may hold rebuilt text
    of the binary files)."""
    return ReviewRequest(
        change=change,
        contents=request.contents,
        title=request.title,
        body=request.body,
        gitattributes=request.gitattributes,
        model_paths=request.model_paths,
    )


def binary_warning(paths: Sequence[str]) -> tuple[str, ...]:
    """One warning naming the files git showed as binary that were reviewed from their text."""
    if not paths:
        return ()
    named = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return (
        f"git shows {len(paths)} file(s) as binary that hold text: {named}. They were "
        "reviewed from their full text, every line as changed (a NUL byte or a -diff "
        "attribute makes git hide a file's lines)",
    )
