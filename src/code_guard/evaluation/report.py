"""The markdown report of an eval run: a pure function of the results and an optional baseline.

GitHub renders it in a job summary (``$GITHUB_STEP_SUMMARY``), which must stay under 1 MiB:
every table here is bounded (categories and agents are fixed vocabularies, worst cases are
the top five, errored cases are capped with a note, and free text is shortened), so the
report stays small whatever the size of the dataset.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from code_guard.evaluation.schema import (
    STATIC_ONLY,
    CaseResult,
    EvalResults,
    EvalSummary,
    RunMetadata,
    Score,
)
from code_guard.trust.escaping import code_span, plain_line

WORST_CASES = 5
MAX_ERRORED = 50
MAX_TEXT = 200
MINUS = "\N{MINUS SIGN}"


def render_markdown(results: EvalResults, baseline: EvalResults | None = None) -> str:
    """Render the report of ``results``, with deltas against ``baseline`` when given."""
    sections = [
        _headline(results),
        _baseline(results, baseline) if baseline is not None else "",
        _categories(results.summary, baseline.summary if baseline is not None else None),
        _agents(results.summary),
        _worst(results.cases),
        _errored(results.summary),
    ]
    return "\n\n".join(s for s in sections if s) + "\n"


def _headline(results: EvalResults) -> str:
    meta, summary = results.metadata, results.summary
    if meta.model == STATIC_ONLY:
        mode = f"static-only — {meta.static_only_reason or 'no model was used'}"
    else:
        mode = f"model `{meta.model}`"
    shard = f" (shard {meta.shard})" if meta.shard else ""
    lines = [
        "## Ninja Code Guard evaluation",
        "",
        f"- **Mode:** {mode}",
        f"- **Dataset:** `{meta.dataset}`{shard}: {summary.cases} cases, {summary.scored} "
        f"scored, {summary.errors} errored",
        f"- **Matching:** same file and category, lines within ±{meta.tolerance}, one-to-one",
    ]
    if summary.errors:
        lines.append(
            f"- **Errored:** {summary.errors} case(s); their {summary.missed_by_errors} expected "
            "finding(s) count as missed (FN) in the figures below"
        )
    if not summary.scored:
        lines += ["", "> [!WARNING]", "> No case was scored: every case errored (see below)."]
    micro = summary.micro
    lines += [
        "",
        "| | Precision | Recall | F1 |",
        "|---|---:|---:|---:|",
        _row("**Micro** (pooled TP/FP/FN)", *_prf(micro.precision, micro.recall, micro.f1)),
    ]
    if summary.macro is not None:
        m = summary.macro
        lines.append(_row("Macro (mean of cases)", *_prf(m.precision, m.recall, m.f1)))
    lines += [
        "",
        f"- **Counts:** TP {micro.tp} · FP {micro.fp} · FN {micro.fn}",
        f"- **False alarms on clean cases:** {_false_alarms(summary)}",
        f"- **Latency per review** (nearest rank): {_latency(summary)}",
        f"- **Usage:** {summary.usage.total_tokens:,} tokens · ${summary.usage.cost_usd:.4f}",
    ]
    return "\n".join(lines)


def _false_alarms(summary: EvalSummary) -> str:
    if summary.false_alarm_rate is None:
        return "no clean case (one without expected findings) was scored"
    return f"{summary.false_alarm_cases} of {summary.clean_cases} ({summary.false_alarm_rate:.3f})"


def _latency(summary: EvalSummary) -> str:
    if summary.latency is None:
        return "no case was scored"
    lat = summary.latency
    return f"p50 {_ms(lat.p50_ms)} · p95 {_ms(lat.p95_ms)} · max {_ms(lat.max_ms)}"


def _baseline(results: EvalResults, baseline: EvalResults) -> str:
    now, then = results.summary, baseline.summary
    lines = ["### Against the baseline", ""]
    note = _setup_note(baseline.metadata, results.metadata)
    if note:
        lines += [note, ""]
    lines += ["| Micro | Baseline | This run | Δ |", "|---|---:|---:|---:|"]
    for label, old, new in (
        ("Precision", then.micro.precision, now.micro.precision),
        ("Recall", then.micro.recall, now.micro.recall),
        ("F1", then.micro.f1, now.micro.f1),
    ):
        lines.append(_row(label, f"{old:.3f}", f"{new:.3f}", signed(new - old)))
    gone = [c.value for c in then.per_category if c not in now.per_category]
    if gone:
        lines += ["", f"Categories in the baseline only: {', '.join(gone)}."]
    return "\n".join(lines)


def _setup_note(old: RunMetadata, new: RunMetadata) -> str:
    """A warning when the baseline was made differently, so its deltas mislead."""
    differs = []
    if old.tolerance != new.tolerance:
        differs.append(f"tolerance ±{old.tolerance}")
    if old.model != new.model:
        differs.append(f"model {old.model}")
    if old.dataset != new.dataset:
        differs.append(f"dataset {old.dataset}")
    if not differs:
        return ""
    return f"> The baseline was made with {', '.join(differs)}: compare with care."


def _need(score: Score) -> tuple[float, int]:
    """Sort key putting what needs attention first: lowest F1, then most misses and noise."""
    return (score.f1, -(score.fn + score.fp))


def _categories(summary: EvalSummary, baseline: EvalSummary | None = None) -> str:
    if not summary.per_category:
        return ""
    ranked = sorted(summary.per_category.items(), key=lambda kv: (*_need(kv[1]), kv[0].value))
    delta_head = " Δ F1 |" if baseline is not None else ""
    lines = [
        "### By category (what needs attention first)",
        "",
        f"| Category | TP | FP | FN | Precision | Recall | F1 |{delta_head}",
        "|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if baseline is not None else ""),
    ]
    for category, s in ranked:
        counts = [str(s.tp), str(s.fp), str(s.fn)]
        cells = [category.value, *counts, *_prf(s.precision, s.recall, s.f1)]
        if baseline is not None:
            old = baseline.per_category.get(category)
            cells.append(signed(s.f1 - old.f1) if old else "new")
        lines.append(_row(*cells))
    # Horizontal bars: one label per line, so twenty categories never overlap.
    names = ", ".join(f'"{c.value}"' for c, _ in ranked)
    values = ", ".join(f"{s.f1:.2f}" for _, s in ranked)
    lines += [
        "",
        "```mermaid",
        "xychart-beta horizontal",
        '    title "F1 by category"',
        f"    x-axis [{names}]",
        '    y-axis "F1" 0 --> 1',
        f"    bar [{values}]",
        "```",
    ]
    return "\n".join(lines)


def _agents(summary: EvalSummary) -> str:
    lines = [
        "### By agent",
        "",
        "| Agent | Findings | TP | FP | Precision |",
        "|---|---:|---:|---:|---:|",
    ]
    # Least precise first: that agent's noise is what reviewers feel.
    for agent, s in sorted(summary.per_agent.items(), key=lambda kv: (kv[1].precision, kv[0])):
        lines.append(_row(agent.value, str(s.findings), str(s.tp), str(s.fp), f"{s.precision:.3f}"))
    return "\n".join(lines)


def worst_cases(
    cases: Iterable[CaseResult], limit: int = WORST_CASES
) -> list[tuple[CaseResult, Score]]:
    """Scored cases with a miss or a false alarm: lowest F1 first, then most FP + FN."""
    flawed = [
        (case, case.score)
        for case in cases
        if case.error is None and case.score is not None and case.score.fp + case.score.fn
    ]
    flawed.sort(key=lambda pair: (pair[1].f1, -(pair[1].fp + pair[1].fn), pair[0].case_file))
    return flawed[:limit]


def _worst(cases: Sequence[CaseResult]) -> str:
    worst = worst_cases(cases)
    if not worst:
        return "### Worst cases\n\nEvery scored case matched its ground truth exactly."
    lines = [
        f"### Worst cases (top {WORST_CASES})",
        "",
        "| Case | Precision | Recall | F1 | FP | FN |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for case, s in worst:
        lines.append(
            _row(
                code_span(_short(case.pr_id)),
                *_prf(s.precision, s.recall, s.f1),
                str(s.fp),
                str(s.fn),
            )
        )
    return "\n".join(lines)


def _errored(summary: EvalSummary) -> str:
    if not summary.errored:
        return ""
    lines = [f"### Errored cases ({summary.errors}, not scored)", ""]
    lines += [
        f"- {code_span(_short(e.case_file))}: {_cell(e.reason)}"
        for e in summary.errored[:MAX_ERRORED]
    ]
    if summary.errors > MAX_ERRORED:
        lines.append(f"- … and {summary.errors - MAX_ERRORED} more (see results.json)")
    return "\n".join(lines)


def signed(delta: float) -> str:
    """Format a delta with three decimals and an explicit sign: +0.125, −0.040, ±0.000."""
    text = f"{abs(delta):.3f}"
    if text == "0.000":
        return "±0.000"
    return ("+" if delta > 0 else MINUS) + text


def _prf(precision: float, recall: float, f1: float) -> tuple[str, str, str]:
    return f"{precision:.3f}", f"{recall:.3f}", f"{f1:.3f}"


def _ms(value: float) -> str:
    return f"{round(value):,} ms"


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell(text: str) -> str:
    """One line of plain, table-safe text, length capped (case names and reasons come from
    the dataset, which a pull request can change)."""
    return plain_line(_short(text))


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 1] + "…"


def render_compact(results: EvalResults) -> str:
    """One line of headline figures, for a terminal when the report goes to a file."""
    summary = results.summary
    micro = summary.micro
    parts = [
        f"eval: {summary.cases} cases, {summary.scored} scored, {summary.errors} errored"
        + (f" ({summary.missed_by_errors} expected findings missed)" if summary.errors else ""),
        f"micro P={micro.precision:.3f} R={micro.recall:.3f} F1={micro.f1:.3f}",
    ]
    if summary.macro is not None:
        parts.append(f"macro F1={summary.macro.f1:.3f}")
    if summary.latency is not None:
        parts.append(f"p50 {_ms(summary.latency.p50_ms)} · p95 {_ms(summary.latency.p95_ms)}")
    return " · ".join(parts)
