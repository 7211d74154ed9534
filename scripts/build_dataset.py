"""Build and check the bundled evaluation dataset.

Each case is authored once, as ``dataset/sources/<pr_id>.case``: a free-text note, then one
section per touched file (``=== modified: path``, ``=== new: path`` or ``=== deleted: path``)
whose lines carry a one-character prefix, as in a diff that shows the whole file: ``' '`` for an
unchanged line, ``'-'`` for a line the PR removes, ``'+'`` for a line it adds, and ``'\\'`` when
the line before has no trailing newline. An added line may end with a marker such as
``# expect: sql_injection`` or ``// expect: xss, memory_leak``; the marker is stripped and
becomes an expected finding on that line of the new file.

``python scripts/build_dataset.py`` writes ``dataset/<pr_id>.json`` for every source, with a
git-style unified diff, and refreshes the coverage table in ``dataset/README.md``.
``python scripts/build_dataset.py --check`` rebuilds nothing; it prints one line per problem
(stale or orphan JSON, bad keys, unknown categories, expected lines that the diff does not add,
hunks that disagree with ``file_contents``, thin categories) and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

Case = dict[str, Any]
Status = Literal["modified", "new", "deleted"]

ROOT = Path(__file__).resolve().parent.parent
DATASET_DIR = ROOT / "dataset"
SOURCE_SUFFIX = ".case"
CASE_KEYS = ("pr_id", "diff", "file_contents", "expected_findings")
FINDING_KEYS = ("file_path", "line_start", "category")
MIN_PER_CATEGORY = 2
CONTEXT_LINES = 3
# The vocabulary of code_guard.findings.Category, repeated so that this script runs without the
# package installed; tests/evaluation/test_dataset_integrity.py keeps the two in step.
# fmt: off
CATEGORIES = (
    "sql_injection", "command_injection", "code_injection", "path_traversal", "xss", "ssrf",
    "insecure_deserialization", "hardcoded_secret", "weak_crypto", "insecure_config", "xxe",
    "open_redirect", "broken_access_control", "csrf", "n_plus_one_query", "inefficient_loop",
    "blocking_io", "memory_leak", "unused_code", "naming", "complexity", "error_handling", "other",
)
# fmt: on
LANGUAGES = {".py": "Python", ".go": "Go"} | dict.fromkeys(
    (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx"), "JavaScript/TypeScript"
)
README_BEGIN = "<!-- coverage:begin -->"
README_END = "<!-- coverage:end -->"

_HEADER = re.compile(r"^=== (modified|new|deleted): (\S+)\s*$")
_MARKER = re.compile(
    r"\s*(?:#|//|--|/\*|\{#|<!--)\s*expect:\s*(?P<cats>[a-z_]+(?:\s*,\s*[a-z_]+)*)"
    r"\s*(?:\*/|#\}|-->)?\s*$"
)
_LEFTOVER = re.compile(r"(?:#|//|--|/\*|\{#|<!--)\s*expect:")
_NO_NEWLINE = "\\ No newline at end of file\n"
_FUNCNAME = re.compile(r"^[A-Za-z_$]")


class SourceError(Exception):
    """A ``.case`` source that cannot be turned into a case."""


@dataclass(frozen=True)
class SourceFile:
    """One file touched by a PR: its texts before and after, and the expected findings in it."""

    path: str
    status: Status
    before: str
    after: str
    expected: tuple[tuple[int, str], ...]


@dataclass
class _Side:
    """The lines of one side of a section while it is parsed, and where its last newline went."""

    lines: list[str]
    no_eol_at: int = -1

    def text(self, where: str) -> str:
        """Join the lines, dropping the final newline if a ``\\`` line asked for it."""
        if self.no_eol_at not in (-1, len(self.lines)):
            raise SourceError(f"{where}: '\\' must follow the last line of its side")
        text = "".join(line + "\n" for line in self.lines)
        return text[:-1] if self.no_eol_at != -1 else text


# --------------------------------------------------------------------------- sources


def parse_source(text: str, where: str) -> list[SourceFile]:
    """Parse the text of one ``.case`` source into its files, in order of appearance."""
    files: list[SourceFile] = []
    header: tuple[Status, str] | None = None
    body: list[str] = []
    for line in text.split("\n"):
        match = _HEADER.match(line)
        if match is None:
            if header is not None:
                body.append(line)
            continue
        if header is not None:
            files.append(_parse_section(header[0], header[1], body, where))
        header, body = (cast(Status, match.group(1)), match.group(2)), []
    if header is None:
        raise SourceError(f"{where}: no '=== modified|new|deleted: path' section")
    files.append(_parse_section(header[0], header[1], body, where))
    paths = [f.path for f in files]
    if len(set(paths)) != len(paths):
        raise SourceError(f"{where}: a path appears in two sections")
    return files


def _parse_section(status: Status, path: str, body: list[str], where: str) -> SourceFile:
    """Turn the prefixed lines of one section into the file's before/after texts."""
    while body and body[-1] == "":
        body.pop()
    before, after = _Side([]), _Side([])
    expected: list[tuple[int, str]] = []
    allowed = {"modified": " +-\\", "new": "+\\", "deleted": "-\\"}[status]
    previous = ""
    for number, raw in enumerate(body, start=1):
        kind, content = (raw[0], raw[1:]) if raw else (" ", "")
        here = f"{where}: {path}: section line {number}"
        if kind not in allowed:
            raise SourceError(f"{here}: prefix {kind!r} not allowed in a {status} section")
        if kind == "\\":
            for side in _sides_of(previous, before, after):
                side.no_eol_at = len(side.lines)
            continue
        marker = _MARKER.search(content)
        if marker is not None:
            if kind != "+":
                raise SourceError(f"{here}: expect marker on a line the PR does not add")
            content = content[: marker.start()]
            expected.extend(
                (len(after.lines) + 1, cat.strip()) for cat in marker.group("cats").split(",")
            )
        for side in _sides_of(kind, before, after):
            side.lines.append(content)
        previous = kind
    return SourceFile(
        path,
        status,
        before.text(f"{where}: {path}"),
        after.text(f"{where}: {path}"),
        tuple(expected),
    )


