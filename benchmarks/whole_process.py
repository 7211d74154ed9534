"""Time ``code-guard review`` as a user pays for it: a whole process, start to exit.

    python benchmarks/whole_process.py [--repeat 5] [--only one-line,python-2000,...]
        [--evalsets ../shared/evalsets] [--keep DIR]

Each workload is a pull request written to a temporary checkout (its files on disk, as the
action has them, and its diff), reviewed offline by ``python -m code_guard review`` in a fresh
process, ``--repeat`` times; Bandit (``python -m bandit``) reads the same Python files in the
same run, alternating with the review, so the ratio of their medians holds under the same
load. Printed per workload: the median wall time, the median CPU time of the process and its
analysers, the peak resident memory of the largest process, Bandit's median and the ratio.

The workloads (issue 30's table):
- ``one-line``: one new Python file of one line;
- ``python-2000``: 2,000 added Python lines in 20 new files, cut from real files;
- ``bundles``: 60 minified JavaScript bundles, 3.8 MB in lines of about 2 kB (generated);
- ``huge``: a 3,000-file, 129k-line pull request: real Python, Go, JavaScript and TypeScript
  cut into files of a few dozen lines, 236 vendored Go files, 150 generated Python files
  (protobuf's marker) and the 60 bundles, every one of them reviewed;
- ``huge-nobundles``: the same pull request without its 60 bundles (2,940 files), to see what
  the ordinary files cost apart from the bundles' parse.

``--keep DIR`` writes each workload's checkout and diff under ``DIR/NAME`` and keeps them, to
profile one review by hand (py-spy, ``-json_time``) on exactly what was measured.

The real code is read at run time from the reference sets (``--evalsets``, the
``file_contents`` of their cases), never copied here; it is cut at top-level statements, so
most pieces parse. Without the sets, the Python and the rest are generated instead, which
repeats itself more and says so.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_KEYWORDS = frozenset({"do", "if", "in"})  # JavaScript's keywords of one or two letters
_TOP_LEVEL = ("def ", "class ", "async def ", "@", "func ", "type ", "function ", "export ")


@dataclass
class PullRequest:
    """New files by path; written out as a checkout and a diff."""

    files: dict[str, str] = field(default_factory=dict)

    def lines(self) -> int:
        """Added lines in all."""
        return sum(text.count("\n") for text in self.files.values())

    def write(self, root: Path) -> Path:
        """The files under ``root/checkout`` and the diff at ``root/change.diff``."""
        checkout = root / "checkout"
        parts = []
        for path, text in self.files.items():
            target = checkout / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            body = "".join(f"+{line}\n" for line in text.splitlines())
            parts.append(
                f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n"
                f"+++ b/{path}\n@@ -0,0 +1,{text.count(chr(10))} @@\n{body}"
            )
        diff = root / "change.diff"
        diff.write_text("".join(parts), encoding="utf-8")
        return diff


def real_files(evalsets: Path, suffixes: tuple[str, ...]) -> list[str]:
    """The distinct texts of the reference sets' files with these suffixes, in a fixed order."""
    seen: dict[str, None] = {}
    for case in sorted(evalsets.glob("*/**/cases/*.json")):
        contents = json.loads(case.read_text(encoding="utf-8")).get("file_contents") or {}
        for path, text in sorted(contents.items()):
            if path.endswith(suffixes) and text and "\x00" not in text:
                seen.setdefault(text.replace("\r", ""), None)
    return list(seen)


