"""Every REST call the action makes, through PyGithub, with its errors wrapped.

``GitHubClient`` is the seam between the action and GitHub: publishing code and tests talk
to it, never to PyGithub. Every PyGithub or ``requests`` error is re-raised as
``code_guard.errors.GitHubError`` (403 as ``PermissionDenied``), carrying the HTTP status and
GitHub's message, never the token.

Calls, and the REST operations they use (kept in step with ``scripts/trim_openapi.py``):

- ``pull_request``: ``GET /repos/{o}/{r}/pulls/{n}``
- ``diff``: the same URL with ``Accept: application/vnd.github.v3.diff``; on GitHub's 406 for a
  diff that is too large, ``GET .../pulls/{n}/files`` (paginated) and each file's ``patch``
- ``file_text``: ``GET /repos/{o}/{r}/contents/{path}?ref=SHA``
- ``review_comment_bodies``: ``GET .../pulls/{n}/comments`` (paginated)
- ``create_review`` / ``delete_review``: ``POST .../pulls/{n}/reviews``, ``DELETE .../{id}``
- ``find_issue_comment`` / ``create_issue_comment`` / ``edit_issue_comment``:
  ``GET|POST /repos/{o}/{r}/issues/{n}/comments``, ``PATCH .../issues/comments/{id}``
- ``can_write`` / ``role_of``: ``GET /repos/{o}/{r}/collaborators/{username}/permission``
- ``comments``: the two lists above, every comment with its author and times (for commands)

Everything the client posts (a review's body and inline comments, issue comments) is
redacted here, the last place it passes before GitHub (``sanitize.redact``).

Whose comments count (``trusts``): the hidden markers in them decide what is "already
posted" and which comment is the summary, so only this action's own identity and people
who can write to the repository are believed. Write access is read from the collaborator
permission API (``admin``, ``maintain`` or ``write``), once per login per run, and asked only
for authors GitHub associates with the repository (owner, member, collaborator): an
association alone says nothing about access, since every member of an organisation is a
``MEMBER``, including those who may only read. A failed permission check makes that author
untrusted, and ``trust_problems`` says why.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests
from github import Auth, Github
from github.GithubException import GithubException, RateLimitExceededException

from code_guard.errors import GitHubError, PermissionDenied
from code_guard.github.patches import DiffFetch, diff_from_files
from code_guard.github.retry import RetrySettings
from code_guard.trust.sanitize import redact

DIFF_MEDIA_TYPE = "application/vnd.github.v3.diff"
USER_AGENT = "ninja-code-guard"
# Associations a person with write access has; anyone else is not asked about.
_ASSOCIATED = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
# The permission API's legacy ``permission`` maps ``maintain`` to ``write``; both are listed.
_WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
_ROLES = frozenset({"admin", "maintain", "write", "triage", "read"})


@dataclass(frozen=True, slots=True)
class PullRequestInfo:
    """What the action needs to know about a pull request, read from the API."""

    number: int
    head_sha: str
    base_sha: str
    title: str
    body: str
    draft: bool
    state: str
    html_url: str
    author: str = ""  # the login of whoever opened it


@dataclass(frozen=True, slots=True)
class CommentRef:
    """A comment on the pull request by anyone, as a command is judged: who wrote it (and
    how GitHub associates them with the repository), when, whether it was edited since, and
    the inline comment it replies to."""

    id: int
    body: str
    login: str
    association: str
    created_at: str
    updated_at: str
    html_url: str
    inline: bool  # a review comment (on a line), else a comment on the conversation
    in_reply_to: int | None = None
    path: str = ""  # a review comment's file
    # A review comment's line; None once it is outdated (a push changed the lines it was on).
    line: int | None = None

    @property
    def edited(self) -> bool:
        """True when the comment changed after it was posted (by whom, GitHub does not say)."""
        return self.updated_at != self.created_at


@dataclass(frozen=True, slots=True)
class IssueCommentRef:
    """An existing issue comment on the pull request."""

    id: int
    body: str
    html_url: str


@dataclass(frozen=True, slots=True)
class PostedReview:
    """A review GitHub accepted."""

    id: int
    html_url: str
    state: str


class GitHubClient:
    """The pull request's side of the GitHub REST API, for one repository."""

    def __init__(self, github: Github, repository: str, number: int) -> None:
        self._github = github
        self._repo = github.get_repo(repository)
        self._pull = self._repo.get_pull(number)
        self.number = number
        self._roles: dict[str, str | None] = {}
        # Why an author's comments were not trusted when GitHub could not say (not a 404).
        self.trust_problems: list[str] = []

    @classmethod
    def connect(
        cls, token: str, api_url: str, repository: str, number: int, settings: RetrySettings
    ) -> GitHubClient:
        """Build a client for ``api_url`` (GitHub.com or an Enterprise Server's ``/api/v3``)."""
        github = Github(
            auth=Auth.Token(token) if token else None,
            base_url=api_url,
            timeout=settings.timeout_s,
            user_agent=USER_AGENT,
            per_page=100,
            retry=settings.retry(),
            # GitHub asks integrations to pace writes; the settings let tests skip the wait.
            seconds_between_requests=None,
            seconds_between_writes=settings.seconds_between_writes or None,
            lazy=True,
        )
        return cls(github, repository, number)

    def pull_request(self) -> PullRequestInfo:
        """Fetch the pull request's metadata."""
        with calling(f"fetching pull request #{self.number}"):
            pr = self._pull
            return PullRequestInfo(
                number=pr.number,
                head_sha=pr.head.sha,
                base_sha=pr.base.sha,
                title=pr.title or "",
                body=pr.body or "",
                draft=bool(pr.draft),
                state=pr.state,
                html_url=pr.html_url,
                author=str(getattr(pr.user, "login", "") or "") if pr.user is not None else "",
            )

    def diff(self) -> DiffFetch:
        """Fetch the unified diff; fall back to per-file patches when GitHub says too large."""
        try:
            with calling(f"fetching the diff of pull request #{self.number}"):
                _, data = self._github.requester.requestJsonAndCheck(
                    "GET", self._pull.url, headers={"Accept": DIFF_MEDIA_TYPE}
                )
        except GitHubError as exc:
            # 406 is GitHub's answer for a diff over its size limits (300 files, 20,000 lines).
            if exc.status != 406:
                raise
            return self._diff_from_files()
        text = data.get("data", "") if isinstance(data, dict) else ""
        return DiffFetch(text=str(text), skipped=(), via_files_api=False)

    def _diff_from_files(self) -> DiffFetch:
        with calling(f"listing the files of pull request #{self.number}"):
            files = [
                {
                    "filename": f.filename,
                    "previous_filename": f.previous_filename,
                    "status": f.status,
                    "patch": f.patch,
                    "changes": f.changes,
                }
                for f in self._pull.get_files()
            ]
        return diff_from_files(files)

    def file_text(self, path: str, ref: str) -> str | None:
        """Return a file's text at ``ref``, or None when it is missing, binary or over 1 MB."""
        try:
            with calling(f"fetching {path} at {ref[:12]}"):
                content = self._repo.get_contents(path, ref=ref)
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        if isinstance(content, list):
            return None  # a directory listing: the path is now a folder or a submodule
        encoding, raw = content.encoding, content.content
        if encoding != "base64" or raw is None:
            return None  # GitHub sends no content for files over 1 MB
        try:
            return base64.b64decode(raw).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None

    def review_comment_bodies(self) -> list[str]:
        """Bodies of the trusted review comments on the pull request (all pages)."""
        with calling(f"listing review comments of pull request #{self.number}"):
            comments = list(self._pull.get_review_comments())
        return [c.body or "" for c in comments if self.trusts(c)]

    def comments(self) -> list[CommentRef]:
        """Every review comment and conversation comment on the pull request, trusted or
        not, oldest first (all pages)."""
        with calling(f"listing review comments of pull request #{self.number}"):
            inline = [
                _comment_ref(c, inline=True) for c in self._pages(f"{self._pull.url}/comments")
            ]
        issues = f"{self._repo.url}/issues/{self.number}/comments"
        with calling(f"listing comments of pull request #{self.number}"):
            issue = [_comment_ref(c, inline=False) for c in self._pages(issues)]
        return sorted((*inline, *issue), key=lambda c: (c.created_at, c.id))

    def _pages(self, url: str) -> Iterator[dict[str, Any]]:
        """Every item of a list operation on this pull request (``pages``)."""
        return pages(self._github, url)

    def create_review(
        self,
        commit_id: str,
        body: str,
        comments: Sequence[Mapping[str, object]],
        event: str | None,
    ) -> PostedReview:
        """Create a review pinned to ``commit_id``; ``event=None`` leaves it pending."""
        payload: dict[str, object] = {"commit_id": commit_id, "body": redact(body)}
        payload["comments"] = [
            {**c, "body": redact(str(c["body"]))} if "body" in c else dict(c) for c in comments
        ]
        if event is not None:
            payload["event"] = event
        with calling(f"posting a review on pull request #{self.number}"):
            _, data = self._github.requester.requestJsonAndCheck(
                "POST", f"{self._pull.url}/reviews", input=payload
            )
        return PostedReview(
            id=int(data["id"]),
            html_url=str(data.get("html_url", "")),
            state=str(data.get("state", "")),
        )

    def delete_review(self, review_id: int) -> None:
        """Delete a pending review (used to probe which comments GitHub accepts)."""
        with calling(f"deleting pending review {review_id}"):
            self._github.requester.requestJsonAndCheck(
                "DELETE", f"{self._pull.url}/reviews/{review_id}"
            )

    def compare(self, base: str, head: str) -> tuple[str, list[str]]:
        """How ``head`` relates to ``base`` (``ahead``, ``behind``, ``diverged``,
        ``identical``) and the files changed between them (at most 300, GitHub's limit)."""
        with calling(f"comparing {base[:7]}...{head[:7]}"):
            _, data = self._github.requester.requestJsonAndCheck(
                "GET", f"{self._repo.url}/compare/{base}...{head}"
            )
        files = [str(f["filename"]) for f in data.get("files") or [] if f.get("filename")]
        return str(data.get("status", "")), files

    def find_issue_comment(self, marker: str) -> IssueCommentRef | None:
        """Return the first issue comment on the pull request whose body holds ``marker``."""
        with calling(f"listing comments of pull request #{self.number}"):
            comments = list(self._pull.get_issue_comments())
        for comment in comments:
            if marker in (comment.body or "") and self.trusts(comment):
                return IssueCommentRef(comment.id, comment.body, comment.html_url)
        return None

    def create_issue_comment(self, body: str) -> IssueCommentRef:
        """Add a comment to the pull request's conversation."""
        with calling(f"commenting on pull request #{self.number}"):
            comment = self._pull.create_issue_comment(redact(body))
            return IssueCommentRef(comment.id, comment.body, comment.html_url)

    def edit_issue_comment(self, comment_id: int, body: str) -> IssueCommentRef:
        """Replace the body of an existing issue comment."""
        with calling(f"editing comment {comment_id}"):
            _, data = self._github.requester.requestJsonAndCheck(
                "PATCH",
                f"{self._repo.url}/issues/comments/{comment_id}",
                input={"body": redact(body)},
            )
        return IssueCommentRef(int(data["id"]), str(data["body"]), str(data["html_url"]))

    def trusts(self, comment: Any) -> bool:
        """True for a comment by this action's own identity or by someone who can write to
        the repository (see the module's docstring)."""
        login = getattr(comment.user, "login", None) if comment.user is not None else None
        if not login:
            return False
        if login == bot_login():
            return True
        return comment.author_association in _ASSOCIATED and self.can_write(str(login))

    def can_write(self, login: str) -> bool:
        """Whether ``login`` has write, maintain or admin access (asked once per run)."""
        return self.role_of(login) in _WRITE_PERMISSIONS

    def role_of(self, login: str) -> str | None:
        """``login``'s role on the repository (``admin``, ``maintain``, ``write``, ``triage``,
        ``read``), or None when they have none or GitHub could not say (asked once per run)."""
        if login not in self._roles:
            self._roles[login] = self._ask_permission(login)
        return self._roles[login]

    def _ask_permission(self, login: str) -> str | None:
        try:
            with calling(f"checking the permission of {login}"):
                _, data = self._github.requester.requestJsonAndCheck(
                    "GET", f"{self._repo.url}/collaborators/{quote(login, safe='')}/permission"
                )
        except GitHubError as exc:
            # 404: not a collaborator (or no such user), which is an answer, not a problem.
            if exc.status != 404:
                self.trust_problems.append(f"{exc}; their comments are not trusted")
            return None
        # ``permission`` is the legacy answer (maintain reads as write); ``role_name`` keeps
        # the role's own name, unless it is a custom role, whose base the legacy one gives.
        role, legacy = str(data.get("role_name") or ""), str(data.get("permission") or "")
        return role if role in _ROLES else legacy or None


