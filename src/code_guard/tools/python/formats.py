"""What a format check proves about a value, for the taint check's guards: the categories a
value that passed ``x.isdigit()``, ``isinstance(x, int)`` or a regular expression matched in
full is safe for.

A regular expression proves what the characters it can match leave out: a value of word
characters only cannot close an SQL string, start a shell command or climb a folder. The
characters are read from the parsed pattern (``re._parser``, the module ``re`` compiles
with); a pattern with a character class that is negated, any character (``.``) or too wide a
range proves nothing. ``re.match`` with ``$`` also lets one newline end the value: it
carries none of the characters the pattern leaves out, and starts nothing of its own. No
pattern proves a host safe to fetch (``localhost`` is a word); digits alone count as
``int(x)`` does.
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from code_guard.tools.python.sanitisers import CATEGORIES

_WORD, _DIGIT = "\\w", "\\d"  # markers: any word character, any digit
_SPACE = frozenset(" \t\n\r\f\v")
# The punctuation each category tolerates beside word characters (letters, digits, "_").
_SAFE_PUNCTUATION = {
    "sql_injection": frozenset(".@:"),
    "command_injection": frozenset("._-:/@,+=%"),
    "path_traversal": frozenset("._- "),
    "xss": frozenset("._-:/@,+=% "),
    "open_redirect": frozenset("._-"),
}
_NUMBER_PUNCTUATION = frozenset(".-+")
# ``str`` methods true only for digits, and for letters and digits
DIGIT_TESTS = frozenset({"isdigit", "isdecimal", "isnumeric"})
WORD_TESTS = frozenset({"isalnum", "isalpha", "isidentifier"})
NUMBER_TYPES = frozenset({"int", "float", "bool", "complex", "decimal.Decimal", "uuid.UUID"})


def digit_test() -> frozenset[str]:
    """What a digits-only value is safe for: everything ``int(x)`` is (sanitisers.py)."""
    return CATEGORIES


def word_test() -> frozenset[str]:
    """What a value of letters and digits is safe for: not a host, not code to evaluate."""
    return CATEGORIES - {"ssrf", "code_injection"}


def pattern_proves(pattern: str) -> frozenset[str]:
    """The categories a value matched in full by ``pattern`` is safe for."""
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return frozenset()
    chars: set[str] = set()
    if not _collect(parsed, chars):
        return frozenset()
    return frozenset(c for c in CATEGORIES if _safe_for(c, chars, pattern))


def _safe_for(category: str, chars: set[str], pattern: str) -> bool:
    others = {c for c in chars if c not in (_WORD, _DIGIT) and not c.isalnum() and c != "_"}
    if category == "code_injection":
        return _WORD not in chars and not any(c.isalpha() for c in chars) and (
            others <= _NUMBER_PUNCTUATION
        )  # fmt: skip
    if category == "ssrf":
        return others <= _NUMBER_PUNCTUATION and chars <= {_DIGIT, *"0123456789", *others}
    if not others <= _SAFE_PUNCTUATION[category]:
        return False
    if category == "path_traversal":  # "." and ".." are folders, not names
        return not any(re.fullmatch(pattern, name) for name in (".", ".."))
    return True


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
_IGNORED = ("AT", "ASSERT", "ASSERT_NOT", "GROUPREF")


def _collect(items: Any, chars: set[str]) -> bool:
    """Add the characters ``items`` (a parsed pattern) can match to ``chars``; False when
    they are not a small known set."""
    for op, value in items:
        name = str(op)
        if name == "LITERAL":
            chars.add(chr(value))
        elif name == "IN":
            if not _collect_class(value, chars):
                return False
        elif name in _REPEATS:
            if not _collect(value[2], chars):
                return False
        elif name == "SUBPATTERN":
            if not _collect(value[3], chars):
                return False
        elif name == "ATOMIC_GROUP":
            if not _collect(value, chars):
                return False
        elif name == "BRANCH":
            if not all(_collect(branch, chars) for branch in value[1]):
                return False
        elif name not in _IGNORED:
            return False  # any character, a negated literal, a conditional group...
    return True


def _collect_class(items: Any, chars: set[str]) -> bool:
    for op, value in items:
        name = str(op)
        if name == "LITERAL":
            chars.add(chr(value))
        elif name == "RANGE" and value[1] - value[0] <= 128:
            chars.update(chr(code) for code in range(value[0], value[1] + 1))
        elif name == "CATEGORY" and value == sre.CATEGORY_DIGIT:
            chars.add(_DIGIT)
        elif name == "CATEGORY" and value == sre.CATEGORY_WORD:
            chars.add(_WORD)
        elif name == "CATEGORY" and value == sre.CATEGORY_SPACE:
            chars.update(_SPACE)
        else:
            return False  # a negated class, a wide range, the complement of a category
    return True
