"""Print eval speed figures: review latency over a dataset, and the cost of scoring itself.

    python benchmarks/eval_latency.py [--dataset DIR] [--jobs N]

Reviews every case offline (static-only) with ``--jobs`` at a time and prints the nearest-rank
p50 / p95 / max review latency and the wall time; then times matching and summarising a
synthetic run of 1,000 cases, to show that scoring is negligible next to reviewing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from code_guard.evaluation.dataset import ExpectedFinding
from code_guard.evaluation.entry import run_dataset
from code_guard.evaluation.metrics import score_case, summarize
from code_guard.evaluation.schema import CaseResult
from code_guard.findings import AgentName, Category, Finding, Severity
from code_guard.options import ModelOptions, ReviewOptions


def review_latency(dataset: Path | None, jobs: int) -> None:
    """Run the eval offline and print its latency figures."""
    started = time.perf_counter()
    results = run_dataset(dataset, ReviewOptions(model=ModelOptions(offline=True)), jobs=jobs)
    wall = time.perf_counter() - started
    summary = results.summary
    if summary.latency is None:
        print("no case was scored")
        return
    lat = summary.latency
    print(
        f"{summary.cases} cases, jobs={jobs}: review p50 {lat.p50_ms:.0f} ms, "
        f"p95 {lat.p95_ms:.0f} ms, max {lat.max_ms:.0f} ms; wall {wall:.1f} s; "
        f"micro F1 {summary.micro.f1:.3f}"
    )


def scoring_cost(cases: int = 1000, per_case: int = 20) -> None:
    """Time matching and summarising a synthetic run (findings near their expected lines)."""
    categories = list(Category)
    runs = []
    for k in range(cases):
        expected = [
            ExpectedFinding(file_path="a.py", line_start=5 * i + 1, category=categories[i % 5])
            for i in range(per_case)
        ]
        found = [
            Finding(
                agent=AgentName.SECURITY,
                file_path="a.py",
                line_start=5 * i + 1 + (k + i) % 4,
                line_end=5 * i + 1 + (k + i) % 4,
                severity=Severity.LOW,
                category=categories[i % 5],
                title="t",
                description="",
                confidence=0.5,
                sources=("bench",),
            )
            for i in range(per_case)
        ]
        runs.append((found, expected))
    started = time.perf_counter()
    results = []
    for k, (found, expected) in enumerate(runs):
        matches, score = score_case(found, expected, tolerance=3)
        results.append(
            CaseResult(
                case_file=f"{k}.json",
                pr_id=str(k),
                findings=tuple(found),
                expected=tuple(expected),
                matches=matches,
                score=score,
            )
        )
    summary = summarize(results)
    elapsed = time.perf_counter() - started
    print(
        f"scoring {cases} cases x {per_case} findings: {elapsed * 1000:.0f} ms "
        f"({elapsed / cases * 1e6:.0f} us per case), micro F1 {summary.micro.f1:.3f}"
    )


def main() -> None:
    """Parse the flags and print both figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, help="case directory (default: bundled)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    review_latency(args.dataset, args.jobs)
    scoring_cost()


if __name__ == "__main__":
    main()
