"""Files rebuilt from the diff alone, made parseable where a little scaffolding can.

When a file is not on disk, its new text is rebuilt from the diff: shown lines in place,
blank lines between. A Python hunk from the middle of a function then starts indented, which
no parser accepts, so the analysers would see nothing. Writing ``if True:`` lines into the
blank gap above such a hunk opens the blocks its indentation needs without moving any line,
so every finding keeps its true line number.
"""

from __future__ import annotations

from code_guard.change.diff import FileChange
from code_guard.rewrites.python_parse import parses


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def scaffold_python(text: str, file: FileChange) -> str:
    """Return ``text`` with block openers in the gaps above indented hunks, if that makes it
    parse; otherwise ``text`` unchanged."""
    if parses(text):
        return text
    lines = text.split("\n")
    for hunk in file.hunks:
        shown = [ln.text for ln in hunk.lines if ln.new_number is not None and ln.text.strip()]
        if not shown:
            continue
        depth = _indent(shown[0])
        first = hunk.new_start - 1  # index of the hunk's first line
        levels = list(range(0, depth, 4))
        gap = first - len(levels)
        if depth == 0 or gap < 0 or any(lines[i].strip() for i in range(gap, first)):
            continue
        for offset, level in enumerate(levels):
            lines[gap + offset] = " " * level + "if True:"
    patched = "\n".join(lines)
    return patched if parses(patched) else text


