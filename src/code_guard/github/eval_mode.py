"""The action's eval mode: run the labelled dataset, report the metrics, gate on ``min-f1``.

The evaluation itself lives in ``code_guard.evaluation``; this module only maps action
inputs to its arguments and its outcome to the job summary, step outputs and exit code.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from code_guard.github.inputs import ActionInputs, RunnerEnv, build_review_options
from code_guard.github.ownership import give_to_workspace_owner
from code_guard.github.services import Services
from code_guard.github.workflow import command, write_outputs, write_step_summary

if TYPE_CHECKING:
    from code_guard.evaluation.schema import CaseResult

RESULTS_NAME = "code-guard-eval.json"


def run(inputs: ActionInputs, runner: RunnerEnv, services: Services, out: TextIO) -> int:
    """Run the eval; return 0 when it passed its gate, 1 when it did not."""
    options = build_review_options(inputs, runner.workspace)
    outcome = services.run_eval(
        # No input: the dataset bundled in the image ($CODE_GUARD_DATASET).
        dataset=runner.workspace / inputs.dataset if inputs.dataset else None,
        options=options,
        jobs=inputs.jobs,
        min_f1=inputs.min_f1,
        baseline=_in_workspace(runner.workspace, inputs.baseline),
        output=runner.workspace / RESULTS_NAME,
        on_result=progress_printer(out),
    )
    if outcome.errors:
        print(command("warning", f"eval: {outcome.errors} case(s) could not be run"), file=out)
    results = runner.workspace / RESULTS_NAME
    # lexists: a link at that name is seen, and refused, rather than taken for no file.
    owner_problem = (
        give_to_workspace_owner(results, runner.workspace) if os.path.lexists(results) else None
    )
    if owner_problem:
        print(command("warning", owner_problem), file=out)
    write_step_summary(runner.step_summary, outcome.markdown)
    write_outputs(
        runner.output,
        {
            "precision": f"{outcome.precision:.4f}",
            "recall": f"{outcome.recall:.4f}",
            "f1": f"{outcome.f1:.4f}",
            "latency-p50-ms": _ms(outcome.latency_p50_ms),
            "latency-p95-ms": _ms(outcome.latency_p95_ms),
        },
    )
    if not outcome.passed:
        reason = outcome.failure or f"F1 {outcome.f1:.4f}"
        print(command("error", f"eval quality gate failed: {reason}"), file=out)
        return 1
    return 0


def progress_printer(out: TextIO) -> Callable[[int, int, CaseResult], None]:
    """A callback printing one line to the log per finished case, so a long eval shows life."""

    def report(done: int, total: int, result: CaseResult) -> None:
        # Imported here: the evaluation package is loaded only in eval mode, where it runs.
        from code_guard.evaluation.command import progress_line

        print(progress_line(done, total, result), file=out, flush=True)

    return report


def _in_workspace(workspace: Path, relative: str) -> Path | None:
    return workspace / relative if relative else None


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.0f}"
