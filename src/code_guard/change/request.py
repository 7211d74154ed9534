"""What a review looks at: the parsed change, the new files' text, and the PR's words."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import MappingProxyType

from code_guard.change.diff import Change, FileChange, FileStatus
from code_guard.change.linemap import LineMap, analysed_lines, line_map
from code_guard.change.rebuild import scaffold_python
from code_guard.change.scopes import scopes_of
from code_guard.change.testfiles import TestFiles


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines the way git counts them: on ``\n`` only, ``\r`` dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


# Changes that leave no file, or none that code can load by its path.
_NO_CODE = frozenset({FileStatus.DELETED, FileStatus.MODE_ONLY, FileStatus.SUBMODULE})


_MEDIA = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".icns", ".tif", ".tiff",
        ".avif", ".heic", ".psd", ".pdf", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3",
        ".mp4", ".m4a", ".wav", ".ogg", ".flac", ".webm", ".mov", ".avi", ".mkv",
    }
)  # fmt: skip


def _inert_media(path: str) -> bool:
    """A binary file of a format that holds no code (an image, a font, a recording, a PDF)."""
    return PurePosixPath(path.lower()).suffix in _MEDIA


@dataclass(frozen=True, slots=True)
class ReviewRequest:
    """One change to review.

    ``contents`` maps new-file paths to their full text after the change; files missing from it
    are rebuilt from the diff. ``title`` and ``body`` are the PR author's words: untrusted.
    """

    change: Change
    contents: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    title: str = ""
    body: str = ""
    # The repository's ``.gitattributes`` (for ``linguist-generated``/``linguist-vendored``).
    gitattributes: str = ""
    # The files the model reviews (an incremental review); None: every reviewed file.
    model_paths: frozenset[str] | None = None
    # Texts rebuilt from the diff, computed once: tools and anchoring ask again and again.
    _rebuilt: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    # Each file's lines, split once: every tool hit looks up its line.
    _lines: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    # Which files are tests for the rules quiet in tests, decided once (``test_files``).
    _tests: list[TestFiles] = field(default_factory=list, init=False, repr=False, compare=False)
    # Each file's line map and scopes, worked out once: every tool run of every agent reads
    # them (``linemap``, ``scopes``).
    _maps: dict[str, LineMap | None] = field(default_factory=dict, repr=False, compare=False)
    _scopes: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    # Each file's added lines as its analysed copy numbers them, with the file they were read
    # from: every tool of every agent asks, and a set per asker held 60 MiB on 3,000 files.
    _focus: dict[str, tuple[FileChange, Collection[int]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def test_files(self) -> TestFiles:
        """The change's test files, for the rules quiet in tests: decided once per review,
        from every file the change leaves (a production file the review does not look at,
        ignored or generated, still loads what it imports). A file whose text the review
        cannot read counts with no text, as one that may load anything, unless it is an
        image, a font, a recording or a PDF: a compiled module, an archive on the import
        path or a pickle may run code."""
        if not self._tests:
            self._tests.append(
                TestFiles.of(
                    (f.path, self.text_of(f.path) if f.reviewable else None)
                    for f in self.change.files
                    if f.status not in _NO_CODE
                    and not (f.status is FileStatus.BINARY and _inert_media(f.path))
                )
            )
        return self._tests[0]

    def lines_of(self, path: str) -> Sequence[str]:
        """The new lines of ``path``, numbered as diffs number them (index 0 is line 1).

        Only ``\n`` ends a line: ``str.splitlines`` also splits on form feeds and other
        separators that git does not, which would shift every line number after them.
        """
        if path not in self._lines:
            self._lines[path] = tuple(split_lines(self.text_of(path)))
        return self._lines[path]

    def line_maps(self, paths: Iterable[str]) -> dict[str, LineMap]:
        """The line map of each of ``paths`` whose analysed copy numbers its lines otherwise
        than git (``linemap.maps_of``), each worked out once per review."""
        found: dict[str, LineMap] = {}
        for path in paths:
            if path not in self._maps:
                self._maps[path] = line_map(path, self.lines_of(path))
            mapping = self._maps[path]
            if mapping is not None:
                found[path] = mapping
        return found

    def added_focus(self, file: FileChange) -> Collection[int]:
        """The added lines of ``file`` numbered as its analysed copy numbers them
        (``linemap.analysed_lines``), worked out once per review and shared by every tool
        run that reads only the added lines."""
        known = self._focus.get(file.path)
        if known is not None and known[0] is file:
            return known[1]
        lines = analysed_lines(self.line_maps((file.path,)).get(file.path), file.added.keys())
        self._focus[file.path] = (file, lines)
        return lines

    def scopes_of(self, path: str) -> tuple[str, ...]:
        """The enclosing function or class of each new line of ``path`` (``scopes``)."""
        if path not in self._scopes:
            self._scopes[path] = scopes_of(path, self.lines_of(path))
        return self._scopes[path]

    def text_of(self, path: str) -> str:
        """The new text of ``path``: given contents, else rebuilt from the diff."""
        if path in self.contents:
            return self.contents[path]
        if path not in self._rebuilt:
            file = self.change.file(path)
            text = "" if file is None else file.rebuild()
            if file is not None and path.endswith(".py"):
                text = scaffold_python(text, file)
            self._rebuilt[path] = text
        return self._rebuilt[path]
