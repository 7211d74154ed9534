"""The model path at scale: every file reaches the model or is named, in calls that fit.

Files and candidates are spread over as many calls as the model's context and the answer
schema need, run concurrently under ``max-concurrency``, and stopped at the review's token or
cost cap. The model is a ``FakeLLM``; prompt sizes are measured with the client's own counter.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

import pytest

from code_guard.agents import chunks
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentName, Outcome, Review
from code_guard.options import AnalysisOptions, ModelOptions, ReviewOptions
from code_guard.report import RENDERERS, OutputFormat
from code_guard.review.engine import run_review
from code_guard.trust.escaping import plain_line

if TYPE_CHECKING:
    from conftest import FakeLLM, MakeAnswer, MakeLLM, NewFileDiff

SECURITY = ReviewOptions(
    analysis=AnalysisOptions(agents=(AgentName.SECURITY,)), model=ModelOptions(name="gpt-4o-mini")
)
_CANDIDATE_RE = re.compile(r"^C\d+: ", re.MULTILINE)


def module(index: int, lines: int) -> str:
    """A plain Python module of ``lines`` lines that no analyser objects to."""
    body = [f'"""Module {index}."""', ""]
    body += [f"VALUE_{index}_{n} = {n} * 2  # a constant with a comment" for n in range(lines)]
    return "\n".join(body) + "\n"


def pr(new_file_diff: NewFileDiff, files: dict[str, str]) -> ReviewRequest:
    diff = "".join(new_file_diff(path, text) for path, text in files.items())
    return ReviewRequest(change=parse_diff(diff), title="Add modules", contents=files)


def review(request: ReviewRequest, llm: FakeLLM, **options: object) -> Review:
    return asyncio.run(run_review(request, SECURITY.model_copy(update=options), llm))


def prompt_tokens(llm: FakeLLM, index: int) -> int:
    return sum(llm.count_tokens(m["content"]) for m in llm.calls[index].messages)


def test_plan_puts_every_file_in_a_call_that_fits() -> None:
    parts = [chunks.Part(f"f{i}.py", "x" * 10, tokens) for i, tokens in enumerate([40, 70, 30, 90])]
    calls, not_sent = chunks.plan(parts, [], room=100, max_candidates=100)
    assert not_sent == []
    assert [[p.path for p in c.parts] for c in calls] == [["f0.py"], ["f1.py", "f2.py"], ["f3.py"]]
    assert all(c.tokens <= 100 for c in calls)


def test_plan_splits_a_files_candidates_at_the_schema_limit() -> None:
    parts = [chunks.Part("big.py", "x", 10), chunks.Part("small.py", "y", 10)]
    pending = [chunks.Candidate(i, "big.py", 1) for i in range(250)]
    pending.append(chunks.Candidate(250, "small.py", 1))
    calls, _ = chunks.plan(parts, pending, room=10_000, max_candidates=100)
    assert [len(c.candidates) for c in calls] == [100, 100, 51]
    assert all(any(p.path == "big.py" for p in c.parts) for c in calls)  # the file goes along
    assert sorted(i for c in calls for i in c.candidates) == list(range(251))


def test_plan_names_a_file_larger_than_any_call() -> None:
    calls, not_sent = chunks.plan([chunks.Part("huge.py", "z", 500)], [], 100, 100)
    assert (calls, not_sent) == ([], ["huge.py"])


def test_cut_to_fit_keeps_whole_lines_and_says_so() -> None:
    text = "\n".join(f"line {n}" for n in range(1000))
    cut = chunks.cut_to_fit(text, 50, lambda t: len(t) // 3 + 1)
    assert len(cut) // 3 + 1 <= 50
    assert cut.endswith("(cut to fit the model's context)")
    assert all(line.startswith("line ") for line in cut.splitlines()[:-1])


def test_many_files_go_in_several_calls_each_within_the_context(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    files = {f"pkg/mod{i}.py": module(i, 120) for i in range(20)}
    llm = fake_llm(otherwise=answer(), context_tokens=8_192, max_output_tokens=1024)
    result = review(pr(new_file_diff, files), llm)
    assert len(llm.calls) > 3, [a.reason for a in result.agents]
    for index in range(len(llm.calls)):
        assert prompt_tokens(llm, index) + 1024 <= 8_192
    sent = {path for call in llm.calls for path in files if path in call.user}
    assert sent == set(files)  # none dropped
    assert result.not_sent_to_model == ()
    assert result.outcome is Outcome.REVIEWED


def test_a_file_too_large_for_one_call_is_cut_not_dropped(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    files = {"big.py": module(0, 5_000), "small.py": module(1, 10)}
    llm = fake_llm(otherwise=answer(), context_tokens=8_192, max_output_tokens=1024)
    result = review(pr(new_file_diff, files), llm)
    for index in range(len(llm.calls)):
        assert prompt_tokens(llm, index) + 1024 <= 8_192
    assert any("big.py" in c.user and "cut to fit" in c.user for c in llm.calls)
    assert any("small.py" in c.user for c in llm.calls)
    [status] = result.agents
    assert "1 file(s) cut to fit the model's context" in status.notes


def test_candidates_beyond_the_schema_limit_go_to_more_calls(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    lines = ["import os", ""] + [f"os.system(command_{n})" for n in range(150)]
    files = {"run.py": "\n".join(lines) + "\n"}
    llm = fake_llm(otherwise=answer())
    result = review(pr(new_file_diff, files), llm)
    counts = [len(_CANDIDATE_RE.findall(c.user)) for c in llm.calls]
    assert len(counts) >= 2 and max(counts) <= 100
    judged = [m for c in llm.calls for m in re.findall(r"^C\d+: run\.py:(\d+) ", c.user, re.M)]
    assert len(judged) == len(set(judged)) == len(result.findings) >= 150  # each once


def test_calls_run_concurrently_up_to_the_bound(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    files = {f"pkg/mod{i}.py": module(i, 120) for i in range(24)}
    llm = fake_llm(
        otherwise=answer(), delay_s=0.05, context_tokens=4_096, max_output_tokens=512,
        max_concurrency=3,
    )  # fmt: skip
    review(pr(new_file_diff, files), llm)
    assert len(llm.calls) > 3
    assert llm.most_in_flight == 3


def test_the_token_cap_stops_calls_and_names_the_files_not_sent(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    files = {f"pkg/mod{i}.py": module(i, 120) for i in range(20)}
    # Each answer costs 110 tokens (FakeLLM.call_usage): the third call reaches the cap.
    llm = fake_llm(
        otherwise=answer(), context_tokens=4_096, max_output_tokens=512, max_concurrency=1,
        max_tokens=300,
    )  # fmt: skip
    result = review(pr(new_file_diff, files), llm)
    assert len(llm.calls) == 3
    sent = {path for call in llm.calls for path in files if path in call.user}
    unsent = {f.path for f in result.not_sent_to_model}
    assert sent | unsent == set(files) and not sent & unsent
    assert all("token cap (300 tokens)" in f.reason for f in result.not_sent_to_model)
    assert result.outcome is Outcome.PARTIAL
    assert any("not sent to the model" in reason for reason in result.outcome_reasons)
    for fmt in (OutputFormat.TEXT, OutputFormat.MARKDOWN, OutputFormat.JSON, OutputFormat.SARIF):
        shown = RENDERERS[fmt](result)
        # Markdown shows a path as plain text, its punctuation escaped.
        written = plain_line if fmt is OutputFormat.MARKDOWN else str
        assert all(written(path) in shown for path in unsent), fmt


def test_the_cost_cap_stops_calls_too(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    files = {f"pkg/mod{i}.py": module(i, 120) for i in range(10)}
    llm = fake_llm(
        otherwise=answer(), context_tokens=4_096, max_output_tokens=512, max_concurrency=1,
        max_cost_usd=0.0015,
    )  # fmt: skip
    result = review(pr(new_file_diff, files), llm)
    assert len(llm.calls) == 2, [a.reason for a in result.agents]  # $0.001 per answer
    assert result.not_sent_to_model
    assert "cost cap ($0.0015)" in result.not_sent_to_model[0].reason


@pytest.mark.parametrize("context", [1_024, 1_536])
def test_a_context_too_small_for_any_code_names_every_file(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff, context: int
) -> None:
    files = {"a.py": module(0, 5)}
    llm = fake_llm(otherwise=answer(), context_tokens=context, max_output_tokens=1024)
    result = review(pr(new_file_diff, files), llm)
    assert llm.calls == []
    assert [f.path for f in result.not_sent_to_model] == ["a.py"]
    assert result.outcome is Outcome.PARTIAL


def test_an_incremental_review_sends_only_the_changed_files(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    files = {f"pkg/mod{i}.py": module(i, 20) for i in range(4)}
    request = pr(new_file_diff, files)
    request = ReviewRequest(
        change=request.change, contents=files, model_paths=frozenset({"pkg/mod2.py"})
    )
    llm = fake_llm(otherwise=answer())
    result = review(request, llm)
    assert [path for path in files if any(path in c.user for c in llm.calls)] == ["pkg/mod2.py"]
    assert {f.path for f in result.not_sent_to_model} == set(files) - {"pkg/mod2.py"}
    assert all(f.deliberate for f in result.not_sent_to_model)
    assert result.outcome is Outcome.REVIEWED  # leaving unchanged files out is by design
    assert set(result.files_reviewed) == set(files)  # the static analysis saw them all
