"""Print offline static review times by size and language (issue targets in brackets).

    python benchmarks/static_review.py [--repeat 3] [--python 100,2000,10000,50000]

New Python files with the given numbers of added lines in all, and 20 new files each of
JavaScript, TypeScript and Go (an Express or net/http handler with a few findings). Each figure
is the median wall time of ``--repeat`` reviews with all three agents, and the median CPU time
(steadier than wall time on a shared machine). Each review starts its own Bandit worker, as a
one-shot review in the action does, and its CPU time is counted.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bounded_work import cpu_seconds, python_diff

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.review.engine import review_sync
from code_guard.tools.runtime.warm import close_warm_pools

_TARGETS = {2_000: " [target < 1 s]", 50_000: " [target < 10 s]"}
JS = [
    'const express = require("express");',
    "const app = express();",
    'app.get("/u", (req, res) => {',
    '  const q = "SELECT * FROM t WHERE id = " + req.query.id;',
    "  db.query(q);",
    "  res.send(req.query.name);",
    "});",
]
GO = [
    "package main",
    'import "net/http"',
    "func h(w http.ResponseWriter, r *http.Request) {",
    '  w.Write([]byte(r.URL.Query().Get("x")))',
    "}",
]


def new_files(extension: str, lines: list[str], count: int = 20) -> str:
    """``count`` new files ``src/m<i>.<extension>`` holding ``lines``."""
    body = "".join(f"+{line}\n" for line in lines)
    return "".join(
        f"diff --git a/src/m{i}.{extension} b/src/m{i}.{extension}\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/src/m{i}.{extension}\n@@ -0,0 +1,{len(lines)} @@\n{body}"
        for i in range(count)
    )


def median_seconds(diff: str, repeat: int) -> tuple[float, float]:
    """Median wall time and median CPU time (this process and its analysers) of ``repeat``
    offline reviews of ``diff``."""
    change = parse_diff(diff)
    times, cpu = [], []
    for _ in range(repeat):
        started, cpu_before = time.perf_counter(), cpu_seconds()
        review_sync(ReviewRequest(change=change), ReviewOptions(model=ModelOptions(offline=True)))
        times.append(time.perf_counter() - started)
        close_warm_pools()  # each review starts its Bandit worker, as a one-shot review does
        cpu.append(cpu_seconds() - cpu_before)
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    """Print one line per size and language."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default="100,2000,10000,50000")
    args = parser.parse_args()
    for count in (int(n) for n in args.python.split(",")):
        diff = python_diff(count, per_file=min(count, 1_000))
        seconds, cpu = median_seconds(diff, args.repeat)
        target = _TARGETS.get(count, "")
        print(f"Python, {count:>6,} added lines: {seconds:6.2f} s ({cpu:.2f} s CPU){target}")
    for name, extension, source in (("JavaScript", "js", JS), ("TypeScript", "ts", JS),
                                    ("Go", "go", GO)):  # fmt: skip
        seconds, cpu = median_seconds(new_files(extension, source), args.repeat)
        print(f"{name}, 20 files: {seconds:6.2f} s ({cpu:.2f} s CPU) [target < 1.2 s]")


if __name__ == "__main__":
    main()
