"""What proves, in the head, that a protection the change touched still holds.

The pull request's author writes the head, so nothing here trusts a name, a count or a line
nearby. A protection holds for a sink only when one of these is shown:

- the sink's line itself applies a catalogue protection of the category, at least as strong
  as the one taken away (``protects``), or passes the value only as a bound query parameter;
- it calls a helper the head defines, on the value, whose every ``return`` gives back either a
  constant or a value that a catalogue protection of the category produced or a guard of the
  helper checked on every path (``helper_protects``);
- a guard (an ``if`` whose check fails, holding a catalogue protection of the category, whose
  body leaves) checks the value in the same function and dominates the sink (``guard_over``).

Anything else (a helper named ``safe_…``, a check somewhere else in the file, a check on
another variable, inverted, or in a branch the sink is not in) proves nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from code_guard.findings import Category
from code_guard.knowledge.protections import DERIVE, Catalogue, Kind, Language, Protection
from code_guard.tools.regressions.structure import Layout, layout

# A guard's body ends the request or the function when the check fails.
EXIT = re.compile(
    r"\b(?:return|raise|abort|panic|throw|continue|http\.Error|redirect|Redirect|"
    r"HttpResponse(?:Forbidden|BadRequest|NotFound)|PermissionDenied|SuspiciousOperation)\b"
    r"|\.status\(\s*4\d\d|set_status\(\s*4\d\d|\bStatus(?:Forbidden|BadRequest|NotFound)\b"
)
# ... or it leaves the caller too (a guard inside a helper called as a statement).
RAISES = re.compile(r"\b(?:raise|abort|panic|throw|PermissionDenied|SuspiciousOperation)\b")
# ... or it throws the value away: ``next_url = None``.
NEUTRAL = re.compile(r"^\s*([\w.]+)\s*=\s*(?:None|nil|null|undefined|\"\"|''|``)\s*;?\s*$")
IF = re.compile(r"^\s*(?:\}\s*else\s+)?(?:if|elif|else\s+if)\b")
# A guard exits when its check fails: a negated check, an inequality, or a `..` test.
_NEGATION = re.compile(r"\bnot\b|!(?!=)")
_UNEQUAL = re.compile(r"!=|\.\.|\bis\s+None\b|==\s*nil\b")
# The operators that decide which way a check goes: a kept guard has the same ones.
_POLARITY = re.compile(r"\bnot\b|!(?!=)|!==?|===?|\bis\b|\.\.")
IDENT = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*")
RECEIVER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.\w+\s*\(")
ASSIGNED = re.compile(r"^\s*(?:(?:let|const|var)\s+)?([A-Za-z_][\w.]*)\s*(?::=|=(?!=))")
_CALLED = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(")
_RETURN = re.compile(r"^\s*return\b(.*)$")
_STATEMENT_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(")
# A returned expression that carries no value of the caller: literals, None, an error.
_CONSTANT = re.compile(
    r"^\s*+(?:(?:None|nil|null|undefined|true|false|True|False|err|[eE]rr[A-Z]\w*+"
    r"|errors\.New\([^)]*+\)|fmt\.Errorf\([^)]*+\)|-?\d++|\"[^\"]*+\"|'[^']*+'|``)\s*+,?\s*+)*+;?\s*$"
)
_SQL_CALL = re.compile(r"\.(?:execute\w*|query|raw|Query\w*|QueryRow\w*|Exec\w*|Prepare\w*)\(")
# Words a guard's condition holds that are not the value it guards.
_STOP_WORDS = (
    "if elif else not in and or is None True False nil true false err return strings "
    "filepath path os str len startswith HasPrefix HasSuffix Contains commonpath "
    "commonprefix realpath abspath Clean Rel Abs Base IsAbs IsLocal startsWith includes "
    "relative resolve parents url urlparse netloc hostname host scheme Host Scheme "
    "Hostname protocol self this"
)
STOP = frozenset(_STOP_WORDS.split())


def uses(line: str, names: Sequence[str]) -> bool:
    """True when ``line`` mentions one of ``names`` as a whole name."""
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", line) for n in names if n)


def call_argument(text: str, start: int) -> str:
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


def _top_level_parts(inner: str) -> Iterator[str]:
    """The parts of an argument list between its top-level commas, stripped, empty ones too
    (commas inside brackets do not split it)."""
    depth, start = 0, 0
    for i, char in enumerate(inner):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            yield inner[start:i].strip()
            start = i + 1
    yield inner[start:].strip()


def split_arguments(inner: str) -> list[str]:
    """An argument list cut at its top-level commas."""
    return [p for p in _top_level_parts(inner) if p]


def first_argument(inner: str) -> str:
    """The first argument of an argument list, as written ("" when it is empty)."""
    return next(_top_level_parts(inner))


def variable(name: str, text: str) -> bool:
    """True when ``text`` assigns ``name`` or takes it as a parameter: a variable, even when
    it is also a module's name (``path``)."""
    word = re.escape(name)
    return (
        re.search(rf"(?<![\w.]){word}\s*(?::=|=(?!=))", text) is not None
        or re.search(rf"(?m)^\s*(?:async\s+)?(?:def|func|function)\b[^\n]*?[(,]\s*{word}\b", text)
        is not None
    )


