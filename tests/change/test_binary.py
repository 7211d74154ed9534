"""Which text of a file git calls binary is read as source, and which is an asset."""

from __future__ import annotations

import pytest

from code_guard.change.binary import looks_binary, read_binaries, whole_file
from code_guard.change.diff import FileStatus, parse_diff
from code_guard.change.request import ReviewRequest


def section(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..2b532ea\n"
        f"Binary files /dev/null and b/{path} differ\n"
    )


@pytest.mark.parametrize(
    ("text", "binary"),
    [
        ("// a NUL \0 in a comment\nrun();\n", False),
        ("\0" * 3 + "x = 1\n" * 40, False),
        ("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", True),
        ("PK\x03\x04" + "a" * 100, True),
        ("\0\x01\x02\x03" * 50 + "text", True),
    ],
)
def test_looks_binary(text: str, binary: bool) -> None:
    assert looks_binary(text) is binary


def test_known_languages_are_read_whatever_bytes_they_hold_and_assets_are_not() -> None:
    noisy = "\0\x01\x02" * 100
    change = parse_diff(section("a.js") + section("b.bin") + section("c.png") + section("run"))
    request = ReviewRequest(
        change=change, contents={"a.js": noisy, "b.bin": noisy, "run": "#!/bin/sh\nls\n"}
    )
    read, skipped, paths = read_binaries(request)
    assert paths == ("a.js", "run")
    assert [f.path for f in read.change.files] == ["a.js", "run"]
    assert all(f.status is FileStatus.ADDED for f in read.change.files)
    assert [(s.path, s.deliberate) for s in skipped] == [("b.bin", True), ("c.png", True)]


def test_a_file_without_text_is_a_gap_unless_its_suffix_names_a_binary_format() -> None:
    change = parse_diff(section("a.java") + section("data") + section("c.woff2"))
    _, skipped, paths = read_binaries(ReviewRequest(change=change))
    assert paths == ()
    assert [(s.path, s.deliberate) for s in skipped] == [
        ("a.java", False), ("data", False), ("c.woff2", True),
    ]  # fmt: skip


def test_whole_file_counts_every_line_as_added_and_keeps_numbers() -> None:
    [new] = parse_diff(section("web/app.js")).files
    file = whole_file(new, "a\0b\r\n\nc\n")
    assert file.status is FileStatus.ADDED
    assert dict(file.added) == {1: "a\0b", 2: "", 3: "c"}
    assert [file.in_hunk(n) for n in (1, 3, 4)] == [True, True, False]
    assert whole_file(new, "").added == {}


def test_a_file_that_existed_stays_modified_with_an_empty_base() -> None:
    text = "diff --git a/x.js b/x.js\nindex 1..2 100644\nBinary files a/x.js and b/x.js differ\n"
    [old] = parse_diff(text).files
    file = whole_file(old, "one\ntwo\n")
    assert (file.status, file.has_base) == (FileStatus.MODIFIED, True)
    assert file.base_text("one\ntwo\n") == ""
    assert sorted(file.added) == [1, 2]