def parses(text: str) -> bool:
    """Whether ``text`` is Python 3 (the sets hold some Python 2)."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def pieces(texts: Iterable[str], size: int) -> Iterator[str]:
    """Each text cut before top-level statements into pieces of at least ``size`` lines."""
    for text in texts:
        current: list[str] = []
        for line in text.splitlines():
            if len(current) >= size and line.startswith(_TOP_LEVEL):
                yield "\n".join(current) + "\n"
                current = []
            current.append(line)
        if current:
            yield "\n".join(current) + "\n"


def generated_python(count: int, rng: random.Random) -> Iterator[str]:
    """Python modules: ``count`` handler modules of varied names and constants."""
    for n in range(count):
        names = [f"{rng.choice('abcdefgh')}{rng.randrange(10_000)}" for _ in range(8)]
        body = [
            f"\ndef load_{name}(path, default=None):\n"
            f"    if not os.path.exists(path):\n        return default\n"
            f"    with open(path, encoding='utf-8') as handle:\n"
            f"        data = json.load(handle)\n"
            f"    return data.get('{name}', LIMIT_{n})\n"
            for name in names
        ]
        yield f"import json\nimport os\n\nLIMIT_{n} = {rng.randrange(100)}\n" + "".join(body)


def protobuf_module(n: int, rng: random.Random) -> str:
    """A generated ``*_pb2.py`` of about 120 lines, with protoc's marker."""
    lines = [
        "# -*- coding: utf-8 -*-",
        "# Generated by the protocol buffer compiler.  DO NOT EDIT!",
        f"# source: api/m{n}.proto",
        '"""Generated protocol buffer code."""',
        "from google.protobuf import descriptor as _descriptor",
        "from google.protobuf import descriptor_pool as _descriptor_pool",
        "from google.protobuf import symbol_database as _symbol_database",
        "from google.protobuf.internal import builder as _builder",
        "_sym_db = _symbol_database.Default()",
        "DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\\n\\x0b"
        + "".join(f"\\x{rng.randrange(256):02x}" for _ in range(300))
        + "')",
        "_globals = globals()",
        "_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)",
        f"_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'api.m{n}_pb2', _globals)",
        "if _descriptor._USE_C_DESCRIPTORS == False:",
        "  DESCRIPTOR._options = None",
    ]
    for k in range(50):
        start = rng.randrange(10_000)
        lines.append(f"  _globals['_MSG{k}']._serialized_start={start}")
        lines.append(f"  _globals['_MSG{k}']._serialized_end={start + rng.randrange(300)}")
    return "\n".join(lines) + "\n"


