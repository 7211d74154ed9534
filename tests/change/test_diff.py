"""Tests of diff parsing: statuses, new-file line numbers, and malformed input."""

from __future__ import annotations

import pytest

from code_guard.change.diff import (
    Change,
    FileChange,
    FileStatus,
    LineKind,
    decode_diff,
    parse_diff,
    render_numbered,
)
from code_guard.errors import DiffError

# The blank context line is a lone space, inserted by format() so the source has no trailing
# whitespace.
MODIFIED = """\
diff --git a/app.py b/app.py
index 1111111..2222222 100644
--- a/app.py
+++ b/app.py
@@ -1,4 +1,5 @@
 import os
-import sys
+import json
+import re
{blank}
 def main():
@@ -10,3 +11,4 @@ def main():
     x = 1
-    y = 2
+    y = 3
+    z = 4
     return x
""".format(blank=" ")

NEW_FILE = """\
diff --git a/new.py b/new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.py
@@ -0,0 +1,2 @@
+a = 1
+b = 2
"""


def only(text: str) -> FileChange:
    """Parse a one-file diff and return its file."""
    change = parse_diff(text)
    assert len(change.files) == 1
    return change.files[0]


def test_new_file_numbers_added_lines_from_one() -> None:
    file = only(NEW_FILE)
    assert (file.path, file.old_path, file.status) == ("new.py", None, FileStatus.ADDED)
    assert dict(file.added) == {1: "a = 1", 2: "b = 2"}
    assert file.reviewable


def test_modified_file_uses_new_file_numbers() -> None:
    file = only(MODIFIED)
    assert file.status is FileStatus.MODIFIED
    assert file.old_path is None
    # The removed line takes no new-file number: "import json" is line 2, not 3.
    assert dict(file.added) == {2: "import json", 3: "import re", 12: "    y = 3", 13: "    z = 4"}
    assert file.is_added(2)
    assert not file.is_added(1)  # context


def test_context_and_removed_lines_keep_both_numbers() -> None:
    lines = only(MODIFIED).hunks[0].lines
    assert [(ln.kind, ln.old_number, ln.new_number) for ln in lines] == [
        (LineKind.CONTEXT, 1, 1),
        (LineKind.REMOVED, 2, None),
        (LineKind.ADDED, None, 2),
        (LineKind.ADDED, None, 3),
        (LineKind.CONTEXT, 3, 4),
        (LineKind.CONTEXT, 4, 5),
    ]


def test_multiple_hunks_keep_their_offsets_and_section() -> None:
    file = only(MODIFIED)
    assert [(h.new_start, h.new_length, h.section) for h in file.hunks] == [
        (1, 5, ""),
        (11, 4, "def main():"),
    ]
    assert list(file.new_lines())[-1] == (14, "    return x")


def test_rename_without_change_has_no_hunks() -> None:
    file = only(
        "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\n"
        "rename to new.py\n"
    )
    assert (file.path, file.old_path, file.status) == ("new.py", "old.py", FileStatus.RENAMED)
    assert file.hunks == ()
    assert dict(file.added) == {}


def test_rename_with_change_numbers_the_new_file() -> None:
    file = only(
        "diff --git a/old.py b/new.py\nsimilarity index 80%\nrename from old.py\n"
        "rename to new.py\n--- a/old.py\n+++ b/new.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
    )
    assert (file.path, file.old_path, file.status) == ("new.py", "old.py", FileStatus.RENAMED)
    assert dict(file.added) == {2: "b = 3"}


def test_deleted_file_keeps_its_old_path_and_is_not_reviewable() -> None:
    file = only(
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\nindex 1111111..0000000\n"
        "--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a = 1\n-b = 2\n"
    )
    assert (file.path, file.status) == ("gone.py", FileStatus.DELETED)
    assert dict(file.added) == {}
    assert not file.reviewable


@pytest.mark.parametrize(
    "header",
    [
        "index 1111111..2222222 100644\nBinary files a/logo.png and b/logo.png differ\n",
        "new file mode 100644\nindex 0000000..2222222\n"
        "Binary files /dev/null and b/logo.png differ\n",
    ],
)
def test_binary_file_is_not_reviewable(header: str) -> None:
    file = only(f"diff --git a/logo.png b/logo.png\n{header}")
    assert (file.path, file.status) == ("logo.png", FileStatus.BINARY)
    assert not file.reviewable


def test_mode_only_change_is_not_reviewable() -> None:
    file = only("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n")
    assert (file.path, file.status) == ("run.sh", FileStatus.MODE_ONLY)
    assert not file.reviewable