def _comment_ref(data: dict[str, Any], *, inline: bool) -> CommentRef:
    user = data.get("user")
    login = str(user.get("login") or "") if isinstance(user, dict) else ""
    reply = data.get("in_reply_to_id") if inline else None
    return CommentRef(
        id=int(data["id"]),
        body=str(data.get("body") or ""),
        login=login,
        association=str(data.get("author_association") or ""),
        created_at=str(data.get("created_at") or ""),
        updated_at=str(data.get("updated_at") or ""),
        html_url=str(data.get("html_url") or ""),
        inline=inline,
        in_reply_to=int(reply) if isinstance(reply, int) else None,
        path=str(data.get("path") or ""),
        line=line if isinstance(line := data.get("line"), int) else None,
    )


def pages(
    github: Github, url: str, parameters: Mapping[str, Any] | None = None
) -> Iterator[dict[str, Any]]:
    """Every item of a list operation, following the ``Link: rel="next"`` headers. Read as
    plain JSON: PyGithub would fetch each comment again to read a field GitHub leaves out
    (``in_reply_to_id`` of a comment that is not a reply). Errors are the caller's to wrap
    (``calling``)."""
    next_url: str | None = url
    query: dict[str, Any] | None = {"per_page": 100, **(parameters or {})}
    while next_url:
        headers, data = github.requester.requestJsonAndCheck("GET", next_url, parameters=query)
        yield from (item for item in data if isinstance(item, dict))
        query = None  # the next link carries them
        next_url = _next_link(str(headers.get("link", "")))


