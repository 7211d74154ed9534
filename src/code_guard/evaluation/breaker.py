"""A circuit breaker around the model client, so an eval over a dead model stops early.

A model that is down, mis-configured or out of quota fails every call, and each failure costs
its retries (seconds per case). ``CircuitBreaker`` wraps the real client: after
``threshold`` consecutive failed calls it opens, answers every later call at once with
``ModelUnavailable``, and the eval runner stops the run with one clear error instead of
spending the same failure on every remaining case.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from code_guard.errors import ModelError, PermanentModelError
from code_guard.model.interface import Answer, Completion, LLMClient, Message, T

DEFAULT_MAX_MODEL_FAILURES = 5


class ModelUnavailable(PermanentModelError):
    """The breaker is open: too many consecutive model calls failed."""


class CircuitBreaker(LLMClient):
    """An ``LLMClient`` that delegates to ``inner`` and opens after ``threshold`` failures in
    a row; one success in between closes the count again."""

    def __init__(self, inner: LLMClient, threshold: int = DEFAULT_MAX_MODEL_FAILURES) -> None:
        super().__init__(inner.settings)
        if threshold < 1:
            raise ValueError("threshold must be at least 1")
        self.inner = inner
        self.threshold = threshold
        self.consecutive_failures = 0
        self.last_error: str | None = None

    @property
    def open(self) -> bool:
        """True once ``threshold`` calls in a row have failed."""
        return self.consecutive_failures >= self.threshold

    def reason(self) -> str:
        """One line saying why the breaker opened (meaningful once it is open)."""
        return (
            f"stopped after {self.consecutive_failures} consecutive model failures "
            f"({self.model}); last error: {self.last_error or 'unknown'}"
        )

    async def complete(self, messages: Sequence[Message], schema: type[T]) -> Answer[T]:
        """Delegate to the inner client unless the breaker is open; count the outcome."""
        if self.open:
            raise ModelUnavailable(self.reason())
        try:
            answer = await self.inner.complete(messages, schema)
        except ModelError as exc:
            self.consecutive_failures += 1
            self.last_error = str(exc)[:300]
            raise
        self.consecutive_failures = 0
        return answer

    async def _send(
        self, messages: Sequence[Message], response_format: dict[str, Any]
    ) -> Completion:
        # ``complete`` is overridden, so nothing reaches this; the inner client sends.
        raise NotImplementedError("CircuitBreaker delegates whole calls to its inner client")
