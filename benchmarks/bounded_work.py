"""Print how review time grows with the change, and that hostile shapes stay cheap.

    python benchmarks/bounded_work.py [--repeat 3]

Offline static reviews (all agents) of: new Python files totalling 1k, 10k and 100k added
lines; one 200 KB line of minified JavaScript; and a one-line change whose hunk header claims
line 1,000,000. Each figure is the median wall time of ``--repeat`` runs, with the seconds per
1,000 changed lines so linearity can be read off.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.review.engine import review_sync

MODULE = '''\
import json


def load_{n}(path):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    total = 0
    for item in data:
        if item.get("kind") == "order":
            total += item["amount"]
    return total
'''


def python_diff(lines: int, per_file: int = 1_000) -> str:
    """New Python files holding ``lines`` added lines in all."""
    parts = []
    for index in range(max(lines // per_file, 1)):
        chunk: list[str] = []
        while len(chunk) < per_file:
            chunk.extend(MODULE.format(n=len(chunk)).splitlines())
        body = "".join(f"+{line}\n" for line in chunk[:per_file])
        path = f"pkg/mod_{index}.py"
        parts.append(
            f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{per_file} @@\n{body}"
        )
    return "".join(parts)


def minified_diff(size: int = 200_000) -> str:
    """One 200 KB line of minified JavaScript in a new file."""
    line = ("var a=function(b){return b.map(function(c){return c*2})};" * size)[:size]
    return (
        "diff --git a/dist/app.js b/dist/app.js\nnew file mode 100644\n--- /dev/null\n"
        f"+++ b/dist/app.js\n@@ -0,0 +1,1 @@\n+{line}\n"
    )


def far_hunk_diff(line: int = 1_000_000) -> str:
    """One added line whose hunk header places it at ``line``."""
    return (
        "diff --git a/big.py b/big.py\n--- a/big.py\n+++ b/big.py\n"
        f"@@ -{line - 1},0 +{line},1 @@\n+x = eval(input())\n"
    )


def cpu_seconds() -> float:
    """User and system CPU time of this process and its finished children: a figure that,
    unlike wall time, hardly depends on what else the machine runs."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def median_seconds(diff: str, repeat: int) -> float:
    """Median wall time of ``repeat`` offline reviews of ``diff``."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        offline = ReviewOptions(model=ModelOptions(offline=True))
        review_sync(ReviewRequest(change=parse_diff(diff)), offline)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    """Print one line per shape."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for lines in (1_000, 10_000, 100_000):
        seconds = median_seconds(python_diff(lines), args.repeat)
        per_k = seconds / lines * 1e3
        print(f"{lines:>7,} added Python lines: {seconds:6.2f} s ({per_k:.3f} s/1k)")
    print(f"200 KB minified line:         {median_seconds(minified_diff(), args.repeat):6.2f} s")
    print(f"hunk header at line 1,000,000: {median_seconds(far_hunk_diff(), args.repeat):6.2f} s")


if __name__ == "__main__":
    main()
