"""The catalogue of protections (``protections.yml``), loaded and validated once.

Each entry names a protection a pull request can take away (a safe API, a protective argument,
a sanitiser, a guard, a secret read without a default), the category of the sink it protects,
its patterns and where the fact comes from. ``docs/regressions.md`` describes the format.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum
from importlib import resources
from typing import Annotated, Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from code_guard.findings import Category, Frozen, Severity
from code_guard.knowledge.loading import load_yaml
from code_guard.languages import RuleFamily

Language = RuleFamily
# Categories a protection may name; ``derive`` takes it from the sink or the helper's name.
DERIVE = "derive"


class Kind(StrEnum):
    """What sort of protection an entry describes."""

    SAFE_TWIN = "safe_twin"
    PROTECTIVE_ARGUMENT = "protective_argument"
    SANITISER = "sanitiser"
    GUARD = "guard"
    SECRET_DEFAULT = "secret_default"


def _compiled(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"bad regular expression {pattern!r}: {exc}") from exc
    return pattern


Pattern = Annotated[str, Field(min_length=1)]
# A call's dotted name and its open parenthesis. Possessive, and only tried where no name
# character precedes, so a line of one long name costs one pass, not one per position.
_CALL = re.compile(r"(?<![\w.$])[A-Za-z_$][\w.$]*+\(")


class Sink(Frozen):
    """Calls that are the sink of ``category`` in ``languages``."""

    category: Category
    languages: tuple[Language, ...]
    patterns: tuple[Pattern, ...]

    _check = field_validator("patterns")(lambda v: tuple(_compiled(p) for p in v))


class NameHint(Frozen):
    """A word in a helper's name that says which category it protects."""

    category: Category
    pattern: Pattern

    _check = field_validator("pattern")(_compiled)


class Protection(Frozen):
    """One protection whose removal the detector reports."""

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]+$")]
    kind: Kind
    category: Category | Literal["derive"]
    languages: tuple[Language, ...]
    protection: Pattern
    unsafe: Pattern | None = None
    call: Pattern | None = None
    not_if: Pattern | None = None  # a removed line that also matches this is not the protection
    # How strong the protection is within its category: a replacement silences the removal
    # of a protection only when it is at least as strong (a containment check or bound
    # parameters may replace an escape or a Clean; a Clean may not replace a containment check).
    strength: Annotated[int, Field(ge=1, le=3)] = 2
    # The pattern also matches checks of other things (a string prefix test): removing it is
    # evidence only where the base shows it stood before a sink of its category.
    ambiguous: bool = False
    severity: Severity
    confidence: Annotated[float, Field(gt=0.0, le=1.0)]
    why: Pattern
    fix: Pattern
    reference: Pattern

    _check = field_validator("protection", "unsafe", "call", "not_if")(
        lambda v: v if v is None else _compiled(v)
    )

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Protection:
        if self.kind is Kind.SAFE_TWIN and self.unsafe is None:
            raise ValueError(f"{self.id}: a safe_twin needs `unsafe`")
        if self.kind is Kind.PROTECTIVE_ARGUMENT and self.call is None:
            raise ValueError(f"{self.id}: a protective_argument needs `call`")
        if self.kind is Kind.SECRET_DEFAULT and (
            self.unsafe is None or "(?P<default>" not in self.unsafe
        ):
            raise ValueError(f"{self.id}: a secret_default needs `unsafe` with (?P<default>...)")
        return self


class Catalogue(Frozen):
    """The whole file: sinks, name hints, the generic sanitiser name, the protections."""

    sinks: tuple[Sink, ...]
    name_hints: tuple[NameHint, ...]
    generic_sanitiser: Pattern
    generic_exclude: Pattern | None = None
    protections: tuple[Protection, ...]

    _check = field_validator("generic_sanitiser", "generic_exclude")(
        lambda v: v if v is None else _compiled(v)
    )

    @model_validator(mode="after")
    def _unique_ids(self) -> Catalogue:
        ids = [p.id for p in self.protections]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"protection ids repeat: {', '.join(repeated)}")
        return self

    def for_language(self, language: Language) -> tuple[Protection, ...]:
        """The protections that apply to ``language``."""
        return tuple(p for p in self.protections if language in p.languages)

    def sink_category(self, language: Language, line: str) -> Category | None:
        """The category of the first sink ``line`` calls, if any."""
        for sink in self.sinks:
            if language in sink.languages and any(re.search(p, line) for p in sink.patterns):
                return sink.category
        return None

    def is_sink(self, language: Language, category: Category, line: str) -> bool:
        """True when ``line`` calls a sink of ``category``."""
        return any(
            re.search(p, line)
            for s in self.sinks
            if s.category is category and language in s.languages
            for p in s.patterns
        )

    def generic_call(self, line: str) -> re.Match[str] | None:
        """The first call on ``line`` whose name says it cleans or checks a value (the last
        part of its dotted name holds a ``generic_sanitiser`` word), not ``generic_exclude``d;
        the match spans the whole dotted name and its open parenthesis."""
        for call in _CALL.finditer(line):
            last = call.group(0)[:-1].rsplit(".", 1)[-1]
            if re.search(self.generic_sanitiser, last) is None:
                continue
            exclude = self.generic_exclude
            if exclude is None or re.search(exclude, call.group(0)) is None:
                return call
        return None

    def hinted(self, name: str) -> Category | None:
        """The category a helper's name points to, if any."""
        for hint in self.name_hints:
            if re.search(hint.pattern, name):
                return hint.category
        return None


class CatalogueError(ValueError):
    """The packaged catalogue does not load: one line saying where and why."""


def parse(text: str) -> Catalogue:
    """Validate catalogue ``text`` (YAML), raising ``CatalogueError`` with a one-line reason."""
    try:
        return Catalogue.model_validate(load_yaml(text))
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        raise CatalogueError(f"protections catalogue is not YAML: {reason}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CatalogueError(f"protections catalogue: {where}: {first['msg']}") from exc


@functools.cache
def catalogue() -> Catalogue:
    """The packaged catalogue, read and validated on first use."""
    text = resources.files("code_guard.knowledge").joinpath("protections.yml").read_text()
    return parse(text)
