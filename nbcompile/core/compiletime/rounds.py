"""A remedy's timing verdict from alternated rounds: a baseline run and a remedy run in
fresh processes, side by side, until the difference is outside the spread measured in the
same run (compare's rule, ``core/perf/verdict.py``) or no round left could settle it; then
"inconclusive", with the numbers."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..perf.verdict import INCONCLUSIVE, judge_speedups

#: A remedy is verified only with at least this median cut in the time it targets, the
#: cut beyond the spread of its alternated rounds, and the same outputs.
MIN_CUT = 0.10

#: Fewest alternated rounds (a baseline run and a remedy run) a verdict rests on.
MIN_ROUNDS = 3

#: The most alternated rounds per remedy unless ``rounds=`` says otherwise.
ROUNDS = 5


def secs(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f} s"


def cut_words(cut: float) -> str:
    """A cut in words: ``30% less``, ``5% more``, ``no change``."""
    if abs(cut) < 0.005:
        return "no change"
    return f"{cut:.0%} less" if cut > 0 else f"{-cut:.0%} more"


@dataclass(frozen=True)
class RoundsVerdict:
    """A remedy's timing verdict from its alternated rounds (``judge_rounds``)."""

    status: str  # verified | did not help | inconclusive
    cut: float | None = None  # the median per-round cut (0.3: 30% less; < 0: more)
    cut_low: float | None = None  # the interval of that cut the verdict rests on
    cut_high: float | None = None
    words: str = ""  # the verdict and its numbers, in words


def judge_rounds(before: Sequence[float], after: Sequence[float], *, target: str = "cold",
                 stopped: str = "") -> RoundsVerdict:
    """The verdict on a remedy from paired rounds: ``before[i]`` the baseline's first call
    and ``after[i]`` the remedy's, measured next to each other.

    The rule is compare's (``core/perf/verdict.py``'s ``judge_speedups``) over the rounds'
    speedups ``before / after``, with a verdict resting on at least ``MIN_ROUNDS`` rounds
    and an effect of ``MIN_CUT``: *verified* when the interval of the median speedup (with
    few rounds, the range of the rounds) lies entirely on the side of a cut and the median
    cut is at least ``MIN_CUT``; *did not help* when it lies on the side of more time, or
    is narrow enough to rule out a ``MIN_CUT`` cut; otherwise *inconclusive*. ``stopped``:
    why the rounds ended before a verdict (said with an inconclusive one).
    """
    pairs = [(b, a) for b, a in zip(before, after, strict=False) if b > 0 and a > 0]
    n = len(pairs)
    if not n:
        return RoundsVerdict("inconclusive", words="not verified: no round measured both "
                             "the baseline and the remedy" + (f"; {stopped}" if stopped else ""))
    speedups = [b / a for b, a in pairs]
    target_cut = 1.0 / (1.0 - MIN_CUT)  # the speedup a MIN_CUT cut is
    j = judge_speedups(speedups, min_effect=target_cut - 1.0, min_repeats=MIN_ROUNDS,
                       max_ci_ratio=target_cut)
    cut, low, high = (1.0 - 1.0 / j.median, 1.0 - 1.0 / j.ci_low, 1.0 - 1.0 / j.ci_high)
    cuts = sorted(1.0 - a / b for b, a in pairs)
    what = f"median of {n} alternated round{'s' if n > 1 else ''}"
    spread = (f"the rounds' cuts span {cut_words(cuts[0])} to {cut_words(cuts[-1])}"
              if (j.ci_low, j.ci_high) == (min(speedups), max(speedups)) else
              f"the 95% interval of the median cut spans {cut_words(low)} to {cut_words(high)}")
    numbers = (f"{target} first call {secs(statistics.median(a for _, a in pairs))} vs "
               f"{secs(statistics.median(b for b, _ in pairs))} without it; each round "
               "(without / with): "
               + ", ".join(f"{b:.2f} / {a:.2f}" for b, a in pairs) + " s")
    if j.verdict == "faster":
        words = f"{cut_words(cut)} ({what}; {spread}: a cut beyond the noise); {numbers}"
        return RoundsVerdict("verified", cut, low, high, words)
    short = n >= MIN_ROUNDS and high < MIN_CUT  # the whole interval short of a MIN_CUT cut
    if j.verdict != INCONCLUSIVE or short:  # slower, no significant difference, or short
        words = (f"{cut_words(cut)} ({what}; {spread}: "
                 + ("more time beyond the noise" if high < 0 else
                    f"short of the {MIN_CUT:.0%} cut a verdict needs") + f"); {numbers}")
        return RoundsVerdict("did not help", cut, low, high, words)
    if n < MIN_ROUNDS:
        why = (f"{cut_words(cut)} over {n} alternated round{'s' if n > 1 else ''}; a verdict "
               f"needs at least {MIN_ROUNDS}")
    elif low > 0:  # every round a cut, some beyond MIN_CUT, the median under it
        why = (f"{cut_words(cut)} ({what}; {spread}): under the {MIN_CUT:.0%} cut a verdict "
               "needs, with a spread too wide to rule one out")
    else:
        why = (f"{cut_words(cut)} ({what}), within the spread measured in this run ({spread}); "
               f"a verdict needs a cut beyond the noise and at least {MIN_CUT:.0%}")
    words = (f"not verified: {why}; {numbers}" + (f"; {stopped}" if stopped else "")
             + ". More rounds, a larger budget or a quieter machine may settle it")
    return RoundsVerdict("inconclusive", cut, low, high, words)


def could_settle(before: list[float], after: list[float], more: int) -> bool:
    """Whether ``more`` rounds could still turn an inconclusive verdict into one: tried with
    rounds repeating the median, a larger and a smaller speedup than any so far."""
    if more <= 0 or not before:
        return more > 0
    speedups = [b / a for b, a in zip(before, after, strict=False)]
    median = statistics.median(speedups)
    for s in (median, max(speedups) * 2, min(speedups) / 2):
        extra_before, extra_after = before + [s] * more, after + [1.0] * more
        if judge_rounds(extra_before, extra_after).status != "inconclusive":
            return True
    return False


@dataclass
class Rounds:
    """A remedy's alternated rounds: the paired first calls and why they stopped."""

    before: list[float] = field(default_factory=list)  # the baseline's, one per round
    after: list[float] = field(default_factory=list)  # the remedy's, paired
    stopped: str = ""  # why they ended before a verdict ("" when a verdict ended them)
