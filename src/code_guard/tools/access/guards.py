"""Access checks of one function: the ``if`` branches that deny a request when a check fails,
what each checks, and whether one check proves at least what another did.

A branch is a guard when its body leaves (returns, raises, aborts) and either denies in the
model's words (401/403, ``PermissionDenied``, "permission denied"), calls a helper of the same
file that does, or checks a name made of the model's check words (``CanI``, ``isAdmin``,
``checkPermission``). Nothing here trusts a name to prove a check is *kept*: a kept check is
the same check, or one the base check implies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from code_guard.knowledge.protections import DERIVE, Kind, catalogue
from code_guard.tools.access.model import AccessModel, Language
from code_guard.tools.access.scopes import Branch, Scope, branch_at, code, innermost, scopes

_CALL = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*+)\s*+\(")
_NAME = re.compile(r"[A-Za-z_][\w.]*")
# Possessive runs, so a line of spaces or names with no operator fails in one pass (the lazy
# target and the spaces around it could split a run of blanks every way: quadratic).
_ASSIGN = re.compile(r"^\s*+(?:(?:var|let|const)\s++)?([\w\s,.*]++)(?::=|=(?!=))\s*+(.+)$")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_DEFS_REACH = 8  # lines above a branch searched for the assignment of a name it checks
_COLLECTION = re.compile(
    r"^\s*(?:map\[[^\]]*\][\w.*]*\s*\{|\[\]?[\w.*]*\s*\{|[\[{]|(?:frozen)?set\(|new\s+Set\()"
)
_ANSWER = re.compile(r"^return\s+(?:false|False|true|True)\s*;?$")
_FALSE = frozenset({"false", "False", "0", "nil", "None"})


@dataclass(frozen=True, slots=True)
class Guard:
    """One deny branch: where it is, what it checks (its condition and the assignments of the
    names in it), and how it was recognised."""

    line: int
    end: int
    lines: frozenset[int]  # the branch's lines and those of the assignments it checks
    condition: str
    defs: frozenset[str]
    strong: bool  # it denies in the model's words, or through a helper that does
    # What its body does to refuse: the exits and denies it names (``return``, ``c.Abort(``,
    # ``codes.PermissionDenied``); a kept check does at least all of them.
    effects: frozenset[str]
    quote: str
    csrf: bool = False  # it checks where the request comes from (Origin, Referer)


def words(name: str) -> list[str]:
    """The lower-case words of an identifier (``checkUserPermission`` → check, user, permission)."""
    return [w.lower() for part in re.split(r"[._]", name) for w in _WORD.findall(part)]


def is_check_name(name: str, model: AccessModel) -> bool:
    """True when ``name`` says it checks who the caller is or what they may do."""
    found = words(name)
    parts = [words(p) for p in name.split(".")]
    if any(w in model.check_words.words for w in found):
        return True
    return any(len(p) > 1 and p[0] in model.check_words.first_words for p in parts)


class Denials:
    """The model's deny and exit patterns for one language."""

    def __init__(self, model: AccessModel, language: Language) -> None:
        own = {"python": model.deny.python, "go": model.deny.go}.get(
            language, model.deny.javascript
        )
        self.deny = re.compile("|".join(f"(?:{p})" for p in (*own, *model.deny.any)))
        self.kinds = tuple(re.compile(p) for p in (*own, *model.deny.any))
        exits = {"python": model.exits.python, "go": model.exits.go}.get(
            language, model.exits.javascript
        )
        self.exits = re.compile(exits)
        # The guards the security model gives another category (a path containment check,
        # a safe-redirect check): a 403 after one defends that category, not access.
        foreign = [
            p.protection
            for p in catalogue().protections
            if p.kind is Kind.GUARD and p.category != DERIVE and language in p.languages
        ]
        self._foreign = re.compile("|".join(f"(?:{p})" for p in foreign)) if foreign else None

    def foreign(self, condition: str) -> bool:
        """True when ``condition`` is a guard of another category in the security model."""
        return self._foreign is not None and self._foreign.search(condition) is not None

    def denies(self, text: str) -> bool:
        """True when ``text`` answers a request with 401/403 or an access error."""
        return self.deny.search(text) is not None


