"""The webhook payload the runner hands the container, parsed once at the edge.

Only ``pull_request`` and ``pull_request_target`` events for a PR that is open, not a draft,
and was just opened, pushed to, reopened or marked ready are reviewed; anything else becomes a
``Skip`` with a reason the entrypoint prints as a notice.

The payload models ignore unknown fields on purpose, unlike the project's other edge models:
GitHub's payloads carry hundreds of fields and gain new ones without notice, and rejecting a
run because GitHub added a field would be wrong. The fields that are read are typed strictly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from code_guard.errors import EventError

PR_EVENTS = ("pull_request", "pull_request_target")
REVIEWED_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review")


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class RepositoryPayload(_Payload):
    """The repository a payload is about."""

    full_name: str = Field(pattern=r"^[^/\s]+/[^/\s]+$")


class RefPayload(_Payload):
    """One side of a pull request: branch name and commit."""

    ref: str
    sha: str = Field(pattern=r"^[0-9a-f]{40}$")
    repo: RepositoryPayload | None = None  # null when the fork was deleted


class PullRequestPayload(_Payload):
    """The ``pull_request`` object of the payload."""

    number: int = Field(ge=1)
    state: str
    draft: bool = False
    title: str = ""
    body: str | None = None
    html_url: str = ""
    head: RefPayload
    base: RefPayload


class PullRequestEvent(_Payload):
    """A ``pull_request`` or ``pull_request_target`` webhook payload."""

    action: str
    number: int = Field(ge=1)
    pull_request: PullRequestPayload
    repository: RepositoryPayload


@dataclass(frozen=True, slots=True)
class PullRequestTarget:
    """The pull request a run reviews, as the event names it."""

    repository: str
    number: int
    head_sha: str
    base_sha: str
    title: str
    body: str
    from_fork: bool
    action: str = "opened"  # the pull_request event's action: synchronize is a new push

    @property
    def owner_and_name(self) -> tuple[str, str]:
        """The repository's owner and name."""
        owner, name = self.repository.split("/", 1)
        return owner, name


@dataclass(frozen=True, slots=True)
class Skip:
    """The event is not one to review; ``reason`` says why."""

    reason: str


def load_event(event_name: str, event_path: str | None) -> PullRequestTarget | Skip:
    """Read the payload at ``event_path``; raise ``EventError`` if it is missing or malformed."""
    if event_name not in PR_EVENTS:
        return Skip(f"event {event_name or '(none)'!r} is not a pull request event; nothing to do")
    payload = _read_json(event_path)
    try:
        event = PullRequestEvent.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        raise EventError(f"malformed {event_name} event payload: {where}: {first['msg']}") from exc
    return _decide(event)


def _read_json(event_path: str | None) -> object:
    if not event_path:
        raise EventError("GITHUB_EVENT_PATH is not set: is this running inside GitHub Actions?")
    path = Path(event_path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EventError(f"cannot read the event payload {path}: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EventError(f"the event payload {path} is not valid JSON: {exc.msg}") from exc


def _decide(event: PullRequestEvent) -> PullRequestTarget | Skip:
    pr = event.pull_request
    if event.action not in REVIEWED_ACTIONS:
        wanted = ", ".join(REVIEWED_ACTIONS)
        return Skip(f"pull request action {event.action!r} is not reviewed (only: {wanted})")
    if pr.state != "open":
        return Skip(f"pull request #{pr.number} is {pr.state}; nothing to review")
    if pr.draft:
        return Skip(f"pull request #{pr.number} is a draft; it is reviewed once marked ready")
    head_repo = pr.head.repo.full_name if pr.head.repo else None
    return PullRequestTarget(
        repository=event.repository.full_name,
        number=pr.number,
        head_sha=pr.head.sha,
        base_sha=pr.base.sha,
        title=pr.title,
        body=pr.body or "",
        from_fork=head_repo != event.repository.full_name,
        action=event.action,
    )
