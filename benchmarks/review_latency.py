"""Print review latency figures: static-only reviews of the examples and the dataset cases.

    python benchmarks/review_latency.py [--repeat R] [--cases N] [--dataset DIR]

Times ``run_review`` (offline, no model) on each ``examples/<name>.diff`` with the files of
``examples/<name>`` as the new contents, then on the first N dataset cases (default all); each
review runs R times (default 5), one at a time, after one untimed warm-up pass. Prints the
median and nearest-rank p95 wall time of one review per group, then the peak RSS of this
process and of its largest analyser subprocess, then the time of one semgrep-core run and one
bandit run on a small file, to show where a review's time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_guard.change.diff import Change, decode_diff, parse_diff
from code_guard.change.request import ReviewRequest, split_lines
from code_guard.evaluation.dataset import list_case_files, load_case
from code_guard.evaluation.metrics import percentile
from code_guard.options import ModelOptions, ReviewOptions
from code_guard.review.engine import run_review
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import run_process
from code_guard.tools.semgrep.command import rules_file, semgrep_core

REPO = Path(__file__).resolve().parents[1]
OFFLINE = ReviewOptions(model=ModelOptions(offline=True))

# A small file that each analyser reads: what one tool run costs beyond its start-up.
_PYTHON_SAMPLE = """\
import sqlite3
import subprocess


def find(db: sqlite3.Connection, name: str) -> list[tuple[str, ...]]:
    return db.execute("SELECT * FROM users WHERE name = '" + name + "'").fetchall()


def run(cmd: str) -> int:
    return subprocess.call(cmd, shell=True)
"""
_JS_SAMPLE = """\
const { exec } = require("child_process");

app.get("/proxy", async (req, res) => {
  const upstream = await fetch(req.query.url);
  res.send(await upstream.text());
});

function digest(data) {
  return require("crypto").createHash("md5").update(data).digest("hex");
}
"""


@dataclass(frozen=True, slots=True)
class Subject:
    """One change to review, named for the report."""

    name: str
    request: ReviewRequest


def contents_from_root(change: Change, root: Path) -> dict[str, str]:
    """New-file text from ``root`` for each file whose added lines it matches, as the CLI's
    ``--root`` reads it; other files are rebuilt from the diff by the engine."""
    contents: dict[str, str] = {}
    for file in change.reviewable_files:
        path = root / file.path
        if not path.is_file():
            continue
        text = decode_diff(path.read_bytes())
        lines = split_lines(text)
        if all(0 < n <= len(lines) and lines[n - 1] == t for n, t in file.added.items()):
            contents[file.path] = text
    return contents


def example_subjects(examples: Path) -> list[Subject]:
    """Each ``examples/<name>.diff``, with ``examples/<name>`` as its checkout."""
    subjects = []
    for diff in sorted(examples.glob("*.diff")):
        change = parse_diff(decode_diff(diff.read_bytes()))
        contents = contents_from_root(change, examples / diff.stem)
        subjects.append(Subject(diff.stem, ReviewRequest(change=change, contents=contents)))
    return subjects


def dataset_subjects(dataset: Path, limit: int | None) -> list[Subject]:
    """The first ``limit`` cases of ``dataset`` (all when None), in file-name order."""
    subjects = []
    for path in list_case_files(dataset)[:limit]:
        case = load_case(path)
        request = ReviewRequest(change=parse_diff(case.diff), contents=case.file_contents)
        subjects.append(Subject(case.pr_id, request))
    return subjects


def time_ms(action: Callable[[], object]) -> float:
    """Wall time of one call of ``action``, in milliseconds."""
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def review_times(subjects: Sequence[Subject], repeat: int) -> list[float]:
    """Per-review wall times (ms): each subject reviewed ``repeat`` times, one at a time."""

    def review(subject: Subject) -> Callable[[], object]:
        return lambda: asyncio.run(run_review(subject.request, OFFLINE))

    return [time_ms(review(s)) for _ in range(repeat) for s in subjects]


def tool_times(runs: int) -> tuple[float, float]:
    """Median wall time (ms) of one semgrep-core run and of one bandit run on a small file."""
    semgrep = [str(semgrep_core()), "-rules", str(rules_file("javascript.yml")), "-lang", "js"]
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        root = Path(tmp)
        (root / "app.js").write_text(_JS_SAMPLE, encoding="utf-8")
        (root / "app.py").write_text(_PYTHON_SAMPLE, encoding="utf-8")
        semgrep_ms = [
            time_ms(lambda: run_process([*semgrep, "-json", "app.js"], cwd=root))
            for _ in range(runs)
        ]
        bandit_ms = [time_ms(lambda: BanditTool().run(root, ["app.py"])) for _ in range(runs)]
    return statistics.median(semgrep_ms), statistics.median(bandit_ms)


def peak_rss_mib() -> tuple[float, float]:
    """Peak resident memory (MiB) of this process and of its largest finished subprocess."""
    # ru_maxrss is in KiB on Linux and in bytes on macOS.
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / scale
    return own, children


def report(label: str, times_ms: Sequence[float], reviews: int) -> None:
    """Print one group's median and p95 per-review wall time."""
    print(
        f"{label:<24} {reviews:>3} reviews x {len(times_ms) // max(reviews, 1)}: "
        f"median {statistics.median(times_ms):7.1f} ms, p95 {percentile(times_ms, 95):7.1f} ms"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the flags, run the reviews and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per review (default 5)")
    parser.add_argument("--cases", type=int, help="dataset cases to review (default all)")
    parser.add_argument("--dataset", type=Path, default=REPO / "dataset")
    parser.add_argument("--examples", type=Path, default=REPO / "examples")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    examples = example_subjects(args.examples)
    cases = dataset_subjects(args.dataset, args.cases)
    started = time.perf_counter()
    review_times([*examples, *cases][:3], 1)  # warm-up: imports and the OS file cache
    print(f"static-only review latency, repeat={args.repeat}:")
    every_example: list[float] = []
    for subject in examples:
        times = review_times([subject], args.repeat)
        report(f"example {subject.name}", times, 1)
        every_example += times
    if examples:
        report("examples (all)", every_example, len(examples))
    if cases:
        report("dataset cases", review_times(cases, args.repeat), len(cases))
    semgrep_ms, bandit_ms = tool_times(runs=5)
    own, child = peak_rss_mib()
    print(f"peak RSS: {own:.0f} MiB (this process), {child:.0f} MiB (largest analyser run)")
    print(
        f"one tool run on a 10-line file: semgrep-core {semgrep_ms:.0f} ms, "
        f"bandit {bandit_ms:.0f} ms"
    )
    print(f"benchmark wall time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
