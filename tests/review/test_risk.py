"""Riskiest files first: source before tests, analysed languages first, larger changes first,
so a capped review leaves out what matters least."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentName
from code_guard.options import AnalysisOptions, ModelOptions, ReviewOptions
from code_guard.review.engine import run_review
from code_guard.review.risk import by_risk, language_rank

if TYPE_CHECKING:
    from conftest import MakeAnswer, MakeLLM, NewFileDiff


def lines(count: int) -> str:
    return "".join(f"VALUE_{n} = {n}\n" for n in range(count))


def test_source_before_tests_then_language_then_size(new_file_diff: NewFileDiff) -> None:
    files = {
        "tests/test_big.py": lines(50),
        "README.md": lines(40),
        "deploy/app.yaml": lines(30),
        "app/small.py": lines(2),
        "app/big.go": lines(20),
        "tools/run.sh": lines(60),
    }
    change = parse_diff("".join(new_file_diff(path, text) for path, text in files.items()))
    order = [f.path for f in by_risk(change.files)]
    assert order == [
        "app/big.go", "app/small.py", "tools/run.sh", "deploy/app.yaml", "README.md",
        "tests/test_big.py",
    ]  # fmt: skip


def test_language_ranks() -> None:
    assert [language_rank(p) for p in ("a.tsx", "Dockerfile", "x.toml", "notes.txt")] == [
        0, 1, 2, 3,
    ]  # fmt: skip


def test_a_capped_model_review_spends_its_calls_on_source_first(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    # The tests come first in the diff and are larger; the token cap allows one call only.
    files = {f"tests/test_views{i}.py": lines(400) for i in range(6)}
    files["app/views.py"] = lines(150)
    diff = "".join(new_file_diff(path, text) for path, text in files.items())
    request = ReviewRequest(change=parse_diff(diff), contents=files)
    llm = fake_llm(
        otherwise=answer(), context_tokens=4_096, max_output_tokens=512, max_concurrency=1,
        max_tokens=100,
    )  # fmt: skip
    options = ReviewOptions(
        analysis=AnalysisOptions(agents=(AgentName.SECURITY,)),
        model=ModelOptions(name="gpt-4o-mini"),
    )
    review = asyncio.run(run_review(request, options, llm))
    assert len(llm.calls) == 1
    assert "### app/views.py" in llm.calls[0].user
    not_sent = [f.path for f in review.not_sent_to_model]
    assert not_sent and all(path.startswith("tests/") for path in not_sent)