def bundle(n: int, rng: random.Random, size: int = 63_000, width: int = 2_000) -> str:
    """A minified JavaScript bundle of about ``size`` bytes in lines of about ``width``:
    module wrappers, closures, string tables and DOM and fetch calls, names of one or two
    letters, no blanks."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"

    def name() -> str:
        while (word := rng.choice(letters) + rng.choice(["", rng.choice(letters)])) in _KEYWORDS:
            pass
        return word

    def statement() -> str:
        a, b, c = name(), name(), name()
        shapes = [
            f"var {a}={b}({c},{rng.randrange(999)});",
            f"function {a}({b},{c}){{return {b}.{name()}({c})||{rng.randrange(9)}}}",
            f'{a}.prototype.{name()}=function({b}){{this.{c}="{name()}{rng.randrange(99)}"+{b}}};',
            f"if({a}&&{b}.length>{rng.randrange(64)}){{{c}.push({a}[{rng.randrange(9)}])}}",
            f'document.getElementById("{name()}-{rng.randrange(999)}").textContent={a};',
            f'fetch("/api/v{rng.randrange(3)}/{name()}").then(function({b}){{return {b}.json()}});',
            f"for(var {a}=0;{a}<{b}.length;{a}++){{{c}+={b}[{a}]}}",
            f'{a}=["{name()}","{name()}","{name()}"].map(function({b}){{return {b}+{c}}});',
            f'{a}.addEventListener("click",function({b}){{{b}.preventDefault();{c}()}});',
        ]
        # Library code mostly computes: a DOM write or a request in about one statement
        # in twenty, as in a framework bundle, not one in five.
        weights = [6, 6, 4, 4, 1, 1, 3, 3, 1]
        return rng.choices(shapes, weights)[0]

    out, line = [f"/*! bundle {n} | (c) example | MIT */"], ""
    total = len(out[0])
    while total < size:
        line += statement()
        if len(line) >= width:
            out.append(line)
            total += len(line) + 1
            line = ""
    return "\n".join(out) + "\n"


def one_line() -> PullRequest:
    """One new Python file of one line."""
    return PullRequest({"app/settings.py": "DEBUG = False\n"})


def python_2000(evalsets: Path | None) -> PullRequest:
    """2,000 added Python lines in 20 new files of 100 lines."""
    rng = random.Random(2000)
    texts = real_files(evalsets, (".py",)) if evalsets else []
    source = list(pieces(texts, 10)) if texts else list(generated_python(400, rng))
    source = [piece for piece in source if piece.count("\n") <= 60 and parses(piece)]
    rng.shuffle(source)
    files = {}
    for n in range(20):
        lines: list[str] = []
        for piece in source:
            if len(lines) + piece.count("\n") <= 100:
                lines += piece.splitlines()
                source.remove(piece)
        lines += ["# padding"] * (100 - len(lines))  # whole pieces, so that every file parses
        files[f"svc/part{n}/module{n}.py"] = "\n".join(lines) + "\n"
    return PullRequest(files)


def bundles() -> PullRequest:
    """60 minified JavaScript bundles, 3.8 MB."""
    rng = random.Random(60)
    return PullRequest({f"static/js/chunk.{n}.js": bundle(n, rng) for n in range(60)})


def huge(evalsets: Path | None, with_bundles: bool = True) -> PullRequest:
    """3,000 files, about 129,000 lines: 2,554 ordinary files of real code, 236 vendored Go
    files, 150 generated Python files and the 60 bundles (unless ``with_bundles`` is false)."""
    rng = random.Random(3000)
    by_kind: dict[str, list[str]] = {}
    for suffixes, extension in (((".py",), "py"), ((".go",), "go"), ((".js",), "js"),
                                ((".ts", ".tsx"), "ts")):  # fmt: skip
        texts = real_files(evalsets, suffixes) if evalsets else []
        if not texts:
            texts = list(generated_python(200, rng)) if extension == "py" else []
        kept = [
            piece
            for piece in pieces(texts, 25)
            if piece.count("\n") <= 90 and (extension != "py" or parses(piece))
        ]
        rng.shuffle(kept)
        by_kind[extension] = kept
    # Three Python files for two Go files and one each of JavaScript and TypeScript, while
    # the pieces last (then whatever is left).
    ordinary: list[tuple[str, str]] = []
    order = ["py", "go", "py", "js", "go", "py", "ts"]
    while len(ordinary) < 2_554 and any(by_kind.values()):
        for kind in order:
            if by_kind.get(kind) and len(ordinary) < 2_554:
                ordinary.append((kind, by_kind[kind].pop()))
    go = by_kind.get("go") or [text for kind, text in ordinary if kind == "go"]
    files: dict[str, str] = {}
    for n, (extension, text) in enumerate(ordinary[:2_554]):
        files[f"src/d{n % 60}/m{n}.{extension}"] = text
    for n in range(236):
        text = go[n % len(go)] if go else "package lib\n\nfunc F() int { return 1 }\n"
        files[f"vendor/github.com/acme/lib{n % 12}/f{n}.go"] = text
    for n in range(150):
        files[f"api/gen/m{n}_pb2.py"] = protobuf_module(n, rng)
    if with_bundles:
        files.update({f"web/static/{path}": text for path, text in bundles().files.items()})
    return PullRequest(files)


@dataclass
class Run:
    """One process: its wall and CPU seconds and its largest resident memory."""

    wall: float
    cpu: float
    peak_mib: float
    code: int


def timed(argv: list[str], cwd: Path, src: Path) -> Run:
    """Run ``argv`` to its end; its own and its descendants' CPU and peak memory."""
    started = time.perf_counter()
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        argv,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(src)},  # the tree measured, not the installed one
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        sys.exit(f"{argv[2:4]} exited {proc.returncode}: {err.decode()[-2000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode)


def measure(
    name: str, pr: PullRequest, repeat: int, trees: list[Path], keep: Path | None = None
) -> None:
    """Review ``pr`` ``repeat`` times with each tree in turn, alternating with Bandit, and
    print the medians, per tree; with ``keep``, the checkout and diff are written under
    ``keep/NAME`` and left there (to profile one review of them)."""
    if keep is not None:
        (keep / name).mkdir(parents=True, exist_ok=True)
    place = (
        contextlib.nullcontext(str(keep / name))
        if keep is not None
        else tempfile.TemporaryDirectory(prefix=f"whole-{name}-")
    )
    with place as tmp:
        diff = pr.write(Path(tmp))
        checkout = Path(tmp) / "checkout"
        review = [sys.executable, "-m", "code_guard", "review", str(diff), "--offline", "-q",
                  "--root", str(checkout), "--format", "json", "--on-error", "warn",
                  "--output", str(Path(tmp) / "review.json")]  # fmt: skip
        python = sorted(p for p in pr.files if p.endswith(".py"))
        bandit = [sys.executable, "-m", "bandit", "-q", "-f", "json", "-o",
                  str(Path(tmp) / "bandit.json"), *python]  # fmt: skip
        if repeat > 1:
            for src in trees:
                timed(review, checkout, src)  # the OS file cache, for all
        ours: dict[Path, list[Run]] = {src: [] for src in trees}
        theirs = []
        for _ in range(repeat):
            for src in trees:
                ours[src].append(timed(review, checkout, src))
            if python:
                theirs.append(timed(bandit, checkout, trees[0]))
        answer = json.loads((Path(tmp) / "review.json").read_text(encoding="utf-8"))
    for src, runs in ours.items():
        wall = statistics.median(r.wall for r in runs)
        cpu = statistics.median(r.cpu for r in runs)
        peak = max(r.peak_mib for r in runs)
        tree = f" [{src}]" if len(trees) > 1 else ""
        line = (
            f"{name}{tree}: {len(pr.files):,} files, {pr.lines():,} lines: {wall:.2f} s "
            f"({cpu:.2f} s CPU), peak {peak:.0f} MiB; "
            f"runs {', '.join(f'{r.wall:.2f}' for r in runs)}"
        )
        if theirs:
            alone = statistics.median(r.wall for r in theirs)
            line += (
                f"; Bandit alone {alone:.2f} s on {len(python)} Python files, x{wall / alone:.2f}"
            )
        print(line)
    skipped = answer.get("files_not_reviewed") or []
    print(
        f"  reviewed {len(answer.get('files_reviewed') or []):,} files, "
        f"not reviewed {len(skipped)}, outcome {answer.get('outcome')}, "
        f"{len(answer.get('findings') or [])} findings",
        flush=True,
    )
    reasons = answer.get("outcome_reasons") or []
    for reason in reasons[:3]:
        print(f"  {reason}")
    if len(reasons) > 3:
        print(f"  ... {len(reasons) - 3} more")


def main() -> None:
    """Build the asked workloads and measure each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="one-line,python-2000,bundles,huge")
    parser.add_argument("--evalsets", type=Path, default=REPO.parent / "shared" / "evalsets")
    parser.add_argument(
        "--src",
        type=Path,
        action="append",
        help="a code_guard tree to measure (default: this checkout's); repeat it to alternate "
        "trees run by run, e.g. an earlier commit's `git archive` against this one",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="write each workload's checkout and diff under this folder (KEEP/NAME/checkout, "
        "KEEP/NAME/change.diff) and leave them there, e.g. to profile one review",
    )
    args = parser.parse_args()
    trees: list[Path] = args.src or [REPO / "src"]
    evalsets = args.evalsets if args.evalsets.is_dir() else None
    if evalsets is None:
        print(f"note: {args.evalsets} not found: the code is generated, and repeats itself")
    subprocess.run(  # noqa: S603 - compile the tree once, as the image does when built
        [sys.executable, "-m", "compileall", "-q", *map(str, trees)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    builders: dict[str, Callable[[], PullRequest]] = {
        "one-line": one_line,
        "python-2000": lambda: python_2000(evalsets),
        "bundles": bundles,
        "huge": lambda: huge(evalsets),
        "huge-nobundles": lambda: huge(evalsets, with_bundles=False),
    }
    for name in args.only.split(","):
        measure(name, builders[name](), args.repeat, trees, args.keep)


if __name__ == "__main__":
    main()
