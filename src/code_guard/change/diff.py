"""A unified diff, parsed with unidiff into files, hunks and added lines with new-file numbers.

Everything downstream (tools, prompts, anchoring, inline comments) speaks in new-file line
numbers, so this module is the one place where a diff's text becomes numbers.

It is also where a diff's paths are checked: the diff comes from the pull request, so a path
that git itself never writes (``..``, absolute, NUL, inside ``.git``) is refused here, before
any request or read names it, and each path has one file change (git writes a type change,
such as a symbolic link replaced by a regular file, as two sections).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchedFile, PatchSet

from code_guard.errors import DiffError
from code_guard.findings import SkippedFile
from code_guard.languages import is_binary_asset

# The largest diff read, in characters. Past it, whole file sections are left unread (and
# listed as not reviewed) rather than parsing tens of megabytes to review none of it in time.
MAX_DIFF_CHARS = 20_000_000


class FileStatus(StrEnum):
    """What the change did to a file."""

    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    BINARY = "binary"
    MODE_ONLY = "mode_only"
    SYMLINK = "symlink"  # the new side is a symbolic link: its "text" is a target path
    SUBMODULE = "submodule"  # the new side is a submodule: its "text" is a commit id
    UNREADABLE = "unreadable"  # a file section whose hunks could not be read


class LineKind(StrEnum):
    """The kind of one line of a hunk."""

    ADDED = "+"
    REMOVED = "-"
    CONTEXT = " "


@dataclass(frozen=True, slots=True)
class HunkLine:
    """One line of a hunk with its numbers on either side (None where it has none)."""

    kind: LineKind
    text: str
    old_number: int | None
    new_number: int | None


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``@@`` block: where it sits on both sides, and its lines."""

    old_start: int
    old_length: int
    new_start: int
    new_length: int
    section: str
    lines: tuple[HunkLine, ...]

    @property
    def new_range(self) -> range:
        """The new-file line numbers this hunk covers."""
        return range(self.new_start, self.new_start + self.new_length)


