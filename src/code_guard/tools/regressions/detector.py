"""Security regressions: the protections a change takes away.

For each hunk of a modified file, every removed line that holds a protection of the catalogue
(a safe API, a protective argument, a sanitiser, a guard, a secret read without a default) is
paired with the added line that replaced it (difflib, within its block of changed lines), and
reported at the sink it protected (the replacement, an added line that uses the value, or the
sink below in the same function when the change only deleted it). Nothing is silenced by a
count or a name: a protection counts as kept only when the head proves it still protects that
sink (``proofs``: the same call on the value, a catalogue protection at least as strong, a
helper whose every return is protected, a guard on the value dominating the sink), and such a
proof is returned as a silenced regression, never dropped. Guards are checked in ``guards``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from code_guard.change.diff import FileChange, Hunk, HunkLine, LineKind
from code_guard.findings import Category
from code_guard.knowledge.protections import (
    DERIVE,
    Kind,
    Language,
    Protection,
    catalogue,
)
from code_guard.languages import REGRESSIONS, read_by
from code_guard.tools.regressions.guards import guard
from code_guard.tools.regressions.hunks import (
    Block,
    Regression,
    added_lines,
    blocks,
    clip,
    deletion_point,
    is_comment,
    make,
    nearest,
    pair_of,
)
from code_guard.tools.regressions.proofs import ASSIGNED, IDENT, call_argument, first_argument, uses
from code_guard.tools.regressions.scope import Scope, sink_in_function

__all__ = ["GENERIC_ID", "Regression", "find_regressions", "language_of"]

# The rule of a removed call that only its name shows to be a sanitiser.
GENERIC_ID = "any-named-sanitiser"
_SECRET_NAME = re.compile(
    r"(?i)secret|passw|pwd|token|api_?key|private|credential|salt|signing|auth_?key|_key$|^key$"
)
_IMPORT = re.compile(
    r"^\s*(?:import\s+[\w.]+|from\s+[\w.]+\s+import\b|(?:\w+\s+)?\"(?P<go>[\w./-]+)\"\s*$)"
)
# How far (in lines of the hunk) from a removed sanitiser the line that lost it may be.
_REACH = 8


def language_of(path: str) -> Language | None:
    """The catalogue language of ``path`` (``languages.py``: the rule family of a language
    this check reads), or None."""
    language = read_by(REGRESSIONS, path)
    return language.family if language is not None else None


def find_regressions(file: FileChange, head: str) -> list[Regression]:
    """The protections ``file``'s change took away, given its head text ``head``."""
    language = language_of(file.path)
    if language is None or not file.has_base:
        return []
    if not any(ln.kind is LineKind.REMOVED for hunk in file.hunks for ln in hunk.lines):
        return []  # nothing taken away: no need to rebuild the base
    scope = Scope(file, head, language, catalogue())
    found: dict[tuple[int, str], Regression] = {}
    for hunk in file.hunks:
        for block in blocks(hunk):
            for removed in block.removed:
                for regression in _check_line(scope, hunk, block, removed):
                    key = (regression.line, regression.category.value)
                    if key not in found or (found[key].silenced and not regression.silenced):
                        found[key] = regression  # a live regression outranks a proof
    return sorted(found.values(), key=lambda r: r.line)


def _check_line(scope: Scope, hunk: Hunk, block: Block, removed: HunkLine) -> Iterator[Regression]:
    text = removed.text
    if not text.strip() or is_comment(text):
        return
    checks: dict[Kind, Callable[..., Regression | None]] = {
        Kind.SAFE_TWIN: _safe_twin,
        Kind.PROTECTIVE_ARGUMENT: _protective_argument,
        Kind.SANITISER: _sanitiser,
        Kind.GUARD: guard,
        Kind.SECRET_DEFAULT: _secret_default,
    }
    matched = False
    for entry in scope.cat.for_language(scope.language):
        if re.search(entry.protection, text) is None:
            continue
        if entry.not_if is not None and re.search(entry.not_if, text):
            continue
        matched = True
        regression = checks[entry.kind](scope, hunk, block, removed, entry)
        if regression is not None:
            yield regression
    if not matched:
        regression = _generic_sanitiser(scope, hunk, block, removed)
        if regression is not None:
            yield regression


