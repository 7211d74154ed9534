"""One file of the change as the regression detector reads it: both texts, counts of patterns
on each side, and the head read for proofs that a protection still holds (``proofs.Head``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from code_guard.change.diff import FileChange, HunkLine
from code_guard.findings import Category
from code_guard.knowledge.protections import Catalogue, Language
from code_guard.tools.regressions.hunks import clip, is_comment
from code_guard.tools.regressions.proofs import ASSIGNED, Head, call_argument, discarded, uses

STATEMENT_LINES = 5  # lines above a target searched for the sink its statement calls


class Scope:
    """One file of the change: both texts, counts of patterns on each side (for moved imports
    and guessed lines only), and the head read for proofs."""

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
            return f"line {cleaned} `{clip(self.proof.text(cleaned))}` cleans the value first"
        found = self.proof.guard_over(category, target.new_number, names, strength, every=False)
        if found is not None:
            return f"the guard on line {found} `{clip(self.proof.text(found))}` dominates it"
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
        return f"the guard on line {found} `{clip(self.proof.text(found))}` dominates its sink"

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
        for number in range(line, max(line - STATEMENT_LINES, 0), -1):
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


def sink_in_function(
    scope: Scope, start: int, names: Sequence[str], category: Category | None
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
        if not is_comment(text) and uses(text, names) and is_guarded_sink(scope, category, text):
            return number
    return None


def is_guarded_sink(scope: Scope, category: Category | None, text: str) -> bool:
    if category is not None:
        return scope.cat.is_sink(scope.language, category, text)
    return scope.cat.sink_category(scope.language, text) is not None
