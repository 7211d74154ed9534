"""GitHubClient against the stand-in: fetching, fallbacks, retries and wrapped errors."""

from __future__ import annotations

import time

import pytest
from ghfakes import FAST_RETRY, TOKEN
from ghstandin import NUMBER, OWNER, REPO, Fault, GitHubStandIn

from code_guard.change.diff import parse_diff
from code_guard.errors import GitHubError, PermissionDenied
from code_guard.findings import SkippedFile
from code_guard.github.client import GitHubClient
from code_guard.github.patches import NO_PATCH_REASON
from code_guard.github.retry import RetrySettings

PR = rf"/pulls/{NUMBER}$"
SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID ABCD:1234."
)


def test_pull_request_metadata(client: GitHubClient, github: GitHubStandIn) -> None:
    pr = client.pull_request()
    assert (pr.number, pr.head_sha, pr.state, pr.draft) == (NUMBER, github.head_sha, "open", False)
    assert pr.title == "Look users up by name"
    assert github.requests[0].headers["Authorization"] == f"token {TOKEN}"


def test_diff_is_fetched_with_the_diff_media_type(
    client: GitHubClient, github: GitHubStandIn
) -> None:
    fetched = client.diff()
    assert fetched.text == github.diff
    assert (fetched.skipped, fetched.via_files_api) == ((), False)
    [call] = github.calls("GET", PR)
    assert call.headers["Accept"] == "application/vnd.github.v3.diff"


def test_diff_too_large_falls_back_to_paginated_files(
    client: GitHubClient, github: GitHubStandIn
) -> None:
    github.diff_too_large = True
    github.files.append({"filename": "logo.png", "status": "added", "changes": 0, "sha": "1"})
    fetched = client.diff()
    assert fetched.via_files_api
    assert fetched.skipped == (
        SkippedFile(path="logo.png", reason=NO_PATCH_REASON, deliberate=False),
    )
    rebuilt, original = parse_diff(fetched.text), parse_diff(github.diff)
    assert [(f.path, f.status, dict(f.added)) for f in rebuilt.files] == [
        (f.path, f.status, dict(f.added)) for f in original.files
    ]
    pages = github.calls("GET", rf"/pulls/{NUMBER}/files$")
    assert [c.query.get("page", "1") for c in pages] == ["1", "2"]


def test_file_text_from_the_contents_api(client: GitHubClient, github: GitHubStandIn) -> None:
    assert client.file_text("app/db.py", github.head_sha) == github.contents["app/db.py"]
    assert client.file_text("missing.py", github.head_sha) is None
    call = github.calls("GET", "/contents/app/db.py")[0]
    assert call.query == {"ref": github.head_sha}


def test_server_errors_are_retried_with_backoff(
    client: GitHubClient, github: GitHubStandIn
) -> None:
    github.faults.append(Fault("GET", PR, 502, {"message": "Server Error"}, times=2))
    assert client.pull_request().number == NUMBER
    assert len(github.calls("GET", PR)) == 3


def test_persistent_server_errors_fail_clearly(client: GitHubClient, github: GitHubStandIn) -> None:
    github.faults.append(Fault("GET", PR, 503, {"message": "Service Unavailable"}, times=99))
    with pytest.raises(GitHubError) as caught:
        client.pull_request()
    assert caught.value.status == 503
    assert "fetching pull request #7: GitHub answered 503: Service Unavailable" in str(caught.value)
    assert len(github.calls("GET", PR)) == FAST_RETRY.total + 1


def test_a_post_answered_with_5xx_is_not_repeated(
    client: GitHubClient, github: GitHubStandIn
) -> None:
    # The review may have been created before the 502: posting again could duplicate it.
    github.faults.append(Fault("POST", "/reviews$", 502, {"message": "Server Error"}, times=9))
    with pytest.raises(GitHubError, match="502"):
        client.create_review(github.head_sha, "body", [], "COMMENT")
    assert len(github.calls("POST", "/reviews$")) == 1


@pytest.mark.parametrize("headers", [{"Retry-After": "0"}, {}])
def test_secondary_rate_limit_is_waited_out(
    client: GitHubClient, github: GitHubStandIn, headers: dict[str, str]
) -> None:
    github.faults.append(Fault("POST", "/reviews$", 403, {"message": SECONDARY}, headers))
    posted = client.create_review(github.head_sha, "body", [], "COMMENT")
    assert posted.state == "COMMENTED"
    assert len(github.calls("POST", "/reviews$")) == 2


def test_rate_limit_that_persists_fails_clearly(
    client: GitHubClient, github: GitHubStandIn
) -> None:
    github.faults.append(Fault("GET", PR, 403, {"message": SECONDARY}, times=99))
    with pytest.raises(GitHubError, match="rate limit") as caught:
        client.pull_request()
    assert not isinstance(caught.value, PermissionDenied)
    assert len(github.calls("GET", PR)) == FAST_RETRY.total + 1


def test_429_with_retry_after_is_retried(client: GitHubClient, github: GitHubStandIn) -> None:
    github.faults.append(Fault("GET", PR, 429, {"message": "Too Many"}, {"Retry-After": "0"}))
    assert client.pull_request().number == NUMBER


def test_a_retry_after_beyond_the_cap_is_not_waited(github: GitHubStandIn) -> None:
    settings = RetrySettings(total=3, max_rate_limit_wait=1.0, seconds_between_writes=0.0)
    client = GitHubClient.connect(TOKEN, github.base_url, f"{OWNER}/{REPO}", NUMBER, settings)
    github.faults.append(Fault("GET", PR, 429, {"message": "Slow down"}, {"Retry-After": "600"}))
    started = time.monotonic()
    with pytest.raises(GitHubError, match="rate limit"):
        client.pull_request()
    assert time.monotonic() - started < 5


def test_read_only_token_raises_permission_denied(
    client: GitHubClient, github: GitHubStandIn
) -> None:
    github.read_only = True
    with pytest.raises(PermissionDenied) as caught:
        client.create_issue_comment("hello")
    assert caught.value.status == 403
    assert "Resource not accessible by integration" in str(caught.value)
    assert TOKEN not in str(caught.value)
    assert len(github.calls("POST", "/comments$")) == 1


def test_unreachable_server_is_a_github_error() -> None:
    settings = RetrySettings(total=0, timeout_s=2, seconds_between_writes=0.0)
    client = GitHubClient.connect(TOKEN, "http://127.0.0.1:9", f"{OWNER}/{REPO}", 1, settings)
    with pytest.raises(GitHubError, match="fetching pull request #1: ConnectionError"):
        client.pull_request()


def test_issue_comments_are_found_across_pages(client: GitHubClient, github: GitHubStandIn) -> None:
    for text in ("first", "second", "third <!-- mark -->"):
        client.create_issue_comment(text)
    found = client.find_issue_comment("<!-- mark -->")
    assert found is not None and found.body == "third <!-- mark -->"
    edited = client.edit_issue_comment(found.id, "changed <!-- mark -->")
    assert github.issue_comments[2]["body"] == edited.body == "changed <!-- mark -->"
    assert client.find_issue_comment("<!-- absent -->") is None
