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
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from code_guard.errors import BudgetExhaustedError, InvalidAnswerError, TransientModelError
from code_guard.findings import Usage
from code_guard.options import ModelOptions, SchemaMode

if TYPE_CHECKING:
    from tenacity import RetryCallState

T = TypeVar("T", bound=BaseModel)
Message = dict[str, str]

# Providers whose OpenAI-compatible servers take ``json_object`` plus a ``schema`` (llama.cpp
# style) rather than OpenAI's ``json_schema`` response format.
_JSON_OBJECT_PROVIDERS = ("ollama/", "ollama_chat/", "llamafile/")
_MAX_RETRY_AFTER_S = 60.0
# The context assumed for a model nobody describes (no model info, no `context-tokens`):
# small enough for most local models, so a prompt is split rather than cut off.
DEFAULT_CONTEXT_TOKENS = 16_384
# Code runs at about 3 to 4 characters per token; 3 errs towards smaller prompts.
_CHARS_PER_TOKEN = 3


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


# ``ModelOptions``' defaults, the one place they are written: settings built directly (tests,
# the eval's reviewer) default to what a review's options would give.
_MODEL_DEFAULTS = ModelOptions()


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Per-call settings, taken from ``ModelOptions``."""

    model: str
    temperature: float = _MODEL_DEFAULTS.temperature
    timeout_s: float = _MODEL_DEFAULTS.timeout_s
    max_retries: int = _MODEL_DEFAULTS.max_retries
    max_output_tokens: int = _MODEL_DEFAULTS.max_output_tokens
    schema_mode: SchemaMode = _MODEL_DEFAULTS.schema_mode
    api_base: str | None = _MODEL_DEFAULTS.api_base
    backoff_max_s: float = 30.0
    # None: ask the transport (litellm's model info)
    context_tokens: int | None = _MODEL_DEFAULTS.context_tokens
    max_concurrency: int = _MODEL_DEFAULTS.max_concurrency
    # per client, i.e. per review: spend caps
    max_tokens: int | None = _MODEL_DEFAULTS.max_tokens
    max_cost_usd: float | None = _MODEL_DEFAULTS.max_cost_usd

    @classmethod
    def from_options(cls, options: ModelOptions) -> LLMSettings:
        """Build settings from a review's model options (which must name a model)."""
        return cls(
            model=options.name or "",
            temperature=options.temperature,
            timeout_s=options.timeout_s,
            max_retries=options.max_retries,
            max_output_tokens=options.max_output_tokens,
            schema_mode=options.schema_mode,
            api_base=options.api_base,
            context_tokens=options.context_tokens,
            max_concurrency=options.max_concurrency,
            max_tokens=options.max_tokens,
            max_cost_usd=options.max_cost_usd,
        )


Sleep = Callable[[float], Awaitable[None]]


class LLMClient(ABC):
    """A model that answers with JSON validated against a pydantic model."""

    def __init__(self, settings: LLMSettings, *, sleep: Sleep = asyncio.sleep) -> None:
        self.settings = settings
        self._sleep = sleep
        self._gate: asyncio.Semaphore | None = None
        self.spent = Usage()  # every answer received by this client, i.e. this review
        self.in_flight = 0
        self.most_in_flight = 0

    def context_tokens(self) -> int:
        """The model's context window in tokens: the configured one, else what the transport
        knows of the model, else ``DEFAULT_CONTEXT_TOKENS``."""
        return self.settings.context_tokens or self._known_context() or DEFAULT_CONTEXT_TOKENS

    def _known_context(self) -> int | None:
        """The model's input window as the transport knows it; None when unknown."""
        return None

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes in a prompt; transports with a tokenizer count exactly."""
        return len(text) // _CHARS_PER_TOKEN + 1

    def budget_left(self) -> str | None:
        """None while the review may still call the model; else which cap was reached."""
        cap_tokens, cap_cost = self.settings.max_tokens, self.settings.max_cost_usd
        if cap_tokens is not None and self.spent.total_tokens >= cap_tokens:
            return f"the review's token cap ({cap_tokens:,} tokens) was reached"
        if cap_cost is not None and self.spent.cost_usd >= cap_cost:
            return f"the review's cost cap (${cap_cost:g}) was reached"
        return None

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
            return {"type": "json_object", "schema": grammar_friendly(json_schema)}
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
        if self._gate is None:  # made on first use, inside the running event loop
            self._gate = asyncio.Semaphore(self.settings.max_concurrency)
        async with self._gate:
            # Checked once the call may go: calls queued behind the gate see what the calls
            # before them spent.
            if reason := self.budget_left():
                raise BudgetExhaustedError(reason)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            try:
                completion = await self._retrying_send(messages, response_format)
            finally:
                self.in_flight -= 1
            self.spent = self.spent + completion.usage
            return completion

    async def _retrying_send(
        self, messages: Sequence[Message], response_format: dict[str, Any]
    ) -> Completion:
        # Imported on the first call: an offline review, which makes none, has no use for it.
        from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

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
        from tenacity.wait import wait_random_exponential

        backoff = wait_random_exponential(multiplier=1, max=self.settings.backoff_max_s)
        return float(backoff(state))


# Bounds that servers compiling a schema into a sampling grammar (llama.cpp, Ollama) expand
# into nested optional rules: `maxItems: 100` alone makes a grammar llama.cpp fails to parse.
# They are dropped from what such servers see; pydantic still enforces every one of them on
# the answer, and an answer past a bound gets the repair retry.
_GRAMMAR_BOUNDS = frozenset({"maxItems", "minItems", "maxLength", "minLength", "pattern"})


def grammar_friendly(schema: Any) -> Any:
    """``schema`` without the length, count and pattern bounds (see ``_GRAMMAR_BOUNDS``)."""
    if isinstance(schema, dict):
        return {k: grammar_friendly(v) for k, v in schema.items() if k not in _GRAMMAR_BOUNDS}
    if isinstance(schema, list):
        return [grammar_friendly(item) for item in schema]
    return schema


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
