"""Print the speed-up of ``code-guard eval --jobs N`` over ``--jobs 1``, as paired ratios.

    python benchmarks/eval_jobs.py [--dataset DIR] [--jobs 2] [--repeat 3]

Each round times one offline eval with one job and one with ``--jobs`` back to back, so both
see the same load on a shared machine; the figure is the median of the per-round ratios
(wall time with one job / wall time with N), not a ratio of medians.

Every eval runs in a fresh Python process, as each ``code-guard eval`` does: how the workers
start (forked from a process that has not reviewed anything yet) and which analysers are warm
are then what a user gets. The ratio is of the eval itself (``run_dataset``, from listing the
cases to the scored results); each round also prints the CPU time of both (the process, its
workers and every analyser) and the wall time of the whole process, interpreter start and
imports included, which both modes pay once.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bounded_work import cpu_seconds

from code_guard.evaluation.entry import run_dataset
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.tools.runtime.warm import close_warm_pools


@dataclass(frozen=True)
class Timing:
    """One eval: its wall and CPU seconds, and the whole process's wall seconds."""

    wall: float
    cpu: float
    process: float


def eval_here(dataset: Path | None, jobs: int) -> tuple[float, float]:
    """Wall and CPU seconds of one offline eval of ``dataset`` with ``jobs``, in this process
    (its Bandit worker ended at the end, so its CPU time counts)."""
    started, cpu = time.perf_counter(), cpu_seconds()
    run_dataset(dataset, ReviewOptions(model=ModelOptions(offline=True)), jobs=jobs)
    wall = time.perf_counter() - started
    close_warm_pools()
    return wall, cpu_seconds() - cpu


def timed(dataset: Path | None, jobs: int) -> Timing:
    """One offline eval with ``jobs`` in a fresh process (this script with ``--one``)."""
    argv = [sys.executable, __file__, "--one", "--jobs", str(jobs)]
    if dataset is not None:
        argv += ["--dataset", str(dataset)]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)  # noqa: S603
    process = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"eval --jobs {jobs} failed: {done.stderr.strip().splitlines()[-1:]}")
    wall, cpu = json.loads(done.stdout.strip().splitlines()[-1])
    return Timing(wall=wall, cpu=cpu, process=process)


def main() -> None:
    """Run the paired rounds and print each and the median ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, help="case directory (default: bundled)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # the child of ``timed``: one eval, its figures as JSON on the last line
        print(json.dumps(eval_here(args.dataset, args.jobs)))
        return
    ratios, whole = [], []
    for round_ in range(1, args.repeat + 1):
        one = timed(args.dataset, 1)
        many = timed(args.dataset, args.jobs)
        ratios.append(one.wall / many.wall)
        whole.append(one.process / many.process)
        print(f"round {round_}: jobs=1 {one.wall:.1f} s ({one.cpu:.1f} s CPU), "
              f"jobs={args.jobs} {many.wall:.1f} s ({many.cpu:.1f} s CPU), "
              f"x{one.wall / many.wall:.2f}; whole processes {one.process:.1f} s and "
              f"{many.process:.1f} s, x{one.process / many.process:.2f}", flush=True)
    print(f"median speed-up of --jobs {args.jobs} over --jobs 1: x{statistics.median(ratios):.2f}"
          f" (whole processes, start and imports included: x{statistics.median(whole):.2f})")


if __name__ == "__main__":
    main()
