"""Print the speed-up of ``code-guard eval --jobs N`` over ``--jobs 1``, as paired ratios.

    python benchmarks/eval_jobs.py [--dataset DIR] [--jobs 2] [--repeat 3]

Each round times one offline eval with one job and one with ``--jobs`` back to back, so both
see the same load on a shared machine; the figure is the median of the per-round ratios
(wall time with one job / wall time with N), not a ratio of medians. Each round also prints
the CPU time of both (this process, the workers and every analyser; warm workers are ended
after each eval, so each starts as a fresh ``code-guard eval`` would).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bounded_work import cpu_seconds

from code_guard.evaluation.entry import run_dataset
from code_guard.options import ReviewOptions
from code_guard.tools.warm import close_warm_pools


def timed(dataset: Path | None, jobs: int) -> tuple[float, float]:
    """Wall and CPU seconds one offline eval of ``dataset`` takes with ``jobs``."""
    started, cpu = time.perf_counter(), cpu_seconds()
    run_dataset(dataset, ReviewOptions(offline=True), jobs=jobs)
    wall = time.perf_counter() - started
    close_warm_pools()
    return wall, cpu_seconds() - cpu


def main() -> None:
    """Run the paired rounds and print each and the median ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, help="case directory (default: bundled)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ratios = []
    for round_ in range(1, args.repeat + 1):
        one, one_cpu = timed(args.dataset, 1)
        many, many_cpu = timed(args.dataset, args.jobs)
        ratios.append(one / many)
        print(f"round {round_}: jobs=1 {one:.1f} s ({one_cpu:.1f} s CPU), jobs={args.jobs} "
              f"{many:.1f} s ({many_cpu:.1f} s CPU), x{one / many:.2f}")
    print(f"median speed-up of --jobs {args.jobs} over --jobs 1: x{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
