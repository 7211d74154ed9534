"""Tests of the options: the flat names users write land in the right part of ``ReviewOptions``,
and a bad value in any part is one clear line naming the option as the user wrote it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from code_guard.errors import ConfigError
from code_guard.findings import AgentName, Severity
from code_guard.options import (
    FLAT_KEYS,
    AnalysisOptions,
    GateOptions,
    ModelOptions,
    PublishingOptions,
    ReviewOptions,
    build_options,
    load_config_file,
)

# Every option a config file takes, each with a value other than its default.
EVERY_KEY = """\
model: ollama/qwen2.5
api-base: http://127.0.0.1:11434/v1
offline: true
agents: security,style
fail-on: medium
min-confidence: 0.4
inline-confidence: 0.9
paths-ignore: ["migrations/**", "*.lock"]
disable-rules: [semgrep:py-open-redirect-taint, ruff:PLR0913]
added-lines-only: false
temperature: 0.5
timeout-s: 30
max-retries: 2
max-output-tokens: 1024
schema-mode: json_object
context-lines: 5
context-tokens: 32768
max-concurrency: 8
max-tokens: 100000
max-cost-usd: 1.5
review-generated: true
all-findings: true
pr-suppressions: honor
gate-disputed: false
time-budget: 45
on-error: warn
"""


def test_every_config_key_loads_into_its_part(tmp_path: Path) -> None:
    path = tmp_path / "code-guard.yml"
    path.write_text(EVERY_KEY, encoding="utf-8")
    options = build_options(load_config_file(path))
    assert options.analysis == AnalysisOptions(
        agents=(AgentName.SECURITY, AgentName.STYLE),
        paths_ignore=("migrations/**", "*.lock"),
        disable_rules=("semgrep:py-open-redirect-taint", "ruff:PLR0913"),
        added_lines_only=False,
        all_findings=True,
        review_generated=True,
        pr_suppressions="honor",
        min_confidence=0.4,
        context_lines=5,
        time_budget=45.0,
    )
    assert options.model == ModelOptions(
        name="ollama/qwen2.5",
        api_base="http://127.0.0.1:11434/v1",
        offline=True,
        temperature=0.5,
        timeout_s=30.0,
        max_retries=2,
        max_output_tokens=1024,
        schema_mode="json_object",
        context_tokens=32768,
        max_concurrency=8,
        max_tokens=100_000,
        max_cost_usd=1.5,
    )
    assert options.gate == GateOptions(
        fail_on=Severity.MEDIUM, count_disputed=False, on_error="warn"
    )
    assert options.publishing == PublishingOptions(inline_confidence=0.9)


def test_every_field_of_every_part_has_exactly_one_flat_name() -> None:
    places = set()
    for part, info in ReviewOptions.model_fields.items():
        model = info.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        places |= {(part, field) for field in model.model_fields}
    assert sorted(FLAT_KEYS.values()) == sorted(places)  # each field once, none missing


def test_no_value_given_is_the_default_review() -> None:
    assert build_options({}) == ReviewOptions()
    assert not ReviewOptions().model.enabled  # no model: the static-only review


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (  # analysis
            {"context_lines": 500},
            "invalid context-lines: Input should be less than or equal to 200 (got 500)",
        ),
        (
            {"agents": "security,linting"},
            "invalid agents: Input should be 'security', 'performance' or 'style' (got 'linting')",
        ),
        (  # model: named as the user wrote it, not as the field the value goes to
            {"model": 5},
            "invalid model: Input should be a valid string (got 5)",
        ),
        (
            {"max_tokens": 0},
            "invalid max-tokens: Input should be greater than or equal to 1 (got 0)",
        ),
        (  # gate
            {"gate_disputed": "maybe"},
            "invalid gate-disputed: Input should be a valid boolean, unable to interpret input "
            "(got 'maybe')",
        ),
        (
            {"on_error": "panic"},
            "invalid on-error: Input should be 'fail' or 'warn' (got 'panic')",
        ),
        (  # publishing
            {"inline_confidence": 2},
            "invalid inline-confidence: Input should be less than or equal to 1 (got 2)",
        ),
        (
            {"bogus": 1},
            "unknown option 'bogus'",
        ),
    ],
)
def test_a_bad_value_in_each_part_is_one_clear_line(
    values: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        build_options(values)
    assert str(caught.value) == message


def test_of_several_bad_values_the_first_in_the_flat_order_is_reported() -> None:
    # Validated part by part, time-budget (analysis) fails first; the error names the one
    # that comes first among the options as they were listed before grouping, as it did then.
    bad = {"on_error": "panic", "max_tokens": "many", "time_budget": 0}
    with pytest.raises(ConfigError, match=r"^invalid max-tokens: "):
        build_options(bad)


def test_disable_rules_takes_a_list_or_a_separated_string_of_catalogue_ids() -> None:
    def ids(value: object) -> tuple[str, ...]:
        return build_options({"disable_rules": value}).analysis.disable_rules

    assert ids(["bandit:B113", " ruff:PLR0913 ", "bandit:B113"]) == ("bandit:B113", "ruff:PLR0913")
    assert ids("bandit:B113,\nsemgrep:py-open-redirect-taint\n") == (
        "bandit:B113",
        "semgrep:py-open-redirect-taint",
    )
    # A detect-secrets type has spaces; a rule the catalogue ignores is accepted (never found).
    assert ids(["detect-secrets:Secret Keyword", "ruff:invalid-syntax"]) == (
        "detect-secrets:Secret Keyword",
        "ruff:invalid-syntax",
    )
    assert build_options({}).analysis.disable_rules == ()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            ["bandit:b113"],
            "invalid disable-rules: 'bandit:b113' is not a rule of the catalogue; did you mean "
            "bandit:B113? (got ['bandit:b113'])",
        ),
        (
            ["semgrep:no-such-rule"],
            "invalid disable-rules: 'semgrep:no-such-rule' is not a rule of the catalogue "
            "(got ['semgrep:no-such-rule'])",
        ),
        (
            "pylint:C0114",
            "invalid disable-rules: 'pylint:C0114': no analyser is named 'pylint' (known: ",
        ),
        (
            ["B113"],
            "invalid disable-rules: 'B113' is not a rule id: write tool:rule, as a finding's "
            "sources name it (e.g. semgrep:py-open-redirect-taint) (got ['B113'])",
        ),
        (["bandit:"], "invalid disable-rules: 'bandit:' is not a rule id"),
        (["bandit: B113"], "invalid disable-rules: 'bandit: B113' is not a rule id"),
        ([7], "invalid disable-rules: 7 is not a rule id (tool:rule, e.g. "),
        (3, "invalid disable-rules: expected a list of rule ids such as "),
        ([["bandit:B113"]], "invalid disable-rules: nested lists or mappings"),
    ],
)
def test_a_bad_disable_rules_entry_is_one_clear_line(value: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        build_options({"disable_rules": value})
    text = str(caught.value)
    assert text.startswith(message) and "\n" not in text
