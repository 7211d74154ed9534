"""Access checks a change takes away, read from both sides of each hunk of one file.

Four mechanisms, each driven by the access-control model (``model.py``):

- a **deny branch** (``guards.py``) of a function in the base that the same function in the
  head no longer has, or has with a condition the base's does not imply;
- a **decorator or dependency** (``@login_required``, ``permission_classes``,
  ``Depends(get_current_user)``) of a Python handler that the same handler in the head lacks;
- a **middleware or handler wrapper** (``r.Use(auth)``, ``requireAuth(h)``) whose name the
  head file holds fewer times than the base;
- **CSRF** protection removed (``CsrfViewMiddleware``, ``CSRFProtect``, ``csurf``,
  gorilla/csrf, nosurf) or turned off (``@csrf_exempt``, ``WTF_CSRF_ENABLED = False``).

A protection counts as kept only when it is still there, on the same handler (or, for a
middleware, in the same file): a look-alike name is not proof. A finding goes on the first
added line of the block that removed the protection, else on the unchanged line where the
deleted lines were (``unchanged``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from code_guard.diff import FileChange, HunkLine, LineKind
from code_guard.models import Silencing
from code_guard.tools.access.guards import Guard, file_guards, guards_of, implies, is_check_name
from code_guard.tools.access.model import AccessModel, Language
from code_guard.tools.access.scopes import IF, Scope, code, innermost, statement
from code_guard.tools.access.scoping import dropped
from code_guard.tools.access.siblings import unprotected

_IMPORT = re.compile(
    r"^\s*(?:import\b|from\s+[\w.]+\s+import\b|(?:\w+\s+)?\"[\w./-]+\"\s*$|"
    r"(?:const|let|var)\s+[\w{}\s,]+=\s*require\()"
)
_COMMENT = re.compile(r"^\s*(?:#|//|/\*|\*)")
_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
_DECORATOR = re.compile(r"^\s*@")
_STRING = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")
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


@dataclass(frozen=True, slots=True)
class Found:
    """One protection taken away: its rule, the head line it is reported on, and what the
    base had there."""

    rule: str
    line: int
    title: str
    detail: str
    removed: str
    unchanged: bool
    silenced: str = ""  # the ``Silencing`` that held it back, with the proof in ``detail``


@dataclass(frozen=True, slots=True)
class _Side:
    lines: list[str]
    scopes: list[Scope]
    helpers: set[str]

    def by_key(self) -> dict[str, Scope]:
        return {s.key: s for s in self.scopes}


def _is_code(text: str) -> bool:
    return bool(text.strip()) and not _COMMENT.match(text)


def anchors(file: FileChange) -> dict[int, tuple[int, bool]]:
    """For each removed base line: the head line a finding about it goes on, and whether that
    line is unchanged (the block only deleted lines)."""
    found: dict[int, tuple[int, bool]] = {}
    for hunk in file.hunks:
        lines = hunk.lines
        at = 0
        while at < len(lines):
            if lines[at].kind is LineKind.CONTEXT:
                at += 1
                continue
            end = at
            while end < len(lines) and lines[end].kind is not LineKind.CONTEXT:
                end += 1
            where = _block_anchor(lines, at, end)
            if where is not None:
                for line in lines[at:end]:
                    if line.old_number is not None:
                        found[line.old_number] = where
            at = end
    return found


def _block_anchor(lines: Sequence[HunkLine], start: int, end: int) -> tuple[int, bool] | None:
    added = [
        ln.new_number
        for ln in lines[start:end]
        if ln.kind is LineKind.ADDED and ln.new_number is not None and _is_code(ln.text)
    ]
    if added:
        return added[0], False
    after = lines[end].new_number if end < len(lines) else None
    before = lines[start - 1].new_number if start > 0 else None
    point = after if after is not None else before
    return None if point is None else (point, True)


def _removed(file: FileChange) -> set[int]:
    return {
        ln.old_number
        for hunk in file.hunks
        for ln in hunk.lines
        if ln.kind is LineKind.REMOVED and ln.old_number is not None
    }


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def find_access_issues(
    file: FileChange, head_text: str, language: Language, model: AccessModel
) -> list[Found]:
    """The access checks ``file``'s change takes away, one finding per head line at most."""
    head_lines = _lines(head_text)
    base_lines = _lines(file.base_text(head_text))
    removed = _removed(file)
    if not removed and not file.added:
        return []
    base = _Side(base_lines, *file_guards(base_lines, language, model))
    head = _Side(head_lines, *file_guards(head_lines, language, model))
    where = anchors(file)
    found = [
        *_lost_guards(base, head, removed, where, language, model),
        *(_lost_decorators(base, head, removed, where, model) if language == "python" else ()),
        *_lost_middleware(file, base, head, removed, where, model),
        *_csrf(file, base, head, removed, where, model),
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


def _guards(side: _Side, scope: Scope, language: Language, model: AccessModel) -> list[Guard]:
    return [
        g
        for g in guards_of(side.lines, scope, language, model, side.helpers)
        if innermost(side.scopes, g.line) == scope
    ]


def _lost_guards(
    base: _Side,
    head: _Side,
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
            yield _guard_found(guard, scope, line, unchanged, head, guard.line not in removed)


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
    guard: Guard, scope: Scope, line: int, unchanged: bool, head: _Side, if_kept: bool
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
            if is_check_name(dep, model) or set(_words(dep)) & model.dependency_words
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


def _words(name: str) -> list[str]:
    from code_guard.tools.access.guards import words

    return words(name)


def _lost_decorators(
    base: _Side,
    head: _Side,
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
            yield Found(rule, line, title, detail, base.lines[number - 1].strip(), unchanged)


def _file_count(lines: Sequence[str], name: str, raw: bool) -> int:
    pattern = re.compile(name if raw else rf"(?<![\w.]){re.escape(name)}(?!\w)")
    return sum(
        len(pattern.findall(text if raw else code(text)))
        for text in lines
        if _is_code(text) and not _IMPORT.match(text)
    )


def _count(lines: Sequence[str], pattern: re.Pattern[str]) -> int:
    return sum(len(pattern.findall(t)) for t in lines if _is_code(t))


def _lost_middleware(
    file: FileChange,
    base: _Side,
    head: _Side,
    removed: set[int],
    where: dict[int, tuple[int, bool]],
    model: AccessModel,
) -> Iterator[Found]:
    use = re.compile(model.middleware.use)
    named = [(re.compile(m.name), m.name) for m in model.middleware.names]
    for number in sorted(removed):
        text = base.lines[number - 1]
        if number not in where or not _is_code(text) or _IMPORT.match(text) or IF.match(text):
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
            if _file_count(head.lines, name, raw) >= _file_count(base.lines, name, raw):
                continue
            line, unchanged = where[number]
            if raw and (shown := re.search(name, text)) is not None:
                name = shown.group(0)
            title = f"Access middleware `{name}` removed: the handlers it guarded run without it"
            detail = (
                f"Base line {number} put `{name}` in front of handlers (`{text.strip()}`); the "
                "head file applies it fewer times, so a route it guarded is no longer checked."
            )
            yield Found("middleware-removed", line, title, detail, text.strip(), unchanged)
            break


def _wrappers(bare: str, model: AccessModel) -> list[str]:
    """The calls on a route line that wrap its handler and say they check access."""
    route = _ROUTE.search(bare)
    rest = bare[route.end() :] if route else bare
    return [n for n in re.findall(r"([A-Za-z_][\w.]*)\s*\(", rest) if is_check_name(n, model)]


def _csrf(
    file: FileChange,
    base: _Side,
    head: _Side,
    removed: set[int],
    where: dict[int, tuple[int, bool]],
    model: AccessModel,
) -> Iterator[Found]:
    for entry in model.csrf.protect:
        rx = re.compile(entry.pattern)
        hit = next(
            (
                n
                for n in sorted(removed)
                if n in where
                and rx.search(base.lines[n - 1])
                and _is_code(base.lines[n - 1])
                and not _IMPORT.match(base.lines[n - 1])
            ),
            None,
        )
        if hit is None or _file_count(head.lines, entry.pattern, True) >= _file_count(
            base.lines, entry.pattern, True
        ):
            continue
        line, unchanged = where[hit]
        quote = base.lines[hit - 1].strip()
        yield Found(
            "csrf-protection-removed",
            line,
            f"CSRF protection removed: {entry.name} (`{quote}`) is gone",
            f"Base line {hit} turned on {entry.name}; the head file no longer does, so "
            "state-changing requests are accepted without a CSRF token.",
            quote,
            unchanged,
        )
    for entry in model.csrf.disable:
        rx = re.compile(entry.pattern)
        # Imports count: `import csrf_exempt as public` is how an exemption hides its name.
        if _count(head.lines, rx) <= _count(base.lines, rx):
            continue
        added = sorted(file.added.items(), key=lambda a: (bool(_IMPORT.match(a[1])), a[0]))
        for number, text in added:
            if rx.search(text) and _is_code(text):
                yield Found(
                    "csrf-exempted",
                    number,
                    f"CSRF protection turned off: {entry.name} (`{text.strip()}`)",
                    f"The change adds `{text.strip()}`, which turns CSRF checking off; a "
                    "state-changing request from another site is then taken as the user's.",
                    "",
                    False,
                )
                break


def _new_routes(
    file: FileChange, head: _Side, language: Language, model: AccessModel
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
    base: _Side,
    head: _Side,
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
        )
