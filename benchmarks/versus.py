"""Print the review time per changed line of this tree against an earlier commit, paired.

    python benchmarks/versus.py --against REV [--repeat 5] [--lines 4000]

Two workloads, each reviewed offline with all agents, one review per fresh process (as one
action run does), the two trees alternating so both see the same load:
- ``new files``: new Python files holding ``--lines`` added lines (4,000 by default: above
  5,000 the secrets scan runs as ``python -I -m ...``, which imports the installed
  ``code_guard`` rather than the tree under test, so an older tree would not be measured);
- ``modified``: 20 existing 500-line Python files, each changed by a hunk that adds request
  handling with findings, so the analysers also read the files as they were before (the
  diff-aware step).
``REV`` is checked out with ``git worktree`` into a temporary folder; both trees run on this
environment's packages. Prints, per workload, the median wall and CPU seconds per 1,000
changed lines of each tree and the median of the per-round ratios (this tree / REV): below 1
means faster now.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bounded_work import python_diff

REPO = Path(__file__).resolve().parents[1]

# Reviews one diff (stdin: {"diff", "contents"}) with the tree first on sys.path; prints its
# wall seconds. Only APIs both trees share.
_CHILD = """\
import json, sys, time
payload = json.load(sys.stdin)
try:
    from code_guard.change.diff import parse_diff
    from code_guard.review.engine import review_sync
    from code_guard.change.request import ReviewRequest
except ImportError:  # a tree from before the package was regrouped (issue 28)
    from code_guard.diff import parse_diff
    from code_guard.engine import review_sync
    from code_guard.request import ReviewRequest
from code_guard.options import build_options
started = time.perf_counter()
request = ReviewRequest(change=parse_diff(payload["diff"]), contents=payload["contents"])
review = review_sync(request, build_options({"offline": True}))
failed = [f"{s.agent}: {s.reason}" for s in review.agents if s.state.value == "failed"]
print(json.dumps({"seconds": time.perf_counter() - started, "findings": len(review.findings),
                  "failed": failed}))
"""

_BASE_FILE = "".join(
    f"def helper_{n}(items):\n    total = 0\n    for item in items:\n        total += item\n"
    f"    return total\n\n\n"
    for n in range(72)
)[: 500 * 40]
_ADDED = [
    "@app.route('/run{n}')",
    "def run_{n}():",
    "    name = request.args.get('name')",
    "    subprocess.call('ls ' + name, shell=True)",
    "    return yaml.load(request.data)",
    "",
    "",
]


def modified_files(count: int = 20) -> tuple[str, dict[str, str], int]:
    """A diff changing ``count`` 500-line files, their new texts, and the added line count."""
    base = _BASE_FILE.splitlines()[:500]
    header = ["import subprocess", "import yaml", "from flask import app, request", ""]
    parts, contents, added = [], {}, 0
    for i in range(count):
        path = f"svc/mod{i}.py"
        new_lines = [line.format(n=i) for line in _ADDED]
        head = [*header, *base[:250], *new_lines, *base[250:]]
        old = [*header, *base]
        contents[path] = "\n".join(head) + "\n"
        at = len(header) + 250
        context = old[at - 3 : at]
        body = [f" {x}" for x in context] + [f"+{x}" for x in new_lines]
        parts.append(
            f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -{at - 2},3 +{at - 2},{3 + len(new_lines)} @@\n" + "\n".join(body) + "\n"
        )
        added += len(new_lines)
    return "".join(parts), contents, added


def review_once(tree: Path, diff: str, contents: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its analysers) of one review by ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", _CHILD],
        input=json.dumps({"diff": diff, "contents": contents}),
        env={**os.environ, "PYTHONPATH": str(tree / "src")},
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    answer = json.loads(proc.stdout)
    # An analyser process runs isolated (python -I) and imports the installed code_guard,
    # not the tree's: an old tree whose module moved since fails there and does less work.
    for failure in answer["failed"]:
        print(f"warning: {tree.name}: agent failed, its time is not comparable: {failure}")
    return float(answer["seconds"]), cpu


def per_thousand(runs: list[tuple[float, float]], added: int) -> str:
    """Median wall and CPU seconds of ``runs``, per 1,000 of ``added`` lines."""
    wall = statistics.median(r[0] for r in runs) * 1000 / added
    cpu = statistics.median(r[1] for r in runs) * 1000 / added
    return f"{wall:.3f} s wall, {cpu:.3f} s CPU per 1,000 lines"


def compiled(tree: Path) -> None:
    """Compile ``tree``'s modules to bytecode, as the action's image does when it is built:
    with ``PYTHONDONTWRITEBYTECODE`` set (the image and this machine set it) a tree without
    bytecode would compile every module it imports in every review, and the module a review
    imports on demand would count as review time."""
    subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-m", "compileall", "-q", str(tree / "src")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


@contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """``rev`` checked out in a temporary worktree."""
    with tempfile.TemporaryDirectory(prefix="versus-") as tmp:
        tree = Path(tmp) / "tree"
        git = ["git", "-C", str(REPO)]
        subprocess.run([*git, "worktree", "add", "-q", "--detach", str(tree), rev], check=True)
        try:
            yield tree
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(tree)], check=True)


def main() -> None:
    """Alternate the two trees over both workloads and print the medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="the earlier commit")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--lines", type=int, default=4_000)
    args = parser.parse_args()
    mod_diff, mod_contents, mod_added = modified_files()
    workloads = {
        f"new files, {args.lines:,} added lines": (python_diff(args.lines), {}, args.lines),
        f"modified, 20 files, {mod_added} added lines": (mod_diff, mod_contents, mod_added),
    }
    with checkout(args.against) as old:
        for tree in (REPO, old):
            compiled(tree)
        for name, (diff, contents, added) in workloads.items():
            review_once(REPO, diff, contents)  # warm the OS file cache for both trees
            review_once(old, diff, contents)
            now, then, ratios = [], [], []
            for _ in range(args.repeat):
                a, b = review_once(REPO, diff, contents), review_once(old, diff, contents)
                now.append(a)
                then.append(b)
                ratios.append(a[0] / b[0])
            rev = args.against[:12]
            print(f"{name}:")
            print(f"  this tree:      {per_thousand(now, added)}")
            print(f"  {rev:<14}  {per_thousand(then, added)}")
            print(f"  median ratio (this tree / {rev}): x{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
