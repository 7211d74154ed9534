"""The frozen options of a review, parsed once from CLI flags, action inputs or a config file.

Configuration flows down: the entrypoint builds one ``ReviewOptions`` and passes it, or the
part of it each needs, to the constructors that use it; nothing reads settings from globals or
the environment later. ``ReviewOptions`` holds one frozen part per concern: what the review
analyses and reports (``AnalysisOptions``, for the engine and agents), the model and its
budget (``ModelOptions``, for the model client), when the run fails (``GateOptions``) and how
the action posts findings (``PublishingOptions``).

Users write flat names (``model``, ``fail-on``, ``max-tokens``, as config-file keys, flags and
action inputs); ``FLAT_KEYS`` maps each onto its part, and ``build_options`` is the one place
that reads them.
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import Field, ValidationError, field_validator
from pydantic_core import ErrorDetails

from code_guard.errors import ConfigError
from code_guard.findings import AgentName, Frozen, Severity
from code_guard.knowledge.catalogue import table, tools
from code_guard.knowledge.mapping import UNMAPPED, lookup
from code_guard.knowledge.records import RuleRecord
from code_guard.trust.sanitize import redact


class DismissBy(StrEnum):
    """Who may dismiss a finding (the ``dismiss-by`` option)."""

    OTHERS = "others"  # write, maintain or admin, and not the pull request's author
    WRITERS = "writers"  # write, maintain or admin, the author included
    MAINTAINERS = "maintainers"  # maintain or admin, and not the pull request's author

    @property
    def roles(self) -> frozenset[str]:
        """The repository roles that may dismiss."""
        if self is DismissBy.MAINTAINERS:
            return frozenset({"maintain", "admin"})
        return frozenset({"write", "maintain", "admin"})

    @property
    def author_may(self) -> bool:
        """Whether the pull request's author may dismiss its findings."""
        return self is DismissBy.WRITERS


# The enum is the one list of agents; its order is the order they are shown in.
ALL_AGENTS: tuple[AgentName, ...] = tuple(AgentName)
# Minutes a review may take unless the user gives more: ample for any ordinary pull request
# (the 3,000-file one takes well under one), and a bound on what a crafted one can cost.
DEFAULT_TIME_BUDGET_MIN = 20.0
# Options that take one of a fixed set of words: the type is the list, and pydantic says which
# words a wrong value could have been.
PrSuppressions = Literal["report", "honor"]
SchemaMode = Literal["auto", "json_schema", "json_object"]
OnError = Literal["fail", "warn"]


