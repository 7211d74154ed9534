"""Tests of re-anchoring: a model finding goes to the added line its quote designates."""

from __future__ import annotations

import pytest

from code_guard.anchoring import anchor_line
from code_guard.diff import Change, parse_diff

# New-file lines 1-12; added lines are 2, 3, 5, 8, 10 and 12. Lines 1, 4, 6, 7, 9 and 11 are
# context, and "token = read()" was removed.
DIFF = """\
--- a/app.py
+++ b/app.py
@@ -1,7 +1,12 @@
 import os
+query = build(name)
+    run(query)
 def handler(name):
+    run(query)
     return os.getcwd()
 # note
-    token = read()
+result = cursor.execute(sql)
 pass
+    run(query)
 pass
+x=foo( a )
"""


@pytest.fixture
def change() -> Change:
    return parse_diff(DIFF)


def test_quote_on_the_given_line_stays_there(change: Change) -> None:
    assert anchor_line(change, "app.py", "query = build(name)", 2) == 2


def test_wrong_line_number_is_moved_to_the_quoted_line(change: Change) -> None:
    assert anchor_line(change, "app.py", "result = cursor.execute(sql)", 1) == 8


def test_whitespace_insensitive_match(change: Change) -> None:
    assert anchor_line(change, "app.py", "  x = foo(a)", 12) == 12
    assert anchor_line(change, "app.py", "result=cursor.execute( sql )", 3) == 8


def test_nearest_of_several_matches_wins(change: Change) -> None:
    # "    run(query)" is added at 3, 5 and 10.
    assert anchor_line(change, "app.py", "    run(query)", 9) == 10
    assert anchor_line(change, "app.py", "    run(query)", 6) == 5
    assert anchor_line(change, "app.py", "    run(query)", 1) == 3


def test_tie_goes_to_the_earlier_line(change: Change) -> None:
    assert anchor_line(change, "app.py", "    run(query)", 4) == 3


def test_whitespace_match_picks_the_nearest_too(change: Change) -> None:
    assert anchor_line(change, "app.py", "run(query)", 10) == 10
    assert anchor_line(change, "app.py", "run(query)", 2) == 3


def test_exact_match_beats_a_nearer_whitespace_match() -> None:
    change = parse_diff(
        "--- /dev/null\n+++ b/f.py\n@@ -0,0 +1,3 @@\n+x = foo(a)\n+pass\n+x=foo(a)\n"
    )
    assert anchor_line(change, "f.py", "x=foo(a)", 1) == 3


def test_multi_line_quote_uses_its_first_non_blank_line(change: Change) -> None:
    assert anchor_line(change, "app.py", "\n\nresult = cursor.execute(sql)\npass", 2) == 8


@pytest.mark.parametrize(
    "quote",
    [
        "    return os.getcwd()",  # context line
        "    token = read()",  # removed line
        "import os",  # context line
        "",
        "   \n  ",
        "something the diff never shows",
    ],
)
def test_quote_of_no_added_line_is_dropped(change: Change, quote: str) -> None:
    assert anchor_line(change, "app.py", quote, 6) is None


def test_unknown_file_is_dropped(change: Change) -> None:
    assert anchor_line(change, "other.py", "query = build(name)", 2) is None


@pytest.mark.parametrize("path", ["./app.py", "b/app.py"])
def test_diff_prefixes_on_the_path_are_accepted(change: Change, path: str) -> None:
    assert anchor_line(change, path, "query = build(name)", 2) == 2


def test_path_under_a_directory_named_b_is_anchored() -> None:
    change = parse_diff("--- /dev/null\n+++ b/b/util.py\n@@ -0,0 +1 @@\n+eval(data)\n")
    assert change.files[0].path == "b/util.py"
    assert anchor_line(change, "b/util.py", "eval(data)", 1) == 1