def _category(scope: Scope, entry: Protection, target: HunkLine) -> Category | None:
    if entry.category != DERIVE:
        return Category(entry.category)
    return scope.cat.sink_category(scope.language, target.text)


def _safe_twin(
    scope: Scope, hunk: Hunk, block: Block, removed: HunkLine, entry: Protection
) -> Regression | None:
    assert entry.unsafe is not None  # noqa: S101 - validated by the catalogue
    if re.search(entry.unsafe, removed.text):
        return None
    paired = pair_of(block, removed)
    # A swap on the same value is its own proof; otherwise the file must hold the safe API
    # less often and the unsafe one more often (an import list re-sorted moves both).
    direct = _swapped_on_same_value(paired, removed, entry)
    if not direct and not (scope.lost(entry.protection) and scope.gained(entry.unsafe)):
        return None
    # The twin may sit a few lines off (an import list re-sorted): the block first, then the hunk.
    rest = [ln for ln in block.added if ln is not paired]
    ordered = ([paired] if paired else []) + rest
    ordered += [ln for ln in added_lines(hunk) if ln not in ordered]
    target = next(
        (
            ln
            for ln in ordered
            if re.search(entry.unsafe, ln.text) and not re.search(entry.protection, ln.text)
        ),
        None,
    )
    if target is None:
        return None
    target = _user_of_import(scope, target)
    category = _category(scope, entry, target)
    if category is None:
        return None
    unsafe = re.search(entry.unsafe, target.text)
    safe = re.search(entry.protection, removed.text)
    title = f"Safe API replaced by its unsafe twin: `{_name(safe)}` became `{_name(unsafe)}`"
    return make(entry.id, removed, target, category, True, title, entry.why)


def _swapped_on_same_value(paired: HunkLine | None, removed: HunkLine, entry: Protection) -> bool:
    """True when the replacement calls the unsafe twin on the argument the removed line gave
    the safe one: a swap no other copy of the safe call elsewhere in the file can excuse."""
    if paired is None or entry.unsafe is None or re.search(entry.protection, paired.text):
        return False
    safe = re.search(entry.protection, removed.text)
    unsafe = re.search(entry.unsafe, paired.text)
    if safe is None or unsafe is None:
        return False
    if not (safe.group(0).endswith("(") and unsafe.group(0).endswith("(")):
        return False
    before = first_argument(call_argument(removed.text, safe.end()))
    after = first_argument(call_argument(paired.text, unsafe.end()))
    return bool(before) and before == after


def _user_of_import(scope: Scope, target: HunkLine) -> HunkLine:
    """For an import line, the first added line that uses what it imports (the call a reader
    sees), else the import itself."""
    found = _IMPORT.match(target.text)
    if found is None:
        return target
    module = found.group("go") or target.text.split()[1]
    alias = re.split(r"[/.]", module)[-1]
    uses = re.compile(rf"(?<![\w.]){re.escape(alias)}\.\w")
    for hunk in scope.file.hunks:
        for line in added_lines(hunk):
            if line is not target and uses.search(line.text) and not _IMPORT.match(line.text):
                return line
    return target


def _name(match: re.Match[str] | None) -> str:
    return "" if match is None else clip(match.group(0).rstrip("(").strip(), 60)


