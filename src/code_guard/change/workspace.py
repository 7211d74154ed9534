"""The change's new files written to a temporary directory, for tools that read from disk.

A diff may name files that no file system here can hold as they are: a 300-byte name, a
NUL byte, a file ``x`` next to a directory ``x/``. Such a file is written under a short,
unique stand-in path (same suffix, so each analyser still recognises its language), and
``Workspace`` maps tool output back to the change's own paths. A file that cannot be written
at all is reported as not reviewed, with the reason, instead of crashing the review.

Each file is written as the analysers are to read it (``linemap.analysed_text``): a lone
``\\r`` ends a line for most analysers but not for git, so it is written as the line end (or,
in Go, the white space) it is, and the agents take each result back to git's line.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from code_guard.change.linemap import analysed_text
from code_guard.change.request import ReviewRequest
from code_guard.findings import SkippedFile

# Stand-in paths live under this folder of the workspace; a change's own file under it is
# moved aside too, so the two can never collide.
RENAMED_DIR = ".code-guard-renamed"
_MAX_NAME_BYTES = 255  # the usual limit of one path component (ext4, APFS, NTFS)


def safe_relative(path: str) -> PurePosixPath | None:
    """Return ``path`` as a relative path that stays inside a root, or None if it escapes.

    Diff paths are untrusted: ``../../etc/passwd`` must not make us write outside the workspace.
    """
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        return None
    return pure


@dataclass(frozen=True, slots=True)
class Workspace:
    """Where each file of the change was written, relative to ``root``.

    ``disk`` maps a change path to its path under ``root``; ``failed`` lists the files that
    could not be written at all.
    """

    root: Path
    disk: Mapping[str, str]
    failed: tuple[SkippedFile, ...] = ()
    _by_disk: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_disk", {v: k for k, v in self.disk.items()})

    def real_path(self, disk_path: str) -> str:
        """The change path of a file a tool reported as ``disk_path`` (itself if unknown)."""
        return self._by_disk.get(disk_path.removeprefix("./"), disk_path)


def _stand_in(path: str) -> str:
    """A short, unique path with the same suffix as ``path``."""
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = PurePosixPath(path.replace("\0", "")).name or "file"
    suffix = PurePosixPath(name).suffix[:16]
    stem = name[: len(name) - len(suffix)].encode()[:64].decode("utf-8", "ignore") or "file"
    return f"{RENAMED_DIR}/{digest}/{stem}{suffix}"


def _natural(path: str) -> str | None:
    """``path`` itself when a file system can hold it as it is, else None."""
    rel = safe_relative(path)
    if rel is None or "\0" in path or rel.parts[0] == RENAMED_DIR:
        return None
    if any(len(part.encode("utf-8", "surrogateescape")) > _MAX_NAME_BYTES for part in rel.parts):
        return None
    return rel.as_posix()


def _write(root: Path, rel: str, text: str) -> None:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    # ``newline=""``: written as given, never with the platform's line ends
    target.write_text(text, encoding="utf-8", errors="surrogateescape", newline="")


@contextmanager
def materialize(request: ReviewRequest, paths: tuple[str, ...]) -> Iterator[Workspace]:
    """Write the new text of ``paths`` under a temporary root, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="code-guard-") as tmp:
        root = Path(tmp)
        disk: dict[str, str] = {}
        used: set[str] = set()
        failed: list[SkippedFile] = []
        for path in paths:
            if safe_relative(path) is None:
                continue  # never written: the engine lists it as escaping the repository
            text = analysed_text(path, request.text_of(path))
            natural = _natural(path)
            if natural in used:
                natural = None  # ``x/`` and ``x``, or ``a//b`` and ``a/b``: one name on disk
            try:
                if natural is not None:
                    try:
                        _write(root, natural, text)
                        disk[path] = natural
                        used.add(natural)
                        continue
                    except OSError:
                        pass  # a clash (``x`` and ``x/y``) or a name the system refuses
                stand_in = _stand_in(path)
                _write(root, stand_in, text)
                disk[path] = stand_in
            except OSError as exc:
                reason = f"could not be written for analysis: {exc.strerror or exc}"
                failed.append(SkippedFile(path=path, reason=reason, deliberate=False))
        yield Workspace(root=root, disk=disk, failed=tuple(failed))
