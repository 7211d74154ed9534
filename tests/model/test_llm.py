"""Tests of the LLM client: response formats, retries with backoff, and the one repair retry.

``LLMClient`` is exercised through ``FakeLLM`` (a real subclass with a scripted transport);
``LiteLLMClient`` through litellm's own ``mock_response``, which never touches the network.
"""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from code_guard.agents.answer import ModelAnswer
from code_guard.errors import InvalidAnswerError, PermanentModelError, TransientModelError
from code_guard.findings import Usage
from code_guard.model.factory import make_llm
from code_guard.model.interface import (
    DEFAULT_CONTEXT_TOKENS,
    Answer,
    Completion,
    LLMClient,
    LLMSettings,
)
from code_guard.model.litellm_client import LiteLLMClient
from code_guard.options import ModelOptions

if TYPE_CHECKING:
    from conftest import MakeLLM, RecordingSleep

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "review"}]
EMPTY = ModelAnswer(candidates=[], findings=[])
EMPTY_JSON = '{"candidates": [], "findings": []}'


def ask(llm: LLMClient) -> Answer[ModelAnswer]:
    return asyncio.run(llm.complete(MESSAGES, ModelAnswer))


@pytest.mark.parametrize("model", ["gpt-4o-mini", "anthropic/claude-3-5-haiku", "groq/llama3"])
def test_response_format_is_json_schema_for_openai_style_models(
    fake_llm: MakeLLM, model: str
) -> None:
    assert fake_llm(model=model).response_format(ModelAnswer) == {
        "type": "json_schema",
        "json_schema": {
            "name": "ModelAnswer",
            "schema": ModelAnswer.model_json_schema(),
            "strict": False,
        },
    }


@pytest.mark.parametrize("model", ["ollama/qwen2.5", "ollama_chat/llama3.1", "llamafile/x"])
def test_response_format_is_json_object_with_schema_for_local_servers(
    fake_llm: MakeLLM, model: str
) -> None:
    sent = fake_llm(model=model).response_format(ModelAnswer)
    assert sent["type"] == "json_object"
    # The schema's shape, without the bounds a grammar compiler expands into nested rules.
    full = ModelAnswer.model_json_schema()
    assert sent["schema"]["required"] == full["required"]
    assert set(sent["schema"]["$defs"]) == set(full["$defs"])
    text = json.dumps(sent["schema"])
    assert all(f'"{bound}"' not in text for bound in ("maxItems", "maxLength", "pattern"))
    assert '"maxItems": 100' in json.dumps(full)  # pydantic still enforces them


def test_schema_mode_overrides_the_guess(fake_llm: MakeLLM) -> None:
    forced = fake_llm(model="gpt-4o-mini", schema_mode="json_object")
    assert forced.response_format(ModelAnswer)["type"] == "json_object"
    forced = fake_llm(model="ollama/qwen2.5", schema_mode="json_schema")
    assert forced.response_format(ModelAnswer)["type"] == "json_schema"


def test_a_valid_answer_takes_one_call(fake_llm: MakeLLM) -> None:
    llm = fake_llm(EMPTY)
    result = ask(llm)
    assert (result.value, result.attempts, result.usage) == (EMPTY, 1, llm.call_usage)
    assert [c.messages for c in llm.calls] == [MESSAGES]
    assert llm.calls[0].response_format == llm.response_format(ModelAnswer)


def test_invalid_json_gets_one_repair_retry(fake_llm: MakeLLM) -> None:
    llm = fake_llm("Sure! Here is the JSON: {", EMPTY)
    result = ask(llm)
    assert (result.value, result.attempts) == (EMPTY, 2)
    assert result.usage == llm.call_usage + llm.call_usage
    assert len(llm.calls) == 2
    repair = llm.calls[1].messages
    assert repair[:2] == MESSAGES
    assert repair[2] == {"role": "assistant", "content": "Sure! Here is the JSON: {"}
    assert repair[3]["role"] == "user"
    assert "Your previous answer could not be used: invalid answer" in repair[3]["content"]


def test_schema_violation_names_the_field_in_the_repair(fake_llm: MakeLLM) -> None:
    llm = fake_llm('{"candidates": []}', EMPTY)
    assert ask(llm).attempts == 2
    assert "invalid answer at findings: Field required" in llm.calls[1].last


def test_invalid_twice_raises_after_the_repair(fake_llm: MakeLLM) -> None:
    llm = fake_llm("not json", '{"findings": "nope"}')
    with pytest.raises(InvalidAnswerError, match=r"after one repair retry"):
        ask(llm)
    assert len(llm.calls) == 2