_NOT_REVIEWABLE = frozenset(
    {
        FileStatus.DELETED,
        FileStatus.BINARY,
        FileStatus.MODE_ONLY,
        FileStatus.SYMLINK,
        FileStatus.SUBMODULE,
        FileStatus.UNREADABLE,
    }
)


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file of the diff: its paths, status, hunks and added lines."""

    path: str
    old_path: str | None
    status: FileStatus
    hunks: tuple[Hunk, ...] = ()
    added: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    # Whether git says the file is new: a binary section has no other sign of it.
    new_file: bool = False

    @property
    def reviewable(self) -> bool:
        """True when the file has new text to review (not deleted, binary, mode-only or
        unreadable)."""
        return self.status not in _NOT_REVIEWABLE

    def is_added(self, line: int) -> bool:
        """True when new-file ``line`` was added by the change."""
        return line in self.added

    def in_hunk(self, line: int) -> bool:
        """True when new-file ``line`` lies inside a hunk, so GitHub accepts a comment on it."""
        return any(line in h.new_range for h in self.hunks)

    def new_lines(self) -> Iterator[tuple[int, str]]:
        """Yield every new-side line the diff shows (context and added), with its number."""
        for hunk in self.hunks:
            for line in hunk.lines:
                if line.new_number is not None:
                    yield line.new_number, line.text

    @property
    def has_base(self) -> bool:
        """True when the file existed before the change (so findings can be compared)."""
        return self.status in (FileStatus.MODIFIED, FileStatus.RENAMED)

    def base_text(self, head: str) -> str:
        """The file before the change, rebuilt from its text after (``head``) and the hunks.

        Lines outside the hunks are the same on both sides; inside each hunk the new-side
        lines are swapped for the old-side ones (context and removed lines). Line numbers of
        the base are exact wherever the head's are.
        """
        lines = head.split("\n")
        if lines[-1] == "":
            lines.pop()
        out: list[str] = []
        cursor = 1  # next head line to copy
        for hunk in self.hunks:
            start = hunk.new_start if hunk.new_length else hunk.new_start + 1
            out.extend(lines[cursor - 1 : start - 1])
            out.extend(ln.text for ln in hunk.lines if ln.kind is not LineKind.ADDED)
            cursor = start + hunk.new_length
        out.extend(lines[cursor - 1 :])
        return "".join(line + "\n" for line in out)

    def base_lines_in_hunks(self) -> frozenset[int]:
        """Old-file numbers of the lines the hunks show (context and removed)."""
        return frozenset(
            ln.old_number for h in self.hunks for ln in h.lines if ln.old_number is not None
        )

    def rebuild(self) -> str:
        """Rebuild the new file from the diff alone: shown lines in place, blanks between.

        Used for files that are not on disk; line numbers stay exact, which is what tools and
        anchoring need, even though unshown lines are empty.
        """
        shown = dict(self.new_lines())
        if not shown:
            return ""
        return "\n".join(shown.get(n, "") for n in range(1, max(shown) + 1)) + "\n"


@dataclass(frozen=True, slots=True)
class Change:
    """A whole parsed diff."""

    files: tuple[FileChange, ...]
    # Files whose sections were not read: past the diff size cap, under a path git never
    # writes, or changed by more than one section. Each is listed as not reviewed.
    not_parsed: tuple[SkippedFile, ...] = ()
    _by_path: dict[str, FileChange] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Looked up once per tool result: a dict, not a scan of thousands of files.
        by_path: dict[str, FileChange] = {}
        for file in self.files:
            by_path.setdefault(file.path, file)
        object.__setattr__(self, "_by_path", by_path)

    def file(self, path: str) -> FileChange | None:
        """Return the file changed at new path ``path``, if any."""
        return self._by_path.get(path)

    @property
    def reviewable_files(self) -> tuple[FileChange, ...]:
        """The files whose new text a review reads: those with text to review, and those git
        calls binary that may be source all the same (``binary.py`` decides on the text),
        which is any whose suffix does not name a binary format (an image, an archive...)."""
        return tuple(
            f
            for f in self.files
            if f.reviewable or (f.status is FileStatus.BINARY and not is_binary_asset(f.path))
        )


def decode_diff(data: bytes) -> str:
    """Decode diff bytes: UTF-8 when valid, else Latin-1, which maps every byte to a char.

    Latin-1 keeps line structure and numbering intact for non-UTF-8 files, where replacing
    bad bytes could hide the very text a finding quotes.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16 with a byte-order mark: what PowerShell's `>` writes (`git diff > x.diff`).
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise DiffError(f"the diff looks like UTF-16 but does not decode: {exc}") from exc
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_diff(text: str, max_chars: int = MAX_DIFF_CHARS) -> Change:
    """Parse unified diff text into a ``Change``, raising ``DiffError`` on malformed input.

    File sections past ``max_chars`` are not parsed; they are listed in ``not_parsed``.
    """
    # CRLF diffs (from Windows checkouts) parse as LF; the carriage returns are not content.
    normalized = text.replace("\r\n", "\n")
    if not normalized.strip():
        return Change(files=())
    not_parsed: tuple[SkippedFile, ...] = ()
    if len(normalized) > max_chars:
        normalized, not_parsed = _cut(normalized, max_chars)
        if not normalized:
            return Change(files=(), not_parsed=not_parsed)
    if _AMBIGUOUS_HEADER in normalized:
        normalized = _quote_ambiguous_headers(normalized)
    try:
        patch = PatchSet(normalized)
    except UnidiffParseError as exc:
        raise DiffError(f"malformed diff: {' '.join(str(exc).split())}") from exc
    if not patch and not _looks_like_header_only(normalized):
        hint = ""
        if "\0" in normalized:
            hint = " (it holds NUL bytes: UTF-16 without a byte-order mark? re-save it as UTF-8)"
        raise DiffError(
            f"input has no file changes; expected a unified diff (git diff output){hint}"
        )
    files, refused = _one_per_path(_file_change(pf) for pf in patch)
    return Change(files=files, not_parsed=(*not_parsed, *refused))


# A ``diff --git`` line whose path itself holds `` b/`` (``a/x b/y.py b/x b/y.py``): git
# quotes neither half, and unidiff splits it at the wrong `` b/``, then refuses the file.
_AMBIGUOUS_HEADER = " b/"


def _quote_ambiguous_headers(text: str) -> str:
    """Quote the paths of each file section whose ``diff --git`` line splits two ways.

    An unchanged path is written twice, so ``a/P b/P`` splits exactly where both halves are
    equal; that section's header and ``---``/``+++`` lines are rewritten with the path in
    git's quoted form, spaces as ``\\040``, so no `` b/`` is left to split at (unidiff keeps a
    quoted name whole; ``unquote_git_path`` undoes it). A rename whose names hold `` b/``
    cannot be split this way and is left to fail as malformed.
    """
    lines = text.split("\n")
    path: str | None = None
    for i, line in enumerate(lines):
        if line.startswith("diff --git a/"):
            rest = line[len("diff --git a/") :]
            half = (len(rest) - 3) // 2
            same = rest[half : half + 3] == " b/" and rest[:half] == rest[half + 3 :]
            path = rest[:half] if same and rest.count(" b/") > 1 else None
            if path is not None:
                lines[i] = f"diff --git {_spaced('a/' + path)} {_spaced('b/' + path)}"
        elif path is not None and line.startswith(("--- a/", "+++ b/")):
            if line[6:].rstrip("\t") == path:
                lines[i] = line[:4] + _spaced(line[4:6] + path)
        elif line.startswith("@@"):
            path = None
    return "\n".join(lines)


