"""Tests of ``LiteLLMClient`` against a real OpenAI-compatible server on 127.0.0.1.

pytest-httpserver serves ``POST /v1/chat/completions`` with the JSON bodies an OpenAI-style
server sends; the real client, litellm and the OpenAI SDK talk to it over HTTP. Sleeps are
recorded, not slept, and a guard refuses any connection that is not to the loopback address.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from code_guard.agents.answer import ModelAnswer
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.errors import PermanentModelError
from code_guard.findings import AgentName, AgentState, Category, Severity, Usage
from code_guard.model.interface import Answer, LLMSettings, answer_json
from code_guard.model.litellm_client import LiteLLMClient
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.review.engine import run_review

if TYPE_CHECKING:
    from conftest import MakeAnswer, MakeModelFinding, NewFileDiff, RecordingSleep

# litellm builds pydantic schemas on its first call, and pydantic warns about a TypedDict of
# litellm's; with -W error that warning would surface as a (transient) connection error.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Item 'summary' on TypedDict class 'ChatCompletionReasoningItem':UserWarning"
)

PATH = "/v1/chat/completions"
MODEL = "openai/test-model"
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "review"}]
EMPTY = ModelAnswer(candidates=[], findings=[])
_LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")


def chat_completion(
    content: str, *, finish_reason: str = "stop", prompt_tokens: int = 321, completion: int = 54
) -> dict[str, Any]:
    """An OpenAI chat-completion body, as ``/v1/chat/completions`` returns it."""
    return {
        "id": "chatcmpl-9xYz",
        "object": "chat.completion",
        "created": 1_732_000_000,
        "model": "test-model",
        "system_fingerprint": "fp_local",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
        },
    }


def api_error(message: str, kind: str) -> dict[str, Any]:
    """An OpenAI error body."""
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


# --- fixtures: the server, the network guard, the client ---------------------------------


@dataclass
class NetworkGuard:
    """Refuses, and records, every socket connection that is not to the loopback address."""

    refused: list[Any] = field(default_factory=list)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in ("connect", "connect_ex"):
            monkeypatch.setattr(socket.socket, name, self._wrap(getattr(socket.socket, name)))

    def _wrap(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(sock: socket.socket, address: Any) -> Any:
            host = address[0] if isinstance(address, tuple) else None
            if sock.family in (socket.AF_INET, socket.AF_INET6) and host not in _LOOPBACK:
                self.refused.append(address)
                raise ConnectionRefusedError(f"test guard: no network beyond 127.0.0.1 ({host})")
            return real(sock, address)

        return guarded


@pytest.fixture(autouse=True)
def network_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[NetworkGuard]:
    """No request may leave 127.0.0.1, even through a proxy named in the environment."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    guard = NetworkGuard()
    guard.install(monkeypatch)
    yield guard
    assert guard.refused == [], "a connection beyond 127.0.0.1 was attempted"


@pytest.fixture(scope="module")
def running_server() -> Iterator[HTTPServer]:
    """One stand-in model server on 127.0.0.1 for the module."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def server(running_server: HTTPServer) -> Iterator[HTTPServer]:
    """The server, with no expectations or log left over from another test."""
    running_server.clear()
    yield running_server
    running_server.check_assertions()
    running_server.clear()


@pytest.fixture
def litellm(litellm_module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """litellm, imported once per session; no price list is ever fetched."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return litellm_module


def make_client(
    server: HTTPServer, sleep: RecordingSleep, *, max_retries: int = 2
) -> LiteLLMClient:
    settings = LLMSettings(
        model=MODEL, api_base=server.url_for("/v1"), max_retries=max_retries, timeout_s=10
    )
    return LiteLLMClient(settings, extra={"api_key": "sk-test"}, sleep=sleep)


def ask(client: LiteLLMClient) -> Answer[ModelAnswer]:
    return asyncio.run(client.complete(MESSAGES, ModelAnswer))


def then(server: HTTPServer, status: int, body: dict[str, Any], **headers: str) -> None:
    """Queue the server's next answer."""
    expectation = server.expect_ordered_request(PATH, method="POST")
    expectation.respond_with_json(body, status=status, headers=headers or None)


def bodies(server: HTTPServer) -> list[dict[str, Any]]:
    """The JSON body of every request the server received, in order."""
    return [request.get_json() for request, _ in server.log]


# --- answers, usage and the request --------------------------------------------------------