class AnalysisOptions(Frozen):
    """What the review analyses and which findings it keeps: the engine's and agents' part."""

    agents: tuple[AgentName, ...] = ALL_AGENTS
    paths_ignore: tuple[str, ...] = ()
    disable_rules: tuple[str, ...] = Field(
        default=(),
        description="rules turned off, as a finding's sources name them (tool:rule, e.g. "
        "bandit:B113): their hits are never findings, only counted as silenced (disabled). "
        "The repository owner's choice, from trusted configuration, like paths-ignore",
    )
    added_lines_only: bool = Field(
        default=True, description="report only findings on lines the change added"
    )
    all_findings: bool = Field(
        default=False,
        description="also report issues on changed lines that were there before the change",
    )
    review_generated: bool = Field(
        default=False,
        description="also review lock files, vendored and generated code (skipped by default)",
    )
    pr_suppressions: PrSuppressions = Field(
        default="report",
        description="report: suppression comments the PR adds, and the generated or vendored "
        "declarations it makes (a new vendor/ file, an added @generated marker, a new "
        ".gitattributes pattern), do not hide high+ findings; honor: they do",
    )
    min_confidence: float = Field(
        default=0.0, ge=0.0, le=1.0, description="the review drops findings below this"
    )
    show_silenced: bool = Field(
        default=False,
        description="list each candidate held back on proof (a guard, a sanitiser, folding, a "
        "kept protection, a pre-existing match, the test-file policy, a suppression), with "
        "the proof; the review always counts them per mechanism",
    )
    context_lines: int = Field(
        default=20, ge=0, le=200, description="lines around each hunk the agents show the model"
    )
    time_budget: float | None = Field(
        default=DEFAULT_TIME_BUDGET_MIN,
        gt=0.0,
        description="minutes the whole review may take; what is not done by then is listed "
        "and the review is partial (20 by default: a crafted file must not hold a runner "
        "for hours; raise it for very large changes)",
    )

    @field_validator("agents", mode="before")
    @classmethod
    def _parse_agents(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if isinstance(value, list | tuple) and not value:
            names = ", ".join(a.value for a in ALL_AGENTS)
            raise ValueError(f"no agent selected (choose from: {names})")
        return value

    @field_validator("disable_rules", mode="before")
    @classmethod
    def _parse_disable_rules(cls, value: Any) -> Any:
        return parse_rule_ids(value)


def parse_rule_ids(value: Any) -> tuple[str, ...]:
    """The rule ids of ``disable-rules``: a list, or one string of ids separated by commas or
    newlines (the action input's form); each stripped, once, in the order given. Raises
    ``ValueError`` naming the first entry that is malformed or not in the rule catalogue."""
    if isinstance(value, str):
        items: list[Any] = [p for line in value.splitlines() for p in line.split(",")]
        items = [item for item in items if item.strip()]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise ValueError(f"expected a list of rule ids such as {EXAMPLE_RULE_ID}")
    ids: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"{_shown(item)} is not a rule id (tool:rule, e.g. {EXAMPLE_RULE_ID})")
        problem = rule_id_problem(item.strip())
        if problem is not None:
            raise ValueError(problem)
        ids.append(item.strip())
    return tuple(dict.fromkeys(ids))


EXAMPLE_RULE_ID = "semgrep:py-open-redirect-taint"
_RULE_ID_CHARS = 200


def rule_id_problem(text: str) -> str | None:
    """Why ``text`` is no rule id ``disable-rules`` accepts, or None when it is one: it must
    be ``tool:rule`` as a finding's sources name it, with a rule the catalogue knows
    (``knowledge/mapping.py`` ``lookup``: listed by id or prefix, or the analyser's fallback;
    one the catalogue ignores is accepted too, as it is never a finding anyway)."""
    tool, sep, rule = text.partition(":")
    well_formed = (
        sep
        and tool
        and rule
        and rule == rule.strip()
        and len(text) <= _RULE_ID_CHARS
        and text.isprintable()
        and "," not in text
    )
    if not well_formed:
        return (
            f"{_shown(text)} is not a rule id: write tool:rule, as a finding's sources "
            f"name it (e.g. {EXAMPLE_RULE_ID})"
        )
    known = table(tool)
    if known is None:
        return f"{_shown(text)}: no analyser is named {_shown(tool)} (known: {', '.join(tools())})"
    if lookup(tool, rule) is not UNMAPPED:
        return None
    ids = [f"{tool}:{key}" for key, entry in known.rules.items() if isinstance(entry, RuleRecord)]
    close = difflib.get_close_matches(text, ids, n=1, cutoff=0.8)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"{_shown(text)} is not a rule of the catalogue{hint}"


