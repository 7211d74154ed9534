"""The LLM client: schema-validated answers, retries with backoff, one repair retry.

``LLMClient`` holds everything that does not depend on the transport: building the
``response_format`` from the pydantic answer model, retrying transient failures with tenacity
(exponential backoff with jitter, honouring Retry-After), and one repair retry when the answer
is not valid JSON for the schema or was cut off. Subclasses implement ``_send`` only:
``LiteLLMClient`` talks to any provider through litellm; tests use a fake that queues answers.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_random_exponential

from code_guard.errors import InvalidAnswerError, TransientModelError
from code_guard.models import Usage
from code_guard.options import ReviewOptions

T = TypeVar("T", bound=BaseModel)
Message = dict[str, str]

# Providers whose OpenAI-compatible servers take ``json_object`` plus a ``schema`` (llama.cpp
# style) rather than OpenAI's ``json_schema`` response format.
_JSON_OBJECT_PROVIDERS = ("ollama/", "ollama_chat/", "llamafile/")
_MAX_RETRY_AFTER_S = 60.0


@dataclass(frozen=True, slots=True)
class Completion:
    """One raw model answer: its text, why it stopped, and what it cost."""

    text: str
    finish_reason: str | None
    usage: Usage


@dataclass(frozen=True, slots=True)
class Answer(Generic[T]):
    """A validated answer, with the usage of every attempt it took."""

    value: T
    usage: Usage
    attempts: int


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Per-call settings, taken from ``ReviewOptions``."""

    model: str
    temperature: float = 0.0
    timeout_s: float = 120.0
    max_retries: int = 4
    max_output_tokens: int = 4096
    schema_mode: str = "auto"
    api_base: str | None = None
    backoff_max_s: float = 30.0

    @classmethod
    def from_options(cls, options: ReviewOptions) -> LLMSettings:
        """Build settings from review options (which must name a model)."""
        return cls(
            model=options.model or "",
            temperature=options.temperature,
            timeout_s=options.timeout_s,
            max_retries=options.max_retries,
            max_output_tokens=options.max_output_tokens,
            schema_mode=options.schema_mode,
            api_base=options.api_base,
        )


Sleep = Callable[[float], Awaitable[None]]


class LLMClient(ABC):
    """A model that answers with JSON validated against a pydantic model."""

    def __init__(self, settings: LLMSettings, *, sleep: Sleep = asyncio.sleep) -> None:
        self.settings = settings
        self._sleep = sleep

    @property
    def model(self) -> str:
        """The model name, as given to the provider."""
        return self.settings.model

    @abstractmethod
    async def _send(
        self, messages: Sequence[Message], response_format: dict[str, Any]
    ) -> Completion:
        """Send one request. Raise ``TransientModelError`` for failures worth retrying and
        ``PermanentModelError`` for the rest."""

    def response_format(self, schema: type[BaseModel]) -> dict[str, Any]:
        """The ``response_format`` for ``schema``, in the dialect the backend understands."""
        json_schema = schema.model_json_schema()
        mode = self.settings.schema_mode
        if mode == "auto":
            mode = "json_object" if self.model.startswith(_JSON_OBJECT_PROVIDERS) else "json_schema"
        if mode == "json_object":
            return {"type": "json_object", "schema": json_schema}
        return {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": json_schema, "strict": False},
        }

    async def complete(self, messages: Sequence[Message], schema: type[T]) -> Answer[T]:
        """Ask the model and validate its answer against ``schema``.

        Transient failures are retried with backoff. An answer that is not valid for the schema,
        or was cut off, gets exactly one repair retry; a second bad answer raises
        ``InvalidAnswerError``. There is no string repair of model output.
        """
        response_format = self.response_format(schema)
        first = await self._send_with_retries(messages, response_format)
        try:
            return Answer(_validate(first, schema), first.usage, 1)
        except InvalidAnswerError as exc:
            repair = [
                *messages,
                {"role": "assistant", "content": first.text[:2000]},
                {"role": "user", "content": _repair_prompt(str(exc))},
            ]
            second = await self._send_with_retries(repair, response_format)
            usage = first.usage + second.usage
            try:
                return Answer(_validate(second, schema), usage, 2)
            except InvalidAnswerError as again:
                failure = InvalidAnswerError(f"{again} (after one repair retry)")
                failure.spent = usage
                raise failure from again

    async def _send_with_retries(
        self, messages: Sequence[Message], response_format: dict[str, Any]
    ) -> Completion:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.max_retries + 1),
            retry=retry_if_exception_type(TransientModelError),
            wait=self._wait,
            sleep=self._sleep,
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                return await self._send(messages, response_format)
        raise AssertionError("unreachable: tenacity either returns or reraises")

    def _wait(self, state: RetryCallState) -> float:
        """Honour the server's Retry-After when given, else exponential backoff with jitter."""
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, TransientModelError) and exc.retry_after is not None:
            return min(max(exc.retry_after, 0.0), _MAX_RETRY_AFTER_S)
        backoff = wait_random_exponential(multiplier=1, max=self.settings.backoff_max_s)
        return float(backoff(state))


def _validate(completion: Completion, schema: type[T]) -> T:
    if completion.finish_reason == "length":
        raise InvalidAnswerError("the answer was cut off at the output token limit")
    try:
        return schema.model_validate_json(completion.text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        raise InvalidAnswerError(f"invalid answer at {where}: {first['msg']}") from exc


def _repair_prompt(problem: str) -> str:
    return (
        f"Your previous answer could not be used: {problem}. Answer again with a single JSON "
        "object that matches the response schema exactly, and nothing else. If the answer was "
        "too long, report fewer, more important findings."
    )


def answer_json(value: BaseModel) -> str:
    """Serialize an answer model as a model would send it (used by fakes and examples)."""
    return json.dumps(value.model_dump(mode="json"))
