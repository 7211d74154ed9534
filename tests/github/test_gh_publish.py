"""Publishing against the stand-in: one review, idempotent re-runs, 422 bisect, 403."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from ghfakes import FindingFactory, make_review, render_stub
from ghstandin import FIXTURES, GitHubStandIn

from code_guard.change.diff import Change, parse_diff
from code_guard.findings import Finding, Review, Severity
from code_guard.github.client import GitHubClient
from code_guard.github.comments import fingerprints_in
from code_guard.github.publish import (
    REJECTED_REASON,
    SUMMARY_MARKER,
    PublishResult,
    Unplaced,
    find_rejected,
    publish_review,
)
from code_guard.github.summary import summary_comment

NEW_SHA = "f" * 40


def publish(client: GitHubClient, review: Review, change: Change, sha: str) -> PublishResult:
    def body(unplaced: Unplaced) -> str:
        return summary_comment(review, sha, unplaced, render_stub)

    return publish_review(client, review, change, sha, max_inline=25, summary_body=body)


@pytest.fixture
def findings(make_finding: FindingFactory) -> tuple[Finding, ...]:
    return (
        make_finding(line_start=10, line_end=10, anchor_text="query = ..."),
        make_finding(
            line_start=15,
            line_end=15,
            category="command_injection",
            title="Shell command built from input",
            severity=Severity.CRITICAL,
            anchor_text="subprocess.call",
        ),
        make_finding(line_start=63, line_end=64, severity=Severity.LOW, anchor_text="total"),
    )


def test_one_review_with_every_inline_comment_and_a_summary(
    client: GitHubClient, github: GitHubStandIn, change: Change, findings: tuple[Finding, ...]
) -> None:
    result = publish(client, make_review(*findings), change, github.head_sha)
    [review] = github.visible_reviews()
    assert review["commit_id"] == github.head_sha
    assert [(c["path"], c["line"]) for c in review["comments"]] == [
        ("app/db.py", 15),
        ("app/db.py", 10),
        ("app/db.py", 64),
    ]
    assert all("position" not in c for c in review["comments"])
    [post] = github.calls("POST", "/reviews$")
    assert post.body["event"] == "COMMENT"
    [summary] = github.issue_comments
    assert summary["body"].startswith(SUMMARY_MARKER)
    assert f"Updated for commit {github.head_sha}" in summary["body"]
    assert result.review_url == review["html_url"]
    assert (result.inline_posted, result.in_summary, result.denied) == (3, (), None)
    assert result.published


def test_rerun_on_the_same_commit_posts_nothing_new(
    client: GitHubClient, github: GitHubStandIn, change: Change, findings: tuple[Finding, ...]
) -> None:
    review = make_review(*findings)
    publish(client, review, change, github.head_sha)
    again = publish(client, review, change, github.head_sha)
    assert len(github.visible_reviews()) == 1
    assert len(github.issue_comments) == 1
    assert github.calls("PATCH", "/issues/comments/") == []  # same body: left as it is
    assert (again.already_commented, again.inline_posted, again.review_url) == (3, 0, "")
    assert again.summary_url == github.issue_comments[0]["html_url"]


def test_rerun_on_a_new_commit_posts_only_new_findings_and_edits_the_summary(
    client: GitHubClient,
    github: GitHubStandIn,
    change: Change,
    findings: tuple[Finding, ...],
    make_finding: FindingFactory,
) -> None:
    publish(client, make_review(*findings), change, github.head_sha)
    diff = github.diff.replace("+    return total", "+    return total  # counted")
    github.push(NEW_SHA, diff)
    new = make_finding(line_start=13, line_end=13, anchor_text="", title="Blank lines")
    moved = findings[0].model_copy(update={"line_start": 11, "line_end": 11})
    result = publish(client, make_review(moved, findings[1], new), parse_diff(diff), NEW_SHA)
    reviews = github.visible_reviews()
    assert len(reviews) == 2
    assert [c["line"] for c in reviews[1]["comments"]] == [13]
    assert reviews[1]["commit_id"] == NEW_SHA
    assert len(github.issue_comments) == 1
    assert f"Updated for commit {NEW_SHA}" in github.issue_comments[0]["body"]
    assert len(github.calls("PATCH", "/issues/comments/")) == 1
    assert result.already_commented == 2
    bodies = [c["body"] for c in github.review_comments]
    assert len(fingerprints_in(bodies)) == len(bodies) == 4


def test_a_comment_github_rejects_is_bisected_out_and_moved_to_the_summary(
    client: GitHubClient, github: GitHubStandIn, change: Change, findings: tuple[Finding, ...]
) -> None:
    github.rejects = lambda comment: comment["line"] == 10
    result = publish(client, make_review(*findings), change, github.head_sha)
    [review] = github.visible_reviews()
    assert [c["line"] for c in review["comments"]] == [15, 64]
    assert result.in_summary == ((findings[0], REJECTED_REASON),)
    assert result.inline_posted == 2
    assert "SQL built with string formatting" in github.issue_comments[0]["body"]
    assert "Not posted inline (1)" in github.issue_comments[0]["body"]
    assert [r["state"] for r in github.reviews] == ["COMMENTED"]  # probes were deleted
    probes = [c for c in github.calls("POST", "/reviews$") if "event" not in c.body]
    assert probes and len(github.calls("DELETE", "/reviews/")) == sum(
        1 for p in probes if not any(c["line"] == 10 for c in p.body["comments"])
    )


def test_a_review_github_refuses_whole_sends_everything_to_the_summary(
    client: GitHubClient, github: GitHubStandIn, change: Change, findings: tuple[Finding, ...]
) -> None:
    result = publish(client, make_review(*findings), change, "0" * 40)  # not the head commit
    assert github.visible_reviews() == []
    assert len(result.in_summary) == 3
    assert {why for _, why in result.in_summary} == {REJECTED_REASON}
    assert result.summary_url and result.published
    assert len(github.calls("POST", "/reviews$")) == 2  # the review, then one empty probe


def test_read_only_token_is_reported_not_raised(
    client: GitHubClient, github: GitHubStandIn, change: Change, findings: tuple[Finding, ...]
) -> None:
    github.read_only = True
    result = publish(client, make_review(*findings), change, github.head_sha)
    assert result.denied is not None and "Resource not accessible" in result.denied
    assert not result.published
    assert result.posted_fingerprints == frozenset()
    assert len(result.in_summary) == 3


@pytest.mark.parametrize(
    ("size", "bad"), [(1, {0}), (8, {3}), (8, {0, 7}), (7, {1, 2, 3, 4, 5, 6, 0}), (13, {5, 12})]
)
def test_find_rejected_finds_exactly_the_bad_items(size: int, bad: set[int]) -> None:
    asked: list[list[int]] = []

    def accepts(batch: Sequence[int]) -> bool:
        asked.append(list(batch))
        return not bad & set(batch)

    assert find_rejected(list(range(size)), accepts) == sorted(bad)
    assert len(asked) <= 2 * len(bad) * max(1, size.bit_length())


def test_markers_from_another_bot_are_ignored(
    client: GitHubClient, github: GitHubStandIn, change: Change, findings: tuple[Finding, ...]
) -> None:
    spoof = f"<!-- code-guard:fp={findings[0].fingerprint} --> {SUMMARY_MARKER}"
    github.add_comment_by("evil-bot[bot]", "NONE", spoof, review=True, kind="Bot")
    github.add_comment_by("evil-bot[bot]", "NONE", spoof, review=False, kind="Bot")
    result = publish(client, make_review(*findings), change, github.head_sha)
    assert result.already_commented == 0
    assert github.issue_comments[0]["body"] == spoof  # another bot's comment is not taken over
    assert github.issue_comments[1]["body"].startswith(SUMMARY_MARKER)


def test_diff_fixture_is_what_the_standin_serves(github: GitHubStandIn) -> None:
    assert github.diff == (FIXTURES / "pull_request.diff").read_text(encoding="utf-8")


def test_markers_from_outside_contributors_are_ignored(
    client: GitHubClient, github: GitHubStandIn, change: Change, findings: tuple[Finding, ...]
) -> None:
    fp = findings[0].fingerprint
    spoof = f"<!-- code-guard:fp={fp} --> {SUMMARY_MARKER}"
    github.add_comment_by("mallory", "FIRST_TIME_CONTRIBUTOR", spoof, review=True)
    github.add_comment_by("mallory", "FIRST_TIME_CONTRIBUTOR", spoof, review=False)
    github.add_comment_by(
        "maintainer", "MEMBER", f"<!-- code-guard:fp={findings[1].fingerprint} -->", review=True
    )
    github.permissions["maintainer"] = "write"
    result = publish(client, make_review(*findings), change, github.head_sha)
    assert result.inline_posted == 2 and result.already_commented == 1
    assert github.issue_comments[0]["body"] == spoof  # not taken over
    assert github.issue_comments[1]["body"].startswith(SUMMARY_MARKER)
