"""Ownership scopes of lookups: the constraint that limits a query to the caller's own records
(``owner=request.user``, ``ProjectID: projectID``, ``AND tenant_id = $2``). A change that drops
one lets a caller name another owner's record (an insecure direct object reference).

A constraint is a key of a call argument, struct field, keyword or SQL comparison whose name
says it holds an owner (the model's ``scope_words``: ``owner``, ``tenant``, ``project_id``...),
set from a variable or a placeholder rather than a literal. It is reported when the same
function (or, outside functions, the same file) holds it fewer times in the head and the owner
value it compared with is used fewer times too (a value still passed on, to a helper that
builds the query, is no evidence the constraint was dropped).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from code_guard.tools.access.guards import words
from code_guard.tools.access.model import AccessModel
from code_guard.tools.access.scopes import code

# ``key: value`` / ``key=value`` / ``key == value`` inside a call, literal or condition; the
# value must start like a name or a placeholder, not a literal.
_PAIR = re.compile(
    r"(?:^|[(,{\[\s.])[\"'`]?([A-Za-z_]\w*)[\"'`]?\s*(?:==|=(?!=)|:(?!=))\s*(?=[A-Za-z_$?@%:])"
)
_ASSIGNMENT = re.compile(r"^\s*(?:var\s+|let\s+|const\s+)?[\w.]+\s*(?::=|=(?!=))")
_LITERAL = re.compile(r"^(?:true|false|True|False|None|nil|null|undefined)\b")
_NAME = re.compile(r"[A-Za-z_][\w.]*")
_HEADER = re.compile(r"^\s*(?:(?:async\s+)?def|func|(?:export\s+)?(?:async\s+)?function)\b")
# A declared type, not a value: ``owner: string``, ``user: User``, ``owner_id: int``.
_TYPE = re.compile(
    r"^(?:[A-Z]\w*|string|number|boolean|bigint|int\d*|uint\d*|str|bytes|float\d*|bool|"
    r"uuid\.UUID|Optional\[|list\[|dict\[)\s*(?:[,;)\]}|=]|$)"
)
_ID_WORDS = frozenset({"id", "ids", "pk", "uuid", "uid"})


def constraints(text: str, model: AccessModel) -> list[str]:
    """The ownership keys ``text`` constrains a lookup by, in order."""
    if _HEADER.match(text) or text.lstrip().startswith(("#", "//", "/*", "*")):
        return []  # a parameter list declares, it does not look anything up
    assigned = _ASSIGNMENT.match(text)
    body = text[assigned.end() :] if assigned else text
    found = []
    for match in _PAIR.finditer(body):
        key = match.group(1)
        rest = body[match.end() :]
        if _LITERAL.match(rest) or _TYPE.match(rest):
            continue
        parts = words(key)
        if not parts or not set(parts) & model.scope_words:
            continue
        if len(parts) == 1 or parts[-1] in _ID_WORDS:
            # `team`, `team_id` and `TeamID` name the same owner.
            found.append("".join(p for p in parts if p not in _ID_WORDS) or parts[-1])
    return found


def dropped(
    base: Sequence[str],
    head: Sequence[str],
    removed: Sequence[int],
    base_span: dict[int, range],
    head_span: dict[int, range | None],
    model: AccessModel,
) -> Iterator[tuple[int, str]]:
    """``(base line, key)`` for each ownership constraint a removed line held that its
    function (``base_span`` → ``head_span``: the same function's lines on each side, None
    when it is gone) holds fewer times in the head."""
    for number in removed:
        keys = constraints(base[number - 1], model)
        if not keys:
            continue
        span = base_span[number]
        other = head_span.get(number)
        if other is None:
            continue
        old = Counter(k for n in span for k in constraints(base[n - 1], model))
        new = Counter(k for n in other for k in constraints(head[n - 1], model))
        for key in dict.fromkeys(keys):
            if new[key] >= old[key]:
                continue
            values = _values(base[number - 1], key, model)
            if values and all(
                _uses(head, other, v) >= _uses(base, span, v) for v in values
            ):
                continue  # the owner value still reaches a call here: not shown to be dropped
            yield number, key
            break


def _values(text: str, key: str, model: AccessModel) -> set[str]:
    """The names the constraint on ``key`` compares with: the name after it, or, for a
    placeholder (``owner=?``), the arguments of the line that name an owner."""
    for match in _PAIR.finditer(text):
        own = [p for p in words(match.group(1)) if p not in _ID_WORDS]
        if "".join(own) != key:
            continue
        after = re.match(r"[A-Za-z_][\w.]*", text[match.end() :])
        if after is not None:
            return {after.group(0)}
    bare = code(text)
    return {n for n in _NAME.findall(bare) if set(words(n)) & model.scope_words}


def _uses(lines: Sequence[str], span: range, name: str) -> int:
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    return sum(len(pattern.findall(code(lines[n - 1]))) for n in span)
