"""The ``code-guard eval`` and ``code-guard eval merge`` command lines.

``add_eval_arguments`` registers the eval flags and an optional ``merge`` sub-command on the
``eval`` parser, and ``run_eval_command`` runs whichever was chosen, so the CLI wires one
parser. Errors are raised as ``CodeGuardError`` subclasses for the CLI to turn into one line
and exit code 2; this module prints only progress, the report and the quality-gate verdict.

Exit codes: 0 done, 1 the ``--min-f1`` quality gate failed, 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from code_guard.arguments import add_model_arguments, options_from_args
from code_guard.errors import ConfigError
from code_guard.evaluation.breaker import DEFAULT_MAX_MODEL_FAILURES
from code_guard.evaluation.dataset import Shard
from code_guard.evaluation.entry import EvalOutcome, run_dataset, run_eval_for_action
from code_guard.evaluation.matching import DEFAULT_TOLERANCE
from code_guard.evaluation.metrics import DEFAULT_MAX_ERROR_RATE, error_failure, gate_failure
from code_guard.evaluation.report import render_compact, render_markdown
from code_guard.evaluation.results import (
    ResultsError,
    load_results,
    merge_results,
    save_results,
)
from code_guard.evaluation.runner import Reviewer
from code_guard.evaluation.schema import CaseResult, EvalResults
from code_guard.trust.nofollow import write_replacing

# The action's entry lives in ``entry``; it is re-exported here, where the action imports it.
__all__ = [
    "EvalOutcome",
    "add_eval_arguments",
    "add_merge_arguments",
    "run_eval_command",
    "run_eval_for_action",
    "run_merge_command",
]

EXIT_OK = 0
EXIT_GATE_FAILED = 1


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the ``eval`` flags, and ``merge`` as an optional sub-command, on ``parser``."""
    parser.add_argument("--dataset", type=Path, help="directory of case files (default: bundled)")
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("results.json"),
        help="where to write the results (default: results.json)",
    )
    _add_report_arguments(parser)
    # The same model flags as ``review`` (model, api base, offline, agents, config), so a
    # run is configured exactly like the reviews it measures.
    add_model_arguments(parser)
    parser.add_argument(
        "--reviewer",
        type=Reviewer,
        choices=list(Reviewer),
        default=Reviewer.PIPELINE,
        help="who reviews the cases: our pipeline (default), or bandit: Bandit alone (our "
        "version and flags, no model, no filter but the added lines), every result in the "
        "category the rule catalogue gives its rule (rules it ignores as other), scored the same",
    )
    parser.add_argument(
        "--jobs",
        type=_positive_int,
        default=1,
        help="cases reviewed at once: one in this process, the others in N-1 worker "
        "processes (default 1; latency is cleanest at 1)",
    )
    parser.add_argument(
        "--max-model-failures",
        type=_positive_int,
        default=DEFAULT_MAX_MODEL_FAILURES,
        help="stop the run after this many consecutive failed model calls "
        f"(default {DEFAULT_MAX_MODEL_FAILURES})",
    )
    parser.add_argument("--shard", type=_shard, help="run shard I of N (1-based), e.g. 2/4")
    parser.add_argument(
        "--tolerance",
        type=_non_negative_int,
        default=DEFAULT_TOLERANCE,
        help=f"max line distance of a match (default {DEFAULT_TOLERANCE})",
    )
    # ``merge`` is optional: ``code-guard eval`` alone runs the eval.
    sub = parser.add_subparsers(dest="eval_command", title="sub-command (optional)")
    add_merge_arguments(sub.add_parser("merge", help="merge the results of shards into one"))


