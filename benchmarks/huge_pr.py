"""Print the time and peak memory of reviewing a huge mixed pull request offline.

    python benchmarks/huge_pr.py [--files 3000] [--lines 100000]

About 3,000 new files and 100,000 added lines: Python, JavaScript, TypeScript and Go sources,
plus lock files, vendored, generated and minified files, which are skipped with their
reasons. Prints the wall time, the CPU time, the peak resident memory of this process and of
its largest analyser process, and how many files were reviewed and skipped, by reason.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections import Counter

from bounded_work import cpu_seconds
from static_review import GO, JS

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.review.engine import review_sync
from code_guard.tools.runtime.warm import close_warm_pools

PY = [
    "import json",
    "",
    "def load(path):",
    "    with open(path, encoding='utf-8') as handle:",
    "        return json.load(handle)",
    "",
]


def new_file(path: str, lines: list[str]) -> str:
    """A git diff adding ``path`` with ``lines``."""
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def huge_diff(files: int, lines: int) -> str:
    """The mixed pull request: one file in ten is a lock, vendored, generated or minified."""
    per_file = max(lines // files, 6)
    kinds = [
        ("py", PY), ("js", JS), ("ts", JS), ("go", GO), ("py", PY), ("js", JS), ("go", GO),
        ("py", PY), ("ts", JS),
    ]  # fmt: skip
    skipped = ["package-lock.json", "vendor/lib/x{}.go", "api/m{}_pb2.py", "static/a{}.min.js"]
    parts = []
    for index in range(files):
        if index % 10 == 9:
            name = skipped[(index // 10) % len(skipped)].format(index)
            path = name if name != "package-lock.json" else f"pkg{index}/package-lock.json"
            parts.append(new_file(path, ["x = 1"] * per_file))
            continue
        extension, source = kinds[index % len(kinds)]
        body = source * max(per_file // len(source), 1)  # whole units: every file parses
        parts.append(new_file(f"src/d{index % 50}/m{index}.{extension}", body))
    return "".join(parts)


def main() -> None:
    """Review the huge pull request once and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3_000)
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    change = parse_diff(huge_diff(args.files, args.lines))
    added = sum(len(f.added) for f in change.files)
    started = time.perf_counter()
    cpu_before = cpu_seconds()
    review = review_sync(
        ReviewRequest(change=change), ReviewOptions(model=ModelOptions(offline=True))
    )
    seconds = time.perf_counter() - started
    close_warm_pools()  # ends the Bandit worker, so its CPU time and memory count below
    cpu = cpu_seconds() - cpu_before
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    reasons = Counter(s.reason.split(" (")[0] for s in review.files_not_reviewed)
    print(f"{len(change.files):,} files, {added:,} added lines: {seconds:.1f} s [target < 30 s]")
    print(f"CPU time: {cpu:.1f} s (this process and its analysers), {os.cpu_count()} cores")
    print(f"peak memory: {own:.0f} MiB in the reviewer, {children:.0f} MiB in an analyser")
    print(f"reviewed {len(review.files_reviewed):,} files; skipped: {dict(reasons)}")
    print(f"outcome {review.outcome.value}, {len(review.findings)} findings")


if __name__ == "__main__":
    main()