def _spaced(name: str) -> str:
    """``name`` in git's quoted form with its spaces escaped, as ``unquote_git_path`` reads."""
    escaped = name.replace("\\", "\\\\").replace('"', '\\"').replace(" ", "\\040")
    return f'"{escaped}"'


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot name a file of a repository, or None when it can.

    git never records a ``.`` or ``..`` component, a NUL byte, an absolute path or one inside
    ``.git``; a diff naming one was made by hand, and the path could reach out of the
    checkout, into its credentials, or (in a URL) to another API endpoint. Backslashes count
    as separators here, as they are on Windows.
    """
    if not path:
        return "it is empty"
    if "\0" in path:
        return "it holds a NUL byte"
    if path.startswith(("/", "\\")) or re.match(r"[A-Za-z]:[/\\]", path):
        return "it is absolute"
    parts = re.split(r"[/\\]", path)
    if ".." in parts:
        return "it has a .. component"
    if "." in parts:  # a URL's dot segment: another path would be fetched
        return "it has a . component"
    if any(part.lower() == ".git" for part in parts):
        return "it is inside .git"
    return None


def _one_per_path(
    files: Iterable[FileChange],
) -> tuple[tuple[FileChange, ...], tuple[SkippedFile, ...]]:
    """One file change per path, and the sections refused, each with its reason.

    git writes a type change (a link, a submodule or a regular file becoming another of these)
    as the old type's deletion, then the new type's addition: the path's file change is the
    addition, with its final content. A section naming a path git never writes is refused,
    and so is a path that two sections both give new content, which git never writes either.
    """
    by_path: dict[str, list[FileChange]] = {}
    refused: list[SkippedFile] = []
    for file in files:
        problem = path_problem(file.path) or (
            path_problem(file.old_path) if file.old_path is not None else None
        )
        if problem is not None:
            reason = f"path refused, {problem}: a diff from git never names such a path"
            refused.append(SkippedFile(path=file.path, reason=reason, deliberate=False))
        else:
            by_path.setdefault(file.path, []).append(file)
    kept: list[FileChange] = []
    for path, sections in by_path.items():
        new = [f for f in sections if f.status is not FileStatus.DELETED]
        if len(new) <= 1:
            kept.append(new[0] if new else sections[0])
            continue
        reason = (
            f"the diff has {len(new)} sections that give this path new content; "
            "git writes one, so which is true cannot be told"
        )
        refused.append(SkippedFile(path=path, reason=reason, deliberate=False))
    return tuple(kept), tuple(refused)


def _cut(text: str, max_chars: int) -> tuple[str, tuple[SkippedFile, ...]]:
    """Keep the whole file sections that fit in ``max_chars``; name the others."""
    starts = [0] if text.startswith("diff --git ") else []
    starts += [i + 1 for i in _find_all(text, "\ndiff --git ")]
    if not starts:
        raise DiffError(f"the diff is over {max_chars:,} characters and has no file sections")
    bounds = [*starts, len(text)]
    kept = 0
    skipped: list[SkippedFile] = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        if end <= max_chars and not skipped:
            kept = end
            continue
        header = text[start : text.find("\n", start)]
        path = header.rsplit(" b/", 1)[-1] if " b/" in header else header
        reason = f"the diff is over the cap of {max_chars:,} characters; this file was not read"
        skipped.append(SkippedFile(path=path, reason=reason, deliberate=False))
    return text[:kept], tuple(skipped)


def _find_all(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _looks_like_header_only(text: str) -> bool:
    return text.lstrip().startswith("diff --git ")


# The new side's mode: ``new file mode``, ``new mode``, or ``index a..b <mode>`` when it is
# unchanged. 120000 is a symbolic link, 160000 a submodule (a "gitlink").
_NEW_MODE = re.compile(r"^(?:new file mode|new mode|index \S+) ([0-7]{6})$", re.MULTILINE)


def _new_type(pf: PatchedFile) -> FileStatus | None:
    modes = _NEW_MODE.findall(str(pf.patch_info or ""))
    mode = modes[-1] if modes else ""
    return {"120000": FileStatus.SYMLINK, "160000": FileStatus.SUBMODULE}.get(mode)


def _status(pf: PatchedFile) -> FileStatus:
    if pf.is_removed_file:
        # Before binary: a deleted file has no new text, whatever git thought of the old.
        return FileStatus.DELETED
    if pf.is_binary_file:
        return FileStatus.BINARY
    if (special := _new_type(pf)) is not None:
        return special
    if pf.is_added_file:
        return FileStatus.ADDED
    if pf.is_rename:
        return FileStatus.RENAMED
    if not len(pf):
        # No hunk: a mode change, or a section unidiff could not read (a garbled ``@@``
        # header, a combined ``diff --cc`` of a merge), which must not pass for reviewed.
        info = str(pf.patch_info or "")
        return FileStatus.MODE_ONLY if "old mode " in info else FileStatus.UNREADABLE
    return FileStatus.MODIFIED


def _file_change(pf: PatchedFile) -> FileChange:
    status = _status(pf)
    hunks = tuple(_hunk(h) for h in pf)
    added = {
        line.new_number: line.text
        for hunk in hunks
        for line in hunk.lines
        if line.kind is LineKind.ADDED and line.new_number is not None
    }
    old_path = _strip_prefix(pf.source_file)
    path = _strip_prefix(pf.target_file) if status is not FileStatus.DELETED else old_path
    return FileChange(
        path=path or pf.path,
        old_path=old_path if old_path != path else None,
        status=status,
        hunks=hunks,
        added=MappingProxyType(added),
        new_file=bool(pf.is_added_file),
    )


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_git_path(name: str) -> str:
    """Undo git's C-style quoting of a path (``"b/caf\\303\\251.py"`` -> ``b/café.py``).

    git quotes a name holding a non-ASCII byte, a double quote, a backslash or a control
    character, and escapes those as ``\\"``, ``\\\\``, ``\\t``... or three octal digits per byte.
    """
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 == len(body):
            out += char.encode("utf-8", "surrogateescape")
            i += 1
        elif body[i + 1 : i + 4].isdigit() and len(body[i + 1 : i + 4]) == 3:
            out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
            i += 4
        else:
            out.append(_C_ESCAPES.get(body[i + 1], ord(body[i + 1]) & 0xFF))
            i += 2
    return out.decode("utf-8", "surrogateescape")


_C_QUOTES = {value: "\\" + key for key, value in _C_ESCAPES.items()}


def quote_git_path(name: str) -> str:
    """Quote ``name`` as git does when it must (the inverse of ``unquote_git_path``).

    A name holding a control character, a double quote, a backslash or a non-ASCII byte is
    written between double quotes with C escapes, so that a newline in a file name cannot
    end a diff line early and start a forged one.
    """
    data = name.encode("utf-8", "surrogateescape")
    if all(0x20 <= byte < 0x7F and byte not in (0x22, 0x5C) for byte in data):
        return name
    out = []
    for byte in data:
        if byte in _C_QUOTES:
            out.append(_C_QUOTES[byte])
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _strip_prefix(name: str | None) -> str | None:
    if name is None:
        return None
    name = unquote_git_path(name)
    if name == "/dev/null":
        return None
    for prefix in ("a/", "b/"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _hunk(h: object) -> Hunk:
    lines = []
    for line in h:  # type: ignore[attr-defined]
        if line.line_type not in ("+", "-", " "):
            continue  # "\ No newline at end of file" is a marker, not a line
        lines.append(
            HunkLine(
                kind=LineKind(line.line_type),
                text=line.value.rstrip("\n").removesuffix("\r"),
                old_number=line.source_line_no,
                new_number=line.target_line_no,
            )
        )
    return Hunk(
        old_start=h.source_start,  # type: ignore[attr-defined]
        old_length=h.source_length,  # type: ignore[attr-defined]
        new_start=h.target_start,  # type: ignore[attr-defined]
        new_length=h.target_length,  # type: ignore[attr-defined]
        section=h.section_header or "",  # type: ignore[attr-defined]
        lines=tuple(lines),
    )


def render_numbered(change: FileChange) -> str:
    """Render a file's hunks with new-file numbers, for a model to cite lines by number.

    Added lines read ``  12 + text``, context ``  12   text``, removed ``     - text``.
    """
    out = [f"### {change.path} ({change.status.value})"]
    for hunk in change.hunks:
        out.append(f"@@ -{hunk.old_start},{hunk.old_length} +{hunk.new_start},{hunk.new_length} @@")
        for line in hunk.lines:
            number = "" if line.new_number is None else str(line.new_number)
            out.append(f"{number:>5} {line.kind.value} {line.text}")
    return "\n".join(out)