def test_a_valid_answer_parses_and_usage_is_read(
    litellm: ModuleType,
    server: HTTPServer,
    sleep: RecordingSleep,
    model_finding: MakeModelFinding,
    answer: MakeAnswer,
) -> None:
    expected = answer(
        model_finding("    return db.execute(query)", 6, category=Category.SQL_INJECTION),
        confirm=("C1",),
    )
    then(server, 200, chat_completion(answer_json(expected), prompt_tokens=1234, completion=87))
    result = ask(make_client(server, sleep))
    assert (result.value, result.attempts) == (expected, 1)
    # An unknown model has no price: that is not an error, the cost is just 0.
    assert result.usage == Usage(prompt_tokens=1234, completion_tokens=87, cost_usd=0.0)
    assert (len(server.log), sleep.delays) == (1, [])


def test_the_request_carries_the_schema_and_settings(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep
) -> None:
    then(server, 200, chat_completion(answer_json(EMPTY)))
    client = make_client(server, sleep)
    ask(client)
    ((request, _),) = server.log
    assert request.headers["Authorization"] == "Bearer sk-test"
    body = request.get_json()
    assert body["model"] == "test-model"
    assert body["messages"] == MESSAGES
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "ModelAnswer",
            "schema": ModelAnswer.model_json_schema(),
            "strict": False,
        },
    }
    assert body["temperature"] == 0
    assert body["max_tokens"] == client.settings.max_output_tokens
    assert not body.get("stream")


# --- transient and permanent failures --------------------------------------------------------


def test_a_rate_limit_is_retried_once(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep
) -> None:
    then(server, 429, api_error("Rate limit reached", "requests"), **{"Retry-After": "3"})
    then(server, 200, chat_completion(answer_json(EMPTY)))
    assert ask(make_client(server, sleep)).value == EMPTY
    assert len(server.log) == 2
    assert len(sleep.delays) == 1


def test_retry_after_from_the_server_is_slept_exactly(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep
) -> None:
    then(server, 429, api_error("Rate limit reached", "requests"), **{"Retry-After": "3"})
    then(server, 200, chat_completion(answer_json(EMPTY)))
    assert ask(make_client(server, sleep)).value == EMPTY
    assert sleep.delays == [3.0]


def test_server_errors_are_retried_until_success(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep
) -> None:
    then(server, 500, api_error("The server had an error", "server_error"))
    then(server, 500, api_error("The server had an error", "server_error"))
    then(server, 200, chat_completion(answer_json(EMPTY)))
    result = ask(make_client(server, sleep, max_retries=2))
    assert (result.value, result.attempts) == (EMPTY, 1)
    # Neither litellm nor the OpenAI SDK retried on its own: every try is one of ours.
    assert len(server.log) == 3
    assert len(sleep.delays) == 2


def test_a_bad_key_fails_at_once(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep
) -> None:
    then(server, 401, api_error("Incorrect API key provided: sk-test", "invalid_request_error"))
    with pytest.raises(PermanentModelError, match="AuthenticationError"):
        ask(make_client(server, sleep, max_retries=3))
    assert (len(server.log), sleep.delays) == (1, [])


# --- the repair retry ----------------------------------------------------------------------


def test_invalid_json_gets_one_repair_request(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep
) -> None:
    then(server, 200, chat_completion("Sure! Here are the findings: {", prompt_tokens=100))
    then(server, 200, chat_completion(answer_json(EMPTY), prompt_tokens=200, completion=20))
    result = ask(make_client(server, sleep))
    assert (result.value, result.attempts) == (EMPTY, 2)
    assert result.usage == Usage(prompt_tokens=300, completion_tokens=74)
    first, second = (body["messages"] for body in bodies(server))
    assert first == MESSAGES
    assert second[: len(MESSAGES)] == MESSAGES
    assert second[-2] == {"role": "assistant", "content": "Sure! Here are the findings: {"}
    assert second[-1]["role"] == "user"
    assert "Your previous answer could not be used: invalid answer" in second[-1]["content"]


def test_a_cut_off_answer_gets_a_repair_request(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep
) -> None:
    then(server, 200, chat_completion(answer_json(EMPTY)[:20], finish_reason="length"))
    then(server, 200, chat_completion(answer_json(EMPTY)))
    assert ask(make_client(server, sleep)).attempts == 2
    repair = bodies(server)[1]["messages"][-1]["content"]
    assert "cut off at the output token limit" in repair


# --- a whole review against the server -------------------------------------------------------

APP_PY = """\
import sqlite3


def find_user(db: sqlite3.Connection, name: str) -> list[tuple[str, ...]]:
    query = "SELECT * FROM users WHERE name = '" + name + "'"
    return db.execute(query).fetchall()


def total(orders: list[dict[str, int]]) -> int:
    result = 0
    for order in orders:
        result = result + order["amount"]
    return result
"""
_AGENT_RE = re.compile(r"You are the (\w+) reviewer")