# Built once per model and language: ``guards_of`` runs for every function of both sides of
# every file, and built there each time the patterns cost a sixth of the tool's time (1,480
# builds for the 20 modified files of benchmarks/versus.py). Keyed by the model's identity,
# which the entry keeps alive so that the id cannot be reused.
_DENIALS: dict[tuple[int, str], tuple[AccessModel, Denials]] = {}


def denials_for(model: AccessModel, language: Language) -> Denials:
    """The ``Denials`` of ``model`` for ``language``, built on first use."""
    kept = _DENIALS.get((id(model), language))
    if kept is None or kept[0] is not model:
        kept = (model, Denials(model, language))
        _DENIALS[(id(model), language)] = kept
    return kept[1]


def _defs(lines: Sequence[str], scope: Scope, number: int, condition: str) -> dict[str, int]:
    """The latest assignment (its right-hand side, and its line) of each name ``condition``
    checks, within a few lines above line ``number`` in ``scope``."""
    names = {n.split(".")[0] for n in _NAME.findall(condition)}
    found: dict[str, int] = {}
    for at in range(number - 1, max(scope.header, number - _DEFS_REACH) - 1, -1):
        match = _ASSIGN.match(code(lines[at - 1]))
        if match is None:
            continue
        targets = {t.strip().lstrip("*") for t in match.group(1).split(",")}
        for target in targets & names:
            found.setdefault(target, at)
    return found


def _helpers_that_deny(lines: Sequence[str], found: Sequence[Scope], denials: Denials) -> set[str]:
    """The names of this file's functions whose body denies (``checkPermission`` returning
    ``codes.PermissionDenied``)."""
    return {
        s.key.rsplit(".", 1)[-1]
        for s in found
        if any(denials.denies(lines[n - 1]) for n in range(s.header + 1, s.end + 1))
    }


def guards_of(
    lines: Sequence[str],
    scope: Scope,
    language: Language,
    model: AccessModel,
    helpers: set[str],
) -> list[Guard]:
    """The deny branches of ``scope``, in order."""
    denials = denials_for(model, language)
    found: list[Guard] = []
    for number in range(scope.header, scope.end + 1):
        branch = branch_at(lines, number, language)
        if branch is None:
            continue
        body = [lines[n - 1] for n in range(branch.cond_end, branch.end + 1)]
        tail = code(lines[branch.cond_end - 1]).split("{", 1)[-1] if language != "python" else ""
        own_body = body[1:] + [tail] if language != "python" else body
        if language == "python" and branch.end == branch.cond_end:
            own_body = [code(body[0]).rsplit(":", 1)[-1]]
        if denials.foreign(_raw(lines, branch, {})):
            continue  # a containment or redirect check: the security-regression tool's
        denies = any(denials.denies(t) for t in own_body)
        if not denies and not any(denials.exits.search(code(t)) for t in own_body):
            continue  # a branch that neither refuses nor leaves guards nothing
        defs = _defs(lines, scope, number, branch.condition)
        checked = " ".join([branch.condition, *(code(lines[n - 1]) for n in defs.values())])
        calls = {c.rsplit(".", 1)[-1] for c in _CALL.findall(checked)}
        strong = denies or bool(calls & helpers)
        # A name bound to a literal collection is an allow-list of values (input validation),
        # not a decision about the caller.
        literal = {n for n, at in defs.items() if _COLLECTION.match(_rhs(lines[at - 1]))}
        readable = " ".join(
            [branch.condition, *(code(lines[at - 1]) for n, at in defs.items() if n not in literal)]
        )
        named = any(
            is_check_name(n, model) and n.split(".")[0] not in literal
            for n in _NAME.findall(readable)
        )
        if not strong and (not named or _answers(own_body)):
            continue
        # The exits by word, the denies by which of the model's patterns they match.
        effects = {m.group(0) for t in own_body for m in denials.exits.finditer(code(t))}
        effects |= {
            f"deny:{i}" for t in own_body for i, rx in enumerate(denials.kinds) if rx.search(t)
        }
        condition, init = branch.condition, ""
        if language == "go" and len(parts := _split(condition, (";",))) == 2:
            init, condition = parts  # `if v, err := f(); err != nil`: the statement is checked
        span = set(range(number, branch.end + 1)) | set(defs.values())
        found.append(
            Guard(
                line=number,
                end=branch.end,
                lines=frozenset(span),
                condition=_normal(_ops(condition)),
                defs=frozenset(
                    [_normal(code(lines[n - 1])) for n in defs.values()] + [_normal(init)]
                ),
                strong=strong,
                effects=frozenset(effects),
                quote=lines[number - 1].strip(),
                csrf=re.search(model.csrf.request_origin, _raw(lines, branch, defs)) is not None,
            )
        )
    return found


