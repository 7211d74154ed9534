"""Property tests of the diff parser: it fails only with ``DiffError``, and numbers lines right."""

from __future__ import annotations

import contextlib
import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from code_guard.change.diff import parse_diff
from code_guard.errors import DiffError

# No example database: the suite must not write into the working tree.
FUZZ = settings(max_examples=300, deadline=None, database=None)

# Lines that steer the parser into its interesting states, mixed with arbitrary text.
DIFF_LINES = [
    "diff --git a/x.py b/x.py",
    "--- a/x.py",
    "+++ b/x.py",
    "--- /dev/null",
    "+++ /dev/null",
    "@@ -1 +1 @@",
    "@@ -1,2 +1,3 @@ def f():",
    "@@ -0,0 +1 @@",
    "+added",
    "-removed",
    " context",
    "\\ No newline at end of file",
    "Binary files a/x.py and b/x.py differ",
    "new file mode 100644",
    "deleted file mode 100644",
    "old mode 100644",
    "new mode 100755",
    "rename from x.py",
    "rename to y.py",
    "index 1111111..2222222",
    "",
]
diff_like = st.lists(st.one_of(st.sampled_from(DIFF_LINES), st.text(max_size=30)), max_size=15)
line_ends = st.sampled_from(["\n", "\r\n"])

# Source lines: any text without line breaks (the diff's own separators).
source_line = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r"), max_size=20
)
source = st.lists(source_line, max_size=12)


@FUZZ
@given(diff_like, line_ends)
def test_parse_diff_raises_only_diff_error(lines: list[str], end: str) -> None:
    with contextlib.suppress(DiffError):
        parse_diff(end.join(lines) + end)


@FUZZ
@given(st.text(max_size=300))
def test_parse_diff_on_any_text_raises_only_diff_error(text: str) -> None:
    with contextlib.suppress(DiffError):
        parse_diff(text)


def expected_added(old: list[str], new: list[str]) -> dict[int, str]:
    """The new-file numbers and text of the lines a minimal edit from old to new adds."""
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    return {
        j + 1: new[j]
        for tag, _, _, j1, j2 in matcher.get_opcodes()
        if tag in ("replace", "insert")
        for j in range(j1, j2)
    }


@FUZZ
@given(source, source)
def test_generated_diffs_parse_to_the_added_lines(old: list[str], new: list[str]) -> None:
    # Line breaks from the last line too, so there is no "No newline" case to model here.
    diff = "".join(
        line + "\n" for line in difflib.unified_diff(old, new, "a/f.py", "b/f.py", lineterm="")
    )
    change = parse_diff(diff)
    if old == new:
        assert change.files == ()
        return
    (file,) = change.files
    assert file.path == "f.py"
    assert dict(file.added) == expected_added(old, new)
    # Every line the diff shows sits at its new-file number.
    assert all(new[n - 1] == text for n, text in file.new_lines())


@FUZZ
@given(source, source)
def test_the_base_rebuilt_from_the_head_and_the_hunks_is_the_old_file(
    old: list[str], new: list[str]
) -> None:
    diff = "".join(
        line + "\n" for line in difflib.unified_diff(old, new, "a/f.py", "b/f.py", lineterm="")
    )
    if old == new:
        return
    (file,) = parse_diff(diff).files
    assert file.base_text("".join(line + "\n" for line in new)) == "".join(
        line + "\n" for line in old
    )
