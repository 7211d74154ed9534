"""Decorators and dependencies of a Python handler: the protections it carries (a known or
check-named decorator, a DRF permission or authentication class, a FastAPI auth dependency),
and those the same handler no longer carries in the head."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from code_guard.tools.access.guards import is_check_name, words
from code_guard.tools.access.model import AccessModel
from code_guard.tools.access.scopes import Scope, code, statement
from code_guard.tools.access.sides import Found, Side

_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
_DECORATOR = re.compile(r"^\s*@")


def _decorator_texts(lines: Sequence[str], scope: Scope) -> list[tuple[str, int]]:
    """Each decorator of a Python function (its lines joined), with its first line, and the
    function's signature."""
    out: list[tuple[str, int]] = []
    for number in range(scope.start, scope.header):
        if _DECORATOR.match(lines[number - 1]):
            out.append((lines[number - 1].strip(), number))
        elif out:
            out[-1] = (out[-1][0] + " " + lines[number - 1].strip(), out[-1][1])
    signature, number = lines[scope.header - 1].strip(), scope.header
    while not code(signature).rstrip().endswith(":") and number < scope.end:
        number += 1
        signature += " " + lines[number - 1].strip()
        out.append((lines[number - 1].strip(), number))
    out.append((lines[scope.header - 1].strip(), scope.header))
    return out


def _tokens(lines: Sequence[str], scope: Scope, model: AccessModel) -> list[tuple[str, int]]:
    """The protections a Python function or class carries, each with the line it is on."""
    known = {d.name for d in model.decorators}
    slots = [re.compile(s.pattern) for s in model.slots]
    dependency = re.compile(model.dependency)
    found: list[tuple[str, int]] = []
    texts = _decorator_texts(lines, scope)
    is_class = lines[scope.header - 1].lstrip().startswith("class ")
    if is_class:  # a class's own statements: DRF's permission_classes = [...]
        texts += [
            (statement(list(lines), n), n)
            for n in range(scope.header + 1, scope.end + 1)
            if any(re.search(p, code(lines[n - 1])) for p in (x.pattern for x in model.slots))
        ]
    for text, number in texts:
        bare = code(text)
        found += [
            (f"Depends:{dep}", number)
            for dep in dependency.findall(bare)
            if is_check_name(dep, model) or set(words(dep)) & model.dependency_words
        ]
        slot = next((m for s in slots if (m := s.search(bare)) is not None), None)
        if slot is not None:
            listed = {n.rsplit(".", 1)[-1] for n in _DOTTED.findall(bare[slot.end() :])}
            listed -= {"Depends", "Security", "permission_classes", "authentication_classes"}
            found += [(f"{slot.re.pattern}:{n}", number) for n in sorted(listed)]
            continue
        if not _DECORATOR.match(text):
            continue
        names = [n.rsplit(".", 1)[-1] for n in _DOTTED.findall(bare[1:])]
        if any(n in known or is_check_name(n, model) for n in names):
            found.append((re.sub(r"\s+", "", text), number))
    return found


def lost_decorators(
    base: Side,
    head: Side,
    removed: set[int],
    where: dict[int, tuple[int, bool]],
    model: AccessModel,
) -> Iterator[Found]:
    heads = head.by_key()
    for scope in base.scopes:
        tokens = _tokens(base.lines, scope, model)
        other = heads.get(scope.key)
        if other is None or not any(n in removed for _, n in tokens):
            continue
        left = Counter(t for t, _ in _tokens(head.lines, other, model))
        for token, number in tokens:
            if left[token] > 0:
                left[token] -= 1
                continue
            if number not in removed or number not in where:
                continue
            line, unchanged = where[number]
            what = token.split(":", 1)[-1] if ":" in token and not token.startswith("@") else token
            rule = "decorator-removed" if token.startswith("@") else "permission-dropped"
            title = (
                f"Access protection `{what}` removed from `{scope.key}`: the handler no longer "
                "carries it"
            )
            detail = (
                f"In the base, `{scope.key}` was guarded by `{what}` (base line {number}: "
                f"`{base.lines[number - 1].strip()}`); the same handler in the head does not "
                "carry it, and a look-alike or renamed decorator is not proof of the same check."
            )
            quote = base.lines[number - 1].strip()
            yield Found(rule, line, title, detail, quote, unchanged, removed_at=number)