def test_cut_off_answer_is_repaired_even_if_it_parses(fake_llm: MakeLLM) -> None:
    llm = fake_llm(Completion(EMPTY_JSON, "length", Usage()), EMPTY)
    assert ask(llm).attempts == 2
    assert "cut off at the output token limit" in llm.calls[1].last
    assert "report fewer, more important findings" in llm.calls[1].last


def test_retry_after_is_honoured_exactly(fake_llm: MakeLLM, sleep: RecordingSleep) -> None:
    llm = fake_llm(TransientModelError("429 slow down", retry_after=7), EMPTY)
    assert ask(llm).value == EMPTY
    assert sleep.delays == [7.0]
    assert len(llm.calls) == 2


@pytest.mark.parametrize(("hint", "slept"), [(600.0, 60.0), (-3.0, 0.0), (0.25, 0.25)])
def test_retry_after_is_clamped(
    fake_llm: MakeLLM, sleep: RecordingSleep, hint: float, slept: float
) -> None:
    ask(fake_llm(TransientModelError("429", retry_after=hint), EMPTY))
    assert sleep.delays == [slept]


def test_transient_failures_back_off_then_give_up(fake_llm: MakeLLM, sleep: RecordingSleep) -> None:
    llm = fake_llm(*[TransientModelError(f"503 #{n}") for n in range(4)], max_retries=3)
    with pytest.raises(TransientModelError, match="503 #3"):
        ask(llm)
    assert len(llm.calls) == 4
    # Exponential backoff with full jitter: attempt n waits up to 2**(n-1) seconds.
    assert len(sleep.delays) == 3
    assert all(0.0 <= d <= 2.0**n for n, d in enumerate(sleep.delays))


def test_backoff_is_capped(fake_llm: MakeLLM, sleep: RecordingSleep) -> None:
    llm = fake_llm(*[TransientModelError("503")] * 6, EMPTY, max_retries=6, backoff_max_s=0.5)
    ask(llm)
    assert len(sleep.delays) == 6
    assert max(sleep.delays) <= 0.5


def test_no_retries_means_one_call(fake_llm: MakeLLM, sleep: RecordingSleep) -> None:
    llm = fake_llm(TransientModelError("503"), EMPTY, max_retries=0)
    with pytest.raises(TransientModelError):
        ask(llm)
    assert (len(llm.calls), sleep.delays) == (1, [])


def test_permanent_failure_is_not_retried(fake_llm: MakeLLM, sleep: RecordingSleep) -> None:
    llm = fake_llm(PermanentModelError("401 bad key"), EMPTY)
    with pytest.raises(PermanentModelError, match="401 bad key"):
        ask(llm)
    assert (len(llm.calls), sleep.delays) == (1, [])


def test_the_repair_call_is_retried_too(fake_llm: MakeLLM, sleep: RecordingSleep) -> None:
    llm = fake_llm("{", TransientModelError("429", retry_after=1), EMPTY)
    assert ask(llm).attempts == 2
    assert (len(llm.calls), sleep.delays) == (3, [1.0])


def test_settings_come_from_options() -> None:
    options = ModelOptions(
        name="ollama/qwen2.5",
        api_base="http://127.0.0.1:11434",
        temperature=0.3,
        timeout_s=9,
        max_retries=1,
        max_output_tokens=512,
        schema_mode="json_object",
    )
    assert LLMSettings.from_options(options) == LLMSettings(
        model="ollama/qwen2.5",
        temperature=0.3,
        timeout_s=9,
        max_retries=1,
        max_output_tokens=512,
        schema_mode="json_object",
        api_base="http://127.0.0.1:11434",
    )


@pytest.mark.parametrize(
    "options", [ModelOptions(), ModelOptions(name="gpt-4o-mini", offline=True)]
)
def test_no_client_for_a_static_only_review(options: ModelOptions) -> None:
    assert make_llm(options) is None


# --- LiteLLMClient, through litellm's mock_response -------------------------------------


# litellm builds pydantic schemas on its first call, and pydantic warns about a TypedDict of
# litellm's; with -W error that warning would surface as a (transient) connection error.
uses_litellm = pytest.mark.filterwarnings(
    "ignore:Item 'summary' on TypedDict class 'ChatCompletionReasoningItem':UserWarning"
)