def _protective_argument(
    scope: Scope, hunk: Hunk, block: Block, removed: HunkLine, entry: Protection
) -> Regression | None:
    assert entry.call is not None  # noqa: S101 - validated by the catalogue
    head_side = [*block.before, *block.added]
    base_side = [*block.before, *block.removed]
    if not any(re.search(entry.call, ln.text) for ln in base_side):
        return None
    flipped = (
        next((ln for ln in block.added if re.search(entry.unsafe, ln.text)), None)
        if entry.unsafe
        else None
    )
    paired = pair_of(block, removed)
    target = flipped
    if target is None and any(re.search(entry.call, ln.text) for ln in head_side):
        calls = [ln for ln in block.added if re.search(entry.call, ln.text)]
        target = paired or (calls[0] if calls else nearest(block.added, removed, hunk))
    if target is None or re.search(entry.protection, target.text):
        return None
    # Flipped, or the same call rewritten without it: direct evidence. Only a guess at the
    # nearest line needs the file to hold the argument fewer times than the base.
    direct = flipped is not None or (target is paired and re.search(entry.call, target.text))
    if not direct and not scope.lost(entry.protection):
        return None
    argument = _name(re.search(entry.protection, removed.text))
    how = "dropped"
    if flipped is not None and entry.unsafe is not None:
        how = f"flipped to `{_name(re.search(entry.unsafe, target.text))}`"
    title = f"Protective argument {how}: `{argument}` no longer set"
    return make(entry.id, removed, target, Category(entry.category), True, title, entry.why)


# Where a sanitiser went missing: the line to report, its category, the evidence, whether it
# is an unchanged line, the proof that the value is still protected (None: nothing proves it),
# and the wording of where (None: the usual one).
_Found = tuple[HunkLine, Category, bool, bool, str | None, str | None]


def _unwrapped(
    scope: Scope,
    hunk: Hunk,
    block: Block,
    removed: HunkLine,
    match: re.Match[str],
    category: Category | None,
    strength: int,
    callee: str = "",
) -> _Found | None:
    """Where a sanitiser call ``match`` (``callee``) on ``removed`` went missing: the added
    line that uses its argument (or the value it produced) without it, its category, the
    evidence, whether the line is an unchanged one (the hunk only deleted the sanitiser), and
    the proof that the value is still protected there (None when nothing proves it)."""
    known = category is not None and strength > 0
    inner = call_argument(removed.text, match.end())
    if not IDENT.search(inner) or inner.startswith(("'", '"', "`")):
        return None
    assigned = ASSIGNED.match(removed.text)
    names = [" ".join(inner.split())]
    first = first_argument(inner)
    if first and first not in names and IDENT.fullmatch(first):
        names.append(first)
    if assigned and assigned.group(1) not in names:
        names.append(assigned.group(1))
    paired = pair_of(block, removed)
    scored: list[tuple[int, int, HunkLine]] = []
    proven: list[_Found] = []
    order = {id(ln): i for i, ln in enumerate(hunk.lines)}
    at = order.get(id(removed), 0)
    # The replacement decides when it still uses the value: protected there, nothing was lost.
    replaced = paired is not None and uses(" ".join(paired.text.split()), names)
    for line in [paired] if replaced and paired is not None else added_lines(hunk):
        flat = " ".join(line.text.split())
        distance = abs(order.get(id(line), 0) - at)
        if distance > _REACH or not uses(flat, names):
            continue
        cat = _sanitised_category(scope, line, category, known)
        if cat is None:
            continue
        proof = scope.protects(cat, line.text, max(strength, 1), names)
        if proof is None and scope.same_call(callee, line.text, names):
            proof = f"it still applies `{callee}` to the value"
        if proof is not None:
            proven.append((line, cat, True, False, proof, None))
            continue
        score = (2 if line is paired else 0) + (
            1 if scope.cat.is_sink(scope.language, cat, line.text) else 0
        )
        scored.append((-score, distance, line))
    if not scored:
        if proven:
            return proven[0]
        if known and not replaced and not added_lines(hunk):
            return _sink_below(scope, hunk, block, names, category, strength)
        return None
    _, _, target = min(scored, key=lambda s: (s[0], s[1]))
    cat = _sanitised_category(scope, target, category, known)
    if cat is None:
        return None
    sink = scope.cat.is_sink(scope.language, cat, target.text)
    strong = (known and (target is paired or sink)) or (not known and target is paired and sink)
    kept = scope.guarded(cat, target, names, max(strength, 1), callee)
    return target, cat, strong, False, kept, None


