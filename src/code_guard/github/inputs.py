"""The action's inputs and the runner's environment, parsed once into frozen values.

The runner passes every input of ``action.yml`` as ``INPUT_<NAME>`` (upper-cased, hyphens
kept: ``INPUT_FAIL-ON``), with the default from ``action.yml`` when the workflow gives none.
Inputs that shape the review default to the empty string there, meaning "not set", so that
the precedence is simple: an input that is set beats the config file, which beats the
defaults of ``ReviewOptions``. Both give flat option names, which ``build_options`` maps onto
``ReviewOptions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator

from code_guard.errors import ConfigError
from code_guard.findings import Frozen
from code_guard.options import ReviewOptions, build_options, load_config_file

DEFAULT_API_URL = "https://api.github.com"


class ActionInputs(Frozen):
    """Every input of ``action.yml``; empty strings are "not set"."""

    github_token: SecretStr = SecretStr("")
    mode: Literal["review", "eval", "feedback"] = "review"
    model: str = ""
    api_base: str = ""
    agents: str = ""
    fail_on: str = ""
    on_error: str = ""
    time_budget: str = ""
    context_tokens: str = ""
    max_concurrency: str = ""
    max_tokens: str = ""
    max_cost_usd: str = ""
    max_inline_comments: int = Field(default=25, ge=0, le=200)
    paths_ignore: str = ""
    disable_rules: str = ""
    min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    inline_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    show_silenced: str = ""
    dismiss_by: str = ""
    since: str = ""
    config: str = ""
    dataset: str = ""
    min_f1: float | None = Field(default=None, ge=0.0, le=1.0)
    baseline: str = ""
    jobs: int = Field(default=4, ge=1, le=64)

    @field_validator("mode", mode="before")
    @classmethod
    def _normalise_mode(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    def ignore_globs(self) -> tuple[str, ...]:
        """The ``paths-ignore`` globs: one per line or comma-separated, ``#`` lines skipped."""
        items = (
            part.strip() for line in self.paths_ignore.splitlines() for part in line.split(",")
        )
        return tuple(item for item in items if item and not item.startswith("#"))

    def rule_ids(self) -> tuple[str, ...]:
        """The ``disable-rules`` ids: one per line or comma-separated, ``#`` lines skipped
        (each is checked against the rule catalogue by ``build_options``)."""
        items = (
            part.strip() for line in self.disable_rules.splitlines() for part in line.split(",")
        )
        return tuple(item for item in items if item and not item.startswith("#"))

    def review_overrides(self) -> dict[str, Any]:
        """The option values the inputs set, by flat option name (``options.FLAT_KEYS``),
        leaving out those left empty."""
        values: dict[str, Any] = {
            "model": self.model.strip(),
            "api_base": self.api_base.strip(),
            "agents": self.agents.strip(),
            "fail_on": self.fail_on.strip(),
            "on_error": self.on_error.strip(),
            "time_budget": self.time_budget.strip(),
            "context_tokens": self.context_tokens.strip(),
            "max_concurrency": self.max_concurrency.strip(),
            "max_tokens": self.max_tokens.strip(),
            "max_cost_usd": self.max_cost_usd.strip(),
            "min_confidence": self.min_confidence,
            "inline_confidence": self.inline_confidence,
            "paths_ignore": self.ignore_globs(),
            "disable_rules": self.rule_ids(),
            "show_silenced": self.show_silenced.strip(),
            "dismiss_by": self.dismiss_by.strip(),
        }
        return {key: value for key, value in values.items() if value not in ("", None, ())}


@dataclass(frozen=True, slots=True)
class RunnerEnv:
    """What the Actions runner tells a container action through its environment."""

    event_name: str
    event_path: str | None
    repository: str
    api_url: str
    workspace: Path
    step_summary: Path | None
    output: Path | None
    sha: str


def read_runner_env(environ: Mapping[str, str]) -> RunnerEnv:
    """Read the ``GITHUB_*`` variables the runner sets; missing ones get local defaults."""

    def path(name: str) -> Path | None:
        value = environ.get(name, "").strip()
        return Path(value) if value else None

    return RunnerEnv(
        event_name=environ.get("GITHUB_EVENT_NAME", "").strip(),
        event_path=environ.get("GITHUB_EVENT_PATH", "").strip() or None,
        repository=environ.get("GITHUB_REPOSITORY", "").strip(),
        api_url=environ.get("GITHUB_API_URL", "").strip().rstrip("/") or DEFAULT_API_URL,
        workspace=path("GITHUB_WORKSPACE") or Path.cwd(),
        step_summary=path("GITHUB_STEP_SUMMARY"),
        output=path("GITHUB_OUTPUT"),
        sha=environ.get("GITHUB_SHA", "").strip(),
    )


def read_inputs(environ: Mapping[str, str]) -> ActionInputs:
    """Parse the ``INPUT_*`` variables, raising ``ConfigError`` naming the first bad input."""
    raw = {
        key[len("INPUT_") :].lower().replace("-", "_"): value
        for key, value in environ.items()
        if key.startswith("INPUT_")
    }
    # An input given as "" (or left without a default) means "not set": the field's default.
    given = {key: value.strip() for key, value in raw.items() if value.strip()}
    try:
        inputs = ActionInputs.model_validate(given)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]).replace("_", "-") if first["loc"] else "inputs"
        if first["type"] == "extra_forbidden":
            raise ConfigError(f"unknown action input {name!r}") from exc
        raise ConfigError(f"invalid action input {name!r}: {first['msg']}") from exc
    return inputs


def build_review_options(inputs: ActionInputs, workspace: Path) -> ReviewOptions:
    """Merge the config file (if the ``config`` input names one) under the inputs that are set."""
    values: dict[str, Any] = {}
    if inputs.config.strip():
        values.update(load_config_file(workspace / inputs.config.strip()))
    values.update(inputs.review_overrides())
    return build_options(values)
