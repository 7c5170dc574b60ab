"""Verdicts that hold under load: the rule is a pure function over
paired per-repeat speedups, tested on synthetic samples; the magic shows it."""

from __future__ import annotations

import random

import pytest

from nbcompile.core.perf.verdict import (
    INCONCLUSIVE,
    MAX_CI_RATIO,
    MIN_VERDICT_REPEATS,
    judge_speedups,
    median_confidence_interval,
)


def _samples(centre: float, rel_spread: float, n: int, seed: int = 0) -> list[float]:
    rng = random.Random(seed)
    return [centre * (1 + rng.uniform(-rel_spread, rel_spread)) for _ in range(n)]


def test_few_wild_repeats_are_inconclusive_not_a_verdict():
    # the figures of the issue: 15.7x, 1.34x, ~1x, 2.27x from one bf16 comparison
    j = judge_speedups([15.7, 1.34, 1.01, 2.27, 3.1], min_effect=0.03)
    assert j.verdict == INCONCLUSIVE and not j.significant
    assert f"{MIN_VERDICT_REPEATS}" in j.reason and "5 paired repeats" in j.reason


def test_enough_tight_repeats_give_a_verdict():
    assert judge_speedups(_samples(2.0, 0.05, 25), 0.03).verdict == "faster"
    assert judge_speedups(_samples(0.5, 0.05, 25), 0.03).verdict == "slower"
    same = judge_speedups(_samples(1.0, 0.02, 25), 0.03)
    assert same.verdict == "no significant difference" and not same.significant


def test_wide_spread_around_one_is_inconclusive_even_with_many_repeats():
    j = judge_speedups(_samples(1.0, 0.9, 40), 0.03)
    assert j.ci_high / j.ci_low > MAX_CI_RATIO and j.ci_low < 1.0 < j.ci_high
    assert j.verdict == INCONCLUSIVE
    assert "confidence interval" in j.reason


def test_a_wide_interval_entirely_below_one_is_slower():
    """``0.07x [0.03-0.19] inconclusive`` while the row's own 95 %
    interval was 0.04x-0.15x: an interval far from 1.0 is a verdict, however wide."""
    ratios = [0.03, 0.04, 0.05, 0.05, 0.06, 0.07, 0.07, 0.08, 0.09, 0.11, 0.15, 0.19]
    j = judge_speedups(ratios, 0.03)
    assert j.ci_high < 1.0 and j.ci_high / j.ci_low > MAX_CI_RATIO  # wide, all below 1
    assert j.verdict == "slower" and j.significant
    assert "lies entirely below 1.0x" in j.reason
    up = judge_speedups([1 / r for r in ratios], 0.03)
    assert up.verdict == "faster" and up.significant
    # the old rule's other cases stand: narrow and clear, tiny effect, few repeats
    assert judge_speedups(_samples(2.0, 0.05, 25), 0.03).reason == ""


def test_the_verdict_is_shown_with_the_interval_it_rests_on():
    """``1.92x [0.85-4.22] faster`` read as a contradiction: the
    unlabelled [a-b] was the IQR, the verdict another interval."""
    from nbcompile.core.perf.comparison import Comparison, TimingRow
    from nbcompile.display.timing import timing_text

    row = TimingRow(mode="default", kind="mode", verdict="slower", speedup=0.07,
                    speedup_q1=0.03, speedup_q3=0.19, speedup_ci_low=0.04,
                    speedup_ci_high=0.15, median_s=1e-3, iqr_s=1e-4)
    text = timing_text(Comparison(name="f", rows=[
        TimingRow(mode="eager", kind="eager", verdict="baseline"), row]))
    assert "0.07x slower [95% CI 0.04-0.15x]" in text
    assert "[0.03-0.19]" not in text


def test_tiny_effect_is_no_difference():
    j = judge_speedups(_samples(1.01, 0.002, 30), 0.03)
    assert j.ci_low > 1.0 and j.verdict == "no significant difference"


@pytest.mark.parametrize("n", [10, 25, 200])
def test_median_confidence_interval_holds_the_median(n):
    values = _samples(3.0, 0.3, n, seed=n)
    lo, hi = median_confidence_interval(values)
    ordered = sorted(values)
    assert ordered[0] <= lo <= sorted(values)[n // 2] <= hi <= ordered[-1]
    assert lo > ordered[0] and hi < ordered[-1]  # narrower than the range
