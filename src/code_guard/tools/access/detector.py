"""Access checks a change takes away, read from both sides of each hunk of one file.

The mechanisms, each driven by the access-control model (``model.py``):

- a **deny branch** (``guards.py``) of a function in the base that the same function in the
  head no longer has, or has with a condition the base's does not imply;
- a **decorator or dependency** (``@login_required``, ``permission_classes``,
  ``Depends(get_current_user)``) of a Python handler that the same handler in the head lacks
  (``decorators.py``);
- a **middleware or handler wrapper** (``r.Use(auth)``, ``requireAuth(h)``) whose name the
  head file holds fewer times than the base;
- **CSRF** protection removed (``CsrfViewMiddleware``, ``CSRFProtect``, ``csurf``,
  gorilla/csrf, nosurf) or turned off (``@csrf_exempt``, ``WTF_CSRF_ENABLED = False``)
  (``csrf.py``);
- an **ownership constraint** dropped from a lookup (``scoping.py``);
- a **new handler** without the protection its siblings share (``siblings.py``).

A protection counts as kept only when it is still there, on the same handler (or, for a
middleware, in the same file): a look-alike name is not proof. A finding goes on the first
added line of the block that removed the protection, else on the unchanged line where the
deleted lines were (``unchanged``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from code_guard.change.diff import FileChange
from code_guard.findings import Silencing
from code_guard.tools.access.csrf import csrf_changes
from code_guard.tools.access.decorators import lost_decorators
from code_guard.tools.access.guards import Guard, file_guards, guards_of, implies, is_check_name
from code_guard.tools.access.model import AccessModel, Language
from code_guard.tools.access.scopes import Scope, code, innermost, statement
from code_guard.tools.access.scoping import dropped
from code_guard.tools.access.siblings import unprotected
from code_guard.tools.access.sides import (
    IMPORT,
    Found,
    Side,
    anchors,
    file_count,
    is_code,
    removed_lines,
    split_lines,
)
from code_guard.tools.regressions.proofs import IF

_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
# A call's name: starts only where a name starts, and never gives back, so linear.
_CALL = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*+)\s*+\(")
_DECORATOR = re.compile(r"^\s*@")
_ROUTE = re.compile(
    r"\.(?:Handle|HandleFunc|Get|Post|Put|Patch|Delete|GET|POST|PUT|PATCH|DELETE|Any|Add|"
    r"get|post|put|patch|delete|all)\s*\(|\b(?:path|re_path|url)\s*\(|\badd_url_rule\s*\("
)
# Every rule the detector reports (``knowledge/rules/access-control.yml`` has one record each).
RULES = (
    "deny-branch-removed",
    "deny-branch-weakened",
    "auth-check-removed",
    "decorator-removed",
    "permission-dropped",
    "middleware-removed",
    "csrf-protection-removed",
    "csrf-exempted",
    "csrf-check-removed",
    "route-unprotected",
    "scope-dropped",
)


def find_access_issues(
    file: FileChange, head_text: str, language: Language, model: AccessModel
) -> list[Found]:
    """The access checks ``file``'s change takes away, one finding per head line at most."""
    head_lines = split_lines(head_text)
    base_lines = split_lines(file.base_text(head_text))
    removed = removed_lines(file)
    if not removed and not file.added:
        return []
    base = Side(base_lines, *file_guards(base_lines, language, model))
    head = Side(head_lines, *file_guards(head_lines, language, model))
    where = anchors(file)
    found = [
        *_lost_guards(base, head, removed, where, language, model),
        *(lost_decorators(base, head, removed, where, model) if language == "python" else ()),
        *_lost_middleware(file, base, head, removed, where, model),
        *csrf_changes(file, base, head, removed, where, model),
        *_new_routes(file, head, language, model),
        *_lost_scopes(base, head, removed, where, model),
    ]
    return _one_per_line([f for f in found if not f.silenced]) + [f for f in found if f.silenced]