@pytest.fixture
def litellm(litellm_module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """litellm, imported once per session; no price list is ever fetched."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return litellm_module


def mocked(mock: Any, sleep: RecordingSleep, max_retries: int = 1) -> LiteLLMClient:
    settings = LLMSettings(model="gpt-4o-mini", max_retries=max_retries)
    return LiteLLMClient(settings, extra={"mock_response": mock}, sleep=sleep)


def rate_limit(litellm: ModuleType, headers: dict[str, str]) -> Exception:
    request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
    response = httpx.Response(429, headers=headers, request=request)
    error: Exception = litellm.RateLimitError(
        message="slow down", llm_provider="openai", model="gpt-4o-mini", response=response
    )
    return error


@uses_litellm
def test_make_llm_builds_a_litellm_client(litellm: ModuleType) -> None:
    client = make_llm(ModelOptions(name="gpt-4o-mini", max_retries=2))
    assert isinstance(client, LiteLLMClient)
    assert (client.model, client.settings.max_retries) == ("gpt-4o-mini", 2)


@uses_litellm
def test_litellm_client_sizes_prompts_from_the_models_info(litellm: ModuleType) -> None:
    known = LiteLLMClient(LLMSettings(model="gpt-4o-mini"))
    assert known.context_tokens() == litellm.get_model_info("gpt-4o-mini")["max_input_tokens"]
    text = "def handler(request):\n    return render(request.GET['q'])\n" * 20
    assert known.count_tokens(text) == litellm.token_counter(model="gpt-4o-mini", text=text)
    local = LiteLLMClient(LLMSettings(model="openai/my-local-model"))
    assert local.context_tokens() == DEFAULT_CONTEXT_TOKENS  # litellm does not know it
    told = LiteLLMClient(LLMSettings(model="openai/my-local-model", context_tokens=4096))
    assert told.context_tokens() == 4096


@uses_litellm
def test_litellm_valid_answer_parses(litellm: ModuleType, sleep: RecordingSleep) -> None:
    result = ask(mocked(EMPTY_JSON, sleep))
    assert (result.value, result.attempts) == (EMPTY, 1)
    assert result.usage.prompt_tokens > 0
    assert result.usage.completion_tokens > 0


@uses_litellm
def test_litellm_rate_limit_is_transient_and_retried(
    litellm: ModuleType, sleep: RecordingSleep
) -> None:
    with pytest.raises(TransientModelError, match="RateLimitError") as info:
        ask(mocked("litellm.RateLimitError", sleep, max_retries=1))
    assert info.value.retry_after is None
    assert len(sleep.delays) == 1


@pytest.mark.parametrize(("header", "seconds"), [("retry-after", 7.0), ("retry-after-ms", 7.0)])
@uses_litellm
def test_litellm_retry_after_header_is_read(
    litellm: ModuleType, sleep: RecordingSleep, header: str, seconds: float
) -> None:
    value = "7" if header == "retry-after" else "7000"
    with pytest.raises(TransientModelError) as info:
        ask(mocked(rate_limit(litellm, {header: value}), sleep, max_retries=1))
    assert info.value.retry_after == seconds
    assert sleep.delays == [seconds]


@uses_litellm
def test_litellm_http_date_retry_after_falls_back_to_backoff(
    litellm: ModuleType, sleep: RecordingSleep
) -> None:
    mock = rate_limit(litellm, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})
    with pytest.raises(TransientModelError) as info:
        ask(mocked(mock, sleep, max_retries=1))
    assert info.value.retry_after is None
    assert len(sleep.delays) == 1


@uses_litellm
def test_litellm_server_error_is_transient(litellm: ModuleType, sleep: RecordingSleep) -> None:
    with pytest.raises(TransientModelError, match="InternalServerError"):
        ask(mocked("litellm.InternalServerError", sleep, max_retries=0))


@uses_litellm
def test_litellm_bad_request_is_permanent(litellm: ModuleType, sleep: RecordingSleep) -> None:
    with pytest.raises(PermanentModelError, match="ContextWindowExceededError"):
        ask(mocked("litellm.ContextWindowExceededError", sleep, max_retries=3))
    assert sleep.delays == []


@uses_litellm
def test_litellm_auth_error_is_permanent(litellm: ModuleType, sleep: RecordingSleep) -> None:
    error = litellm.AuthenticationError(
        message="bad key", llm_provider="openai", model="gpt-4o-mini"
    )
    with pytest.raises(PermanentModelError, match="AuthenticationError"):
        ask(mocked(error, sleep, max_retries=3))
    assert sleep.delays == []


@uses_litellm
def test_litellm_cut_off_answer_is_invalid(litellm: ModuleType, sleep: RecordingSleep) -> None:
    message = {"role": "assistant", "content": EMPTY_JSON}
    mock = {"choices": [{"message": message, "finish_reason": "length"}]}
    with pytest.raises(InvalidAnswerError, match="cut off"):
        ask(mocked(mock, sleep))


def test_settings_built_directly_default_to_what_the_options_give() -> None:
    assert LLMSettings("m") == LLMSettings.from_options(ModelOptions(name="m"))