def _raw(lines: Sequence[str], branch: Branch, defs: dict[str, int]) -> str:
    """The condition's and the checked assignments' lines as written, strings included
    (``r.Header.Get("Origin")``)."""
    spans = [*range(branch.line, branch.cond_end + 1), *defs.values()]
    return " ".join(lines[n - 1] for n in spans)


def _rhs(line: str) -> str:
    """The right-hand side of an assignment line."""
    match = _ASSIGN.match(code(line))
    return match.group(2) if match else ""


def _answers(body: Sequence[str]) -> bool:
    """True when a branch only returns a boolean: a predicate's answer (``return false``),
    which refuses nothing by itself; it counts only when it denies in the model's words."""
    lines = [code(t).strip() for t in body if code(t).strip() not in ("", "}")]
    return bool(lines) and all(_ANSWER.match(t) for t in lines)


def file_guards(
    lines: Sequence[str], language: Language, model: AccessModel
) -> tuple[list[Scope], set[str]]:
    """The functions of a file and the names of those that deny."""
    found = scopes(list(lines), language)
    return found, _helpers_that_deny(lines, found, denials_for(model, language))


def _normal(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _split(text: str, operators: Iterable[str]) -> list[str]:
    """``text`` cut at ``operators`` outside parentheses and brackets."""
    parts, depth, start, at = [], 0, 0, 0
    ops = sorted(operators, key=len, reverse=True)
    while at < len(text):
        char = text[at]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0:
            op = next((o for o in ops if text.startswith(o, at)), None)
            if op is not None:
                parts.append(text[start:at])
                at += len(op)
                start = at
                continue
        at += 1
    parts.append(text[start:])
    return [_strip_parens(p) for p in parts if p]


def _strip_parens(text: str) -> str:
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _disjuncts(condition: str) -> list[frozenset[str]]:
    """A normalised condition as its disjuncts, each a set of conjuncts; a disjunct with a
    conjunct that is a false literal never holds and is left out."""
    out = []
    for part in _split(condition, ("||",)):
        conj = frozenset(_split(part, ("&&",)))
        if not conj & _FALSE:
            out.append(conj)
    return out


def _ops(condition: str) -> str:
    """Python's ``or``, ``and`` and ``not`` written as the other languages write them."""
    text = re.sub(r"\bor\b", "||", condition)
    text = re.sub(r"\band\b", "&&", text)
    return re.sub(r"\bnot\b\s*", "!", text)


def implies(base: Guard, head: Guard) -> bool:
    """True when ``head`` denies whenever ``base`` did: the same assignments checked, at least
    as strong a deny, and every way ``base``'s condition could hold is one of ``head``'s."""
    if base.defs != head.defs or (base.strong and not head.strong):
        return False
    if not base.effects <= head.effects:
        return False
    if base.condition == head.condition:
        return True
    old = _disjuncts(base.condition)
    new = _disjuncts(head.condition)
    return bool(old) and all(any(n <= o for n in new) for o in old)


def scope_of(found: Sequence[Scope], line: int) -> Scope | None:
    """The innermost function holding ``line``."""
    return innermost(list(found), line)