def _one_per_line(found: list[Found]) -> list[Found]:
    kept: dict[tuple[int, bool], Found] = {}
    for item in found:
        key = (item.line, item.rule.startswith("csrf"))
        if key not in kept or _rank(item) > _rank(kept[key]):
            kept[key] = item
    return sorted(kept.values(), key=lambda f: (f.line, f.rule))


def _rank(found: Found) -> int:
    order = ("auth-check-removed", "middleware-removed", "deny-branch-weakened")
    return order.index(found.rule) if found.rule in order else len(order)


def _guards(side: Side, scope: Scope, language: Language, model: AccessModel) -> list[Guard]:
    return [
        g
        for g in guards_of(side.lines, scope, language, model, side.helpers)
        if innermost(side.scopes, g.line) == scope
    ]


def _lost_guards(
    base: Side,
    head: Side,
    removed: set[int],
    where: dict[int, tuple[int, bool]],
    language: Language,
    model: AccessModel,
) -> Iterator[Found]:
    heads = head.by_key()
    for scope in base.scopes:
        touched = [g for g in _guards(base, scope, language, model) if g.lines & removed]
        other = heads.get(scope.key)
        if not touched or other is None:
            continue  # no check changed here, or the whole function is gone or renamed
        left = _guards(head, other, language, model)
        for guard in touched:
            match = next((h for h in left if implies(guard, h)), None)
            first = guard.line if guard.line in removed else min(guard.lines & removed)
            if first not in where:
                continue
            line, unchanged = where[first]
            if match is not None:
                left.remove(match)
                yield _kept(guard, match, scope, line, unchanged)
                continue
            if not guard.strong and not unchanged:
                continue  # a check known by its name only, rewritten: see _guard_found
            found = _guard_found(guard, scope, line, unchanged, head, guard.line not in removed)
            yield replace(found, removed_at=first)


def _kept(guard: Guard, match: Guard, scope: Scope, line: int, unchanged: bool) -> Found:
    detail = (
        f"`{guard.quote}` changed, but `{scope.key}` still denies through `{match.quote}` "
        f"(head line {match.line}), which refuses every request the base's check refused."
    )
    title = f"Access check kept in `{scope.key}`"
    return Found(
        "deny-branch-removed",
        line,
        title,
        detail,
        guard.quote,
        unchanged,
        Silencing.KEPT_PROTECTION.value,
    )


def _guard_found(
    guard: Guard, scope: Scope, line: int, unchanged: bool, head: Side, if_kept: bool
) -> Found:
    """The finding for ``guard``: weakened when its ``if`` is still there (``if_kept``) or
    was replaced by another, removed otherwise."""
    name = scope.key.rsplit(".", 1)[-1]
    now = head.lines[line - 1].strip() if 0 < line <= len(head.lines) else ""
    weakened = not unchanged and (if_kept or bool(IF.match(now)))
    if weakened:
        rule = "deny-branch-weakened" if guard.strong else "auth-check-removed"
        title = f"Access check weakened in `{name}`: `{guard.quote}` became `{now}`"
    else:
        rule = "deny-branch-removed" if guard.strong else "auth-check-removed"
        title = f"Access check removed from `{name}`: `{guard.quote}` no longer guards it"
    if guard.csrf:
        rule = "csrf-check-removed"
    detail = (
        f"The base checked `{guard.quote}` in `{scope.key}` and denied the request when the "
        "check failed; the head's `" + name + "` has no check that denies in every case the "
        "base's did, so callers it turned away now get through."
    )
    return Found(rule, line, title, detail, guard.quote, unchanged)