def guard_names(condition: str, text: str = "") -> list[str]:
    """The values a guard's condition checks: its names that are neither called, nor words
    of the check itself, plus the receivers of the methods it calls (``path`` in
    ``path.startswith(root)``, when ``text``, the file, makes it a variable)."""
    values = [
        n
        for n in dict.fromkeys(m.group(0) for m in IDENT.finditer(condition))
        if n not in STOP
        and n.split(".")[0] not in STOP
        and not re.search(rf"{re.escape(n)}\s*\(", condition)
    ]
    receivers = [
        m.group(1)
        for m in RECEIVER.finditer(condition)
        if m.group(1) not in STOP or variable(m.group(1), text)
    ]
    return list(dict.fromkeys((*values, *receivers)))


def fails(condition: str) -> bool:
    """True when ``condition`` is a failing check: negated an odd number of times (``not
    not ok`` is no negation), or an inequality, a `..` test, a test for None or nil."""
    return len(_NEGATION.findall(condition)) % 2 == 1 or _UNEQUAL.search(condition) is not None


def _code(text: str) -> str:
    """``text`` with the contents of its string literals blanked (a name inside a query's
    text is not the variable)."""
    # An unclosed literal runs to the end: every match then consumes, so a run of quotes and
    # backslashes is read once, not once per quote.
    return re.sub(r"\"(?:[^\"\\]|\\.)*+\"?|'(?:[^'\\]|\\.)*+'?|`[^`]*+`?", '""', text)


def polarity(condition: str) -> list[str]:
    """The operators that decide which way ``condition`` goes, sorted."""
    return sorted(m.group(0) for m in _POLARITY.finditer(condition))


def discarded(text: str) -> bool:
    """True when ``text`` is a bare call statement: whatever it computes is thrown away."""
    stripped = text.strip()
    return (
        re.match(r"(?:await\s+)?[A-Za-z_][\w.]*\s*\(", stripped) is not None
        and stripped.rstrip(";").endswith(")")
        and ASSIGNED.match(text) is None
    )


