"""Print the model path's figures with a model that takes one second to answer each call.

    python benchmarks/model_chunks.py [--repeat R] [--files N] [--concurrency C]

A stand-in model (a real ``LLMClient`` whose transport waits 1 s and answers with an empty,
schema-valid answer) reviews two pull requests, R times each (default 3):

- a one-file PR, reviewed by all three agents: three calls that overlap, so about 1 s;
- an N-file PR (default 60) of plain Python modules, security agent only, with a 16k-token
  context so the files take several calls, at concurrency C (default 4): about
  ceil(calls / C) seconds rather than ``calls`` seconds.

Prints, for each, the median wall time of the whole review and of its model phase (first call
to last answer; the static analysis before it is the same with or without a model), the number
of calls, the most calls in flight at once, and the largest prompt against the context.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import time
from collections.abc import Sequence
from typing import Any

from code_guard.agents.answer import ModelAnswer
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentName, Usage
from code_guard.model.interface import Completion, LLMClient, LLMSettings, Message, answer_json
from code_guard.options import AnalysisOptions, ModelOptions, ReviewOptions
from code_guard.review.engine import run_review

_EMPTY = answer_json(ModelAnswer(candidates=[], findings=[]))


class OneSecondModel(LLMClient):
    """Answers every call after ``delay_s`` seconds, and records each prompt's size."""

    def __init__(self, settings: LLMSettings, delay_s: float = 1.0) -> None:
        super().__init__(settings)
        self.delay_s = delay_s
        self.prompts: list[int] = []
        self.first_call = math.inf  # perf_counter() when the first call began
        self.last_answer = 0.0  # and when the last answer came

    @property
    def model_phase_s(self) -> float:
        """Wall time from the first call to the last answer: the model's share of a review."""
        return self.last_answer - self.first_call

    async def _send(
        self, messages: Sequence[Message], response_format: dict[str, Any]
    ) -> Completion:
        self.first_call = min(self.first_call, time.perf_counter())
        self.prompts.append(sum(self.count_tokens(m["content"]) for m in messages))
        await asyncio.sleep(self.delay_s)
        self.last_answer = time.perf_counter()
        return Completion(_EMPTY, "stop", Usage(prompt_tokens=self.prompts[-1]))


def _module(index: int) -> str:
    lines = [f'"""Module {index}."""', ""]
    lines += [f"LIMIT_{index}_{n} = {n} * 1024  # bytes per chunk, step {n}" for n in range(150)]
    return "\n".join(lines) + "\n"


def _request(count: int) -> ReviewRequest:
    files = {f"service/module_{i}.py": _module(i) for i in range(count)}
    diff = ""
    for path, text in files.items():
        body = "".join(f"+{line}\n" for line in text.splitlines())
        n = len(text.splitlines())
        diff += f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{n} @@\n{body}"
    return ReviewRequest(change=parse_diff(diff), title="Add modules", contents=files)


def _run(request: ReviewRequest, options: ReviewOptions) -> tuple[float, OneSecondModel]:
    model = OneSecondModel(LLMSettings.from_options(options.model))
    started = time.perf_counter()
    asyncio.run(run_review(request, options, model))
    return time.perf_counter() - started, model


def _report(label: str, runs: list[tuple[float, OneSecondModel]], context: int, bound: int) -> None:
    seconds = statistics.median(t for t, _ in runs)
    phase = statistics.median(m.model_phase_s for _, m in runs)
    model = runs[0][1]
    calls = len(model.prompts)
    print(
        f"{label}: review {seconds:.2f} s, of which model calls {phase:.2f} s (medians of "
        f"{len(runs)} runs); {calls} calls, "
        f"at most {model.most_in_flight} at once (bound {bound}); "
        f"ideal {math.ceil(calls / bound):.0f} s, serial {calls} s; "
        f"largest prompt {max(model.prompts):,} tokens of a {context:,}-token context"
    )


def main() -> None:
    """Run both reviews and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()

    three = ReviewOptions(
        model=ModelOptions(name="stand-in", context_tokens=16_384, max_concurrency=4)
    )
    small = _request(1)
    _report("3 agents, 1 file", [_run(small, three) for _ in range(args.repeat)], 16_384, 4)

    chunked = ReviewOptions(
        analysis=AnalysisOptions(agents=(AgentName.SECURITY,)),
        model=ModelOptions(
            name="stand-in", context_tokens=16_384, max_concurrency=args.concurrency
        ),
    )
    big = _request(args.files)
    runs = [_run(big, chunked) for _ in range(args.repeat)]
    _report(f"{args.files} files in chunks", runs, 16_384, args.concurrency)


if __name__ == "__main__":
    main()
