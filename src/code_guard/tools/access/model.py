"""The access-control model (``knowledge/access_control.yml``), validated into frozen values once.

A bad entry fails the load with one line naming the field (``ModelError``).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Annotated, Literal

import yaml
from pydantic import Field, ValidationError, field_validator

from code_guard.findings import Frozen
from code_guard.knowledge.loading import load_yaml

Language = Literal["python", "go", "javascript"]
Url = Annotated[str, Field(pattern=r"^https://\S+$")]


def _compiles(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"bad regular expression {value!r}: {exc}") from exc
    return value


class ModelError(ValueError):
    """``access_control.yml`` does not load: one line saying where and why."""


class Deny(Frozen):
    """What a branch does when an access check fails, per language (``any``: every one)."""

    python: tuple[str, ...]
    go: tuple[str, ...]
    javascript: tuple[str, ...]
    any: tuple[str, ...]

    @field_validator("python", "go", "javascript", "any")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_compiles(v) for v in value)


class Exits(Frozen):
    """What a branch's body does to leave, per language."""

    python: str
    go: str
    javascript: str

    @field_validator("python", "go", "javascript")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return _compiles(value)


class CheckWords(Frozen):
    """The words of a name that checks who the caller is or what they may do."""

    words: frozenset[str]
    first_words: frozenset[str]


class Decorator(Frozen):
    """A decorator or dependency known to guard a Python handler."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z_]\w*$")]
    reference: Url


class Slot(Frozen):
    """A list whose every name guards the handler (``permission_classes = [...]``)."""

    pattern: str
    reference: Url

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return _compiles(value)


class NamedPattern(Frozen):
    """A middleware or CSRF pattern, with what it is and where that is documented."""

    pattern: str = ""
    name: str
    reference: Url

    @field_validator("pattern", "name")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return _compiles(value)


class Middleware(Frozen):
    """How a middleware is put in front of handlers, and middleware known to guard them."""

    use: str
    names: tuple[NamedPattern, ...]

    @field_validator("use")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return _compiles(value)


class Csrf(Frozen):
    """What turns CSRF protection on, what turns it off, and what a check of the request's
    origin reads (a deny branch on it defends against CSRF)."""

    request_origin: str
    protect: tuple[NamedPattern, ...]
    disable: tuple[NamedPattern, ...]

    @field_validator("request_origin")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return _compiles(value)


class AccessModel(Frozen):
    """The whole model."""

    deny: Deny
    exits: Exits
    check_words: CheckWords
    decorators: tuple[Decorator, ...]
    slots: tuple[Slot, ...]
    dependency: str
    dependency_words: frozenset[str]
    scope_words: frozenset[str]
    middleware: Middleware
    csrf: Csrf
    public_routes: NamedPattern

    @field_validator("dependency")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return _compiles(value)


def parse_model(text: str, where: str = "access_control.yml") -> AccessModel:
    """The model in ``text``, or a ``ModelError`` naming the first problem."""
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ModelError(f"{where} is not YAML: {' '.join(str(exc).split())}") from exc
    try:
        return AccessModel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "model"
        raise ModelError(f"{where}: {field}: {first['msg']}") from exc


@functools.cache
def access_model() -> AccessModel:
    """The bundled model, loaded and validated on first use."""
    file = resources.files("code_guard") / "knowledge" / "access_control.yml"
    return parse_model(file.read_text(encoding="utf-8"), "knowledge/access_control.yml")
