"""The timing verdict: paired per-repeat speedups judged by one rule (a pure function over numbers).

The rule (``judge_speedups``), over the paired speedups of at least ``MIN_VERDICT_REPEATS``
repeats and the ``CONFIDENCE`` interval of their median:

1. too few repeats: inconclusive;
2. the interval lies entirely above 1.0 (or below) and the median is at least
   ``min_effect`` away from 1.0: "faster" (or "slower"), however wide the interval: a
   0.04x-0.15x interval says "slower" as surely as a narrow one;
3. the interval contains 1.0 (or the effect is below ``min_effect``) and is wider than
   ``MAX_CI_RATIO``: inconclusive (the difference could be large either way);
4. otherwise: "no significant difference".

Renderers show this interval, labelled, beside the verdict (``interval_text``), never an
unlabelled spread the verdict does not rest on.

See ``nbcompile.core.perf.timing`` for how the repeats are measured.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

#: Smallest relative difference reported as a real speedup or slowdown.
MIN_EFFECT = 0.03


#: Fewest paired repeats a faster/slower/no-difference verdict may rest on.
MIN_VERDICT_REPEATS = 10


#: Confidence level of the interval of the median paired speedup.
CONFIDENCE = 0.95


#: Widest interval (upper bound / lower bound) a verdict may rest on.
MAX_CI_RATIO = 1.5


INCONCLUSIVE = "inconclusive on this machine now"


@dataclass(frozen=True)
class Judgement:
    """The verdict on paired speedups: see the module docstring for the rule."""

    verdict: str  # faster | slower | no significant difference | INCONCLUSIVE
    significant: bool
    median: float
    ci_low: float
    ci_high: float
    reason: str = ""


def median_confidence_interval(values: Sequence[float],
                               confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Distribution-free confidence interval of the median: order statistics
    ``(x_(k), x_(n+1-k))`` with the largest ``k`` whose Binomial(n, 1/2) tail
    ``P(X < k)`` is at most ``(1 - confidence) / 2``; the range when ``n`` is too small.
    """
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values")
    alpha = (1.0 - confidence) / 2
    tail, k = 0.0, 0
    for j in range(n // 2 + 1):  # tail = P(X <= j)
        tail += math.comb(n, j) / 2.0**n
        if tail > alpha:
            break
        k = j + 1
    if k == 0:
        return ordered[0], ordered[-1]
    return ordered[k - 1], ordered[n - k]


def judge_speedups(ratios: Sequence[float], min_effect: float = MIN_EFFECT,
                   min_repeats: int = MIN_VERDICT_REPEATS,
                   max_ci_ratio: float = MAX_CI_RATIO) -> Judgement:
    """The verdict on paired per-repeat speedups (eager time / mode time, same repeat)."""
    n = len(ratios)
    median = statistics.median(ratios)
    low, high = median_confidence_interval(ratios)
    spread = f"median {median:.2f}x, {CONFIDENCE:.0%} interval {low:.2f}x-{high:.2f}x"
    if n < min_repeats:
        return Judgement(INCONCLUSIVE, False, median, low, high, (
            f"{INCONCLUSIVE}: only {n} paired repeats ({spread}); a verdict needs at "
            f"least {min_repeats}. Give it a larger budget."))
    clear = low > 1.0 or high < 1.0  # the whole interval on one side of 1.0
    if clear and abs(median - 1.0) >= min_effect:
        wide = low <= 0 or high / low > max_ci_ratio
        reason = (f"the {CONFIDENCE:.0%} interval is wide ({low:.2f}x-{high:.2f}x over {n} "
                  f"paired repeats) but lies entirely {'above' if low > 1.0 else 'below'} "
                  "1.0x: the direction is certain, the size less so") if wide else ""
        return Judgement("faster" if median > 1 else "slower", True, median, low, high, reason)
    if low <= 0 or high / low > max_ci_ratio:
        return Judgement(INCONCLUSIVE, False, median, low, high, (
            f"{INCONCLUSIVE}: the {CONFIDENCE:.0%} confidence interval of the median "
            f"speedup is {low:.2f}x-{high:.2f}x over {n} paired repeats, wider than "
            f"{max_ci_ratio:g}x allows (the machine is busy or the call is noisy). "
            "Give it a larger budget or run it when the machine is quieter."))
    reason = (f"a difference below {min_effect:.0%}: treated as noise ({spread})"
              if clear
              else f"the {CONFIDENCE:.0%} interval of the speedup contains 1.0 ({spread})")
    return Judgement("no significant difference", False, median, low, high, reason)


def interval_text(low: float | None, high: float | None) -> str:
    """The interval a verdict rests on, labelled: ``95% CI 0.04-0.15x``."""
    if low is None or high is None:
        return ""
    return f"{CONFIDENCE:.0%} CI {low:.2f}-{high:.2f}x"


def quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3

