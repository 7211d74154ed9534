"""Files read and written in a checkout without following symbolic links.

A pull request controls the checkout it is reviewed in: any path in it can be a symbolic
link, to ``../.git/config`` (which holds the checkout's token under ``actions/checkout``'s
default ``persist-credentials``), to ``.env``, or to a file outside the workspace, and so can
the names the action writes its reports under. So a read walks the path one component at a
time with ``O_NOFOLLOW``, reads only a regular file and never anything under ``.git``; a
write creates a fresh file next to the target and renames it over the target, which replaces
a link instead of writing through it.
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import suppress
from pathlib import Path

GIT_DIR = ".git"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
# Walking with dir_fd is what makes the check and the open one step; where the system lacks
# it (Windows), each component is checked with lstat before the open instead.
_WALKS = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd


def components(relative: str) -> list[str] | None:
    """The components of ``relative``, or None when it may not be read from a checkout.

    Refused: an absolute path, an empty, ``.`` or ``..`` component, a NUL byte, and anything
    under ``.git`` (in any letter case, as case-insensitive file systems see it).
    """
    parts = relative.split("/")
    if "\0" in relative or any(part in ("", ".", "..") for part in parts):
        return None
    if any(part.lower() == GIT_DIR for part in parts):
        return None
    return parts


def read_beneath(root: Path, relative: str, max_bytes: int | None = None) -> bytes | None:
    """The bytes of the regular file ``relative`` under ``root``, or None.

    None when the path is refused by ``components``, when any component of it is a symbolic
    link, when it is not a regular file, is over ``max_bytes``, or cannot be read. ``root``
    itself is trusted (the runner's workspace, or the user's ``--root``).
    """
    parts = components(relative)
    if parts is None:
        return None
    try:
        fd = _open_walking(root, parts) if _WALKS else _open_checked(root, parts)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or (max_bytes is not None and info.st_size > max_bytes):
        os.close(fd)  # a folder, FIFO or device: what a diff's file never is
        return None
    with os.fdopen(fd, "rb") as handle:
        if max_bytes is None:
            return handle.read()
        data = handle.read(max_bytes + 1)
    return data if len(data) <= max_bytes else None


def _open_walking(root: Path, parts: list[str]) -> int:
    """Open ``parts`` under ``root`` one component at a time, none of them followed."""
    folder = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd=folder)
    finally:
        os.close(folder)


def _open_checked(root: Path, parts: list[str]) -> int:
    """The fallback of ``_open_walking``: refuse a link or junction at any component."""
    path = root
    for part in parts:
        path = path / part
        info = os.lstat(path)
        reparse = getattr(info, "st_file_attributes", 0) & getattr(
            stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0
        )
        if stat.S_ISLNK(info.st_mode) or reparse:
            raise OSError(f"{path} is a link")
    return os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))


def write_replacing(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8 to a fresh regular file at ``path``; raise ``OSError``.

    The text goes to a new file, created exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``) in
    the same folder, which is then renamed over ``path``. Whatever ``path`` was, a symbolic
    link (dangling or not), a hard link or a file, it is replaced, never written through, and
    a reader never sees half a report. ``path``'s folder is trusted.
    """
    data = text.encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)
    while True:
        temporary = path.parent / f".code-guard-{secrets.token_hex(8)}.tmp"
        try:
            fd = os.open(temporary, flags, 0o666)  # the umask applies, as for any new file
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