@dataclass
class ReviewerStandIn:
    """Answers each agent's request from its own canned answer, chosen by the system prompt."""

    answers: dict[str, tuple[ModelAnswer, int, int]]
    seen: list[str] = field(default_factory=list)

    def __call__(self, request: Request) -> Response:
        system = request.get_json()["messages"][0]["content"]
        match = _AGENT_RE.search(system)
        agent = match.group(1) if match else "unknown"
        self.seen.append(agent)
        if agent not in self.answers:
            body = api_error(f"no answer for agent {agent}", "invalid_request_error")
            return Response(json.dumps(body), status=400, content_type="application/json")
        value, prompt, completion = self.answers[agent]
        body = chat_completion(answer_json(value), prompt_tokens=prompt, completion=completion)
        return Response(json.dumps(body), status=200, content_type="application/json")


def test_a_review_against_the_server(
    litellm: ModuleType,
    server: HTTPServer,
    sleep: RecordingSleep,
    new_file_diff: NewFileDiff,
    model_finding: MakeModelFinding,
    answer: MakeAnswer,
) -> None:
    quoted = "    return db.execute(query).fetchall()"
    # The model misnumbers the line (3, not 6) but quotes it exactly: it is re-anchored.
    sql = model_finding(
        quoted, 3, severity=Severity.HIGH, category=Category.SQL_INJECTION, cwe_id="CWE-89"
    )
    invented = model_finding("    os.system(name)", 4, category=Category.COMMAND_INJECTION)
    loop = model_finding('        result = result + order["amount"]', 12, title="Use sum()")
    stand_in = ReviewerStandIn(
        {
            "security": (answer(sql, invented), 1000, 100),
            "performance": (answer(), 800, 10),
            "style": (answer(loop), 900, 50),
        }
    )
    server.expect_request(PATH, method="POST").respond_with_handler(stand_in)
    model = ModelOptions(name=MODEL, api_base=server.url_for("/v1"), max_retries=0)
    client = LiteLLMClient(
        LLMSettings.from_options(model), extra={"api_key": "sk-test"}, sleep=sleep
    )
    request = ReviewRequest(change=parse_diff(new_file_diff("app.py", APP_PY)))

    review = asyncio.run(run_review(request, ReviewOptions(model=model), client))

    assert sorted(stand_in.seen) == ["performance", "security", "style"]
    assert (review.static_only, review.static_only_reason) == (False, None)
    assert [(a.agent, a.state, a.model) for a in review.agents] == [
        (AgentName.SECURITY, AgentState.OK, MODEL),
        (AgentName.PERFORMANCE, AgentState.OK, MODEL),
        (AgentName.STYLE, AgentState.OK, MODEL),
    ]
    assert review.usage == Usage(prompt_tokens=2700, completion_tokens=160)
    from_model = [f for f in review.findings if "model" in f.sources]
    # The SQL finding may merge with Bandit's on the line above; it must reach line 6.
    assert any(
        (f.agent, f.category) == (AgentName.SECURITY, Category.SQL_INJECTION)
        and f.line_start <= 6 <= f.line_end
        for f in from_model
    )
    assert any(
        (f.agent, f.line_start, f.title) == (AgentName.STYLE, 12, "Use sum()") for f in from_model
    )
    assert all(f.line_start not in (3, 4) for f in from_model)
    security = next(a for a in review.agents if a.agent is AgentName.SECURITY)
    assert "dropped 1 model finding(s) that quoted no added line" in security.notes
    assert sleep.delays == []


# --- a local server as the README shows it: no key, errors that name it, clean stdout --------


def test_a_local_server_needs_no_key(
    litellm: ModuleType, server: HTTPServer, sleep: RecordingSleep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    then(server, 200, chat_completion(answer_json(EMPTY)))
    settings = LLMSettings(model=MODEL, api_base=server.url_for("/v1"), timeout_s=10)
    answer = asyncio.run(LiteLLMClient(settings, sleep=sleep).complete(MESSAGES, ModelAnswer))
    assert answer.value == EMPTY
    assert len(server.log) == 1
    assert server.log[0][0].headers["Authorization"] == "Bearer no-key-needed"


def test_errors_name_the_server_and_stdout_stays_clean(
    litellm: ModuleType,
    server: HTTPServer,
    sleep: RecordingSleep,
    capsys: pytest.CaptureFixture[str],
) -> None:
    then(server, 401, api_error("Incorrect API key provided: sk-test", "invalid_request_error"))
    with pytest.raises(PermanentModelError) as caught:
        ask(make_client(server, sleep, max_retries=3))
    assert f"from {server.url_for('/v1')}" in str(caught.value)
    assert capsys.readouterr().out == ""  # no "Give Feedback / Get Help" banner
