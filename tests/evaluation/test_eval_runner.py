"""Tests of the runner: fake reviews, malformed cases, concurrency, sharding and merging."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from evalfakes import FakeClock, FakeReviewer, WriteCase, make_finding

from code_guard.errors import DatasetError, ToolError
from code_guard.evaluation.dataset import Shard
from code_guard.evaluation.results import merge_results
from code_guard.evaluation.runner import evaluate, review_cases
from code_guard.evaluation.schema import CaseResult, EvalResults
from code_guard.findings import Category, Review, Usage
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.review.engine import ReviewRequest

SQL = Category.SQL_INJECTION
OFFLINE = ReviewOptions(model=ModelOptions(offline=True))


def run(
    directory: Path,
    reviewer: FakeReviewer,
    *,
    jobs: int = 1,
    shard: Shard | None = None,
    progress: list[tuple[int, int, str]] | None = None,
) -> EvalResults:
    def on_result(done: int, total: int, result: CaseResult) -> None:
        if progress is not None:
            progress.append((done, total, result.pr_id))

    return asyncio.run(
        evaluate(
            directory,
            reviewer,
            model=OFFLINE.model,
            tolerance=3,
            jobs=jobs,
            shard=shard,
            on_result=on_result,
            clock=reviewer.clock,
        )
    )


def five_cases(write_case: WriteCase) -> FakeReviewer:
    """Write cases c1..c5 and return a reviewer that finds some of their expected findings."""
    for k in range(1, 6):
        write_case(f"c{k}", [(5, SQL)] if k % 2 else [])
    return FakeReviewer(
        findings={
            "app_c1.py": [make_finding("app_c1.py", 6, SQL)],  # TP
            "app_c2.py": [make_finding("app_c2.py", 6, SQL)],  # false alarm on a clean case
            "app_c3.py": [make_finding("app_c3.py", 9, SQL)],  # 4 lines off: FP + FN
        },
        # Multiples of 1/8 s: exact in binary, so latencies do not depend on the clock offset.
        latency_s={f"app_c{k}.py": k / 8 for k in range(1, 6)},
    )


def test_cases_are_reviewed_and_scored(write_case: WriteCase, tmp_path: Path) -> None:
    reviewer = five_cases(write_case)
    progress: list[tuple[int, int, str]] = []
    results = run(tmp_path / "cases", reviewer, progress=progress)

    scores = {c.pr_id: (c.score.tp, c.score.fp, c.score.fn) for c in results.cases if c.score}
    assert scores == {
        "c1": (1, 0, 0),
        "c2": (0, 1, 0),
        "c3": (0, 1, 1),
        "c4": (0, 0, 0),
        "c5": (0, 0, 1),
    }
    assert [c.latency_ms for c in results.cases] == [125, 250, 375, 500, 625]
    assert progress == [(k, 5, f"c{k}") for k in range(1, 6)]
    assert results.metadata.model == "static-only"
    assert results.metadata.static_only_reason == "offline mode was requested (--offline)"
    assert (results.metadata.dataset_cases, results.metadata.shard) == (5, None)


def test_the_review_sees_the_case_but_not_its_name(write_case: WriteCase, tmp_path: Path) -> None:
    write_case("sql_injection_basic", [(5, SQL)])
    reviewer = FakeReviewer()
    run(tmp_path / "cases", reviewer)

    (request,) = reviewer.requests
    assert [f.path for f in request.change.files] == ["app_sql_injection_basic.py"]
    assert request.contents["app_sql_injection_basic.py"].startswith("x1 = 1\n")
    assert (request.title, request.body) == ("", "")


def test_malformed_cases_are_reported_and_the_rest_run(
    write_case: WriteCase, tmp_path: Path
) -> None:
    write_case("good", [(5, SQL)])
    write_case("no_category", expected_findings=[{"file_path": "x.py", "line_start": 1}])
    write_case(
        "bad_line",
        expected_findings=[{"file_path": "app_bad_line.py", "line_start": "5", "category": "xss"}],
    )
    write_case("bad_diff", diff="this is not a diff\n")
    (tmp_path / "cases" / "bad_json.json").write_text("{", encoding="utf-8")
    reviewer = FakeReviewer(findings={"app_good.py": [make_finding("app_good.py", 5, SQL)]})

    results = run(tmp_path / "cases", reviewer)

    errors = {e.case_file: e.reason for e in results.summary.errored}
    assert errors == {
        "bad_diff.json": "input has no file changes; expected a unified diff (git diff output)",
        "bad_json.json": "invalid JSON at line 1 column 2: Expecting property name enclosed "
        "in double quotes",
        "bad_line.json": "expected_findings.0.line_start: Input should be a valid integer",
        "no_category.json": "expected_findings.0.category: Field required",
    }
    assert (results.summary.cases, results.summary.scored, results.summary.errors) == (5, 1, 4)
    assert results.summary.micro.f1 == 1.0
    assert len(reviewer.requests) == 1


def test_failed_review_and_failed_agent_are_errors(write_case: WriteCase, tmp_path: Path) -> None:
    write_case("partial", [(5, SQL)])
    write_case("crash")
    partial = FakeReviewer(
        findings={"app_partial.py": [make_finding("app_partial.py", 5, SQL)]},
        failed_agent="timed out",
        usage=Usage(prompt_tokens=7),
    )

    async def review(request: ReviewRequest) -> Review:
        if request.change.file("app_crash.py") is not None:
            raise ToolError("bandit could not start")
        return await partial(request)

    results = asyncio.run(evaluate(tmp_path / "cases", review, model=OFFLINE.model, tolerance=3))
    crash, part = results.cases
    assert crash.error == "review failed: bandit could not start"
    assert part.error == "review incomplete: style agent failed: timed out"
    assert len(part.findings) == 1  # kept for analysis, but not scored
    assert part.score is None
    assert results.summary.scored == 0
    assert results.summary.usage.prompt_tokens == 7  # what errored cases spent still counts


def test_concurrency_is_bounded_and_order_kept(write_case: WriteCase, tmp_path: Path) -> None:
    files = [write_case(f"c{k}") for k in range(6)]
    # Earlier cases take longer, so they finish last; results must still follow file order.
    reviewer = FakeReviewer(
        latency_s={f"app_c{k}.py": 0.02 * (6 - k) for k in range(6)}, sleep=True
    )
    done: list[str] = []
    results = asyncio.run(
        review_cases(
            files,
            reviewer,
            tolerance=3,
            jobs=3,
            on_result=lambda d, t, r: done.append(r.pr_id),
        )
    )
    assert reviewer.max_in_flight == 3
    assert [r.pr_id for r in results] == [f"c{k}" for k in range(6)]
    assert done != [f"c{k}" for k in range(6)]  # finishing order differs from file order


def test_jobs_does_not_change_scores(write_case: WriteCase, tmp_path: Path) -> None:
    reviewer = five_cases(write_case)
    one = run(tmp_path / "cases", reviewer, jobs=1)
    four = run(tmp_path / "cases", five_cases(write_case), jobs=4)
    assert [c.score for c in one.cases] == [c.score for c in four.cases]


def test_merged_shards_equal_an_unsharded_run(write_case: WriteCase, tmp_path: Path) -> None:
    for k in range(1, 8):
        write_case(f"extra{k}", [(3, SQL)])
    write_case("zz_broken", expected_findings="nope")
    reviewer = five_cases(write_case)
    directory = tmp_path / "cases"

    whole = run(directory, reviewer)
    shards = [run(directory, reviewer, shard=Shard(i, 3)) for i in (3, 1, 2)]

    assert [s.summary.cases for s in shards] == [4, 5, 4]
    assert {c.case_file for s in shards for c in s.cases} == {c.case_file for c in whole.cases}
    assert merge_results(shards) == whole
    assert whole.summary.errors == 1


def test_missing_dataset_raises(tmp_path: Path) -> None:
    with pytest.raises(DatasetError):
        run(tmp_path / "missing", FakeReviewer())


def test_clock_measures_only_the_review(write_case: WriteCase, tmp_path: Path) -> None:
    write_case("one")
    clock = FakeClock(now=1000.0)
    reviewer = FakeReviewer(latency_s={"app_one.py": 0.25}, clock=clock)
    results = run(tmp_path / "cases", reviewer)
    assert results.cases[0].latency_ms == pytest.approx(250.0)
