"""How the action retries GitHub: bounded backoff for 5xx, waits for secondary rate limits.

PyGithub's ``GithubRetry`` already knows GitHub's rate-limit answers (403 or 429 with
``Retry-After``, or a "secondary rate limit" message); this subclass adds two rules:

- A ``POST`` is retried only when GitHub refused it for a rate limit. A ``POST`` answered
  with a 5xx may still have been applied, and retrying it could post a second review.
- A ``Retry-After`` longer than ``max_rate_limit_wait`` is not waited out: the run fails
  with a clear message instead of sleeping through the job's time limit.

The numbers live in ``RetrySettings`` so tests pass tiny ones instead of patching sleeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Any

from github.GithubException import RateLimitExceededExceedsMaxWait, RateLimitExceededException
from github.GithubRetry import GithubRetry
from urllib3 import Retry
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import MaxRetryError
from urllib3.response import BaseHTTPResponse, HTTPResponse

# Statuses GitHub uses to refuse a request before doing anything with it.
_RATE_LIMITED = frozenset({403, 429})


@dataclass(frozen=True, slots=True)
class RetrySettings:
    """Retry and pacing settings of the GitHub client."""

    total: int = 4
    backoff_factor: float = 2.0
    backoff_max: float = 60.0
    secondary_rate_wait: float = 60.0
    max_rate_limit_wait: float = 300.0
    timeout_s: int = 30
    seconds_between_writes: float = 1.0

    def retry(self) -> ActionRetry:
        """Build the urllib3 retry policy for PyGithub's ``retry=`` argument."""
        return ActionRetry(
            secondary_rate_wait=self.secondary_rate_wait,
            max_rate_limit_wait=self.max_rate_limit_wait,
            total=self.total,
            backoff_factor=self.backoff_factor,
            backoff_max=self.backoff_max,
            status_forcelist=[*range(500, 600), 429],
            # PATCH only ever edits the summary comment to a given body: safe to repeat.
            allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"PATCH"},
            # Give PyGithub the last answer rather than urllib3's MaxRetryError, so the
            # failure carries GitHub's status and message.
            raise_on_status=False,
        )


class ActionRetry(GithubRetry):
    """``GithubRetry`` that never repeats a possibly-applied POST and caps Retry-After."""

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        """Retry idempotent methods as usual, and a POST only when it was rate limited."""
        if method.upper() == "POST":
            return status_code in _RATE_LIMITED and bool(self.total)
        return bool(super().is_retry(method, status_code, has_retry_after))

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: HTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        """Count one retry; when a rate limit outlasts them all, say so.

        ``GithubRetry`` reads a 403's body to spot rate limits, so once retries run out the
        body PyGithub would report is gone; raise the rate-limit error here instead.
        """
        try:
            return super().increment(method, url, response, error, _pool, _stacktrace)
        except MaxRetryError as exc:
            if response is None or response.status not in _RATE_LIMITED:
                raise
            message = f"{len(self.history) + 1} attempts"
            raise RateLimitExceededException(
                response.status, {"message": message}, dict(response.headers)
            ) from exc

    def get_retry_after(self, response: BaseHTTPResponse) -> float | None:
        """GitHub's ``Retry-After``; raise rather than wait longer than the cap."""
        wait: Any = super().get_retry_after(response)
        cap = self.max_rate_limit_wait
        if wait is not None and cap is not None and wait > cap:
            raise RateLimitExceededExceedsMaxWait(
                response.status, {"message": "rate limited"}, dict(response.headers), wait=wait
            )
        return None if wait is None else float(wait)