def _sink_below(
    scope: Scope,
    hunk: Hunk,
    block: Block,
    names: Sequence[str],
    category: Category | None,
    strength: int,
) -> _Found | None:
    """For a hunk that only deleted a known sanitiser's line: the first line below it, in its
    function, that passes the value to a sink (strong evidence). Reported there when the hunk
    shows that line, else on the deletion point, naming the sink."""
    point = deletion_point(hunk, block)
    if category is None or point is None or point.new_number is None:
        return None
    sink = sink_in_function(scope, point.new_number, names, category)
    if sink is None:
        return None
    text = scope.head_lines[sink - 1]
    line = HunkLine(LineKind.CONTEXT, text, None, sink)
    proof = scope.protects(category, text, strength, names) or scope.guarded(
        category, line, names, strength
    )
    shown = next((ln for ln in hunk.lines if ln.new_number == sink), None)
    if shown is not None:
        return shown, category, True, True, proof, None
    where = f"the sink it cleaned for, line {sink} `{clip(text, 80)}`, now runs without it"
    return point, category, True, True, proof, where


def _sanitised_category(
    scope: Scope, line: HunkLine, category: Category | None, known: bool
) -> Category | None:
    """The category of the sink a sanitiser protected, seen from the line that lost it: a
    catalogue sanitiser's own, unless that line is plainly a sink of another category; a
    named helper's from the sink of the statement, else from its name."""
    here = scope.cat.sink_category(scope.language, line.text)
    if known and category is not None:
        if here is None or scope.cat.is_sink(scope.language, category, line.text):
            return category
        return here
    near = scope.sink_near(line.new_number) if line.new_number is not None else None
    return near or category


def _sanitiser(
    scope: Scope, hunk: Hunk, block: Block, removed: HunkLine, entry: Protection
) -> Regression | None:
    # No file-wide count: the same call elsewhere in the file (or kept with its result thrown
    # away) proves nothing for this value; only a protection at its use does.
    match = re.search(entry.protection, removed.text)
    if match is None:
        return None
    category = None if entry.category == DERIVE else Category(entry.category)
    callee = match.group(0).rstrip("(").strip()
    found = _unwrapped(scope, hunk, block, removed, match, category, entry.strength, callee)
    if found is None:
        return None
    target, cat, strong, unchanged, kept, where = found
    title = f"Sanitiser removed: `{_name(match)}(...)` no longer cleans the value used here"
    return make(
        entry.id,
        removed,
        target,
        cat,
        strong,
        title,
        entry.why,
        unchanged=unchanged,
        kept=kept,
        where=where,
    )


def _generic_sanitiser(
    scope: Scope, hunk: Hunk, block: Block, removed: HunkLine
) -> Regression | None:
    match = scope.cat.generic_call(removed.text)
    if match is None:
        return None
    name = match.group(0).rstrip("(")
    hinted = scope.cat.hinted(name)
    found = _unwrapped(scope, hunk, block, removed, match, hinted, 0, name)
    if found is None:
        return None
    target, cat, strong, _, kept, _ = found
    title = f"Sanitiser removed: `{clip(name, 60)}(...)` no longer cleans the value used here"
    why = "The value now reaches the sink without the check or cleaning the helper did."
    return make(GENERIC_ID, removed, target, cat, strong, title, why, kept=kept)


def _secret_default(
    scope: Scope, hunk: Hunk, block: Block, removed: HunkLine, entry: Protection
) -> Regression | None:
    assert entry.unsafe is not None  # noqa: S101 - validated by the catalogue
    read = re.search(entry.protection, removed.text)
    if read is None or re.search(entry.unsafe, removed.text):
        return None
    name = _group(read, "name")
    if not name or not _SECRET_NAME.search(name):
        return None
    for line in block.added:
        fallback = re.search(entry.unsafe, line.text)
        if fallback is None or _group(fallback, "name") != name:
            continue
        default = _group(fallback, "default").strip("'\"`")
        if not default.strip():
            continue
        title = f"Secret gained a hard-coded default: `{name}` falls back to a literal"
        return make(entry.id, removed, line, Category(entry.category), True, title, entry.why)
    return None


def _group(match: re.Match[str], name: str) -> str:
    groups = match.groupdict()
    return groups.get(name) or groups.get(f"{name}2") or ""
