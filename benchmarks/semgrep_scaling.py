"""Print how semgrep-core's runs scale from one stream to two, the work an eval repeats most.

    python benchmarks/semgrep_scaling.py [--runs 20] [--repeat 3]

Each round times ``--runs`` runs of the bundled Python rules over one small file, one after
another, then two such streams at once (twice the work); the figure is the median of the
rounds' ratios (two streams' wall time / one stream's). 1.0 means a second core doubles the
throughput; 2.0 means it adds nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from code_guard.tools.semgrep.command import rules_file, semgrep_core, targets_json


def stream(folder: Path, runs: int) -> None:
    """``runs`` semgrep-core runs, one after another, each on one core as a review runs it."""
    args = [str(semgrep_core()), "-rules", str(rules_file("python.yml")), "-targets",
            str(folder / "targets.json"), "-json", "-j", "1"]  # fmt: skip
    for _ in range(runs):
        subprocess.run(args, cwd=folder, capture_output=True, check=True)  # noqa: S603


def main() -> None:
    """Run the rounds and print each and the median ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "app.py").write_text("import os\n\nos.system(input())\n", encoding="utf-8")
        (folder / "targets.json").write_text(targets_json(["app.py"]), encoding="utf-8")
        ratios = []
        for round_ in range(1, args.repeat + 1):
            started = time.perf_counter()
            stream(folder, args.runs)
            one = time.perf_counter() - started
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=2) as pool:
                list(pool.map(lambda _: stream(folder, args.runs), range(2)))
            two = time.perf_counter() - started
            ratios.append(two / one)
            print(f"round {round_}: one stream {one:.2f} s ({one / args.runs:.3f} s a run), "
                  f"two streams {two:.2f} s, x{two / one:.2f}")
    print(f"median: two streams take x{statistics.median(ratios):.2f} the time of one")


if __name__ == "__main__":
    main()
