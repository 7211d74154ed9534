"""Redaction finds a secret however the text around it was escaped, and masks every spelling
of a secret variable's name.

The action's own outputs are tested end to end in ``tests/github/test_gh_redaction.py``; here
are the properties that make that work: the escaped view maps back exactly, JSON stays JSON,
and text without secrets is left as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_guard.findings import AgentName, Category, Finding, Review, Severity, Verdict
from code_guard.trust.escaping import code_span, plain, plain_line
from code_guard.trust.sanitize import (
    REDACTED,
    masking,
    redact,
    redact_json,
    redact_review,
    secret_values,
)

FUZZ = settings(max_examples=200, deadline=None, database=None)
KEY = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2"
ENV_SECRET = "my-env_secret.value!42"
SECRETS = [
    KEY,
    "ghs_" + "A1" * 18,
    "github_pat_" + "B2_" * 12,
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ",
]
ESCAPES: list[Callable[[str], str]] = [plain, plain_line, code_span, json.dumps]


def unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text, flags=re.S).replace("\u2060", "")


@pytest.mark.parametrize("escape", ESCAPES)
@pytest.mark.parametrize("secret", [*SECRETS, ENV_SECRET])
def test_a_secret_is_found_after_any_escaping(secret: str, escape: Callable[[str], str]) -> None:
    text = escape(f"the model says: {secret}, as @admin wrote in http://u:{secret}@host/x")
    out = redact(text, [ENV_SECRET])
    assert secret not in unescaped(out)
    assert REDACTED in out and "the model says" in unescaped(out)


@FUZZ
@given(
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    secret=st.sampled_from([*SECRETS, ENV_SECRET]),
    escape=st.sampled_from(ESCAPES),
)
def test_escaped_secrets_never_survive(
    before: str, after: str, secret: str, escape: Callable[[str], str]
) -> None:
    out = redact(str(escape(f"{before} {secret} {after}")), [ENV_SECRET])
    assert secret not in unescaped(out) and secret not in out


@FUZZ
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=200))
def test_text_without_secrets_is_left_alone(text: str) -> None:
    for escape in ESCAPES:
        escaped = str(escape(text))
        if not any(p in unescaped(escaped).lower() for p in ("://", "bearer", "basic", "token")):
            assert redact(escaped, ["not-in-the-text-at-all"]) == escaped


@FUZZ
@given(st.lists(st.text(max_size=20), max_size=4), st.sampled_from([*SECRETS, ENV_SECRET]))
def test_redacted_json_is_still_json(parts: list[str], secret: str) -> None:
    # Quotes and backslashes next to the secret: JSON escapes them, and a cut through an
    # escape would leave invalid JSON.
    data = {"text": f' "{secret}"\\{secret}\\'.join(parts or [""]), "n": [secret, 3]}
    out = redact(json.dumps(data), [ENV_SECRET])
    loaded = json.loads(out)
    assert secret not in json.dumps(loaded)


def test_json_data_is_redacted_string_by_string() -> None:
    data = {"a": [f"x {KEY}", 1, None, {"b": ENV_SECRET}]}
    assert redact_json(data, [ENV_SECRET]) == {"a": ["x ***", 1, None, {"b": "***"}]}


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("INPUT_GITHUB-TOKEN", True),
        ("INPUT_GITHUB_TOKEN", True),
        ("input_github-token", True),
        ("GITHUB_TOKEN", True),
        ("INPUT_API-KEY", True),
        ("OPENAI_API_KEY", True),
        ("ANTHROPIC-APIKEY", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("DB_PASSWORD", True),
        ("HF_TOKEN", True),
        ("TOKEN", True),
        ("INPUT_MAX-TOKENS", False),
        ("INPUT_CONTEXT-TOKENS", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("HOME", False),
    ],
)
def test_secret_variables_whatever_their_spelling(name: str, secret: bool) -> None:
    value = "a-long-enough-value-123"
    assert (value in secret_values({name: value})) is secret


def test_keys_given_as_any_input_are_secrets_too() -> None:
    found = secret_values({"INPUT_MODEL": f"openai/{KEY}", "INPUT_MODE": "review"})
    assert found == [KEY]


def test_masked_values_are_redacted_only_while_registered() -> None:
    value = "registered-value-987"
    with masking([value, "short"]):
        assert redact(f"echo {value}") == "echo ***"
        assert redact("short and sweet") == "short and sweet"  # too short to be a secret
    assert redact(f"echo {value}") == f"echo {value}"


def test_a_redacted_review_keeps_its_fingerprints() -> None:
    finding = Finding(
        agent=AgentName.SECURITY,
        file_path="app.py",
        line_start=1,
        line_end=1,
        severity=Severity.HIGH,
        category=Category.HARDCODED_SECRET,
        title=f"Key {KEY}",
        description=f"The key {KEY} is committed.",
        suggested_fix=f"# was {KEY}",
        confidence=0.9,
        sources=("model",),
        anchor_text=f'KEY = "{KEY}"',
        disputed=f"the model says {KEY} is fake",
    )
    review = Review(
        findings=(finding,),
        health_score=80,
        verdict=Verdict.REQUEST_CHANGES,
        summary=f"found {KEY}",
        agents=(),
        warnings=(f"the PR body says {KEY}",),
    )
    clean = redact_review(review)
    [kept] = clean.findings
    assert kept.fingerprint == finding.fingerprint
    texts = [kept.title, kept.description, kept.suggested_fix, kept.disputed, clean.summary]
    assert all(KEY not in str(t) and REDACTED in str(t) for t in [*texts, *clean.warnings])