class ModelOptions(Frozen):
    """Which model the review calls, how, and what it may spend: the model client's part."""

    name: str | None = Field(default=None, description="litellm model name; None = offline")
    api_base: str | None = Field(default=None, description="base URL of the model server")
    offline: bool = Field(default=False, description="never call a model, even if one is set")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    timeout_s: float = Field(default=120.0, gt=0.0, description="timeout of one model call")
    max_retries: int = Field(default=4, ge=0, le=10)
    max_output_tokens: int = Field(default=4096, ge=256)
    schema_mode: SchemaMode = "auto"
    context_tokens: int | None = Field(
        default=None,
        ge=2048,
        description="the model's context window in tokens; default: litellm's model info",
    )
    max_concurrency: int = Field(
        default=4, ge=1, le=64, description="model calls in flight at once, per review"
    )
    max_tokens: int | None = Field(
        default=None, ge=1, description="tokens (prompt + answer) the review may spend in all"
    )
    max_cost_usd: float | None = Field(
        default=None, gt=0.0, description="dollars the review may spend on the model in all"
    )

    @field_validator("api_base")
    @classmethod
    def _check_api_base(cls, value: str | None) -> str | None:
        if not value:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL such as http://127.0.0.1:8080/v1")
        if parts.username or parts.password:
            # It would be printed in errors and sent as plain text: keys go in the
            # provider's environment variable instead.
            raise ValueError("must not contain credentials (user:pass@); set the key in the "
                             "provider's environment variable instead")
        return value

    @property
    def enabled(self) -> bool:
        """True when a model is named and offline mode is off: the review calls it."""
        return bool(self.name) and not self.offline

    @property
    def static_only_reason(self) -> str | None:
        """Why this review runs without a model, or None when it uses one."""
        if self.offline:
            return "offline mode was requested (--offline)"
        if not self.name:
            return "no model is configured (set --model, or the action's `model` input)"
        return None


class GateOptions(Frozen):
    """When the run fails: the command line's exit code and the action's check."""

    fail_on: Severity | None = Severity.HIGH
    count_disputed: bool = Field(
        default=True,
        description="fail-on counts findings the model disputed (the model can be misled)",
    )
    on_error: OnError = Field(
        default="fail",
        description="fail: a partial or failed review fails the run; warn: it only says so",
    )
    dismiss_by: DismissBy = Field(
        default=DismissBy.OTHERS,
        description="who may dismiss a finding in the pull request: others (write, maintain "
        "or admin, not the pull request's author), writers (the author too), maintainers "
        "(maintain or admin, not the author)",
    )

    @field_validator("dismiss_by", mode="before")
    @classmethod
    def _parse_dismiss_by(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("fail_on", mode="before")
    @classmethod
    def _parse_fail_on(cls, value: Any) -> Any:
        if value is False:  # YAML reads a bare `off` or `no` as false
            return None
        if isinstance(value, str):
            text = value.strip().lower()
            return None if text in ("", "none", "never", "off") else text
        return value


class PublishingOptions(Frozen):
    """How the action posts the review's findings on the pull request."""

    inline_confidence: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="the action posts inline only findings this confident; the rest go in "
        "its summary comment (0.7: taint flows and strong rules, not bare weak patterns)",
    )


class ReviewOptions(Frozen):
    """Everything that shapes one review, by concern. The defaults are the offline,
    static-only review."""

    analysis: AnalysisOptions = Field(default_factory=AnalysisOptions)
    model: ModelOptions = Field(default_factory=ModelOptions)
    gate: GateOptions = Field(default_factory=GateOptions)
    publishing: PublishingOptions = Field(default_factory=PublishingOptions)


