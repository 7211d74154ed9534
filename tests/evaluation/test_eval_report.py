"""Tests of the markdown report, against exact expected text."""

from __future__ import annotations

from evalfakes import LOOP, SQL, XSS, case, errored, exp, hand_computed_run, make_finding

from code_guard.evaluation.metrics import summarize
from code_guard.evaluation.report import render_compact, render_markdown, signed
from code_guard.evaluation.schema import CaseResult, EvalResults, RunMetadata

STATIC = RunMetadata(
    tolerance=3,
    model="static-only",
    static_only_reason="offline mode was requested (--offline)",
    dataset="dataset",
    dataset_cases=6,
)

EXPECTED = """\
## Ninja Code Guard evaluation

- **Mode:** static-only — offline mode was requested (--offline)
- **Dataset:** `dataset`: 6 cases, 5 scored, 1 errored
- **Matching:** same file and category, lines within ±3, one-to-one
- **Errored:** 1 case(s); their 0 expected finding(s) count as missed (FN) in the figures below

| | Precision | Recall | F1 |
|---|---:|---:|---:|
| **Micro** (pooled TP/FP/FN) | 0.500 | 0.500 | 0.500 |
| Macro (mean of cases) | 0.700 | 0.700 | 0.500 |

- **Counts:** TP 2 · FP 2 · FN 2
- **False alarms on clean cases:** 1 of 2 (0.500)
- **Latency per review** (nearest rank): p50 200 ms · p95 400 ms · max 400 ms
- **Usage:** 15 tokens · $0.2500

### By category (what needs attention first)

| Category | TP | FP | FN | Precision | Recall | F1 |
|---|---:|---:|---:|---:|---:|---:|
| xss | 0 | 1 | 2 | 0.000 | 0.000 | 0.000 |
| sql_injection | 1 | 1 | 0 | 0.500 | 1.000 | 0.667 |
| inefficient_loop | 1 | 0 | 0 | 1.000 | 1.000 | 1.000 |

```mermaid
xychart-beta horizontal
    title "F1 by category"
    x-axis ["xss", "sql_injection", "inefficient_loop"]
    y-axis "F1" 0 --> 1
    bar [0.00, 0.67, 1.00]
```

### By agent

| Agent | Findings | TP | FP | Precision |
|---|---:|---:|---:|---:|
| style | 1 | 0 | 1 | 0.000 |
| security | 2 | 1 | 1 | 0.500 |
| performance | 1 | 1 | 0 | 1.000 |

### Worst cases (top 5)

| Case | Precision | Recall | F1 | FP | FN |
|---|---:|---:|---:|---:|---:|
| <code>c</code> | 0.000 | 1.000 | 0.000 | 1 | 0 |
| <code>e</code> | 1.000 | 0.000 | 0.000 | 0 | 1 |
| <code>a</code> | 0.500 | 0.500 | 0.500 | 1 | 1 |

### Errored cases (1, not scored)

- <code>z\\.json</code>: invalid JSON
"""


def results_of(cases: list[CaseResult], metadata: RunMetadata = STATIC) -> EvalResults:
    return EvalResults(metadata=metadata, summary=summarize(cases), cases=tuple(cases))


def test_full_report() -> None:
    assert render_markdown(results_of(hand_computed_run())) == EXPECTED


def test_compact_summary() -> None:
    assert render_compact(results_of(hand_computed_run())) == (
        "eval: 6 cases, 5 scored, 1 errored (0 expected findings missed) · "
        "micro P=0.500 R=0.500 F1=0.500 · "
        "macro F1=0.500 · p50 200 ms · p95 400 ms"
    )


def test_model_mode_and_shard() -> None:
    meta = STATIC.model_copy(
        update={"model": "gpt-4o-mini", "static_only_reason": None, "shard": "2/4"}
    )
    lines = render_markdown(results_of(hand_computed_run(), meta)).splitlines()
    assert "- **Mode:** model `gpt-4o-mini`" in lines
    assert "- **Dataset:** `dataset` (shard 2/4): 6 cases, 5 scored, 1 errored" in lines


def test_baseline_deltas() -> None:
    # Baseline: one case, sql found (TP), one xss missed: micro P 1, R 0.5, F1 0.667.
    baseline = results_of(
        [case("old", [make_finding("a.py", 10, SQL)], [exp(10, SQL), exp(30, XSS)])],
        STATIC.model_copy(update={"tolerance": 5}),
    )
    text = render_markdown(results_of(hand_computed_run()), baseline)
    section = text.split("### Against the baseline\n\n", 1)[1].split("\n\n### ", 1)[0]
    assert section == (
        "> The baseline was made with tolerance ±5: compare with care.\n"
        "\n"
        "| Micro | Baseline | This run | Δ |\n"
        "|---|---:|---:|---:|\n"
        "| Precision | 1.000 | 0.500 | \N{MINUS SIGN}0.500 |\n"
        "| Recall | 0.500 | 0.500 | ±0.000 |\n"
        "| F1 | 0.667 | 0.500 | \N{MINUS SIGN}0.167 |"
    )
    by_category = text.split("### By category (what needs attention first)\n\n", 1)[1]
    assert by_category.split("\n\n", 1)[0] == (
        "| Category | TP | FP | FN | Precision | Recall | F1 | Δ F1 |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        "| xss | 0 | 1 | 2 | 0.000 | 0.000 | 0.000 | ±0.000 |\n"
        "| sql_injection | 1 | 1 | 0 | 0.500 | 1.000 | 0.667 | \N{MINUS SIGN}0.333 |\n"
        "| inefficient_loop | 1 | 0 | 0 | 1.000 | 1.000 | 1.000 | new |"
    )


def test_signed() -> None:
    assert signed(0.125) == "+0.125"
    assert signed(-0.04) == "\N{MINUS SIGN}0.040"
    assert signed(0.0) == "±0.000"
    assert signed(-0.0001) == "±0.000"


def test_no_scored_case_warns() -> None:
    text = render_markdown(results_of([errored("x", "bad | reason\nsecond line")]))
    assert "> No case was scored: every case errored (see below)." in text
    assert "- **Latency per review** (nearest rank): no case was scored" in text
    assert "- <code>x\\.json</code>: bad \\| reason second line" in text
    assert "### Worst cases\n\nEvery scored case matched its ground truth exactly." in text


def test_huge_run_stays_under_the_step_summary_limit() -> None:
    long_reason = "x" * 5000
    cases = [errored(f"case{k:05}", long_reason) for k in range(20000)]
    cases += [
        case(f"bad{k}", [make_finding("a.py", 1, c)], [exp(50, c)])
        for k, c in enumerate([SQL, XSS, LOOP] * 100)
    ]
    text = render_markdown(results_of(cases))
    assert len(text.encode()) < 1024 * 1024
    assert "- … and 19950 more (see results.json)" in text
    assert text.count("\n- <code>case") == 50
    assert text.count("\n| <code>bad") == 5