def _lost_middleware(
    file: FileChange,
    base: Side,
    head: Side,
    removed: set[int],
    where: dict[int, tuple[int, bool]],
    model: AccessModel,
) -> Iterator[Found]:
    use = re.compile(model.middleware.use)
    named = [(re.compile(m.name), m.name) for m in model.middleware.names]
    for number in sorted(removed):
        text = base.lines[number - 1]
        if number not in where or not is_code(text) or IMPORT.match(text) or IF.match(text):
            continue
        if _DECORATOR.match(text) or any(s.header == number for s in base.scopes):
            continue
        if any(re.search(c.pattern, text) for c in model.csrf.protect):
            continue  # the CSRF check reports it
        bare = code(text)
        # What to count, and whether it is a pattern of the model (else a name).
        names: list[tuple[str, bool]] = [(p, True) for rx, p in named if rx.search(text)]
        if (called := use.search(bare)) is not None:
            # What is put in front (the whole call: a closure spans lines), not the router.
            whole = code(statement(base.lines, number))
            again = use.search(whole)
            args = whole[again.end() :] if again is not None else bare[called.end() :]
            names += [(n, False) for n in _DOTTED.findall(args) if is_check_name(n, model)]
        elif _ROUTE.search(bare):
            names += [(n, False) for n in _wrappers(bare, model)]
        for name, raw in names:
            if file_count(head.lines, name, raw) >= file_count(base.lines, name, raw):
                continue
            line, unchanged = where[number]
            if raw and (shown := re.search(name, text)) is not None:
                name = shown.group(0)
            title = f"Access middleware `{name}` removed: the handlers it guarded run without it"
            detail = (
                f"Base line {number} put `{name}` in front of handlers (`{text.strip()}`); the "
                "head file applies it fewer times, so a route it guarded is no longer checked."
            )
            yield Found(
                "middleware-removed",
                line,
                title,
                detail,
                text.strip(),
                unchanged,
                removed_at=number,
            )
            break


def _wrappers(bare: str, model: AccessModel) -> list[str]:
    """The calls on a route line that wrap its handler and say they check access."""
    route = _ROUTE.search(bare)
    rest = bare[route.end() :] if route else bare
    return [n for n in _CALL.findall(rest) if is_check_name(n, model)]


def _new_routes(
    file: FileChange, head: Side, language: Language, model: AccessModel
) -> Iterator[Found]:
    paths = re.compile(model.public_routes.pattern)
    for found in unprotected(head.lines, head.scopes, set(file.added), language, model, paths):
        handler = found.handler
        names = ", ".join(f"`{s.name}`" for s in found.siblings[:5])
        more = f" and {len(found.siblings) - 5} more" if len(found.siblings) > 5 else ""
        missing = ", ".join(f"`{m}`" for m in found.missing)
        title = f"New handler `{handler.name}` lacks {missing}, which its siblings all have"
        detail = (
            f"Every other handler of this router in the file ({names}{more}) is guarded by "
            f"{missing}; `{handler.name}` is not, so it answers callers they would refuse."
        )
        silenced = ""
        if found.public:
            silenced = Silencing.RULE_DECLINED.value
            public = f"`{handler.path}` is a public route ({model.public_routes.name})"
            detail = f"{public} answering GET only. {detail}"
        yield Found("route-unprotected", handler.line, title, detail, "", False, silenced)


def _lost_scopes(
    base: Side,
    head: Side,
    removed: set[int],
    where: dict[int, tuple[int, bool]],
    model: AccessModel,
) -> Iterator[Found]:
    heads = head.by_key()
    base_span: dict[int, range] = {}
    head_span: dict[int, range | None] = {}
    for number in sorted(removed & set(where)):
        scope = innermost(base.scopes, number)
        if scope is None:
            base_span[number] = range(1, len(base.lines) + 1)
            head_span[number] = range(1, len(head.lines) + 1)
            continue
        base_span[number] = range(scope.start, scope.end + 1)
        other = heads.get(scope.key)
        head_span[number] = None if other is None else range(other.start, other.end + 1)
    lost = dropped(base.lines, head.lines, sorted(base_span), base_span, head_span, model)
    for number, key in lost:
        line, unchanged = where[number]
        quote = base.lines[number - 1].strip()
        scope = innermost(base.scopes, number)
        place = f"`{scope.key}`" if scope else "this file"
        yield Found(
            "scope-dropped",
            line,
            f"Ownership check dropped: the lookup in {place} no longer limits records by `{key}`",
            f"Base line {number} limited a lookup to the caller's own records (`{quote}`); the "
            f"head's {place} no longer constrains it by `{key}`, so a caller can reach another "
            "owner's record by naming it.",
            quote,
            unchanged,
            removed_at=number,
        )