# Every flat option name users write (underscored; hyphens are accepted where users type them)
# and its place in ``ReviewOptions``: (part, field). The order is the one the options had as
# flat fields, and with several bad values the first in it is the one reported.
FLAT_KEYS: dict[str, tuple[str, str]] = {
    "model": ("model", "name"),
    "api_base": ("model", "api_base"),
    "offline": ("model", "offline"),
    "agents": ("analysis", "agents"),
    "fail_on": ("gate", "fail_on"),
    "min_confidence": ("analysis", "min_confidence"),
    "inline_confidence": ("publishing", "inline_confidence"),
    "paths_ignore": ("analysis", "paths_ignore"),
    "disable_rules": ("analysis", "disable_rules"),
    "added_lines_only": ("analysis", "added_lines_only"),
    "temperature": ("model", "temperature"),
    "timeout_s": ("model", "timeout_s"),
    "max_retries": ("model", "max_retries"),
    "max_output_tokens": ("model", "max_output_tokens"),
    "schema_mode": ("model", "schema_mode"),
    "context_lines": ("analysis", "context_lines"),
    "context_tokens": ("model", "context_tokens"),
    "max_concurrency": ("model", "max_concurrency"),
    "max_tokens": ("model", "max_tokens"),
    "max_cost_usd": ("model", "max_cost_usd"),
    "review_generated": ("analysis", "review_generated"),
    "all_findings": ("analysis", "all_findings"),
    "pr_suppressions": ("analysis", "pr_suppressions"),
    "gate_disputed": ("gate", "count_disputed"),
    "time_budget": ("analysis", "time_budget"),
    "on_error": ("gate", "on_error"),
    "show_silenced": ("analysis", "show_silenced"),
    "dismiss_by": ("gate", "dismiss_by"),
}
_FLAT_NAME = {place: key for key, place in FLAT_KEYS.items()}
_FLAT_ORDER = {key: index for index, key in enumerate(FLAT_KEYS)}


def build_options(values: Mapping[str, Any]) -> ReviewOptions:
    """Validate flat option values (``FLAT_KEYS``) into ``ReviewOptions``, raising
    ``ConfigError`` with one clear line that names the option as the user wrote it."""
    parts: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        place = FLAT_KEYS.get(str(key))
        if place is None:
            raise ConfigError(f"unknown option {str(key).replace('_', '-')!r}")
        # Every option is a value or a flat list of values. Nested ones are refused before
        # validation, which would walk (and repr) every item an alias of aliases repeats.
        if _nested(value):
            name = str(key).replace("_", "-")
            raise ConfigError(f"invalid {name}: nested lists or mappings (got {_shown(value)})")
        part, field = place
        parts.setdefault(part, {})[field] = value
    try:
        return ReviewOptions.model_validate(parts)
    except ValidationError as exc:
        first = min(exc.errors(), key=lambda error: _FLAT_ORDER.get(_flat_key(error), 0))
        where = _flat_key(first).replace("_", "-") or "options"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"invalid {where}: {message} (got {_shown(first.get('input'))})") from exc


def _flat_key(error: ErrorDetails) -> str:
    """The flat option name of a validation error's place (``("model", "name")``: model)."""
    loc = error["loc"]
    return _FLAT_NAME.get((str(loc[0]), str(loc[1])), "") if len(loc) >= 2 else ""


def _nested(value: Any) -> bool:
    """True for a mapping, a set, or a list holding a container (checked one level down)."""
    if isinstance(value, dict | set | frozenset):
        return True
    items = value if isinstance(value, list | tuple) else ()
    return any(isinstance(item, list | tuple | dict | set | frozenset) for item in items)


# A YAML file can nest aliases of aliases: ten levels of ten make a value whose full repr is
# 10**10 items long, from a file of a few hundred bytes. Only what fits is ever built.
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel = 3
_SHOWN.maxtuple = _SHOWN.maxlist = _SHOWN.maxset = _SHOWN.maxfrozenset = _SHOWN.maxdict = 4
_SHOWN.maxstring = _SHOWN.maxother = _SHOWN.maxlong = 60


def _shown(value: Any) -> str:
    """A short repr of a bad config value (at most 60 characters), built in bounded time,
    with credentials redacted before anything is cut (a cut could hide what marks them)."""
    text = _SHOWN.repr(redact(value) if isinstance(value, str) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_config_file(path: Path) -> dict[str, Any]:
    """Read a YAML config file of flat options (keys of ``FLAT_KEYS``, hyphens allowed)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path} is not UTF-8 text (byte {exc.start})") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "parse error"
        raise ConfigError(f"config file {path} is not valid YAML{where}: {problem}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of options")
    known = set(FLAT_KEYS)
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name not in known:
            raise ConfigError(f"config file {path}: unknown option {key!r}")
        out[name] = value
    return out
