"""Security regressions: the protections a change takes away.

For each hunk of a modified file, every removed line that holds a protection of the catalogue
(a safe API, a protective argument, a sanitiser, a guard, a secret read without a default) is
paired with the added line that replaced it (difflib, within its block of changed lines). The
protection counts as taken away when the head file holds it fewer times than the base (so a
protection moved elsewhere in the file, or kept, stays quiet) and the replacement holds no
other protection of the same category (so a fix that swaps one protection for a stronger one
stays quiet). The finding goes on the added line: the replacement, else the added line of the
hunk that uses the protected value (a sink first), else, with less confidence, the nearest one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from code_guard.diff import FileChange, Hunk, HunkLine, LineKind
from code_guard.models import Category, Silencing
from code_guard.regressions.catalogue import (
    DERIVE,
    Catalogue,
    Kind,
    Language,
    Protection,
    catalogue,
)
from code_guard.regressions.proofs import (
    ASSIGNED,
    IDENT,
    IF,
    Head,
    call_argument,
    discarded,
    fails,
    guard_names,
    polarity,
    uses,
)

# The rule of a removed call that only its name shows to be a sanitiser.
GENERIC_ID = "any-named-sanitiser"
_SUFFIX_LANGUAGE: dict[str, Language] = {
    ".py": "python",
    ".go": "go",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "javascript",
    ".tsx": "javascript",
    ".vue": "javascript",
}
_SECRET_NAME = re.compile(
    r"(?i)secret|passw|pwd|token|api_?key|private|credential|salt|signing|auth_?key|_key$|^key$"
)
_STATEMENT_LINES = 5  # lines above a target searched for the sink its statement calls
_IMPORT = re.compile(
    r"^\s*(?:import\s+[\w.]+|from\s+[\w.]+\s+import\b|(?:\w+\s+)?\"(?P<go>[\w./-]+)\"\s*$)"
)
# How far (in lines of the hunk) from a removed sanitiser the line that lost it may be.
_REACH = 8
_MAX_PAIR_CELLS = 20_000  # difflib ratios computed for one removed line, at most


@dataclass(frozen=True, slots=True)
class Regression:
    """A protection the change took away, reported on head line ``line``."""

    line: int
    base_line: int
    protection: str  # the catalogue id, or GENERIC_ID
    category: Category
    strong: bool
    title: str
    detail: str
    # True when ``line`` is an unchanged line of the hunk: the change only deleted the
    # protection above it and added nothing to comment on instead.
    unchanged: bool = False
    # The ``Silencing`` value that proved the protection still holds (``detail`` gives the
    # proof); empty for a live regression.
    silenced: str = ""

    @property
    def rule(self) -> str:
        """The rule id: ``<protection id>.<category>``, ``.weak`` when the evidence is thin."""
        return f"{self.protection}.{self.category.value}" + ("" if self.strong else ".weak")


def language_of(path: str) -> Language | None:
    """The catalogue language of ``path`` by its suffix, or None."""
    return _SUFFIX_LANGUAGE.get(PurePosixPath(path).suffix.lower())


@dataclass(frozen=True, slots=True)
class _Block:
    """A run of changed lines inside a hunk: what was removed, what was added in its place."""

    removed: tuple[HunkLine, ...]
    added: tuple[HunkLine, ...]
    before: tuple[HunkLine, ...]  # context lines just above the block


class _Scope:
    """One file of the change: both texts, counts of patterns on each side, the hunks."""

    def __init__(self, file: FileChange, head: str, language: Language, cat: Catalogue) -> None:
        self.file = file
        self.language = language
        self.cat = cat
        self.head = head
        self.base = file.base_text(head)
        self._counts: dict[str, tuple[int, int]] = {}
        self.head_lines = head.split("\n")
        self.proof = Head(head, language, cat)
        self._base_proof: Head | None = None

    @property
    def base_proof(self) -> Head:
        """The base text read as ``proof`` reads the head (built when a guard needs it)."""
        if self._base_proof is None:
            self._base_proof = Head(self.base, self.language, self.cat)
        return self._base_proof

    def guarded(
        self,
        category: Category,
        target: HunkLine,
        names: Sequence[str],
        strength: int,
        callee: str = "",
    ) -> str | None:
        """Why the head still checks the value ``target`` uses (the protection became a guard
        there), or None: a guard of ``category`` on one of ``names`` (or on the variable the
        line assigns, before the next sink that uses it) dominating it in its function."""
        if target.new_number is None:
            return None
        cleaned = self._cleaned_before(category, target.new_number, names, strength)
        if cleaned is not None:
            return f"line {cleaned} `{_clip(self.proof.text(cleaned))}` cleans the value first"
        found = self.proof.guard_over(category, target.new_number, names, strength, every=False)
        if found is not None:
            return f"the guard on line {found} `{_clip(self.proof.text(found))}` dominates it"
        assigned = ASSIGNED.match(target.text)
        if assigned is None:
            return None
        sink = self._next_sink(target.new_number, assigned.group(1), category)
        if sink is None:
            return None
        value, text = [assigned.group(1)], self.head_lines[sink - 1]
        if self.same_call(callee, text, value):
            return f"its sink on line {sink} still applies `{callee}` to it"
        kept = self.proof.protects(category, text, strength, value)
        if kept is not None:
            return f"its sink on line {sink}: {kept}"
        found = self.proof.guard_over(category, sink, [assigned.group(1)], strength, every=True)
        if found is None:
            return None
        return f"the guard on line {found} `{_clip(self.proof.text(found))}` dominates its sink"

    def _cleaned_before(
        self, category: Category, line: int, names: Sequence[str], strength: int
    ) -> int | None:
        """The head line that last assigns one of ``names`` before ``line`` in its function,
        when it assigns it from a protection of ``category`` and runs on every path to it."""
        shape = self.proof.shape
        function = shape.function_name(line)
        for number in range(line - 1, 0, -1):
            if function is None or shape.function_name(number) != function:
                return None
            text = self.head_lines[number - 1]
            assigned = ASSIGNED.match(text)
            if assigned is None or assigned.group(1) not in names:
                continue
            # The last assignment decides: a clean one overwritten later proves nothing.
            protected = (
                self.proof.protects_directly(category, text, strength, cleans=True) is not None
            )
            return number if protected and shape.dominates(number, line) else None
        return None

    def same_call(self, callee: str, text: str, names: Sequence[str]) -> bool:
        """True when ``text`` still applies the removed call ``callee`` to one of ``names``:
        the protection that was there, whatever it is, was not taken away."""
        if not callee or discarded(text):
            return False  # a call whose result is thrown away cleans nothing
        for call in re.finditer(rf"(?<![\w.]){re.escape(callee)}\s*\(", text):
            if uses(call_argument(text, call.end()), names):
                return True
        return False

    def _next_sink(self, line: int, name: str, category: Category) -> int | None:
        """The first head line after ``line``, in its function, passing ``name`` to a sink."""
        shape = self.proof.shape
        function = shape.function_name(line)
        for number in range(line + 1, len(self.head_lines) + 1):
            if function is None or shape.function_name(number) != function:
                return None
            text = self.head_lines[number - 1]
            if uses(text, [name]) and self.cat.is_sink(self.language, category, text):
                return number
        return None

    def sink_near(self, line: int) -> Category | None:
        """The category of the sink on head ``line`` or in the statement just above it."""
        for number in range(line, max(line - _STATEMENT_LINES, 0), -1):
            text = self.head_lines[number - 1] if number <= len(self.head_lines) else ""
            found = self.cat.sink_category(self.language, text)
            if found is not None:
                return found
        return None

    def lost(self, pattern: str) -> bool:
        """True when ``pattern`` occurs fewer times in the head than in the base (a safe
        twin or an argument; a guard or a sanitiser must prove itself kept at its sink)."""
        if pattern not in self._counts:
            rx = re.compile(pattern)
            self._counts[pattern] = (len(rx.findall(self.base)), len(rx.findall(self.head)))
        base, head = self._counts[pattern]
        return head < base

    def gained(self, pattern: str) -> bool:
        """True when ``pattern`` occurs more times in the head than in the base."""
        self.lost(pattern)
        base, head = self._counts[pattern]
        return head > base

    def protects(
        self, category: Category, text: str, strength: int = 1, names: Sequence[str] = ()
    ) -> str | None:
        """Why ``text`` still protects the value ``names`` (see ``proofs.Head.protects``)."""
        return self.proof.protects(category, text, strength, names)


def find_regressions(file: FileChange, head: str) -> list[Regression]:
    """The protections ``file``'s change took away, given its head text ``head``."""
    language = language_of(file.path)
    if language is None or not file.has_base:
        return []
    if not any(ln.kind is LineKind.REMOVED for hunk in file.hunks for ln in hunk.lines):
        return []  # nothing taken away: no need to rebuild the base
    scope = _Scope(file, head, language, catalogue())
    found: dict[tuple[int, str], Regression] = {}
    for hunk in file.hunks:
        for block in _blocks(hunk):
            for removed in block.removed:
                for regression in _check_line(scope, hunk, block, removed):
                    key = (regression.line, regression.category.value)
                    if key not in found or (found[key].silenced and not regression.silenced):
                        found[key] = regression  # a live regression outranks a proof
    return sorted(found.values(), key=lambda r: r.line)


