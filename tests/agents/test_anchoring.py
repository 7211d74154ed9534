"""Tests of re-anchoring: a model finding goes to the added line its quote designates."""

from __future__ import annotations

import pytest

from code_guard.agents.anchoring import anchor_finding, anchor_line, removed_beside
from code_guard.change.diff import Change, parse_diff

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


# --- findings about what the change removed ------------------------------------------------

# Three hunks: a safe loader swapped for the unsafe one (new line 5), a guard replaced by two
# lines (new 21, 22), and a pure deletion of a validation call (no added line in its hunk).
REMOVALS = """\
--- a/load.py
+++ b/load.py
@@ -1,6 +1,6 @@
 import yaml
 ROOT = "/srv"
 # readers
 def read(data):
-    return yaml.safe_load(data)
+    return yaml.load(data)
 # checks
@@ -20,4 +20,4 @@
 def check(path):
-    if not path.startswith(ROOT):
-        raise ValueError(path)
+    log(path)
+    audit(path)
     return open(path)
@@ -40,3 +40,2 @@
 def run(x):
-    validate(x)
     execute(x)
"""


@pytest.fixture
def removals() -> Change:
    return parse_diff(REMOVALS)


@pytest.mark.parametrize("hint", [1, 5, 21, 40])
def test_a_removed_line_goes_to_the_added_line_that_replaced_it(
    removals: Change, hint: int
) -> None:
    # Whatever line number the model gave, the removed line's own hunk decides.
    safe = "    return yaml.safe_load(data)"
    assert anchor_finding(removals, "load.py", "", hint, removed=safe) == 5
    spaced = "return  yaml.safe_load( data )"  # whitespace aside, the same line
    assert anchor_finding(removals, "load.py", "nonsense", hint, removed=spaced) == 5


def test_a_quote_of_a_removed_line_is_anchored_beside_it(removals: Change) -> None:
    assert anchor_line(removals, "load.py", "    return yaml.safe_load(data)", 5) is None
    assert anchor_finding(removals, "load.py", "    return yaml.safe_load(data)", 5) == 5
    assert anchor_finding(removals, "load.py", "        raise ValueError(path)", 1) == 21


def test_the_nearest_added_line_of_the_hunk_unless_the_quote_names_one(removals: Change) -> None:
    guard = "    if not path.startswith(ROOT):"
    assert anchor_finding(removals, "load.py", "", 30, removed=guard) == 21
    assert anchor_finding(removals, "load.py", "    audit(path)", 30, removed=guard) == 22
    # An added line of another hunk is not "beside" the removal: the nearest one wins.
    unsafe = "    return yaml.load(data)"
    assert anchor_finding(removals, "load.py", unsafe, 5, removed=guard) == 21


def test_a_pure_deletion_falls_back_to_the_quote_or_is_dropped(removals: Change) -> None:
    gone = "    validate(x)"
    assert anchor_finding(removals, "load.py", "", 41, removed=gone) is None
    assert anchor_finding(removals, "load.py", gone, 41) is None
    assert anchor_finding(removals, "load.py", "    log(path)", 41, removed=gone) == 21


def test_a_removal_finding_lands_only_on_added_lines(removals: Change) -> None:
    [file] = removals.files
    shown = [ln.text for h in file.hunks for ln in h.lines] + ["", "elsewhere()"]
    for removed in [*shown, None]:
        for quote in shown:
            for hint in (1, 5, 21, 41):
                line = anchor_finding(removals, "load.py", quote, hint, removed=removed)
                assert line is None or file.added[line].strip(), (quote, removed, hint)


def test_removed_beside_names_the_removed_line_nearest_an_added_one(removals: Change) -> None:
    [file] = removals.files
    assert removed_beside(file, 5) == "    return yaml.safe_load(data)"
    assert removed_beside(file, 21) == "        raise ValueError(path)"
    assert removed_beside(file, 22) == "        raise ValueError(path)"
    assert removed_beside(file, 1) is None  # a context line
    change = parse_diff("--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,2 @@\n x = 1\n+y = 2\n")
    assert removed_beside(change.files[0], 2) is None  # the hunk removed nothing
