"""Print what semgrep-core's run over a checkout costs, by the part of a rules file it runs.

    cd benchmarks && python whole_process.py --only python-2000 --repeat 1 --keep /tmp/k
    python semgrep_rule_cost.py /tmp/k/python-2000/checkout [--rules python.yml] [--repeat 5]

semgrep-core runs as a review runs it (``tools/semgrep/command.py``: one core, the rules read
from their JSON twin) over every file of the checkout that the rules file reads, with these
subsets of the rules file: all of it; one rule only (the run's fixed cost: start, rules, parse);
every rule but the taint rules; the taint rules alone; the taint rules without their sanitisers
(guards included). The figure is the median CPU time of ``--repeat`` runs of each, taken in
turn so that the machine's load falls on every subset alike, and the count of results (a subset
finds fewer, or more without sanitisers: it is a measure of cost, not a rules file to ship).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from code_guard.tools.semgrep.command import (
    command,
    core_rules,
    language_of,
    rules_file,
    targets_json,
)


def subsets(rules: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The parts of the rules file to time, by name."""
    taint = [r for r in rules if r.get("mode") == "taint"]
    bare = [{k: v for k, v in r.items() if k != "pattern-sanitizers"} for r in taint]
    return {
        "all rules": rules,
        "one rule (fixed cost)": rules[:1],
        "all but taint rules": [r for r in rules if r.get("mode") != "taint"],
        "taint rules": taint,
        "taint rules, no sanitisers": bare,
    }


def cpu_of(rules: Path, targets: Path, cwd: Path) -> tuple[float, int]:
    """CPU seconds of one semgrep-core run, and its count of results."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command(rules, targets), cwd=cwd, capture_output=True, text=True)  # noqa: S603
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = json.loads(done.stdout[done.stdout.index("{") :])
    spent = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return spent, len(output.get("results", []))


def main() -> None:
    """Time each subset ``--repeat`` times, in turn, and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--rules", default="python.yml")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = args.checkout.resolve()
    paths = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and (language_of(str(p)) or ("", ""))[1] == args.rules
    )
    rules = json.loads(core_rules(rules_file(args.rules)).read_text(encoding="utf-8"))["rules"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        targets = folder / "targets.json"
        targets.write_text(targets_json(paths), encoding="utf-8")
        files = {}
        for index, (name, part) in enumerate(subsets(rules).items()):
            files[name] = folder / f"rules{index}.json"
            files[name].write_text(json.dumps({"rules": part}), encoding="utf-8")
        times: dict[str, list[float]] = {name: [] for name in files}
        found: dict[str, int] = {}
        for _ in range(args.repeat):
            for name, path in files.items():
                spent, found[name] = cpu_of(path, targets, root)
                times[name].append(spent)
    print(f"{len(paths)} files, {args.rules}: median CPU of {args.repeat} runs each")
    for name, runs in times.items():
        print(f"  {name:<28} {statistics.median(runs):6.3f} s   {found[name]:4d} results")


if __name__ == "__main__":
    main()
