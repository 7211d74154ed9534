"""Deleted guards: a guard the change took away is reported at the sink it stood before, unless
the head proves the same check (or one at least as strong) still dominates that sink."""

from __future__ import annotations

import re
from collections.abc import Sequence

from code_guard.change.diff import Hunk, HunkLine, LineKind
from code_guard.findings import Category
from code_guard.knowledge.protections import DERIVE, Protection
from code_guard.tools.regressions.hunks import (
    Block,
    Regression,
    added_lines,
    clip,
    deletion_point,
    make,
    nearest,
)
from code_guard.tools.regressions.proofs import IF, fails, guard_names, polarity, uses
from code_guard.tools.regressions.scope import Scope, is_guarded_sink, sink_in_function


def guard(
    scope: Scope, hunk: Hunk, block: Block, removed: HunkLine, entry: Protection
) -> Regression | None:
    """A guard the change deleted: reported at the sink it guarded unless the head still has
    the same check on the same value dominating that sink in the same function (a count of
    the protection's pattern in the file proves nothing), or one at least as strong."""
    if not IF.match(removed.text) or not fails(removed.text):
        return None
    condition = removed.text
    checked = guard_names(condition, scope.base)
    # It was a guard when its body, in the base, left (or threw the value away).
    if removed.old_number is None or not scope.base_proof.leaves(removed.old_number, checked):
        return None
    names = [n for n in checked if len(n) > 1]
    category = None if entry.category == DERIVE else Category(entry.category)
    target, sink, where = _guard_target(scope, hunk, block, removed, entry, names, checked)
    if target is None or target.new_number is None:
        return None
    sink = sink or target.new_number
    cat = category or scope.cat.sink_category(scope.language, scope.head_lines[sink - 1])
    if cat is None:
        return None
    # Strong when the line is the sink, or uses the guarded values; weak when it is only the
    # change's nearest line.
    strong = (
        where is not None
        or scope.cat.is_sink(scope.language, cat, target.text)
        or uses(target.text, names)
    )
    kept = _guard_kept(scope, entry, cat, condition, checked, sink)
    title = f"Guard removed: the check `{clip(condition, 80)}` no longer stops bad input"
    return make(
        entry.id,
        removed,
        target,
        cat,
        strong,
        title,
        entry.why,
        unchanged=target.kind is LineKind.CONTEXT,
        kept=kept,
        where=where,
    )


def _guard_target(
    scope: Scope,
    hunk: Hunk,
    block: Block,
    removed: HunkLine,
    entry: Protection,
    names: Sequence[str],
    checked: Sequence[str],
) -> tuple[HunkLine | None, int | None, str | None]:
    """Where a deleted guard's finding goes: an added line that uses the guarded names (a
    sink first); else the sink it guarded, anywhere below in its function (on that line when
    the hunk shows it, else on the deletion point, naming the sink); else, for a guard of a
    known category, the nearest added line. Also the sink's head line, and the wording."""
    category = None if entry.category == DERIVE else Category(entry.category)
    added = added_lines(hunk)
    using = [ln for ln in added if uses(ln.text, names)]
    sinks = [ln for ln in using if is_guarded_sink(scope, category, ln.text)]
    point = deletion_point(hunk, block)
    below = None
    if point is not None and point.new_number is not None:
        below = sink_in_function(scope, point.new_number, checked, category)
    target = nearest(sinks, removed, hunk)
    evidence = not entry.ambiguous or _base_sink(scope, removed, checked, category)
    if target is None and evidence:
        # An added line that uses the names but is no sink: evidence only when the guard did
        # stand before a sink of its category in the base (a prefix check of a URL did not).
        target = nearest(using, removed, hunk)
    if target is not None:
        # Proved against the sink the guard stood before, when the added line is not one.
        return target, None if target in sinks else below, None
    if point is not None and below is not None:
        shown = next((ln for ln in hunk.lines if ln.new_number == below), None)
        if shown is not None:
            return shown, below, "this unchanged line now runs without it"
        text = clip(scope.head_lines[below - 1], 80)
        return point, below, f"the sink it guarded, line {below} `{text}`, now runs without it"
    if category is not None and evidence and _base_sink(scope, removed, checked, category):
        # No line uses the guarded names any more: a sink of the guard's category that the
        # change added is the likeliest place the unchecked value now reaches.
        added_sinks = [ln for ln in added if is_guarded_sink(scope, category, ln.text)]
        return nearest(added_sinks, removed, hunk) or nearest(added, removed, hunk), None, None
    return None, None, None


def _base_sink(
    scope: Scope, removed: HunkLine, names: Sequence[str], category: Category | None
) -> bool:
    """True when, in the base, a line below the removed guard in its function passed one of
    ``names`` to a sink of ``category``: the guard did guard one (a prefix check of some
    other value is no evidence of a sink to report)."""
    if removed.old_number is None or not names:
        return False
    base = scope.base_proof
    function = base.shape.function_name(removed.old_number)
    for number in range(removed.old_number + 1, len(base.lines) + 1):
        if function is None or base.shape.function_name(number) != function:
            return False
        text = base.text(number)
        if uses(text, names) and is_guarded_sink(scope, category, text):
            return True
    return False


def _guard_kept(
    scope: Scope,
    entry: Protection,
    category: Category,
    condition: str,
    checked: Sequence[str],
    sink: int,
) -> str | None:
    """The proof that the deleted guard still stands before head line ``sink``: the same
    check (same protection, same operators, every checked name) dominating it in its
    function, or a protection at least as strong on the sink's line or dominating it."""
    proof = scope.proof
    for number in proof.above(sink):
        text = proof.text(number)
        if (
            re.search(entry.protection, text)
            and polarity(text) == polarity(condition)
            and proof.shape.dominates(number, sink)
            and proof.valid_guard(number, category, 1, checked, every=True)
        ):
            return f"the same check on line {number} `{clip(text, 80)}` still dominates it"
    found = proof.guard_over(category, sink, checked, entry.strength, every=True)
    if found is not None:
        return f"the check on line {found} `{clip(proof.text(found), 80)}` dominates it"
    return proof.protects(category, proof.text(sink), entry.strength, checked)