class Head:
    """The head text of one file, read for proofs that a protection still holds."""

    def __init__(self, head: str, language: Language, cat: Catalogue) -> None:
        self.language = language
        self.cat = cat
        self.lines = head.split("\n")
        self.shape: Layout = layout(head, language)
        self._defs: dict[str, int] = {}
        for number in range(1, len(self.lines) + 1):
            name = self.shape.names.get(number - 1)
            if name:
                self._defs.setdefault(name, number)
        # The lines a proof can stand on, found once: each query then visits only these.
        self._ifs = [n for n, text in enumerate(self.lines, start=1) if IF.match(text)]
        self._calls = [
            n
            for n, text in enumerate(self.lines, start=1)
            if (call := _STATEMENT_CALL.match(text)) and call.group(1) in self._defs
        ]
        self._direct: dict[tuple[str, Category, int, bool], Protection | None] = {}

    def above(self, sink: int, *, calls: bool = False) -> Iterator[int]:
        """The ``if`` lines (or helper call statements) of ``sink``'s function above it,
        nearest first."""
        marks = self._calls if calls else self._ifs
        header = self.shape.function[sink - 1] if 0 < sink <= len(self.lines) else -1
        if header < 0:
            return
        for i in range(bisect_left(marks, sink) - 1, -1, -1):
            if marks[i] <= header + 1:
                return
            if self.shape.function[marks[i] - 1] == header:
                yield marks[i]

    def text(self, number: int) -> str:
        """Head line ``number`` (1-based), or '' past the end."""
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def protects_directly(
        self, category: Category, text: str, strength: int, *, cleans: bool = False
    ) -> Protection | None:
        """The catalogue protection of ``category`` ``text`` applies, at least ``strength``;
        with ``cleans``, only a sanitiser (what a value is assigned from), not a safe API."""
        key = (text, category, strength, cleans)
        if key not in self._direct:
            self._direct[key] = self._find_direct(category, text, strength, cleans)
        return self._direct[key]

    def _find_direct(
        self, category: Category, text: str, strength: int, cleans: bool
    ) -> Protection | None:
        for entry in self.cat.for_language(self.language):
            if cleans and entry.kind is not Kind.SANITISER:
                continue
            if (
                entry.category in (category, DERIVE)
                and entry.kind is not Kind.SECRET_DEFAULT
                and entry.strength >= strength
                and re.search(entry.protection, text)
                and (entry.not_if is None or not re.search(entry.not_if, text))
            ):
                return entry
        return None

    def protects(
        self, category: Category, text: str, strength: int, names: Sequence[str]
    ) -> str | None:
        """Why ``text`` (the line a protected value reaches) still protects it, or None."""
        in_text = category is Category.SQL_INJECTION and self._in_query_text(text, names)
        entry = None if discarded(text) else self.protects_directly(category, text, strength)
        # With the value written into the query's text, placeholders elsewhere bind nothing.
        if entry is not None and not (in_text and entry.kind is Kind.SAFE_TWIN):
            return f"it applies `{entry.id}`, as strong as the protection taken away"
        if category is Category.SQL_INJECTION and self._bound_only(text, names):
            return "it passes the value as a bound query parameter"
        for call in _CALLED.finditer(text):
            argument = call_argument(text, call.end())
            if names and not uses(argument, names):
                continue
            proof = self.helper_protects(call.group(1), category, strength)
            if proof is not None:
                return proof
        return None

    def _in_query_text(self, text: str, names: Sequence[str]) -> bool:
        """True when ``text`` writes one of ``names`` into a query's first argument."""
        call = _SQL_CALL.search(text)
        if call is None:
            return False
        arguments = split_arguments(call_argument(_code(text), call.end()))
        return bool(arguments) and uses(arguments[0], names)

    def _bound_only(self, text: str, names: Sequence[str]) -> bool:
        """True when ``text`` calls a query with ``names`` only after its first argument."""
        text = _code(text)
        call = _SQL_CALL.search(text)
        if call is None or not names:
            return False
        arguments = split_arguments(call_argument(text, call.end()))
        return (
            len(arguments) > 1
            and not uses(arguments[0], names)
            and uses(", ".join(arguments[1:]), names)
            and not uses(text[: call.start()], names)
        )

    def helper_protects(self, name: str, category: Category, strength: int) -> str | None:
        """Why the head's helper ``name`` protects what it returns, or None: every return
        gives a constant or a protected value, and at least one gives a protected value."""
        start = None if "." in name else self._defs.get(name)
        if start is None:
            return None
        proven = 0
        for number in self.shape.body(start):
            returned = _RETURN.match(self.text(number))
            if returned is None:
                continue
            value = returned.group(1)
            if not value.strip() or (_CONSTANT.match(value) and not self._assigns(start, value)):
                continue
            if not self._returns_protected(start, number, value, category, strength):
                return None
            proven += 1
        if proven == 0:
            return None
        return f"the helper `{name}` (line {start}) applies a protection to what it returns"

    def _assigns(self, start: int, value: str) -> bool:
        """True when the body of the function on line ``start`` assigns a name of ``value``
        (an ``errPath := name`` would otherwise pass for an error)."""
        names = set(IDENT.findall(value))
        for line in self.shape.body(start):
            assigned = ASSIGNED.match(self.text(line))
            if assigned and assigned.group(1) in names:
                return True
        return False

    def _returns_protected(
        self, start: int, number: int, value: str, category: Category, strength: int
    ) -> bool:
        if self.protects_directly(category, value, strength) is not None:
            return True
        names = [n for n in guard_names(value, "\n".join(self.lines)) if n]
        if not names:
            return False
        for line in self.shape.body(start):
            if line >= number:
                break
            text = self.text(line)
            assigned = ASSIGNED.match(text)
            if (
                assigned
                and assigned.group(1) in names
                and self.shape.dominates(line, number)
                and self.protects_directly(category, text, strength, cleans=True) is not None
            ):
                return True
        return self.guard_over(category, number, names, strength, every=True) is not None

    def valid_guard(
        self,
        number: int,
        category: Category,
        strength: int,
        names: Sequence[str],
        *,
        every: bool,
        raising: bool = False,
    ) -> bool:
        """True when head line ``number`` is a guard of ``category`` on ``names`` (all of
        them when ``every``, else one): an ``if`` whose check fails, holding a catalogue
        protection at least ``strength`` strong, whose body leaves (raises, with ``raising``)."""
        text = self.text(number)
        if not IF.match(text) or not fails(text):
            return False
        if self.protects_directly(category, text, strength) is None:
            return False
        present = [uses(text, [n]) for n in names]
        if not names or not (all(present) if every else any(present)):
            return False
        return self.leaves(number, names, raising=raising)

    def leaves(self, number: int, names: Sequence[str], *, raising: bool = False) -> bool:
        """True when the ``if`` on head line ``number`` leaves when its check holds: its
        inline statement or its body exits, or its body throws the value away."""
        text = self.text(number)
        exit_rx = RAISES if raising else EXIT
        inline = re.split(r":\s*|\{\s*", text.rstrip())[-1]
        if inline.strip() != text.strip() and exit_rx.search(inline):
            return True
        for line in self.shape.body(number):
            body = self.text(line)
            neutral = NEUTRAL.match(body)
            if exit_rx.search(body) or (not raising and neutral and neutral.group(1) in names):
                return True
        return False

    def guard_over(
        self,
        category: Category,
        sink: int,
        names: Sequence[str],
        strength: int,
        *,
        every: bool,
        same_as: str | None = None,
    ) -> int | None:
        """The head line of a guard on ``names`` that dominates head line ``sink`` in its
        function, or None. With ``same_as`` (a removed guard's line) it must also be the
        same check: the same operators, so an inverted check does not count."""
        for number in self.above(sink):
            if not self.shape.dominates(number, sink):
                continue
            text = self.text(number)
            if same_as is not None and polarity(text) != polarity(same_as):
                continue
            if self.valid_guard(number, category, strength, names, every=every):
                return number
        return self._guarding_call(category, sink, names, strength)

    def _guarding_call(
        self, category: Category, sink: int, names: Sequence[str], strength: int
    ) -> int | None:
        """A statement calling a head helper on ``names`` that raises unless its own guard
        on the matching parameters passes, dominating ``sink``."""
        for number in self.above(sink, calls=True):
            text = self.text(number)
            call = _STATEMENT_CALL.match(text)
            if call is None or not self.shape.dominates(number, sink):
                continue
            start = self._defs.get(call.group(1))
            if start is None or start == self.shape.function[sink - 1] + 1:
                continue
            arguments = split_arguments(call_argument(text, call.end()))
            if self._helper_raises_on(start, arguments, names, category, strength):
                return number
        return None

    def _helper_raises_on(
        self,
        start: int,
        arguments: Sequence[str],
        names: Sequence[str],
        category: Category,
        strength: int,
    ) -> bool:
        header = self.text(start)
        opened = header.find("(")
        if opened < 0:
            return False
        parameters = [
            p.split(":")[0].split("=")[0].split()[0] if p.split() else ""
            for p in split_arguments(call_argument(header, opened + 1))
        ]
        mapping = dict(zip(parameters, arguments, strict=False))
        for line in self.shape.body(start):
            text = self.text(line)
            checked = [mapping.get(n, "") for n in guard_names(text, header) if n in mapping]
            if (
                checked
                and all(uses(" ".join(checked), [n]) for n in names)
                and self.valid_guard(line, category, strength, list(mapping), every=False)
                and self.leaves(line, names, raising=True)
            ):
                return True
        return False
