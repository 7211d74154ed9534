"""The security model of one language, validated once where it enters: ``<language>.yml``
beside this module.

A *kind* is what one taint rule looks for (``sql_injection``, ``xpath_injection``), filed under
one review category. Sanitisers name the kinds they neutralise and guards the kinds they prove
safe, directly or through a named group of kinds (``injection``), so a rule takes only the
protections of its own kind: ``html.escape`` clears a value for HTML and nothing else, and a
scheme check proves nothing at all. Patterns are Semgrep's, the language the rules run in.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import JsonValue, model_validator

from code_guard.findings import Category, Frozen
from code_guard.knowledge.loading import load_yaml

_HERE = Path(__file__).resolve().parent

# A Semgrep pattern entry (`pattern:`, `patterns:`, `pattern-either:`, ...), kept as written.
SemgrepEntry = dict[str, JsonValue]


class Source(Frozen):
    """Where request data enters: one entry per framework API, listed once per language.

    A source is written in one of the shapes both readers of the model understand, so that
    Semgrep's rules (rendered by ``pattern``) and the Python taint check start from the same
    list: ``attributes`` of ``receivers`` (``request.args``), ``calls`` (``self.get_argument(
    ...)``), ``subscripts`` (``REQUEST[...]``), or the first of a handler's ``parameters``
    (``def handler(event, context)``). ``semgrep`` holds a shape only Semgrep reads; the
    Python check must then cover it another way (a route's parameters, sources.py).
    """

    name: str
    note: str = ""
    semgrep: SemgrepEntry | None = None
    receivers: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    subscripts: tuple[str, ...] = ()
    # a function with exactly these parameters is a handler whose first one is request data
    parameters: tuple[str, ...] = ()
    # the kinds whose rules take this source; empty for every kind
    kinds: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _one_shape(self) -> Source:
        shapes = [
            bool(self.semgrep),
            bool(self.receivers or self.attributes),
            bool(self.calls),
            bool(self.subscripts),
            bool(self.parameters),
        ]
        if sum(shapes) != 1:
            raise ValueError(f"source {self.name!r} needs exactly one shape")
        if bool(self.receivers) != bool(self.attributes):
            raise ValueError(f"source {self.name!r}: `attributes` and `receivers` go together")
        return self

    def pattern(self) -> SemgrepEntry:
        """The source as a Semgrep pattern entry."""
        if self.semgrep:
            return self.semgrep
        if self.attributes:
            # spelled out per receiver (no metavariable) so that semgrep-core can skip files
            # that never mention one
            either: list[JsonValue] = [{"pattern": f"{r}.$ATTR"} for r in self.receivers]
            regex = "^(" + "|".join(self.attributes) + ")$"
            return {
                "patterns": [
                    {"pattern-either": either},
                    {"metavariable-regex": {"metavariable": "$ATTR", "regex": regex}},
                ]
            }
        if self.calls or self.subscripts:
            shapes = [f"{c}(...)" for c in self.calls] + [f"{s}[...]" for s in self.subscripts]
            if len(shapes) == 1:
                return {"pattern": shapes[0]}
            return {"pattern-either": [{"pattern": shape} for shape in shapes]}
        inside = f"def $HANDLER({', '.join(self.parameters)}):\n  ...\n"
        return {"patterns": [{"pattern-inside": inside}, {"pattern": self.parameters[0]}]}


class Propagator(Frozen):
    """A call that carries taint from one of its values to another (`items.append(x)`)."""

    name: str
    note: str = ""
    semgrep: SemgrepEntry
    # the kinds whose rules take this propagator; empty for every kind
    kinds: tuple[str, ...] = ()


class Import(Frozen):
    """A library function known by the module it is imported from, not by the name it is bound
    to: the pull request can bind any name (``const escape = (s) => s``), never an import of
    the real module to its own code."""

    module: str
    # the module's exports that sanitise; empty when the module's export is the function itself
    members: tuple[str, ...] = ()


class Sanitiser(Frozen):
    """A call whose result is safe for the kinds it neutralises, whatever went in."""

    name: str
    note: str = ""
    neutralises: tuple[str, ...]
    # dotted names of library functions, matched as calls (Semgrep resolves imports)
    calls: tuple[str, ...] = ()
    # JavaScript: library functions matched only through an import or a `const` require of
    # their module (a bare name or an object of the same name proves nothing)
    imports: tuple[Import, ...] = ()
    # other shapes, as Semgrep patterns
    semgrep: tuple[SemgrepEntry, ...] = ()
    # calls of ``calls`` whose options choose what is left unescaped: trusted only given the
    # value alone (``html.escape(x, quote=False)`` leaves quotes); read by the Python check
    alone: tuple[str, ...] = ()
    # calls of ``calls`` and the keywords that let dangerous input through them (bleach's
    # ``protocols``): given one, the call cleans nothing; read by the Python check
    disarming: dict[str, tuple[str, ...]] = {}

    @model_validator(mode="after")
    def _has_a_shape(self) -> Sanitiser:
        if not self.calls and not self.semgrep and not self.imports:
            raise ValueError(f"sanitiser {self.name!r} has neither calls nor semgrep patterns")
        stray = sorted((set(self.alone) | set(self.disarming)) - set(self.calls))
        if stray:
            raise ValueError(f"sanitiser {self.name!r}: {', '.join(stray)} not in its calls")
        return self


class Where(Frozen):
    """A constraint on a metavariable of a guard's test: its text matches ``regex``."""

    metavariable: str
    regex: str


class Guard(Frozen):
    """A check that proves a value safe for some kinds on the paths where it passed.

    ``holds`` is the test when the check passes, with ``$X`` the checked value; ``fails`` are
    other spellings of its failure (``$X not in $ALLOWED``). The check counts only where it
    controls the path to the sink: inside an ``if`` whose test is ``holds`` (alone or
    ``and``-ed), or after an ``if`` whose test is its failure (alone or ``or``-ed) and whose
    branch ends in one of the model's exits. ``before`` holds statements that come first
    (``$PARSED = urllib.parse.urlparse($X, ...)``), and ``target`` the expression in them that
    holds ``$X``. A guard that proves nothing (a scheme test) is listed with empty ``proves``,
    so that what it is not is written down too.
    """

    name: str
    note: str = ""
    proves: tuple[str, ...]
    holds: str = ""
    fails: tuple[str, ...] = ()
    before: str = ""
    target: str = ""
    where: tuple[Where, ...] = ()
    # calls that return an error when the check fails (Go: `if err := check(x); err != nil`)
    errors: tuple[str, ...] = ()
    # a declaration of the file the check relies on (Go: `var $SET = $INIT`, an allow-list
    # declared as a literal); matched apart from the check, since a region that starts at
    # the file's top level runs on past the end of the checking function
    declared: str = ""
    # code that voids the check when the checked value lies inside it (Semgrep's
    # `pattern-not-inside`): a write into the allow-list it reads (`allowed[target] = true`
    # and the statements after it)
    voided_by: tuple[str, ...] = ()
    # the metavariable of the value the check clears, `$X` unless it is the parsed value
    value: str = "$X"
    # Clean only in the statements after the failing ``if``, not by side effect: for a value
    # semgrep-core cannot clear in place (inside ``new URL(...)``, a later ``||`` operand).
    uses_after: bool = False
    # For the Python taint check, a library call in ``holds`` (``name($X, ...)``) that vets
    # these argument slots (positions, keywords) when it returns true, provided the ``trusted``
    # slots hold the application's own values (the allowed hosts), not request data.
    slots: tuple[int | str, ...] = ()
    trusted: tuple[int | str, ...] = ()
    # A check that two URLs share scheme, host and port (the one of the checked value, and the
    # application's own): only the Python check can tell which of the two is the application's,
    # so Semgrep's rules do not take it.
    same_origin: bool = False

    @model_validator(mode="after")
    def _target_with_before(self) -> Guard:
        if not self.holds and not self.fails:
            raise ValueError(f"guard {self.name!r} has neither `holds` nor `fails`")
        if self.target and not self.before:
            raise ValueError(f"guard {self.name!r}: `target` needs `before`")
        if (self.slots or self.same_origin) and not self.call():
            raise ValueError(f"guard {self.name!r}: `slots` need `holds` to be one call")
        if self.trusted and not self.slots:
            raise ValueError(f"guard {self.name!r}: `trusted` needs `slots`")
        return self

    def call(self) -> str:
        """The dotted name of the call ``holds`` is (``name($X, ...)``), or ""."""
        match = re.fullmatch(r"([A-Za-z_][\w.]*)\(.*\)", self.holds)
        return match[1] if match else ""


# A call both readers match: a dotted name or a method of any receiver (`$C.execute`), its
# arguments metavariables, `...`, literal keywords (`shell=True`) and the keyword that passes
# the value (`url=$URL`).
_CALL = re.compile(r"^(?P<receiver>\$[A-Z]+\.)?(?P<name>[A-Za-z_][\w.]*)\((?P<args>.*)\)$")
_ARGUMENT = re.compile(r"^(\$[A-Z]+|\.\.\.|[a-z_]+=(True|False)|[a-z_]+=\$[A-Z]+)$")


class SinkCall(Frozen):
    """One call of a sink as the Python taint check reads it: the call's dotted name as
    written (``os.system``), or, for ``method``, the end of it after any receiver
    (``objects.raw`` of ``$M.objects.raw``); the position of the value among the positional
    arguments, or, when the call passes it by name (``requests.get(url=$URL, ...)``), that
    ``keyword``; the literal keywords the call must pass (``shell=True``); and, when the
    pattern has no ``...``, how many positional arguments the call must have."""

    name: str
    method: bool
    position: int | None
    keyword: str | None = None
    keywords: tuple[tuple[str, bool], ...] = ()
    arity: int | None = None


class Sink(Frozen):
    """Where a value of one kind does harm, listed once for both readers.

    ``calls`` are Semgrep call patterns in the one shape the Python taint check reads as well
    (``os.system($CMD)``, ``$C.execute($Q, ...)``, ``subprocess.run($CMD, ..., shell=True,
    ...)``), with ``focus`` the metavariable of the value; ``also`` holds alternatives of the
    same sink only Semgrep reads (a metavariable-regex, a ``pattern-inside``, a receiver that is
    the value), and ``semgrep`` a whole sink only Semgrep reads.
    """

    name: str
    note: str = ""
    semgrep: SemgrepEntry | None = None
    focus: str = ""
    calls: tuple[str, ...] = ()
    also: tuple[SemgrepEntry, ...] = ()

    @model_validator(mode="after")
    def _one_shape(self) -> Sink:
        if bool(self.semgrep) == bool(self.calls or self.also):
            raise ValueError(f"sink {self.name!r} needs `semgrep`, or `calls` and `also`")
        if (self.calls or self.also) and not self.focus:
            raise ValueError(f"sink {self.name!r}: `calls` need a `focus`")
        self.call_shapes()  # every call parses
        return self

    def call_shapes(self) -> tuple[SinkCall, ...]:
        """The calls of the sink as the Python taint check matches them."""
        return tuple(_call_shape(text, self.focus, self.name) for text in self.calls)

    def pattern(self) -> SemgrepEntry:
        """The sink as a Semgrep pattern entry."""
        if self.semgrep:
            return self.semgrep
        either: list[JsonValue] = [{"pattern": c} for c in self.calls]
        either += list(self.also)
        return {"patterns": [{"pattern-either": either}, {"focus-metavariable": self.focus}]}


def _call_shape(text: str, focus: str, sink: str) -> SinkCall:
    """``text`` read as a call of ``sink`` whose value is ``focus``."""
    match = _CALL.match(text)
    arguments = [a.strip() for a in match["args"].split(",")] if match else []
    if not match or not all(_ARGUMENT.match(a) for a in arguments):
        raise ValueError(f"sink {sink!r}: {text!r} is not a call both readers read")
    positional = [a for a in arguments if "=" not in a]
    named = dict(a.partition("=")[::2] for a in arguments if "=" in a)
    by_name = [key for key, value in named.items() if value == focus]
    if by_name and focus not in positional:
        # The value passed by name, among nothing but `...` (Semgrep matches a keyword
        # wherever the call places it, and so does the Python check).
        if any(a != "..." for a in positional):
            raise ValueError(f"sink {sink!r}: {text!r} names {focus} after fixed arguments")
        position, keyword = None, by_name[0]
    elif focus in positional and "..." not in positional[: positional.index(focus)]:
        position, keyword = positional.index(focus), None
    else:
        raise ValueError(f"sink {sink!r}: {text!r} has no fixed position for {focus}")
    keywords = tuple(
        (key, value == "True") for key, value in named.items() if value in ("True", "False")
    )
    return SinkCall(
        name=match["name"],
        method=bool(match["receiver"]),
        position=position,
        keyword=keyword,
        keywords=keywords,
        arity=None if "..." in arguments else len(positional),
    )


class TaintRule(Frozen):
    """One generated Semgrep taint rule: its id, its kind, and Semgrep's header with the
    rule's record (``metadata``), which the rule catalogue reads from the generated file."""

    id: str
    kind: str
    severity: str
    message: str
    metadata: dict[str, JsonValue]
    options: dict[str, JsonValue] | None = None
    # the sources of this rule by name, for a rule whose data is not the request's (an
    # archive entry's name); by default the sources of its kind
    sources: tuple[str, ...] = ()
    # exits of a failing branch that count for this rule only (a fall-back to a literal)
    exits: tuple[str, ...] = ()


class SecurityModel(Frozen):
    """Everything the taint rules of one language know, loaded from ``<language>.yml``."""

    language: str
    # the languages the rules run on (`[javascript, typescript]`); by default `language` alone
    languages: tuple[str, ...] = ()
    kinds: dict[str, Category]
    groups: dict[str, tuple[str, ...]]
    # statements that end a failing branch (`return ...`, `raise ...`)
    exits: tuple[str, ...] = ()
    # or, where a branch is matched whole (`if (...) $EXIT` in JavaScript), what it must be
    exit_regex: str = ""
    # what a checked value must look like: a name, not a call that could differ next time
    checked: str = ""
    sources: tuple[Source, ...]
    propagators: tuple[Propagator, ...]
    sanitisers: tuple[Sanitiser, ...]
    guards: tuple[Guard, ...]
    sinks: dict[str, tuple[Sink, ...]]
    rules: tuple[TaintRule, ...]
    # calls that undo an escape: whatever went in, sanitised or not, comes out raw
    decoders: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _names_are_known(self) -> SecurityModel:
        if not self.exits and not self.exit_regex:
            raise ValueError("a model needs `exits` or `exit_regex`")
        for group, members in self.groups.items():
            if group in self.kinds:
                raise ValueError(f"group {group!r} has the name of a kind")
            self._known(members, f"group {group!r}", groups=False)
        for sanitiser in self.sanitisers:
            self._known(sanitiser.neutralises, f"sanitiser {sanitiser.name!r}")
        for guard in self.guards:
            self._known(guard.proves, f"guard {guard.name!r}")
        for source in self.sources:
            self._known(source.kinds, f"source {source.name!r}", groups=False)
        for propagator in self.propagators:
            self._known(propagator.kinds, f"propagator {propagator.name!r}", groups=False)
        names = {source.name for source in self.sources}
        self._known(self.sinks, "sinks", groups=False)
        for rule in self.rules:
            self._known((rule.kind,), f"rule {rule.id!r}", groups=False)
            if rule.kind not in self.sinks:
                raise ValueError(f"rule {rule.id!r}: no sinks of kind {rule.kind!r}")
            unknown = sorted(set(rule.sources) - names)
            if unknown:
                raise ValueError(f"rule {rule.id!r}: unknown source {', '.join(unknown)}")
        return self

    def _known(self, names: Iterable[str], where: str, *, groups: bool = True) -> None:
        allowed = set(self.kinds) | (set(self.groups) if groups else set())
        unknown = sorted(set(names) - allowed)
        if unknown:
            raise ValueError(f"{where}: unknown kind {', '.join(unknown)}")

    def expand(self, names: Iterable[str]) -> frozenset[str]:
        """The kinds ``names`` stand for: kinds themselves, and the members of groups."""
        out: set[str] = set()
        for name in names:
            out.update(self.groups.get(name, (name,)))
        return frozenset(out)

    def sources_for(self, kind: str) -> tuple[Source, ...]:
        """The sources a rule of ``kind`` starts from."""
        return tuple(s for s in self.sources if not s.kinds or kind in s.kinds)

    def sources_of(self, rule: TaintRule) -> tuple[Source, ...]:
        """The sources of ``rule``: those it names, or else those of its kind."""
        if rule.sources:
            return tuple(s for name in rule.sources for s in self.sources if s.name == name)
        return self.sources_for(rule.kind)

    def propagators_for(self, kind: str) -> tuple[Propagator, ...]:
        """The propagators a rule of ``kind`` takes."""
        return tuple(p for p in self.propagators if not p.kinds or kind in p.kinds)

    def sanitisers_for(self, kind: str) -> tuple[Sanitiser, ...]:
        """The sanitisers that neutralise ``kind``."""
        return tuple(s for s in self.sanitisers if kind in self.expand(s.neutralises))

    def guards_for(self, kind: str) -> tuple[Guard, ...]:
        """The guards that prove a value safe for ``kind`` in Semgrep's rules (not those only
        the Python check can read, ``same_origin``)."""
        return tuple(g for g in self.guards if kind in self.expand(g.proves) and not g.same_origin)


@functools.cache
def load_model(language: str) -> SecurityModel:
    """The security model of ``language``, read and validated on first use."""
    path = _HERE / f"{language}.yml"
    data = load_yaml(path.read_text(encoding="utf-8"))
    return SecurityModel.model_validate(data)