def test_no_newline_marker_is_not_a_line() -> None:
    file = only(
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n"
        "\\ No newline at end of file\n+x = 2\n\\ No newline at end of file\n"
    )
    assert [(ln.kind, ln.text) for ln in file.hunks[0].lines] == [
        (LineKind.REMOVED, "x = 1"),
        (LineKind.ADDED, "x = 2"),
    ]
    assert dict(file.added) == {1: "x = 2"}


def test_crlf_diff_parses_like_lf() -> None:
    crlf = parse_diff(MODIFIED.replace("\n", "\r\n"))
    assert crlf == parse_diff(MODIFIED)
    assert all("\r" not in text for text in crlf.files[0].added.values())


def test_non_utf8_bytes_decode_as_latin1_and_keep_numbers() -> None:
    data = (
        b"--- a/legacy.py\n+++ b/legacy.py\n@@ -1,2 +1,4 @@\n a = 1\n"
        b"+name = 'caf\xe9'\n+b = 2\n c = 3\n"
    )
    text = decode_diff(data)
    assert dict(only(text).added) == {2: "name = 'café'", 3: "b = 2"}


def test_utf8_bytes_decode_as_utf8() -> None:
    assert decode_diff("é = '✓'".encode()) == "é = '✓'"


@pytest.mark.parametrize("text", ["", "\n\n", "   \r\n"])
def test_empty_input_is_an_empty_change(text: str) -> None:
    assert parse_diff(text) == Change(files=())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello world\nthis is not a diff\n", "expected a unified diff"),
        ("--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n a = 1\n", "malformed diff"),
        pytest.param(
            "+++ b/a.py\n@@ -1 +1 @@\n+x\n",
            "malformed diff",
        ),
    ],
)
def test_malformed_input_raises_one_clear_diff_error(text: str, expected: str) -> None:
    with pytest.raises(DiffError, match=expected) as info:
        parse_diff(text)
    assert "\n" not in str(info.value)


def test_render_numbered_shows_new_numbers_and_markers() -> None:
    assert render_numbered(only(MODIFIED)) == "\n".join(
        [
            "### app.py (modified)",
            "@@ -1,4 +1,5 @@",
            "    1   import os",
            "      - import sys",
            "    2 + import json",
            "    3 + import re",
            "    4   ",
            "    5   def main():",
            "@@ -10,3 +11,4 @@",
            "   11       x = 1",
            "      -     y = 2",
            "   12 +     y = 3",
            "   13 +     z = 4",
            "   14       return x",
        ]
    )


def test_rebuild_puts_shown_lines_in_place_and_blanks_between() -> None:
    rebuilt = only(MODIFIED).rebuild().split("\n")
    assert len(rebuilt) == 15  # 14 lines and the final newline
    assert rebuilt[:5] == ["import os", "import json", "import re", "", "def main():"]
    assert rebuilt[5:10] == [""] * 5
    assert rebuilt[10:14] == ["    x = 1", "    y = 3", "    z = 4", "    return x"]


def test_rebuild_of_a_file_without_hunks_is_empty() -> None:
    assert only("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n").rebuild() == ""


def test_in_hunk_covers_context_and_added_lines_only_inside_hunks() -> None:
    file = only(MODIFIED)
    inside = [n for n in range(1, 20) if file.in_hunk(n)]
    assert inside == [1, 2, 3, 4, 5, 11, 12, 13, 14]


def test_pure_deletion_hunk_covers_no_new_line() -> None:
    file = only("--- a/a.py\n+++ b/a.py\n@@ -3,2 +2,0 @@\n-x = 1\n-y = 2\n")
    assert not any(file.in_hunk(n) for n in range(6))


def test_change_looks_files_up_by_new_path() -> None:
    change = parse_diff(MODIFIED + NEW_FILE + "diff --git a/x.png b/x.png\nBinary files a/x.png "
                        "and b/x.png differ\n")  # fmt: skip
    assert change.file("new.py") is change.files[1]
    assert change.file("missing.py") is None
    assert [f.path for f in change.reviewable_files] == ["app.py", "new.py"]


def test_a_deleted_binary_file_is_a_deletion() -> None:
    text = (
        "diff --git a/app.js b/app.js\ndeleted file mode 100644\nindex 2b532ea..0000000\n"
        "Binary files a/app.js and /dev/null differ\n"
    )
    [file] = parse_diff(text).files
    assert (file.path, file.status) == ("app.js", FileStatus.DELETED)
    assert parse_diff(text).reviewable_files == ()
