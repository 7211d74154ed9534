"""The exception tree of Ninja Code Guard.

Library code raises these; only the CLI and the action entrypoint turn them into one line for
the user and an exit code.

    CodeGuardError
    ├── InputError            bad input from the user: the run cannot start (exit 2)
    │   ├── DiffError         a malformed diff
    │   ├── ConfigError       a bad option, flag, action input or config file
    │   ├── EventError        a missing or malformed GitHub event payload
    │   └── DatasetError      an eval dataset that cannot be read at all
    ├── ModelError            the LLM could not give a valid answer
    │   ├── TransientModelError   rate limit, 5xx, timeout, connection: worth a retry
    │   ├── PermanentModelError   auth, bad request, unknown model: never retried
    │   └── InvalidAnswerError    the answer was not valid JSON for the schema, or cut off
    ├── ToolError             a static analyser crashed or could not be started
    └── GitHubError           the GitHub API refused or failed
        └── PermissionDenied  403: the token cannot write (fork PR, missing permission)
"""

from __future__ import annotations


class CodeGuardError(Exception):
    """Base of every error this package raises on purpose."""


class InputError(CodeGuardError):
    """The user's input is unusable; the message says what and where."""


class DiffError(InputError):
    """The diff could not be parsed."""


class ConfigError(InputError):
    """An option, flag, action input or config file is invalid."""


class EventError(InputError):
    """The GitHub event payload is missing or malformed."""


class DatasetError(InputError):
    """An eval dataset directory cannot be read at all."""


class ModelError(CodeGuardError):
    """The model failed to give a valid answer.

    ``spent`` holds the tokens and cost of the answers that were received but unusable, so a
    failed model pass still reports what it cost (a ``code_guard.findings.Usage``, or None).
    """

    spent: object | None = None


class TransientModelError(ModelError):
    """A failure worth retrying; ``retry_after`` is the server's hint in seconds, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentModelError(ModelError):
    """A failure that a retry cannot fix (bad key, bad request, unknown model)."""


class BudgetExhaustedError(ModelError):
    """The review's token or cost cap was reached: no further model call is sent."""


class InvalidAnswerError(ModelError):
    """The model's answer did not validate against the response schema, or was cut off."""


class ToolError(CodeGuardError):
    """A static analyser could not run."""


class GitHubError(CodeGuardError):
    """A GitHub API call failed; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class PermissionDenied(GitHubError):
    """GitHub answered 403: the token is read-only for this repository."""