def _next_link(header: str) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, or None on the last page."""
    for part in header.split(","):
        url, _, rel = part.partition(";")
        if rel.strip().replace(" ", "") == 'rel="next"':
            return url.strip().strip("<>")
    return None


# The account the Actions ``GITHUB_TOKEN`` writes as. A GitHub App token writes as its own
# ``<slug>[bot]``: set CODE_GUARD_BOT_LOGIN to that login.
ACTIONS_BOT = "github-actions[bot]"


def bot_login() -> str:
    """The login whose comments are this action's own."""
    return os.environ.get("CODE_GUARD_BOT_LOGIN", "").strip() or ACTIONS_BOT


@contextmanager
def calling(what: str) -> Iterator[None]:
    """Re-raise PyGithub and ``requests`` errors raised inside as ``GitHubError``."""
    try:
        yield
    except RateLimitExceededException as exc:
        raise GitHubError(
            f"{what}: GitHub's rate limit still applied after retrying ({describe(exc)})",
            status=exc.status,
        ) from exc
    except GithubException as exc:
        error = PermissionDenied if exc.status == 403 else GitHubError
        raise error(f"{what}: GitHub answered {exc.status}: {describe(exc)}", exc.status) from exc
    except requests.RequestException as exc:
        raise GitHubError(f"{what}: {type(exc).__name__}: {exc}") from exc


def describe(exc: GithubException) -> str:
    """GitHub's error message plus the first entry of its ``errors`` list, if any."""
    data = exc.data if isinstance(exc.data, dict) else {}
    message = str(data.get("message") or exc.message or "no message")
    errors = data.get("errors")
    if isinstance(errors, list) and errors:
        first = errors[0]
        detail = first.get("message") or first.get("code") if isinstance(first, dict) else first
        if detail:
            message += f" ({detail})"
    return message
