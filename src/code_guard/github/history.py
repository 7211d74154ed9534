"""A repository's recent pull requests, for the feedback report: which were updated since a
date, and a client for each.

Calls: ``GET /repos/{o}/{r}/pulls?state=all&sort=updated&direction=desc`` (paginated, read
until the first pull request updated before the date), then ``GitHubClient``'s calls on each.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from github import Auth, Github

from code_guard.github.client import USER_AGENT, GitHubClient, PullRequestInfo, calling, pages
from code_guard.github.retry import RetrySettings


@dataclass(frozen=True, slots=True)
class PullRequestSeen:
    """A pull request the report looks at, and when it was last updated."""

    info: PullRequestInfo
    updated_at: dt.datetime


class RepoHistory:
    """The pull requests of one repository, newest activity first."""

    def __init__(self, github: Github, repository: str) -> None:
        self._github = github
        self.repository = repository

    @classmethod
    def connect(
        cls, token: str, api_url: str, repository: str, settings: RetrySettings
    ) -> RepoHistory:
        """Connect to ``api_url`` (GitHub.com or an Enterprise Server's ``/api/v3``)."""
        github = Github(
            auth=Auth.Token(token) if token else None,
            base_url=api_url,
            timeout=settings.timeout_s,
            user_agent=USER_AGENT,
            per_page=100,
            retry=settings.retry(),
            lazy=True,
        )
        return cls(github, repository)

    def updated_since(self, since: dt.datetime) -> list[PullRequestSeen]:
        """The pull requests (open or closed) updated at or after ``since``."""
        url = f"{self._github.requester.base_url}/repos/{self.repository}/pulls"
        query = {"state": "all", "sort": "updated", "direction": "desc"}
        seen: list[PullRequestSeen] = []
        with calling(f"listing the pull requests of {self.repository}"):
            for data in pages(self._github, url, query):
                updated = _parse_time(str(data.get("updated_at") or ""))
                if updated is None or updated < since:
                    break  # sorted by update, newest first: the rest are older
                seen.append(PullRequestSeen(_info(data), updated))
        return seen

    def client(self, number: int) -> GitHubClient:
        """A client for pull request ``number``."""
        return GitHubClient(self._github, self.repository, number)


def _info(data: dict[str, object]) -> PullRequestInfo:
    head, base, user = (data.get(k) for k in ("head", "base", "user"))
    return PullRequestInfo(
        number=int(str(data["number"])),
        head_sha=str(head.get("sha", "")) if isinstance(head, dict) else "",
        base_sha=str(base.get("sha", "")) if isinstance(base, dict) else "",
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        draft=bool(data.get("draft")),
        state=str(data.get("state") or ""),
        html_url=str(data.get("html_url") or ""),
        author=str(user.get("login") or "") if isinstance(user, dict) else "",
    )


def _parse_time(text: str) -> dt.datetime | None:
    """GitHub's ``2026-11-28T00:00:05Z`` as an aware datetime, or None."""
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
