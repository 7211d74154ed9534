"""The event payload and the action inputs, parsed at the edge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from ghstandin import FIXTURES

from code_guard.errors import ConfigError, EventError
from code_guard.findings import AgentName, Severity
from code_guard.github.event import PullRequestTarget, Skip, load_event
from code_guard.github.inputs import (
    ActionInputs,
    build_review_options,
    read_inputs,
    read_runner_env,
)


def write_event(tmp_path: Path, **changes: Any) -> str:
    event = json.loads((FIXTURES / "pull_request.opened.json").read_text(encoding="utf-8"))
    pr_changes = changes.pop("pull_request", {})
    event.update(changes)
    event["pull_request"].update(pr_changes)
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("name", ["pull_request", "pull_request_target"])
@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened", "ready_for_review"])
def test_reviewed_pull_request_events(tmp_path: Path, name: str, action: str) -> None:
    target = load_event(name, write_event(tmp_path, action=action))
    assert isinstance(target, PullRequestTarget)
    assert (target.repository, target.number) == ("octo-org/hello-world", 7)
    assert target.head_sha == "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    assert not target.from_fork


def test_fork_is_detected(tmp_path: Path) -> None:
    head = {"ref": "x", "sha": "1" * 40, "repo": {"full_name": "someone/hello-world"}}
    target = load_event("pull_request", write_event(tmp_path, pull_request={"head": head}))
    assert isinstance(target, PullRequestTarget) and target.from_fork


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"pull_request": {"draft": True}}, "#7 is a draft"),
        ({"pull_request": {"state": "closed"}, "action": "closed"}, "'closed' is not reviewed"),
        ({"pull_request": {"state": "closed"}}, "#7 is closed"),
        ({"action": "labeled"}, "'labeled' is not reviewed"),
    ],
)
def test_events_that_are_skipped(tmp_path: Path, changes: dict[str, Any], reason: str) -> None:
    skip = load_event("pull_request", write_event(tmp_path, **changes))
    assert isinstance(skip, Skip) and reason in skip.reason


def test_other_events_are_skipped_without_reading_the_payload() -> None:
    skip = load_event("push", str(FIXTURES / "push.json"))
    assert skip == Skip("event 'push' is not a pull request event; nothing to do")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the event payload"),
        ("{not json", "is not valid JSON"),
        ('{"action": "opened"}', "malformed pull_request event payload: number: Field required"),
        ('{"action": "opened", "number": 1, "pull_request": {}, "repository": {}}', "malformed"),
    ],
)
def test_missing_or_malformed_payloads(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "event.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(EventError, match=message):
        load_event("pull_request", str(path))


def test_unset_event_path() -> None:
    with pytest.raises(EventError, match="GITHUB_EVENT_PATH is not set"):
        load_event("pull_request", None)


def test_inputs_keep_hyphens_and_treat_empty_as_unset() -> None:
    inputs = read_inputs(
        {
            "INPUT_GITHUB-TOKEN": "t0k",
            "INPUT_MODE": "",
            "INPUT_FAIL-ON": "medium",
            "INPUT_MAX-INLINE-COMMENTS": "5",
            "INPUT_PATHS-IGNORE": "docs/**\n# generated\n*.min.js, vendor/\n",
            "INPUT_MIN-CONFIDENCE": "",
            "PATH": "/usr/bin",
        }
    )
    assert inputs.github_token.get_secret_value() == "t0k"
    assert "t0k" not in repr(inputs)
    assert (inputs.mode, inputs.max_inline_comments, inputs.min_confidence) == ("review", 5, None)
    assert inputs.ignore_globs() == ("docs/**", "*.min.js", "vendor/")


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"INPUT_MODE": "audit"}, "invalid action input 'mode'"),
        ({"INPUT_MAX-INLINE-COMMENTS": "many"}, "invalid action input 'max-inline-comments'"),
        ({"INPUT_MIN-F1": "2"}, "invalid action input 'min-f1'"),
        ({"INPUT_INLINE-CONFIDENCE": "1.5"}, "invalid action input 'inline-confidence'"),
        ({"INPUT_FAIL_ON_ERROR": "yes"}, "unknown action input 'fail-on-error'"),
    ],
)
def test_bad_inputs_name_the_input(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read_inputs(env)


def test_inputs_that_are_set_override_the_config_file(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "code-guard.yml").write_text(
        "fail-on: low\nagents: security\nmin_confidence: 0.5\n", encoding="utf-8"
    )
    inputs = read_inputs(
        {"INPUT_CONFIG": ".github/code-guard.yml", "INPUT_FAIL-ON": "critical", "INPUT_AGENTS": ""}
    )
    options = build_review_options(inputs, tmp_path)
    assert options.gate.fail_on is Severity.CRITICAL
    assert options.analysis.agents == (AgentName.SECURITY,)
    assert options.analysis.min_confidence == 0.5


def test_inline_confidence_comes_from_the_input_or_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "guard.yml").write_text("inline-confidence: 0.9\n", encoding="utf-8")

    def inline(inputs: ActionInputs) -> float:
        return build_review_options(inputs, tmp_path).publishing.inline_confidence

    assert inline(read_inputs({})) == 0.7
    assert inline(read_inputs({"INPUT_CONFIG": "guard.yml", "INPUT_INLINE-CONFIDENCE": ""})) == 0.9
    both = read_inputs({"INPUT_CONFIG": "guard.yml", "INPUT_INLINE-CONFIDENCE": "0.5"})
    assert inline(both) == 0.5


def test_show_silenced_comes_from_the_input_or_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "guard.yml").write_text("show-silenced: true\n", encoding="utf-8")

    def shown(environ: dict[str, str]) -> bool:
        return build_review_options(read_inputs(environ), tmp_path).analysis.show_silenced

    assert not shown({}) and not shown({"INPUT_SHOW-SILENCED": ""})
    assert shown({"INPUT_SHOW-SILENCED": "true"})
    assert shown({"INPUT_CONFIG": "guard.yml"})
    assert not shown({"INPUT_CONFIG": "guard.yml", "INPUT_SHOW-SILENCED": "false"})


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"INPUT_SHOW-SILENCED": "maybe"}, "invalid show-silenced: Input should be a valid bool"),
        ({"INPUT_TIME-BUDGET": "0"}, "invalid time-budget: Input should be greater than 0"),
        ({"INPUT_MAX-TOKENS": "many"}, "invalid max-tokens: Input should be a valid integer"),
        ({"INPUT_ON-ERROR": "panic"}, "invalid on-error: Input should be 'fail' or 'warn'"),
    ],
)
def test_a_bad_review_input_names_the_input(
    tmp_path: Path, environ: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}"):
        build_review_options(read_inputs(environ), tmp_path)


def test_fail_on_none_and_bad_values(tmp_path: Path) -> None:
    none = build_review_options(read_inputs({"INPUT_FAIL-ON": "none"}), tmp_path)
    assert none.gate.fail_on is None
    with pytest.raises(ConfigError, match="fail-on"):
        build_review_options(read_inputs({"INPUT_FAIL-ON": "severe"}), tmp_path)
    with pytest.raises(ConfigError, match="cannot read config file"):
        build_review_options(read_inputs({"INPUT_CONFIG": "absent.yml"}), tmp_path)


def test_runner_env_defaults() -> None:
    env = read_runner_env({"GITHUB_API_URL": "https://ghe.example.com/api/v3/"})
    assert env.api_url == "https://ghe.example.com/api/v3"
    assert (env.step_summary, env.output, env.event_path) == (None, None, None)


def test_disable_rules_comes_from_the_input_or_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "guard.yml").write_text("disable-rules: [ruff:PLR0913]\n", encoding="utf-8")

    def off(env: dict[str, str]) -> tuple[str, ...]:
        return build_review_options(read_inputs(env), tmp_path).analysis.disable_rules

    assert off({}) == () and off({"INPUT_DISABLE-RULES": ""}) == ()
    given = "semgrep:py-open-redirect-taint\n# noisy on our redirects\nbandit:B113, ruff:PLR0913\n"
    assert off({"INPUT_DISABLE-RULES": given}) == (
        "semgrep:py-open-redirect-taint",
        "bandit:B113",
        "ruff:PLR0913",
    )
    assert off({"INPUT_CONFIG": "guard.yml"}) == ("ruff:PLR0913",)
    # An input that is set beats the config file, as every input does.
    both = {"INPUT_CONFIG": "guard.yml", "INPUT_DISABLE-RULES": "bandit:B113"}
    assert off(both) == ("bandit:B113",)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("bandit:B999", "invalid disable-rules: 'bandit:B999' is not a rule of the catalogue"),
        ("bandit:B113,B101", "invalid disable-rules: 'B101' is not a rule id: write tool:rule"),
    ],
)
def test_a_bad_disable_rules_input_is_one_clear_line(
    tmp_path: Path, value: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}") as caught:
        build_review_options(read_inputs({"INPUT_DISABLE-RULES": value}), tmp_path)
    assert "\n" not in str(caught.value)