def add_merge_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the flags of ``eval merge``: results files, ``--output`` and report flags."""
    parser.add_argument(
        "inputs",
        nargs="+",
        type=Path,
        metavar="RESULTS",
        help="results files of the shards of one run",
    )
    parser.add_argument("--output", type=Path, required=True, help="where to write the merge")
    _add_report_arguments(parser)


def _add_report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--summary",
        type=Path,
        help="write the markdown report here (e.g. $GITHUB_STEP_SUMMARY) "
        "and print a one-line summary instead",
    )
    parser.add_argument(
        "--min-f1", type=_fraction, help="quality gate: exit 1 when micro F1 is below this"
    )
    parser.add_argument(
        "--max-error-rate",
        type=_fraction,
        default=DEFAULT_MAX_ERROR_RATE,
        help="exit 1 when more than this share of cases errored, or all did "
        f"(default {DEFAULT_MAX_ERROR_RATE})",
    )
    parser.add_argument("--baseline", type=Path, help="results.json of a run to compare with")


def run_eval_command(args: argparse.Namespace) -> int:
    """Run ``code-guard eval`` (or ``eval merge`` when chosen) and return the exit code."""
    if getattr(args, "eval_command", None) == "merge":
        return run_merge_command(args)
    options = options_from_args(args)
    if args.reviewer is Reviewer.BANDIT and options.model.enabled:
        raise ConfigError("--reviewer bandit uses no model: drop --model, or add --offline")
    # Read the baseline first: a typo in its path should not cost a whole run.
    baseline = load_results(args.baseline) if args.baseline else None
    results = run_dataset(
        args.dataset,
        options,
        jobs=args.jobs,
        shard=args.shard,
        tolerance=args.tolerance,
        on_result=_print_progress,
        max_model_failures=args.max_model_failures,
        reviewer=args.reviewer,
    )
    save_results(results, args.output)
    print(f"results written to {args.output}", file=sys.stderr)
    return _report(
        results,
        baseline,
        summary=args.summary,
        min_f1=args.min_f1,
        max_error_rate=args.max_error_rate,
    )


def run_merge_command(args: argparse.Namespace) -> int:
    """Run ``code-guard eval merge``: merge shard results, write them, report, gate."""
    baseline = load_results(args.baseline) if args.baseline else None
    merged = merge_results([load_results(path) for path in args.inputs])
    save_results(merged, args.output)
    print(f"merged {len(args.inputs)} results files into {args.output}", file=sys.stderr)
    return _report(
        merged,
        baseline,
        summary=args.summary,
        min_f1=args.min_f1,
        max_error_rate=args.max_error_rate,
    )


def _report(
    results: EvalResults,
    baseline: EvalResults | None,
    *,
    summary: Path | None,
    min_f1: float | None,
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE,
) -> int:
    """Print or write the report, then apply the error check and the quality gate; return
    the exit code."""
    markdown = render_markdown(results, baseline)
    if summary is None:
        sys.stdout.write(markdown)
    else:
        try:
            write_replacing(summary, markdown)
        except OSError as exc:
            raise ResultsError(f"cannot write summary to {summary}: {exc.strerror}") from exc
        print(render_compact(results))
    errors = error_failure(results.summary, max_error_rate)
    if errors is not None:
        print(f"eval failed: {errors}", file=sys.stderr)
        return EXIT_GATE_FAILED
    failure = gate_failure(results.summary, min_f1)
    if failure is not None:
        print(f"quality gate failed: {failure}", file=sys.stderr)
        return EXIT_GATE_FAILED
    return EXIT_OK


def progress_line(done: int, total: int, result: CaseResult) -> str:
    """One progress line: ``[12/44] sql_injection_basic  P=1.00 R=1.00  312 ms``."""
    head = f"[{done}/{total}] {result.pr_id}"
    if result.score is None or result.error is not None:
        return f"{head}  ERROR {result.error}"
    s = result.score
    return f"{head}  P={s.precision:.2f} R={s.recall:.2f}  {round(result.latency_ms)} ms"


def _print_progress(done: int, total: int, result: CaseResult) -> None:
    print(progress_line(done, total, result), file=sys.stderr, flush=True)


def _positive_int(text: str) -> int:
    value = _non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    return value


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
