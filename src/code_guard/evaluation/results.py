"""``results.json`` on disk, re-scoring a stored run, and merging the results of shards.

Re-scoring recomputes every match, count and aggregate from the stored findings and expected
findings, so a run can be checked, or scored with another tolerance, without reviewing again.
Merging checks that the inputs are the complete set of shards of one run and re-scores their
cases together: the result equals what an unsharded run would have written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import ValidationError

from code_guard.errors import InputError
from code_guard.evaluation.dataset import Shard
from code_guard.evaluation.metrics import score_case, summarize
from code_guard.evaluation.schema import CaseResult, EvalResults, RunMetadata
from code_guard.trust.nofollow import write_replacing


class ResultsError(InputError):
    """A results file (a shard to merge, a baseline) is unreadable, invalid or inconsistent."""


def save_results(results: EvalResults, path: Path) -> None:
    """Write ``results`` as indented JSON (creating folders), or raise ``ResultsError``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_replacing(path, results.model_dump_json(indent=2) + "\n")
    except OSError as exc:
        raise ResultsError(f"cannot write results to {path}: {exc.strerror}") from exc


def load_results(path: Path) -> EvalResults:
    """Read and validate a results file, raising ``ResultsError`` with one clear line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise ResultsError(f"cannot read results file {path}: {reason}") from exc
    try:
        return EvalResults.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise ResultsError(
            f"{path} is not a code-guard results file: {where}: {first['msg']}"
        ) from exc


def rescore(results: EvalResults, tolerance: int | None = None) -> EvalResults:
    """Recompute matches, scores and the summary from the stored findings and expected ones.

    ``tolerance`` defaults to the run's own; errored cases stay as they are.
    """
    tolerance = results.metadata.tolerance if tolerance is None else tolerance
    metadata = results.metadata.model_copy(update={"tolerance": tolerance})
    return _assemble(metadata, results.cases)


def _assemble(metadata: RunMetadata, cases: Iterable[CaseResult]) -> EvalResults:
    """Score ``cases`` with the metadata's tolerance and summarise them."""
    scored = tuple(_rescore_case(case, metadata.tolerance) for case in cases)
    return EvalResults(metadata=metadata, summary=summarize(scored), cases=scored)


def _rescore_case(case: CaseResult, tolerance: int) -> CaseResult:
    if case.error is not None:
        return case
    matches, score = score_case(case.findings, case.expected, tolerance)
    return case.model_copy(update={"matches": matches, "score": score})


def merge_results(runs: Sequence[EvalResults]) -> EvalResults:
    """Merge the complete set of shards of one run into the result of an unsharded run.

    A single unsharded run merges to itself, re-scored. Raises ``ResultsError`` when the
    inputs differ in dataset, mode or tolerance, or when a shard is missing or repeated.
    """
    if not runs:
        raise ResultsError("nothing to merge: give at least one results file")
    first = runs[0].metadata
    for run in runs[1:]:
        _check_same_run(first.model_dump(exclude={"shard"}), run)
    _check_shards(runs)
    cases = sorted((c for run in runs for c in run.cases), key=lambda c: c.case_file)
    repeated = [name for name, n in Counter(c.case_file for c in cases).items() if n > 1]
    if repeated:
        raise ResultsError(f"case {repeated[0]} appears in more than one results file")
    return _assemble(first.model_copy(update={"shard": None}), cases)


def _check_same_run(expected: dict[str, object], run: EvalResults) -> None:
    actual = run.metadata.model_dump(exclude={"shard"})
    for key, value in expected.items():
        if actual[key] != value:
            raise ResultsError(
                f"cannot merge runs with different {key}: {value!r} and {actual[key]!r}"
            )


def _check_shards(runs: Sequence[EvalResults]) -> None:
    labels = [run.metadata.shard for run in runs]
    if labels == [None]:
        return
    if None in labels:
        raise ResultsError("cannot merge an unsharded run with other runs")
    shards = [Shard.parse(label) for label in labels if label is not None]
    count = shards[0].count
    if any(s.count != count for s in shards):
        raise ResultsError("cannot merge shards of different shard counts")
    seen = Counter(s.index for s in shards)
    repeated = sorted(i for i, n in seen.items() if n > 1)
    if repeated:
        raise ResultsError(f"shard {repeated[0]}/{count} is given more than once")
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        names = ", ".join(f"{i}/{count}" for i in missing)
        raise ResultsError(f"cannot merge: missing shard {names}")
