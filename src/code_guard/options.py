"""The frozen options of a review, parsed once from CLI flags, action inputs or a config file.

Configuration flows down: the entrypoint builds one ``ReviewOptions`` and passes it to the
constructors that need it; nothing reads settings from globals or the environment later.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from pydantic import Field, ValidationError, field_validator

from code_guard.errors import ConfigError
from code_guard.models import AgentName, Frozen, Severity
from code_guard.sanitize import redact

# The enum is the one list of agents; its order is the order they are shown in.
ALL_AGENTS: tuple[AgentName, ...] = tuple(AgentName)
# Minutes a review may take unless the user gives more: ample for any ordinary pull request
# (the 3,000-file one takes well under one), and a bound on what a crafted one can cost.
DEFAULT_TIME_BUDGET_MIN = 20.0


class ReviewOptions(Frozen):
    """Everything that shapes one review. The defaults are the offline, static-only review."""

    model: str | None = Field(default=None, description="litellm model name; None = offline")
    api_base: str | None = Field(default=None, description="base URL of the model server")
    offline: bool = Field(default=False, description="never call a model, even if one is set")
    agents: tuple[AgentName, ...] = ALL_AGENTS
    fail_on: Severity | None = Severity.HIGH
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    inline_confidence: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="the action posts inline only findings this confident; the rest go in "
        "its summary comment (0.7: taint flows and strong rules, not bare weak patterns)",
    )
    paths_ignore: tuple[str, ...] = ()
    added_lines_only: bool = Field(
        default=True, description="report only findings on lines the change added"
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    timeout_s: float = Field(default=120.0, gt=0.0, description="timeout of one model call")
    max_retries: int = Field(default=4, ge=0, le=10)
    max_output_tokens: int = Field(default=4096, ge=256)
    schema_mode: str = Field(default="auto", pattern=r"^(auto|json_schema|json_object)$")
    context_lines: int = Field(default=20, ge=0, le=200)
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
    review_generated: bool = Field(
        default=False,
        description="also review lock files, vendored and generated code (skipped by default)",
    )
    all_findings: bool = Field(
        default=False,
        description="also report issues on changed lines that were there before the change",
    )
    pr_suppressions: str = Field(
        default="report",
        pattern=r"^(report|honor)$",
        description="report: suppression comments the PR adds, and the generated or vendored "
        "declarations it makes (a new vendor/ file, an added @generated marker, a new "
        ".gitattributes pattern), do not hide high+ findings; honor: they do",
    )
    gate_disputed: bool = Field(
        default=True,
        description="fail-on counts findings the model disputed (the model can be misled)",
    )
    time_budget: float | None = Field(
        default=DEFAULT_TIME_BUDGET_MIN,
        gt=0.0,
        description="minutes the whole review may take; what is not done by then is listed "
        "and the review is partial (20 by default: a crafted file must not hold a runner "
        "for hours; raise it for very large changes)",
    )
    on_error: str = Field(
        default="fail",
        pattern=r"^(fail|warn)$",
        description="fail: a partial or failed review fails the run; warn: it only says so",
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

    @field_validator("fail_on", mode="before")
    @classmethod
    def _parse_fail_on(cls, value: Any) -> Any:
        if value is False:  # YAML reads a bare `off` or `no` as false
            return None
        if isinstance(value, str):
            text = value.strip().lower()
            return None if text in ("", "none", "never", "off") else text
        return value

    @property
    def uses_model(self) -> bool:
        """True when a model is configured and offline mode is off."""
        return bool(self.model) and not self.offline

    @property
    def static_only_reason(self) -> str | None:
        """Why this review runs without a model, or None when it uses one."""
        if self.offline:
            return "offline mode was requested (--offline)"
        if not self.model:
            return "no model is configured (set --model, or the action's `model` input)"
        return None


def build_options(values: Mapping[str, Any]) -> ReviewOptions:
    """Validate a mapping of option values, raising ``ConfigError`` with one clear line."""
    for key, value in values.items():
        # Every option is a value or a flat list of values. Nested ones are refused before
        # validation, which would walk (and repr) every item an alias of aliases repeats.
        if _nested(value):
            name = str(key).replace("_", "-")
            raise ConfigError(f"invalid {name}: nested lists or mappings (got {_shown(value)})")
    try:
        return ReviewOptions.model_validate(dict(values))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "-".join(str(p) for p in first["loc"][:1]).replace("_", "-") or "options"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"invalid {where}: {message} (got {_shown(first.get('input'))})") from exc


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
    """Read a YAML config file (keys as in ``ReviewOptions``, hyphens allowed)."""
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
    known = set(ReviewOptions.model_fields)
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name not in known:
            raise ConfigError(f"config file {path}: unknown option {key!r}")
        out[name] = value
    return out