def _sides_of(kind: str, before: _Side, after: _Side) -> tuple[_Side, ...]:
    """Return the sides a line with this prefix belongs to."""
    return {" ": (before, after), "-": (before,), "+": (after,)}.get(kind, ())


# --------------------------------------------------------------------------- building


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping the newlines (``str.splitlines`` splits on more)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _blob_id(text: str) -> str:
    """Return the abbreviated git blob id of a text, as git prints it on ``index`` lines."""
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()[:7]


def _range(start: int, end: int) -> str:
    """Format one side of a hunk header the way git and difflib do."""
    length = end - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _funcname(old: Sequence[str], start: int) -> str:
    """Return git's default hunk-header context: the nearest earlier line starting a word."""
    for line in reversed(old[:start]):
        if _FUNCNAME.match(line):
            return " " + line.rstrip()[:80]
    return ""


def _emit(prefix: str, lines: Iterable[str]) -> Iterable[str]:
    """Yield diff body lines, adding git's marker after a line with no newline."""
    for line in lines:
        yield prefix + line
        if not line.endswith("\n"):
            yield "\n" + _NO_NEWLINE


def render_file_diff(source: SourceFile) -> str:
    """Render the git-style unified diff of one file, with three lines of context."""
    old, new = split_lines(source.before), split_lines(source.after)
    path = source.path
    a_id = "0000000" if source.status == "new" else _blob_id(source.before)
    b_id = "0000000" if source.status == "deleted" else _blob_id(source.after)
    out = [f"diff --git a/{path} b/{path}\n"]
    if source.status == "modified":
        out.append(f"index {a_id}..{b_id} 100644\n")
    else:
        out += [f"{source.status} file mode 100644\n", f"index {a_id}..{b_id}\n"]
    out.append("--- /dev/null\n" if source.status == "new" else f"--- a/{path}\n")
    out.append("+++ /dev/null\n" if source.status == "deleted" else f"+++ b/{path}\n")
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        (_, a1, _, b1, _), (_, _, a2, _, b2) = group[0], group[-1]
        out.append(f"@@ -{_range(a1, a2)} +{_range(b1, b2)} @@{_funcname(old, a1)}\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += _emit(" ", old[i1:i2])
                continue
            out += _emit("-", old[i1:i2])
            out += _emit("+", new[j1:j2])
    return "".join(out)


def build_case(pr_id: str, files: Sequence[SourceFile]) -> Case:
    """Assemble the case dictionary for a PR from its parsed source files."""
    ordered = sorted(files, key=lambda f: f.path)
    return {
        "pr_id": pr_id,
        "diff": "".join(render_file_diff(f) for f in ordered),
        "file_contents": {f.path: f.after for f in ordered if f.status != "deleted"},
        "expected_findings": [
            {"file_path": f.path, "line_start": line, "category": category}
            for f in ordered
            for line, category in f.expected
        ],
    }


def case_json(case: Case) -> str:
    """Serialise a case exactly as it is stored on disk."""
    return json.dumps(case, indent=2, ensure_ascii=False) + "\n"


def build_from_source(source: Path) -> str:
    """Read one ``.case`` file and return the JSON text of its case."""
    files = parse_source(source.read_text(encoding="utf-8"), source.name)
    return case_json(build_case(source.stem, files))


# --------------------------------------------------------------------------- checking


def check_case(stem: str, data: object) -> list[str]:
    """Return the problems of one loaded case (empty when it is sound)."""
    if not isinstance(data, dict) or tuple(sorted(data)) != tuple(sorted(CASE_KEYS)):
        return [f"{stem}: a case must be an object with exactly the keys {', '.join(CASE_KEYS)}"]
    problems: list[str] = []
    if data["pr_id"] != stem:
        problems.append(f"{stem}: pr_id {data['pr_id']!r} differs from the file name")
    contents = data["file_contents"]
    if not isinstance(contents, dict) or not all(isinstance(v, str) for v in contents.values()):
        return [*problems, f"{stem}: file_contents must map paths to texts"]
    if not isinstance(data["diff"], str):
        return [*problems, f"{stem}: diff must be a string"]
    try:
        patch = PatchSet(data["diff"])
    except UnidiffParseError as exc:
        return [*problems, f"{stem}: diff does not parse: {exc}"]
    problems += _check_contents(stem, patch, contents)
    problems += _check_findings(stem, patch, contents, data["expected_findings"])
    return problems


def _check_contents(stem: str, patch: PatchSet, contents: dict[str, str]) -> list[str]:
    """Check that ``file_contents`` holds exactly the PR's surviving files and matches hunks."""
    problems: list[str] = []
    kept = {f.path for f in patch if not f.is_removed_file}
    if not patch:
        problems.append(f"{stem}: diff touches no file")
    for path in sorted(kept ^ set(contents)):
        side = "file_contents" if path in contents else "the diff"
        problems.append(f"{stem}: {path} is only in {side}")
    for patched in patch:
        if not patched.is_removed_file and patched.path in contents:
            problems += _check_file_text(stem, patched, contents[patched.path])
    return problems


def _check_file_text(stem: str, patched: PatchedFile, text: str) -> list[str]:
    """Check one surviving file: a new file is its hunk; a changed one contains each hunk."""
    where = f"{stem}: {patched.path}"
    problems: list[str] = []
    lines = split_lines(text)
    if patched.is_added_file:
        if "".join(line for hunk in patched for line in _hunk_new_side(hunk)) != text:
            problems.append(f"{where}: new file differs from file_contents")
    else:
        for hunk in patched:
            new_side = _hunk_new_side(hunk)
            start = hunk.target_start - 1 if hunk.target_length else hunk.target_start
            if lines[start : start + len(new_side)] != new_side:
                problems.append(
                    f"{where}: hunk @@ +{hunk.target_start} does not match file_contents"
                )
    if any(_LEFTOVER.search(line) for line in lines):
        problems.append(f"{where}: an 'expect:' marker was left in the text")
    return problems


def _hunk_new_side(hunk: Hunk) -> list[str]:
    """Return the new-side lines of a hunk, honouring ``\\ No newline at end of file``."""
    lines: list[str] = []
    last_was_new = False
    for line in hunk:
        if line.line_type == "\\":
            if last_was_new:
                lines[-1] = lines[-1].removesuffix("\n")
            continue
        last_was_new = line.line_type in (" ", "+")
        if last_was_new:
            lines.append(str(line.value))
    return lines


def _check_findings(
    stem: str, patch: PatchSet, contents: dict[str, str], findings: object
) -> list[str]:
    """Check each expected finding: known file and category, on a line the diff adds."""
    if not isinstance(findings, list):
        return [f"{stem}: expected_findings must be a list"]
    added = {
        f.path: {line.target_line_no for hunk in f for line in hunk if line.is_added} for f in patch
    }
    problems: list[str] = []
    for finding in findings:
        if not isinstance(finding, dict) or tuple(sorted(finding)) != tuple(sorted(FINDING_KEYS)):
            problems.append(f"{stem}: finding {finding!r} needs exactly {', '.join(FINDING_KEYS)}")
            continue
        path, line, category = finding["file_path"], finding["line_start"], finding["category"]
        if category not in CATEGORIES:
            problems.append(f"{stem}: unknown category {category!r}")
        if path not in contents:
            problems.append(f"{stem}: finding in {path!r}, which is not in file_contents")
        elif not isinstance(line, int) or line not in added.get(path, set()):
            problems.append(f"{stem}: {path}:{line} ({category}) is not a line the diff adds")
    return problems


def check_dataset(dataset_dir: Path, sources_dir: Path | None) -> tuple[list[str], list[Case]]:
    """Check every case JSON (and, if given, its freshness against the sources).

    Returns the problems, one line each, and the cases that loaded.
    """
    problems: list[str] = []
    cases: list[Case] = []
    for path in sorted(dataset_dir.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(f"{path.stem}: not valid JSON: {exc}")
            continue
        case_problems = check_case(path.stem, data)
        problems += case_problems
        if not case_problems:
            cases.append(data)
        if sources_dir is not None:
            problems += _check_fresh(path, text, sources_dir)
    if sources_dir is not None:
        problems += [
            f"{src.stem}: source has no dataset/{src.stem}.json (run the build)"
            for src in sorted(sources_dir.glob(f"*{SOURCE_SUFFIX}"))
            if not (dataset_dir / f"{src.stem}.json").exists()
        ]
    counts = category_counts(cases)
    problems += [
        f"category {cat!r} is expected only {counts[cat]} time(s); needs {MIN_PER_CATEGORY}"
        for cat in CATEGORIES
        if counts[cat] < MIN_PER_CATEGORY
    ]
    return problems, cases


def _check_fresh(path: Path, text: str, sources_dir: Path) -> list[str]:
    """Report a case JSON that has no source, or that differs from what its source builds."""
    source = sources_dir / f"{path.stem}{SOURCE_SUFFIX}"
    if not source.exists():
        return [f"{path.stem}: no source {source.name} (every case is generated from one)"]
    try:
        fresh = build_from_source(source)
    except SourceError as exc:
        return [f"{path.stem}: source does not build: {exc}"]
    return [] if fresh == text else [f"{path.stem}: JSON is stale (run the build)"]


# --------------------------------------------------------------------------- coverage


def category_counts(cases: Iterable[Case]) -> Counter[str]:
    """Count expected findings per category over all cases."""
    return Counter(f["category"] for case in cases for f in case["expected_findings"])


def case_languages(case: Case) -> set[str]:
    """Return the programming languages of the files a case touches."""
    return {
        LANGUAGES[suffix]
        for path in case["file_contents"]
        if (suffix := Path(path).suffix) in LANGUAGES
    }


def coverage_table(cases: Sequence[Case]) -> str:
    """Render the coverage of a dataset as a short markdown report."""
    clean = sum(1 for case in cases if not case["expected_findings"])
    multi = sum(1 for case in cases if len(case["file_contents"]) > 1)
    counts = category_counts(cases)
    in_cases = Counter(
        cat for c in cases for cat in {f["category"] for f in c["expected_findings"]}
    )
    languages = Counter(lang for case in cases for lang in case_languages(case))
    lines = [
        f"{len(cases)} cases, {clean} clean (no expected finding), {multi} multi-file, "
        f"{sum(counts.values())} expected findings.",
        "",
        "| category | findings | cases |",
        "|---|---:|---:|",
        *(f"| {cat} | {counts[cat]} | {in_cases[cat]} |" for cat in CATEGORIES),
        "",
        "| language | cases |",
        "|---|---:|",
        *(f"| {lang} | {n} |" for lang, n in sorted(languages.items())),
    ]
    return "\n".join(lines) + "\n"


def with_coverage(readme: str, table: str) -> str:
    """Return the README text with the table between the coverage markers replaced."""
    head, sep, rest = readme.partition(README_BEGIN)
    _, sep2, tail = rest.partition(README_END)
    if not sep or not sep2:
        raise SourceError(f"README lacks the {README_BEGIN} / {README_END} markers")
    return f"{head}{README_BEGIN}\n{table}{README_END}{tail}"


# --------------------------------------------------------------------------- entry point


def build(dataset_dir: Path, sources_dir: Path) -> None:
    """Regenerate every case JSON from its source (a JSON without one is reported, not deleted)."""
    for source in sorted(sources_dir.glob(f"*{SOURCE_SUFFIX}")):
        text = build_from_source(source)
        target = dataset_dir / f"{source.stem}.json"
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="check only; exit 1 on problems")
    parser.add_argument("--dataset-dir", type=Path, default=DATASET_DIR)
    parser.add_argument("--sources-dir", type=Path, help="default: <dataset-dir>/sources")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Build (or with ``--check`` only check) the dataset; return the exit status."""
    args = _parse_args(argv)
    dataset_dir: Path = args.dataset_dir
    sources_dir: Path = args.sources_dir or dataset_dir / "sources"
    readme = dataset_dir / "README.md"
    try:
        if not args.check:
            build(dataset_dir, sources_dir)
        problems, cases = check_dataset(dataset_dir, sources_dir)
        table = coverage_table(cases)
        if readme.exists():
            current = readme.read_text(encoding="utf-8")
            wanted = with_coverage(current, table)
            if args.check and wanted != current:
                problems.append("README.md: coverage table is stale (run the build)")
            elif wanted != current:
                readme.write_text(wanted, encoding="utf-8")
    except SourceError as exc:
        print(exc)
        return 1
    print(table, end="")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
