"""Shared fixtures of the engine tests: a fake LLM, a recording sleep, and small builders.

Every ``conftest.py`` outside a package is imported under the module name ``conftest``, so a
test module cannot reliably import from this one at run time. Test modules therefore get the
fakes and builders through fixtures, and import the classes here only for type checking.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

import pytest
from pydantic import BaseModel

from code_guard.agents.answer import CandidateVerdict, ModelAnswer, ModelFinding
from code_guard.findings import AgentName, Category, Finding, Severity, Usage
from code_guard.model.interface import Completion, LLMClient, LLMSettings, Message, answer_json
from code_guard.options import SchemaMode

# What a FakeLLM can be told to do on one call: answer with a pydantic value, with raw text,
# with a whole ``Completion`` (to choose ``finish_reason``), or raise an exception.
Reply = BaseModel | str | Completion | BaseException

_AGENT_RE = re.compile(r"You are the (\w+) reviewer")


class RecordingSleep:
    """An async ``sleep`` that returns at once and records every delay it was asked for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@dataclass(frozen=True)
class Call:
    """One request a FakeLLM received."""

    messages: list[Message]
    response_format: dict[str, Any]

    @property
    def agent(self) -> str | None:
        """The agent that sent it, read from the system prompt."""
        match = _AGENT_RE.search(self.messages[0]["content"]) if self.messages else None
        return match.group(1) if match else None

    @property
    def user(self) -> str:
        """The first user message: the fenced PR data and the candidates."""
        return next(m["content"] for m in self.messages if m["role"] == "user")

    @property
    def last(self) -> str:
        """The last message: the repair instruction on a repair retry."""
        return self.messages[-1]["content"]


@dataclass
class _Script:
    shared: deque[Reply] = field(default_factory=deque)
    per_agent: dict[str, deque[Reply]] = field(default_factory=dict)


class FakeLLM(LLMClient):
    """An ``LLMClient`` whose transport replays queued replies and records every request.

    Replies are taken in order from the shared queue, or, for an agent named in ``per_agent``,
    from that agent's own queue (agents run concurrently, so one shared queue would make the
    order of their calls matter). Retries, repair and validation are the real base class's.
    Every text answer costs ``call_usage``, so tests can check that usage adds up.
    """

    call_usage = Usage(prompt_tokens=100, completion_tokens=10, cost_usd=0.001)

    def __init__(
        self,
        *replies: Reply,
        per_agent: Mapping[str, Sequence[Reply]] | None = None,
        model: str = "gpt-4o-mini",
        max_retries: int = 2,
        schema_mode: SchemaMode = "auto",
        backoff_max_s: float = 30.0,
        sleep: RecordingSleep | None = None,
        otherwise: Reply | None = None,
        delay_s: float = 0.0,
        **settings_overrides: Any,
    ) -> None:
        settings = LLMSettings(
            model=model,
            max_retries=max_retries,
            schema_mode=schema_mode,
            backoff_max_s=backoff_max_s,
            **settings_overrides,
        )
        # ``otherwise`` answers every call once the queues are empty; ``delay_s`` is a real
        # pause per call, so calls overlap as they would over a network.
        self.otherwise = otherwise
        self.delay_s = delay_s
        self.sleep = sleep or RecordingSleep()
        super().__init__(settings, sleep=self.sleep)
        self._script = _Script(deque(replies), {k: deque(v) for k, v in (per_agent or {}).items()})
        self.calls: list[Call] = []

    async def _send(
        self, messages: Sequence[Message], response_format: dict[str, Any]
    ) -> Completion:
        call = Call([dict(m) for m in messages], response_format)
        self.calls.append(call)
        queue = self._script.per_agent.get(call.agent or "", self._script.shared)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if not queue and self.otherwise is None:
            raise AssertionError(f"FakeLLM: no reply queued for call {len(self.calls)}")
        reply = queue.popleft() if queue else self.otherwise
        assert reply is not None
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Completion):
            return reply
        text = answer_json(reply) if isinstance(reply, BaseModel) else reply
        return Completion(text=text, finish_reason="stop", usage=self.call_usage)

    def calls_of(self, agent: str) -> list[Call]:
        """The requests one agent sent."""
        return [c for c in self.calls if c.agent == agent]