def _blocks(hunk: Hunk) -> Iterator[_Block]:
    removed: list[HunkLine] = []
    added: list[HunkLine] = []
    context: list[HunkLine] = []
    before: tuple[HunkLine, ...] = ()
    for line in (*hunk.lines, None):
        if line is not None and line.kind is not LineKind.CONTEXT:
            if not removed and not added:
                before = tuple(context[-5:])
            (removed if line.kind is LineKind.REMOVED else added).append(line)
            continue
        if removed:
            yield _Block(tuple(removed), tuple(added), before)
        removed, added = [], []
        if line is not None:
            context.append(line)


def _check_line(
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine
) -> Iterator[Regression]:
    text = removed.text
    if not text.strip() or _is_comment(text):
        return
    checks: dict[Kind, Callable[..., Regression | None]] = {
        Kind.SAFE_TWIN: _safe_twin,
        Kind.PROTECTIVE_ARGUMENT: _protective_argument,
        Kind.SANITISER: _sanitiser,
        Kind.GUARD: _guard,
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


def _is_comment(text: str) -> bool:
    return text.lstrip().startswith(("#", "//", "/*", "*"))


def _added(hunk: Hunk) -> list[HunkLine]:
    return [ln for ln in hunk.lines if ln.kind is LineKind.ADDED and not _is_comment(ln.text)]


def _paired(block: _Block, removed: HunkLine) -> HunkLine | None:
    """The added line of the block most like ``removed`` (its replacement), if any is close."""
    candidates = [ln for ln in block.added if ln.text.strip() and not _is_comment(ln.text)]
    if not candidates or len(candidates) * max(len(removed.text), 1) > _MAX_PAIR_CELLS * 10:
        return None
    old = removed.text.strip()
    best, score = None, 0.45
    for line in candidates:
        ratio = difflib.SequenceMatcher(None, old, line.text.strip(), autojunk=False).ratio()
        if ratio > score:
            best, score = line, ratio
    return best


def _nearest(lines: Sequence[HunkLine], removed: HunkLine, hunk: Hunk) -> HunkLine | None:
    if not lines:
        return None
    order = {id(ln): i for i, ln in enumerate(hunk.lines)}
    at = order.get(id(removed), 0)
    return min(lines, key=lambda ln: (abs(order.get(id(ln), 0) - at), order.get(id(ln), 0)))


def _make(
    entry_id: str,
    removed: HunkLine,
    target: HunkLine,
    category: Category,
    strong: bool,
    title: str,
    why: str,
    *,
    unchanged: bool = False,
    kept: str | None = None,
    where: str | None = None,
) -> Regression | None:
    """The regression of ``removed`` reported on ``target``; with ``kept`` (the proof that
    the protection still holds) a silenced one, which never becomes a finding."""
    if target.new_number is None or removed.old_number is None:
        return None
    if where is None:
        where = (
            "this unchanged line now runs without it"
            if unchanged
            else "this line is what replaced it"
        )
    detail = (
        f"Base line {removed.old_number} had `{_clip(removed.text)}`; the change took that "
        f"protection away and {where}. {why}"
    )
    if kept is not None:
        detail = (
            f"Base line {removed.old_number} had `{_clip(removed.text)}`; the protection still "
            f"holds for line {target.new_number}: {kept}."
        )
    return Regression(
        line=target.new_number,
        base_line=removed.old_number,
        protection=entry_id,
        category=category,
        strong=strong,
        title=title,
        detail=detail,
        unchanged=unchanged,
        silenced=Silencing.KEPT_PROTECTION.value if kept is not None else "",
    )


def _clip(text: str, size: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 3] + "..."


def _category(scope: _Scope, entry: Protection, target: HunkLine) -> Category | None:
    if entry.category != DERIVE:
        return Category(entry.category)
    return scope.cat.sink_category(scope.language, target.text)


def _safe_twin(
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine, entry: Protection
) -> Regression | None:
    assert entry.unsafe is not None  # noqa: S101 - validated by the catalogue
    if re.search(entry.unsafe, removed.text):
        return None
    paired = _paired(block, removed)
    # A swap on the same value is its own proof; otherwise the file must hold the safe API
    # less often and the unsafe one more often (an import list re-sorted moves both).
    direct = _swapped_on_same_value(paired, removed, entry)
    if not direct and not (scope.lost(entry.protection) and scope.gained(entry.unsafe)):
        return None
    # The twin may sit a few lines off (an import list re-sorted): the block first, then the hunk.
    rest = [ln for ln in block.added if ln is not paired]
    ordered = ([paired] if paired else []) + rest
    ordered += [ln for ln in _added(hunk) if ln not in ordered]
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
    return _make(entry.id, removed, target, category, True, title, entry.why)


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
    before = _first_argument(call_argument(removed.text, safe.end()))
    after = _first_argument(call_argument(paired.text, unsafe.end()))
    return bool(before) and before == after


def _user_of_import(scope: _Scope, target: HunkLine) -> HunkLine:
    """For an import line, the first added line that uses what it imports (the call a reader
    sees), else the import itself."""
    found = _IMPORT.match(target.text)
    if found is None:
        return target
    module = found.group("go") or target.text.split()[1]
    alias = re.split(r"[/.]", module)[-1]
    uses = re.compile(rf"(?<![\w.]){re.escape(alias)}\.\w")
    for hunk in scope.file.hunks:
        for line in _added(hunk):
            if line is not target and uses.search(line.text) and not _IMPORT.match(line.text):
                return line
    return target


def _name(match: re.Match[str] | None) -> str:
    return "" if match is None else _clip(match.group(0).rstrip("(").strip(), 60)


def _protective_argument(
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine, entry: Protection
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
    paired = _paired(block, removed)
    target = flipped
    if target is None and any(re.search(entry.call, ln.text) for ln in head_side):
        calls = [ln for ln in block.added if re.search(entry.call, ln.text)]
        target = paired or (calls[0] if calls else _nearest(block.added, removed, hunk))
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
    return _make(entry.id, removed, target, Category(entry.category), True, title, entry.why)


def _first_argument(inner: str) -> str:
    """The first argument of an argument list (commas inside brackets do not split it)."""
    depth = 0
    for i, char in enumerate(inner):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            return inner[:i].strip()
    return inner.strip()


# Where a sanitiser went missing: the line to report, its category, the evidence, whether it
# is an unchanged line, the proof that the value is still protected (None: nothing proves it),
# and the wording of where (None: the usual one).
_Found = tuple[HunkLine, Category, bool, bool, str | None, str | None]


def _unwrapped(
    scope: _Scope,
    hunk: Hunk,
    block: _Block,
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
    first = _first_argument(inner)
    if first and first not in names and IDENT.fullmatch(first):
        names.append(first)
    if assigned and assigned.group(1) not in names:
        names.append(assigned.group(1))
    paired = _paired(block, removed)
    scored: list[tuple[int, int, HunkLine]] = []
    proven: list[_Found] = []
    order = {id(ln): i for i, ln in enumerate(hunk.lines)}
    at = order.get(id(removed), 0)
    # The replacement decides when it still uses the value: protected there, nothing was lost.
    replaced = paired is not None and uses(" ".join(paired.text.split()), names)
    for line in [paired] if replaced and paired is not None else _added(hunk):
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
        if known and not replaced and not _added(hunk):
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
    scope: _Scope,
    hunk: Hunk,
    block: _Block,
    names: Sequence[str],
    category: Category | None,
    strength: int,
) -> _Found | None:
    """For a hunk that only deleted a known sanitiser's line: the first line below it, in its
    function, that passes the value to a sink (strong evidence). Reported there when the hunk
    shows that line, else on the deletion point, naming the sink."""
    point = _deletion_point(hunk, block)
    if category is None or point is None or point.new_number is None:
        return None
    sink = _sink_in_function(scope, point.new_number, names, category)
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
    where = f"the sink it cleaned for, line {sink} `{_clip(text, 80)}`, now runs without it"
    return point, category, True, True, proof, where


def _sanitised_category(
    scope: _Scope, line: HunkLine, category: Category | None, known: bool
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
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine, entry: Protection
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
    return _make(
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
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine
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
    title = f"Sanitiser removed: `{_clip(name, 60)}(...)` no longer cleans the value used here"
    why = "The value now reaches the sink without the check or cleaning the helper did."
    return _make(GENERIC_ID, removed, target, cat, strong, title, why, kept=kept)


def _guard(
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine, entry: Protection
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
    title = f"Guard removed: the check `{_clip(condition, 80)}` no longer stops bad input"
    return _make(
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
    scope: _Scope,
    hunk: Hunk,
    block: _Block,
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
    added = _added(hunk)
    using = [ln for ln in added if uses(ln.text, names)]
    sinks = [ln for ln in using if _is_guarded_sink(scope, category, ln.text)]
    point = _deletion_point(hunk, block)
    below = None
    if point is not None and point.new_number is not None:
        below = _sink_in_function(scope, point.new_number, checked, category)
    target = _nearest(sinks, removed, hunk)
    evidence = not entry.ambiguous or _base_sink(scope, removed, checked, category)
    if target is None and evidence:
        # An added line that uses the names but is no sink: evidence only when the guard did
        # stand before a sink of its category in the base (a prefix check of a URL did not).
        target = _nearest(using, removed, hunk)
    if target is not None:
        # Proved against the sink the guard stood before, when the added line is not one.
        return target, None if target in sinks else below, None
    if point is not None and below is not None:
        shown = next((ln for ln in hunk.lines if ln.new_number == below), None)
        if shown is not None:
            return shown, below, "this unchanged line now runs without it"
        text = _clip(scope.head_lines[below - 1], 80)
        return point, below, f"the sink it guarded, line {below} `{text}`, now runs without it"
    if category is not None and evidence and _base_sink(scope, removed, checked, category):
        # No line uses the guarded names any more: a sink of the guard's category that the
        # change added is the likeliest place the unchecked value now reaches.
        added_sinks = [ln for ln in added if _is_guarded_sink(scope, category, ln.text)]
        return _nearest(added_sinks, removed, hunk) or _nearest(added, removed, hunk), None, None
    return None, None, None


def _base_sink(
    scope: _Scope, removed: HunkLine, names: Sequence[str], category: Category | None
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
        if uses(text, names) and _is_guarded_sink(scope, category, text):
            return True
    return False


def _is_guarded_sink(scope: _Scope, category: Category | None, text: str) -> bool:
    if category is not None:
        return scope.cat.is_sink(scope.language, category, text)
    return scope.cat.sink_category(scope.language, text) is not None


def _deletion_point(hunk: Hunk, block: _Block) -> HunkLine | None:
    """The first head line of the hunk after the deleted block (else the last one before)."""
    last = max(hunk.lines.index(ln) for ln in block.removed)
    after = [ln for ln in hunk.lines[last + 1 :] if ln.new_number is not None]
    before = [ln for ln in hunk.lines[:last] if ln.new_number is not None]
    return after[0] if after else (before[-1] if before else None)


def _sink_in_function(
    scope: _Scope, start: int, names: Sequence[str], category: Category | None
) -> int | None:
    """The first head line from ``start`` to the end of its function that passes one of
    ``names`` to a sink (of ``category`` when known)."""
    shape = scope.proof.shape
    function = shape.function_name(start)
    if function is None or not names:
        return None
    for number in range(start, len(scope.head_lines) + 1):
        if shape.function_name(number) != function:
            return None
        text = scope.head_lines[number - 1]
        if not _is_comment(text) and uses(text, names) and _is_guarded_sink(scope, category, text):
            return number
    return None


def _guard_kept(
    scope: _Scope,
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
            return f"the same check on line {number} `{_clip(text, 80)}` still dominates it"
    found = proof.guard_over(category, sink, checked, entry.strength, every=True)
    if found is not None:
        return f"the check on line {found} `{_clip(proof.text(found), 80)}` dominates it"
    return proof.protects(category, proof.text(sink), entry.strength, checked)


def _secret_default(
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine, entry: Protection
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
        return _make(entry.id, removed, line, Category(entry.category), True, title, entry.why)
    return None


def _group(match: re.Match[str], name: str) -> str:
    groups = match.groupdict()
    return groups.get(name) or groups.get(f"{name}2") or ""
