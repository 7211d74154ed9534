"""Fixtures for the GitHub Action tests: the API stand-in, a client on it, findings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ghfakes import FAST_RETRY, TOKEN, FindingFactory
from ghstandin import FIXTURES, NUMBER, OWNER, REPO, GitHubStandIn, load_spec
from pytest_httpserver import HTTPServer

from code_guard.change.diff import Change, parse_diff
from code_guard.findings import AgentName, Category, Finding, Severity
from code_guard.github.client import GitHubClient


@pytest.fixture
def github(httpserver: HTTPServer) -> Iterator[GitHubStandIn]:
    """The REST API stand-in; fails the test if any request broke GitHub's OpenAPI contract."""
    standin = GitHubStandIn(httpserver, load_spec(httpserver.url_for("").rstrip("/")))
    yield standin
    assert standin.invalid == [], "requests not valid per GitHub's OpenAPI description"


@pytest.fixture
def client(github: GitHubStandIn) -> GitHubClient:
    """A client for pull request #7 on the stand-in."""
    return GitHubClient.connect(TOKEN, github.base_url, f"{OWNER}/{REPO}", NUMBER, FAST_RETRY)


@pytest.fixture
def change() -> Change:
    """The parsed diff of pull request #7."""
    return parse_diff((FIXTURES / "pull_request.diff").read_text(encoding="utf-8"))


@pytest.fixture
def make_finding() -> FindingFactory:
    """Build a finding on ``app/db.py`` with overridable fields."""

    def make(**overrides: Any) -> Finding:
        values: dict[str, Any] = {
            "agent": AgentName.SECURITY,
            "file_path": "app/db.py",
            "line_start": 10,
            "line_end": 10,
            "severity": Severity.HIGH,
            "category": Category.SQL_INJECTION,
            "title": "SQL built with string formatting",
            "description": "The query interpolates `name`, so a crafted name rewrites the SQL.",
            "confidence": 0.9,
            "sources": ("bandit",),
        }
        values.update(overrides)
        return Finding(**values)

    return make
