"""A handler the change adds without the protection every sibling handler has.

Siblings are the other handlers of the same file on the same router: Python functions with a
route decorator (or view classes), and Go/JS route registrations on the same receiver. A
protection is what guards a handler in the model's terms: a known or check-named decorator
or dependency, a permission class, a check-named wrapper or middleware argument. When at
least ``_MIN_SIBLINGS`` unchanged siblings all share a protection the new handler lacks, the
new handler is reported at medium, with the siblings named. A public route (a health check,
by path, answering GET only) is held back and said so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from code_guard.tools.access.guards import is_check_name
from code_guard.tools.access.model import AccessModel, Language
from code_guard.tools.access.scopes import Scope, code

_MIN_SIBLINGS = 2
_PY_ROUTE = re.compile(
    r"^\s*@[\w.]*\.(?:route|get|post|put|patch|delete|api_route|websocket)\s*\(|^\s*@api_view\b"
)
_PY_VIEW = re.compile(r"^\s*class\s+\w+\s*\([^)]*(?:View|ViewSet|Resource|Handler)\b")
_REGISTRATION = re.compile(
    r"^\s*([\w.]+(?:\([^()]*\))?)\s*\.\s*(Handle|HandleFunc|Get|Post|Put|Patch|Delete|GET|POST|"
    r"PUT|PATCH|DELETE|Any|Add|get|post|put|patch|delete|all)\s*\(\s*([\"'`])([^\"'`]*)\3"
)
_PATH = re.compile(r"[\"'`]([^\"'`]*)[\"'`]")
_NAME = re.compile(r"[A-Za-z_][\w.]*")
_WRITE_METHOD = re.compile(r"(?i)\b(?:POST|PUT|PATCH|DELETE)\b")


@dataclass(frozen=True, slots=True)
class Handler:
    """One handler: where it is registered, its path, its protections, and whether the
    change added it."""

    line: int
    name: str
    path: str
    protections: frozenset[str]
    added: bool
    writes: bool  # it answers a method that changes state


@dataclass(frozen=True, slots=True)
class Unprotected:
    """A new handler without the protection its siblings share."""

    handler: Handler
    missing: tuple[str, ...]
    siblings: tuple[Handler, ...]
    public: bool  # a public route by the model's paths: held back, not reported


def _python_handlers(
    lines: Sequence[str], found: Sequence[Scope], added: set[int], model: AccessModel
) -> list[Handler]:
    known = {d.name for d in model.decorators}
    out = []
    for scope in found:
        head = [lines[n - 1] for n in range(scope.start, scope.header + 1)]
        is_route = any(_PY_ROUTE.match(t) for t in head) or bool(_PY_VIEW.match(head[-1]))
        if not is_route:
            continue
        names: set[str] = set()
        body = head
        if _PY_VIEW.match(head[-1]):
            body = head + [lines[n - 1] for n in range(scope.header + 1, scope.end + 1)]
        for text in body:
            bare = code(text)
            if text.lstrip().startswith("@") or re.search(r"_classes\b|Depends|Security", bare):
                for name in _NAME.findall(bare.lstrip().lstrip("@")):
                    last = name.rsplit(".", 1)[-1]
                    if last in known or is_check_name(last, model):
                        names.add(last)
        route = next((t for t in head if _PY_ROUTE.match(t)), head[-1])
        path = (_PATH.findall(route) or [""])[0]
        writes = bool(_WRITE_METHOD.search(" ".join(head))) or bool(_PY_VIEW.match(head[-1]))
        out.append(
            Handler(scope.header, scope.key, path, frozenset(names), scope.header in added, writes)
        )
    return out


def _registrations(
    lines: Sequence[str], added: set[int], model: AccessModel
) -> dict[str, list[Handler]]:
    """Route registrations by receiver (``r``, ``api``, ``router``)."""
    out: dict[str, list[Handler]] = {}
    for number, text in enumerate(lines, 1):
        match = _REGISTRATION.match(text)
        if match is None:
            continue
        receiver = re.sub(r"\(.*", "", match.group(1))
        around = code(match.group(1)) + " " + code(text[match.end() :])
        names = frozenset(
            n for n in _NAME.findall(around) if is_check_name(n, model) and n != receiver
        )
        method = match.group(2)
        route = Handler(
            number,
            f"{method} {match.group(4)}",
            match.group(4),
            names,
            number in added,
            method.upper() not in {"GET"},
        )
        out.setdefault(receiver, []).append(route)
    return out


def unprotected(
    lines: Sequence[str],
    found: Sequence[Scope],
    added: set[int],
    language: Language,
    model: AccessModel,
    public: re.Pattern[str],
) -> Iterator[Unprotected]:
    """The handlers the change added that lack a protection all their siblings share."""
    groups = (
        {"": _python_handlers(lines, found, added, model)}
        if language == "python"
        else _registrations(lines, added, model)
    )
    for handlers in groups.values():
        # A public probe among the siblings is public by design: it says nothing of the rest.
        siblings = tuple(
            h for h in handlers if not h.added and not (public.search(h.path) and not h.writes)
        )
        if len(siblings) < _MIN_SIBLINGS:
            continue
        shared = frozenset.intersection(*(h.protections for h in siblings))
        for handler in (h for h in handlers if h.added):
            missing = tuple(sorted(shared - handler.protections))
            if missing:
                is_public = bool(public.search(handler.path)) and not handler.writes
                yield Unprotected(handler, missing, siblings, is_public)
