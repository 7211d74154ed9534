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
from code_guard.models import Category
from code_guard.regressions.catalogue import (
    DERIVE,
    Catalogue,
    Kind,
    Language,
    Protection,
    catalogue,
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
# A guard's body ends the request or the function when the check fails.
_EXIT = re.compile(
    r"\b(?:return|raise|abort|panic|throw|continue|http\.Error|redirect|Redirect|"
    r"HttpResponse(?:Forbidden|BadRequest|NotFound)|PermissionDenied|SuspiciousOperation)\b"
    r"|\.status\(\s*4\d\d|set_status\(\s*4\d\d|\bStatus(?:Forbidden|BadRequest|NotFound)\b"
)
# ... or it throws the value away: ``next_url = None``.
_NEUTRAL = re.compile(r"^\s*[\w.]+\s*=\s*(?:None|nil|null|undefined|\"\"|''|``)\s*;?\s*$")
_IF = re.compile(r"^\s*(?:\}\s*else\s+)?(?:if|elif|else\s+if)\b")
_IDENT = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*")
_RECEIVER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.\w+\s*\(")
_ASSIGNED = re.compile(r"^\s*(?:(?:let|const|var)\s+)?([A-Za-z_][\w.]*)\s*(?::=|=(?!=))")
_SECRET_NAME = re.compile(
    r"(?i)secret|passw|pwd|token|api_?key|private|credential|salt|signing|auth_?key|_key$|^key$"
)
# Words a guard's condition holds that are not the value it guards.
_STOP_WORDS = (
    "if elif else not in and or is None True False nil true false err return strings "
    "filepath path os str len startswith HasPrefix HasSuffix Contains commonpath "
    "commonprefix realpath abspath Clean Rel Abs Base IsAbs IsLocal startsWith includes "
    "relative resolve parents url urlparse netloc hostname host scheme Host Scheme "
    "Hostname protocol self this"
)
_STOP = frozenset(_STOP_WORDS.split())
_CALLED = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\(")
_HELPER_LINES = 40  # lines of a same-file helper read for the protection it applies
_STATEMENT_LINES = 5  # lines above a target searched for the sink its statement calls
# A guard exits when its check fails: a negated check, an inequality, or a `..` test.
_FAILS = re.compile(r"\bnot\b|!(?!=)|!=|\.\.|\bis\s+None\b|==\s*nil\b")
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
        self._bodies: dict[str, str] = {}
        self.head_lines = head.split("\n")

    def guarded(self, category: Category, target: HunkLine) -> bool:
        """True when the head checks the value just above ``target`` (the protection moved
        into a guard there): an ``if`` of its statement holds a protection of ``category``."""
        if target.new_number is None:
            return False
        start = max(target.new_number - 1 - _STATEMENT_LINES, 0)
        above = self.head_lines[start : target.new_number - 1]
        return any(_IF.match(text) and self._protects_directly(category, text) for text in above)

    def sink_near(self, line: int) -> Category | None:
        """The category of the sink on head ``line`` or in the statement just above it."""
        for number in range(line, max(line - _STATEMENT_LINES, 0), -1):
            text = self.head_lines[number - 1] if number <= len(self.head_lines) else ""
            found = self.cat.sink_category(self.language, text)
            if found is not None:
                return found
        return None

    def lost(self, pattern: str) -> bool:
        """True when ``pattern`` occurs fewer times in the head than in the base."""
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

    def protects(self, category: Category, text: str, depth: int = 0) -> bool:
        """True when ``text`` holds some protection of ``category`` (so it replaced one),
        directly or through a helper the head file defines whose body holds one."""
        if self._protects_directly(category, text):
            return True
        if depth > 0:
            return False
        for name in dict.fromkeys(_CALLED.findall(text)):
            body = self.helper_body(name)
            if body and self.protects(category, body, depth + 1):
                return True
        return False

    def helper_body(self, name: str) -> str:
        """The first lines of the head's definition of function ``name`` ('' if none)."""
        if name not in self._bodies:
            define = re.compile(
                rf"^\s*(?:async\s+)?(?:def|function|func(?:\s*\([^)\n]*+\))?)\s+{re.escape(name)}\s*\("
                rf"|^\s*(?:const|let|var)\s+{re.escape(name)}\s*=",
                re.MULTILINE,
            )
            match = define.search(self.head)
            lines = self.head[match.start() :].split("\n")[:_HELPER_LINES] if match else []
            self._bodies[name] = "\n".join(lines[1:])
        return self._bodies[name]

    def _protects_directly(self, category: Category, text: str) -> bool:
        for entry in self.cat.for_language(self.language):
            if (
                entry.category in (category, DERIVE)
                and entry.kind is not Kind.SECRET_DEFAULT
                and re.search(entry.protection, text)
            ):
                return True
        generic = self.cat.generic_call(text)
        return generic is not None and self.cat.hinted(generic.group(0)) in (category, None)


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
                    found.setdefault((regression.line, regression.category.value), regression)
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
) -> Regression | None:
    if target.new_number is None or removed.old_number is None:
        return None
    where = (
        "this unchanged line now runs without it" if unchanged else "this line is what replaced it"
    )
    detail = (
        f"Base line {removed.old_number} had `{_clip(removed.text)}`; the change took that "
        f"protection away and {where}. {why}"
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
    if not (scope.lost(entry.protection) and scope.gained(entry.unsafe)):
        return None
    paired = _paired(block, removed)
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
    if not scope.lost(entry.protection):
        return None
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
    argument = _name(re.search(entry.protection, removed.text))
    how = "dropped"
    if flipped is not None and entry.unsafe is not None:
        how = f"flipped to `{_name(re.search(entry.unsafe, target.text))}`"
    title = f"Protective argument {how}: `{argument}` no longer set"
    return _make(entry.id, removed, target, Category(entry.category), True, title, entry.why)


def _call_argument(text: str, start: int) -> str:
    """The text between the parenthesis opened just before ``start`` and its match."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:i].strip()
    return text[start:].strip()


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


def _uses(line: str, names: Sequence[str]) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", line) for n in names if n)


def _unwrapped(
    scope: _Scope,
    hunk: Hunk,
    block: _Block,
    removed: HunkLine,
    match: re.Match[str],
    category: Category | None,
    known: bool,
) -> tuple[HunkLine, Category, bool, bool] | None:
    """Where a sanitiser call ``match`` on ``removed`` went missing: the added line that uses
    its argument (or the value it produced) without it, its category, the evidence, and
    whether the line is an unchanged one (the hunk only deleted the sanitiser)."""
    inner = _call_argument(removed.text, match.end())
    if not _IDENT.search(inner) or inner.startswith(("'", '"', "`")):
        return None
    assigned = _ASSIGNED.match(removed.text)
    names = [" ".join(inner.split())]
    first = _first_argument(inner)
    if first and first not in names and _IDENT.fullmatch(first):
        names.append(first)
    if assigned and assigned.group(1) not in names:
        names.append(assigned.group(1))
    paired = _paired(block, removed)
    scored: list[tuple[int, int, HunkLine]] = []
    order = {id(ln): i for i, ln in enumerate(hunk.lines)}
    at = order.get(id(removed), 0)
    # The replacement decides when it still uses the value: protected there, nothing was lost.
    replaced = paired is not None and _uses(" ".join(paired.text.split()), names)
    for line in [paired] if replaced and paired is not None else _added(hunk):
        flat = " ".join(line.text.split())
        distance = abs(order.get(id(line), 0) - at)
        if distance > _REACH or not _uses(flat, names):
            continue
        cat = _sanitised_category(scope, line, category, known)
        if cat is None or scope.protects(cat, line.text):
            continue
        score = (2 if line is paired else 0) + (
            1 if scope.cat.is_sink(scope.language, cat, line.text) else 0
        )
        scored.append((-score, distance, line))
    if not scored:
        if known and not replaced and not _added(hunk):
            return _sink_below(scope, hunk, removed, names, category, known)
        return None
    _, _, target = min(scored, key=lambda s: (s[0], s[1]))
    cat = _sanitised_category(scope, target, category, known)
    if cat is None or scope.guarded(cat, target):
        return None
    sink = scope.cat.is_sink(scope.language, cat, target.text)
    strong = (known and (target is paired or sink)) or (not known and target is paired and sink)
    return target, cat, strong, False


def _sink_below(
    scope: _Scope,
    hunk: Hunk,
    removed: HunkLine,
    names: Sequence[str],
    category: Category | None,
    known: bool,
) -> tuple[HunkLine, Category, bool, bool] | None:
    """For a hunk that only deleted a known sanitiser's line: the first unchanged line below
    it, within reach, that passes the value to a sink (strong evidence, on an unchanged line)."""
    at = hunk.lines.index(removed)
    for line in hunk.lines[at + 1 : at + 1 + _REACH]:
        if line.kind is not LineKind.CONTEXT or _is_comment(line.text):
            continue
        if not _uses(" ".join(line.text.split()), names):
            continue
        cat = _sanitised_category(scope, line, category, known)
        if (
            cat is not None
            and scope.cat.is_sink(scope.language, cat, line.text)
            and not scope.protects(cat, line.text)
            and not scope.guarded(cat, line)
        ):
            return line, cat, True, True
    return None


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
    if not scope.lost(entry.protection):
        return None
    match = re.search(entry.protection, removed.text)
    if match is None:
        return None
    category = None if entry.category == DERIVE else Category(entry.category)
    found = _unwrapped(scope, hunk, block, removed, match, category, known=True)
    if found is None:
        return None
    target, cat, strong, unchanged = found
    title = f"Sanitiser removed: `{_name(match)}(...)` no longer cleans the value used here"
    return _make(entry.id, removed, target, cat, strong, title, entry.why, unchanged=unchanged)


def _generic_sanitiser(
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine
) -> Regression | None:
    match = scope.cat.generic_call(removed.text)
    if match is None:
        return None
    name = match.group(0).rstrip("(")
    if not scope.lost(rf"(?<![\w.]){re.escape(name)}\("):
        return None
    hinted = scope.cat.hinted(name)
    found = _unwrapped(scope, hunk, block, removed, match, hinted, known=False)
    if found is None:
        return None
    target, cat, strong, _ = found
    title = f"Sanitiser removed: `{_clip(name, 60)}(...)` no longer cleans the value used here"
    why = "The value now reaches the sink without the check or cleaning the helper did."
    return _make(GENERIC_ID, removed, target, cat, strong, title, why)


def _guard(
    scope: _Scope, hunk: Hunk, block: _Block, removed: HunkLine, entry: Protection
) -> Regression | None:
    if not _IF.match(removed.text) or not _FAILS.search(removed.text):
        return None
    if not scope.lost(entry.protection):
        return None
    index = block.removed.index(removed)
    body = block.removed[index : index + 8]
    inline = re.split(r":\s*|\{\s*", removed.text.rstrip())[-1]  # `if bad: return`
    exits = _EXIT.search(inline) is not None and inline.strip() != removed.text.strip()
    if not exits and not any(_EXIT.search(ln.text) or _NEUTRAL.match(ln.text) for ln in body[1:]):
        return None
    condition = removed.text
    values = [
        n
        for n in dict.fromkeys(m.group(0) for m in _IDENT.finditer(condition))
        if n not in _STOP
        and n.split(".")[0] not in _STOP
        and not re.search(rf"{re.escape(n)}\s*\(", condition)
    ]
    names = [n for n in values if len(n) > 1]
    added = _added(hunk)
    using = [ln for ln in added if _uses(ln.text, names)]
    category = None if entry.category == DERIVE else Category(entry.category)
    sinks = [
        ln
        for ln in using
        if (category and scope.cat.is_sink(scope.language, category, ln.text))
        or (category is None and scope.cat.sink_category(scope.language, ln.text))
    ]
    target = _nearest(sinks, removed, hunk) or _nearest(using, removed, hunk)
    strong = target is not None
    unchanged = False
    if target is None:
        # The change may only have deleted the check (a pure deletion): the sink it guarded
        # is then an unchanged line below it, which the review can still comment on.
        # The checked value is often a method's receiver there (`path.startswith(...)`), a
        # variable the file assigns, unlike a module's name (`os.path`, `strings`).
        receivers = [
            m.group(1)
            for m in _RECEIVER.finditer(condition)
            if re.search(rf"(?<![\w.]){m.group(1)}\s*(?::=|=(?!=))", scope.base)
        ]
        # A sink there is evidence enough to follow a one-letter name (Go's `p`) too.
        checked = list(dict.fromkeys((*values, *receivers)))
        target = _guarded_sink_below(scope, hunk, block, checked, category)
        strong = unchanged = target is not None
    if target is None and category is not None:
        target = _nearest(added, removed, hunk)
    if target is None:
        return None
    cat = category or scope.cat.sink_category(scope.language, target.text)
    if cat is None or scope.protects(cat, target.text) or scope.guarded(cat, target):
        return None
    title = f"Guard removed: the check `{_clip(condition, 80)}` no longer stops bad input"
    return _make(entry.id, removed, target, cat, strong, title, entry.why, unchanged=unchanged)


def _guarded_sink_below(
    scope: _Scope, hunk: Hunk, block: _Block, names: Sequence[str], category: Category | None
) -> HunkLine | None:
    """The first unchanged line of ``hunk`` below ``block`` that passes one of ``names`` to
    a sink (of ``category``, when the guard's category is known)."""
    last = max(hunk.lines.index(ln) for ln in block.removed)
    for line in hunk.lines[last + 1 :]:
        if line.kind is not LineKind.CONTEXT or _is_comment(line.text):
            continue
        if not _uses(line.text, names):
            continue
        if category is not None and scope.cat.is_sink(scope.language, category, line.text):
            return line
        if category is None and scope.cat.sink_category(scope.language, line.text):
            return line
    return None


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