class MakeLLM(Protocol):
    """The ``fake_llm`` fixture: builds a FakeLLM that sleeps on the test's ``sleep``."""

    def __call__(
        self,
        *replies: Reply,
        per_agent: Mapping[str, Sequence[Reply]] | None = None,
        model: str = "gpt-4o-mini",
        max_retries: int = 2,
        schema_mode: SchemaMode = "auto",
        backoff_max_s: float = 30.0,
        **overrides: Any,
    ) -> FakeLLM: ...


class MakeFinding(Protocol):
    """The ``make_finding`` fixture: a valid finding, any field overridden."""

    def __call__(self, **overrides: Any) -> Finding: ...


class MakeModelFinding(Protocol):
    """The ``model_finding`` fixture: one finding as the model would report it."""

    def __call__(self, quote: str, line: int, **overrides: Any) -> ModelFinding: ...


NewFileDiff = Callable[[str, str], str]
MakeAnswer = Callable[..., ModelAnswer]


@pytest.fixture
def sleep() -> RecordingSleep:
    """A sleep that takes no time and records its delays."""
    return RecordingSleep()


@pytest.fixture
def fake_llm(sleep: RecordingSleep) -> MakeLLM:
    """Build a FakeLLM whose retries sleep on the test's recording ``sleep``."""

    def make(
        *replies: Reply,
        per_agent: Mapping[str, Sequence[Reply]] | None = None,
        model: str = "gpt-4o-mini",
        max_retries: int = 2,
        schema_mode: SchemaMode = "auto",
        backoff_max_s: float = 30.0,
        **overrides: Any,
    ) -> FakeLLM:
        return FakeLLM(
            *replies,
            per_agent=per_agent,
            model=model,
            max_retries=max_retries,
            schema_mode=schema_mode,
            backoff_max_s=backoff_max_s,
            sleep=sleep,
            **overrides,
        )

    return make


def _new_file_diff(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


@pytest.fixture
def new_file_diff() -> NewFileDiff:
    """``new_file_diff(path, text)``: a git diff that adds ``path`` holding ``text``."""
    return _new_file_diff


@pytest.fixture
def make_finding() -> MakeFinding:
    """Build a finding: a high SQL injection on ``app.py:10`` unless overridden."""

    def make(**overrides: Any) -> Finding:
        values: dict[str, Any] = {
            "agent": AgentName.SECURITY,
            "file_path": "app.py",
            "line_start": 10,
            "line_end": 10,
            "severity": Severity.HIGH,
            "category": Category.SQL_INJECTION,
            "title": "SQL built from request data",
            "description": "The query concatenates user input.",
            "confidence": 0.8,
            "sources": ("bandit:B608",),
            "anchor_text": 'db.execute("SELECT " + name)',
        }
        values.update(overrides)
        if "line_end" not in overrides:
            values["line_end"] = values["line_start"]
        return Finding(**values)

    return make


@pytest.fixture
def model_finding() -> MakeModelFinding:
    """Build a model finding on ``app.py`` quoting ``quote`` at ``line``."""

    def make(quote: str, line: int, **overrides: Any) -> ModelFinding:
        values: dict[str, Any] = {
            "file_path": "app.py",
            "line": line,
            "quote": quote,
            "removed_line": None,
            "severity": Severity.MEDIUM,
            "category": Category.OTHER,
            "title": "A model finding",
            "explanation": "Found by reading the code.",
            "suggested_fix": None,
            "cwe_id": None,
            "confidence": 0.7,
        }
        values.update(overrides)
        return ModelFinding(**values)

    return make


@pytest.fixture
def answer() -> MakeAnswer:
    """``answer(*findings, confirm=(ids), reject=(ids))``: a whole model answer."""

    def make(
        *findings: ModelFinding, confirm: Sequence[str] = (), reject: Sequence[str] = ()
    ) -> ModelAnswer:
        verdicts = [
            CandidateVerdict(candidate_id=c, confirmed=True, reason="real") for c in confirm
        ]
        verdicts += [
            CandidateVerdict(candidate_id=c, confirmed=False, reason="false positive")
            for c in reject
        ]
        return ModelAnswer(candidates=verdicts, findings=list(findings))

    return make


@pytest.fixture(scope="session")
def litellm_module() -> Iterator[ModuleType]:
    """Import litellm once per session (it takes seconds), with the local price map.

    Without ``LITELLM_LOCAL_MODEL_COST_MAP`` the first import downloads a price list.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        yield litellm
