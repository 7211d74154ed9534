"""The litellm transport of ``LLMClient``: any provider, or a local model server.

litellm's exceptions are mapped here, where they occur, onto ``TransientModelError`` (retried)
and ``PermanentModelError`` (not retried). litellm is imported lazily: it takes seconds to
import, and a static-only review never needs it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from code_guard.errors import PermanentModelError, TransientModelError
from code_guard.findings import Usage
from code_guard.model.interface import Completion, LLMClient, LLMSettings, Message, Sleep
from code_guard.trust.sanitize import redact


def _import_litellm() -> Any:
    # Without this litellm downloads a model price list at import time; there is no network
    # in CI and a reviewer must not phone home. It must be set before the first import.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    # On every failed call litellm prints a "Give Feedback / Get Help" banner to stdout,
    # which corrupts `--format json|sarif` on stdout. This flag has no per-call form, so it is
    # set once, at import, as litellm's own Router does (BerriAI/litellm#5942).
    litellm.suppress_debug_info = True
    return litellm


def start_import() -> None:
    """Import litellm in a background thread (it takes seconds), so the model client is ready
    when the static analysis is done."""
    if "litellm" not in sys.modules:
        threading.Thread(target=_import_litellm, name="litellm-import", daemon=True).start()


# A placeholder key for OpenAI-compatible servers (llama.cpp, vLLM, LM Studio...) that need
# none: the OpenAI client refuses to send a request without some key.
NO_KEY = "no-key-needed"
_KEYLESS_PREFIXES = ("openai/", "hosted_vllm/", "lm_studio/", "llamafile/")


_TRANSIENT = (
    "RateLimitError",
    "APIConnectionError",
    "Timeout",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)


class LiteLLMClient(LLMClient):
    """Calls ``litellm.acompletion``; ``extra`` is passed through (e.g. ``mock_response``)."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        extra: Mapping[str, Any] | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        if sleep is None:
            super().__init__(settings)
        else:
            super().__init__(settings, sleep=sleep)
        self._extra = dict(extra or {})

    @property
    def _litellm(self) -> Any:
        # Imported on first use: ``start_import`` has usually begun it in the background while
        # the static analysis ran, and the import lock makes this wait for that import.
        return _import_litellm()

    def _known_context(self) -> int | None:
        try:
            info = self._litellm.get_model_info(self.settings.model)
        except Exception:  # noqa: BLE001 - litellm raises for models it has no entry for
            return None
        tokens = info.get("max_input_tokens") or info.get("max_tokens")
        return int(tokens) if isinstance(tokens, int) and tokens > 0 else None

    def count_tokens(self, text: str) -> int:
        try:
            return int(self._litellm.token_counter(model=self.settings.model, text=text))
        except Exception:  # noqa: BLE001 - no tokenizer for this model: estimate
            return super().count_tokens(text)

    async def _send(
        self, messages: Sequence[Message], response_format: dict[str, Any]
    ) -> Completion:
        litellm = self._litellm
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "messages": list(messages),
            "response_format": response_format,
            "temperature": self.settings.temperature,
            "timeout": self.settings.timeout_s,
            "max_tokens": self.settings.max_output_tokens,
            "num_retries": 0,  # retries are ours, so Retry-After and backoff are honoured once
        }
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
            if self._needs_placeholder_key():
                kwargs["api_key"] = NO_KEY
        kwargs.update(self._extra)
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as exc:
            raise _map_error(litellm, exc, self.endpoint) from exc
        choice = response.choices[0]
        return Completion(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            usage=self._usage(response),
        )

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages: the server URL, or the provider's name."""
        if self.settings.api_base:
            return self.settings.api_base
        provider = self.settings.model.split("/", 1)[0] if "/" in self.settings.model else ""
        return f"the {provider or 'provider'} API"

    def _needs_placeholder_key(self) -> bool:
        """A local OpenAI-compatible server, and no key in the environment for it."""
        return self.settings.model.startswith(_KEYLESS_PREFIXES) and not os.environ.get(
            "OPENAI_API_KEY"
        )

    def _usage(self, response: Any) -> Usage:
        usage = getattr(response, "usage", None)
        try:
            cost = float(self._litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # noqa: BLE001 - an unknown price is not an error; report cost 0
            cost = 0.0
        return Usage(
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=cost,
        )


def _map_error(litellm: Any, exc: Exception, endpoint: str = "the provider") -> Exception:
    name = type(exc).__name__
    # Provider errors can echo the request's headers or key: redact before anything keeps it.
    message = redact(f"{name} from {endpoint}: {str(exc)[:300]}")
    if _is_auth_error(litellm, exc):
        return PermanentModelError(message)  # a key problem: retrying cannot help
    transient = tuple(getattr(litellm, n) for n in _TRANSIENT if hasattr(litellm, n))
    status = getattr(exc, "status_code", None)
    if isinstance(exc, transient) or (isinstance(status, int) and status >= 500):
        return TransientModelError(message, retry_after=_retry_after(exc))
    return PermanentModelError(message)


def _is_auth_error(litellm: Any, exc: Exception) -> bool:
    """401/403, or a missing key that litellm reports under another name (an internal
    server error, for OpenAI's client refusing to start without a key)."""
    auth = getattr(litellm, "AuthenticationError", None)
    if auth is not None and isinstance(exc, auth):
        return True
    if getattr(exc, "status_code", None) in (401, 403):
        return True
    text = str(exc).lower()
    return "api_key client option must be set" in text or "no api key" in text


def _retry_after(exc: Exception) -> float | None:
    """Read Retry-After (seconds) or retry-after-ms from the error's HTTP response.

    litellm keeps the provider's headers in ``litellm_response_headers``; the ``response``
    it attaches to OpenAI-compatible errors is rebuilt and carries none.
    """
    headers = getattr(exc, "litellm_response_headers", None) or getattr(
        getattr(exc, "response", None), "headers", None
    )
    if not headers:
        return None
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            return None  # an HTTP date: fall back to our own backoff
    return None
