"""Tests of per-case scores, percentiles and the aggregate summary, on hand-computed figures."""

from __future__ import annotations

import random

import pytest
from evalfakes import errored, hand_computed_run

from code_guard.evaluation.metrics import gate_failure, percentile, summarize
from code_guard.evaluation.schema import Score
from code_guard.findings import AgentName, Category, Usage

SQL = Category.SQL_INJECTION
XSS = Category.XSS
LOOP = Category.INEFFICIENT_LOOP


class TestConventions:
    def test_nothing_flagged_has_precision_one(self) -> None:
        score = Score(tp=0, fp=0, fn=2)
        assert (score.precision, score.recall, score.f1) == (1.0, 0.0, 0.0)

    def test_nothing_expected_has_recall_one(self) -> None:
        score = Score(tp=0, fp=3, fn=0)
        assert (score.precision, score.recall, score.f1) == (0.0, 1.0, 0.0)

    def test_both_empty_is_perfect(self) -> None:
        score = Score(tp=0, fp=0, fn=0)
        assert (score.precision, score.recall, score.f1) == (1.0, 1.0, 1.0)

    def test_ordinary_counts(self) -> None:
        score = Score(tp=2, fp=1, fn=2)
        assert score.precision == pytest.approx(2 / 3)
        assert score.recall == pytest.approx(0.5)
        assert score.f1 == pytest.approx(4 / 7)  # 2PR/(P+R) = (2/3)/(7/6)

    def test_derived_values_are_recomputed_not_trusted(self) -> None:
        score = Score.model_validate({"tp": 1, "fp": 1, "fn": 0, "precision": 0.99, "f1": 0.0})
        assert (score.precision, score.recall) == (0.5, 1.0)
        assert score.f1 == pytest.approx(2 / 3)


class TestPercentile:
    def test_one_value(self) -> None:
        assert percentile([42.0], 50) == 42.0
        assert percentile([42.0], 95) == 42.0

    def test_twenty_values(self) -> None:
        values = [float(v) for v in range(1, 21)]
        random.Random(7).shuffle(values)
        # Nearest rank: p50 is rank ceil(0.50 * 20) = 10, p95 is rank ceil(0.95 * 20) = 19.
        assert percentile(values, 50) == 10.0
        assert percentile(values, 95) == 19.0
        assert percentile(values, 100) == 20.0
        assert percentile(values, 1) == 1.0

    def test_textbook_example(self) -> None:
        values = [15.0, 20.0, 35.0, 40.0, 50.0]
        assert [percentile(values, p) for p in (5, 30, 40, 50, 100)] == [15, 20, 20, 35, 50]

    def test_small_odd_and_even_counts(self) -> None:
        assert percentile([3.0, 1.0, 2.0], 50) == 2.0  # rank ceil(1.5) = 2
        assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.0  # rank 2, no interpolation
        assert percentile([4.0, 1.0, 3.0, 2.0], 95) == 4.0  # rank ceil(3.8) = 4

    def test_rejects_empty_and_bad_percent(self) -> None:
        with pytest.raises(ValueError, match="no values"):
            percentile([], 50)
        with pytest.raises(ValueError, match="percent"):
            percentile([1.0], 0)


class TestSummary:
    def test_micro_pools_counts(self) -> None:
        summary = summarize(hand_computed_run())
        # TP 2 (a, b), FP 2 (a, c), FN 2 (a, e): P = R = F1 = 0.5.
        assert (summary.micro.tp, summary.micro.fp, summary.micro.fn) == (2, 2, 2)
        assert (summary.micro.precision, summary.micro.recall, summary.micro.f1) == (
            0.5,
            0.5,
            0.5,
        )

    def test_macro_averages_cases(self) -> None:
        macro = summarize(hand_computed_run()).macro
        assert macro is not None
        # Per case (a, b, c, d, e): P = .5, 1, 0, 1, 1; R = .5, 1, 1, 1, 0; F1 = .5, 1, 0, 1, 0.
        assert macro.precision == pytest.approx(3.5 / 5)
        assert macro.recall == pytest.approx(3.5 / 5)
        assert macro.f1 == pytest.approx(2.5 / 5)

    def test_errored_cases_are_counted_listed_and_not_scored(self) -> None:
        summary = summarize(hand_computed_run())
        assert (summary.cases, summary.scored, summary.errors) == (6, 5, 1)
        assert [(e.case_file, e.reason) for e in summary.errored] == [("z.json", "invalid JSON")]
        assert summary.latency is not None
        assert summary.latency.max_ms == 400.0  # the errored case's 9999 ms is left out

    def test_latency_and_usage(self) -> None:
        summary = summarize(hand_computed_run())
        assert summary.latency is not None
        # Sorted latencies 50, 100, 200, 300, 400: p50 rank 3, p95 rank 5.
        assert (summary.latency.p50_ms, summary.latency.p95_ms) == (200.0, 400.0)
        assert summary.usage == Usage(prompt_tokens=10, completion_tokens=5, cost_usd=0.25)

    def test_per_category(self) -> None:
        per = summarize(hand_computed_run()).per_category
        assert list(per) == [SQL, XSS, LOOP]  # enum order, only categories seen
        assert (per[SQL].tp, per[SQL].fp, per[SQL].fn) == (1, 1, 0)
        assert (per[XSS].tp, per[XSS].fp, per[XSS].fn) == (0, 1, 2)
        assert (per[LOOP].tp, per[LOOP].fp, per[LOOP].fn) == (1, 0, 0)

    def test_per_agent(self) -> None:
        per = summarize(hand_computed_run()).per_agent
        security, style, perf = (
            per[AgentName.SECURITY],
            per[AgentName.STYLE],
            per[AgentName.PERFORMANCE],
        )
        assert (security.findings, security.tp, security.fp, security.precision) == (2, 1, 1, 0.5)
        assert (style.findings, style.tp, style.fp, style.precision) == (1, 0, 1, 0.0)
        assert (perf.findings, perf.tp, perf.fp, perf.precision) == (1, 1, 0, 1.0)

    def test_false_alarm_rate_on_clean_cases(self) -> None:
        summary = summarize(hand_computed_run())
        assert (summary.clean_cases, summary.false_alarm_cases) == (2, 1)
        assert summary.false_alarm_rate == 0.5

    def test_no_scored_case(self) -> None:
        summary = summarize([errored("x")])
        assert (summary.scored, summary.macro, summary.latency) == (0, None, None)
        assert summary.false_alarm_rate is None


class TestGate:
    def test_passes_at_or_above_and_fails_below(self) -> None:
        summary = summarize(hand_computed_run())  # micro F1 0.5
        assert gate_failure(summary, None) is None
        assert gate_failure(summary, 0.5) is None
        assert gate_failure(summary, 0.6) == "micro F1 0.500 is below the minimum 0.600"

    def test_fails_when_nothing_was_scored(self) -> None:
        summary = summarize([errored("x")])
        assert summary.micro.f1 == 1.0  # the vacuous convention the gate must not trust
        assert gate_failure(summary, 0.1) == "no case was scored, so the quality gate cannot pass"
