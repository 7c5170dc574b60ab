"""The timed calls of ``compare``: calibrated blocks of calls, every mode's block in each
repeat in a rotating order (A/B interleaving), and each mode's times and paired speedups
summarised into its row (``verdict.judge_speedups`` decides)."""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ..steps import Progress, tell
from .comparison import TimingRow
from .environment import device_of, sync
from .memory.pool import PoolMemory
from .modes import ModeSpec
from .verdict import judge_speedups, quartiles

MIN_REPEATS = 5
MAX_REPEATS = 200


@dataclass
class Candidate:
    """One row being measured: its mode, its row, its warm callable and its timings."""

    spec: ModeSpec
    row: TimingRow
    call: Callable[..., Any] | None = None
    timer: Any = None
    block: Any = None
    number: int = 1
    times: list[float] = field(default_factory=list)  # per-call seconds, one per repeat
    pool: PoolMemory | None = None  # a CUDA-graph row's pool, read after its warm-up


def make_timer(call: Callable[..., Any], args: tuple, kwargs: dict, threads: int) -> Any:
    from torch.utils.benchmark import Timer

    return Timer(
        stmt="__nbcompile_f(*__nbcompile_args, **__nbcompile_kwargs)",
        globals={"__nbcompile_f": call, "__nbcompile_args": args, "__nbcompile_kwargs": kwargs},
        num_threads=threads,
        label="nbcompile.compare",
    )


def block_timer(call: Callable[..., Any], args: tuple, kwargs: dict,
                 device: torch.device) -> timeit.Timer:
    """A plain ``timeit.Timer`` for the interleaved blocks: ``Timer.timeit`` runs at least
    two warm-up calls before each block, which for a slow call triples the cost of every
    repeat (fewer paired repeats for the same budget). The callables are already warm,
    and the thread count is the current one."""

    def clock() -> float:
        sync(device)
        return time.perf_counter()

    return timeit.Timer("f(*args, **kwargs)", timer=clock,
                        globals={"f": call, "args": args, "kwargs": kwargs})


def per_call(timer: Any, block_s: float, deadline: float) -> tuple[float, int]:
    """Calibrate: the per-call time and the number of calls that fill ``block_s``."""
    number = 1
    while True:
        per_call = timer.timeit(number).median
        if per_call * number >= block_s / 4:
            # confirm with a second block: one slow call (a first call, a busy machine)
            # must not size the blocks to a few calls (and the repeats to microseconds)
            per_call = min(per_call, timer.timeit(number).median)
            if per_call * number >= block_s / 4:
                break
        if number >= 10**6 or time.perf_counter() > deadline:
            break
        number = min(10**6, max(number * 10, int(block_s / 4 / max(per_call, 1e-9)) + 1))
    return per_call, max(1, min(10**6, round(block_s / max(per_call, 1e-9))))

def measure_blocks(cands: list[Candidate], args: tuple, kwargs: dict, threads: int,
                   budget_s: float, progress: Progress | None = None) -> None:
    """Interleaved blocks: each repeat times every candidate once, in rotating order."""
    if not cands:
        return
    start = time.perf_counter()
    deadline = start + budget_s
    n = len(cands)
    # Calibration takes at most ~15 % of the budget; blocks aim at ~25 repeats.
    block_s = min(0.2, max(0.002, budget_s / (n * 25)))
    calib_deadline = start + 0.15 * budget_s
    tell(progress, "compare", f"calibrating {len(cands)} modes", remaining_s=budget_s)
    for cand in cands:
        assert cand.call is not None
        cand.timer = make_timer(cand.call, args, kwargs, threads)
        cand.block = block_timer(cand.call, args, kwargs, device_of(args, kwargs))
        _, cand.number = per_call(cand.timer, block_s, calib_deadline)
    repeats = 0
    while repeats < MAX_REPEATS:
        # rotate every repeat and reverse every other round of n repeats, so each
        # candidate runs first and after every other one equally often (for n == 2,
        # rotating and reversing on the same repeats would cancel out)
        order = cands[repeats % n:] + cands[: repeats % n]
        if (repeats // n) % 2:
            order.reverse()
        for cand in order:
            cand.times.append(max(cand.block.timeit(cand.number), 1e-9) / cand.number)
        repeats += 1
        now = time.perf_counter()
        tell(progress, "compare", f"timing {n} modes, repeat {repeats}",
             remaining_s=deadline - now)
        per_repeat = (now - start) / repeats
        if repeats >= MIN_REPEATS and now + per_repeat > deadline:
            break
        if repeats >= 4 * MIN_REPEATS and stable(cands):
            break
    for cand in cands:
        cand.row.repeats = repeats
        cand.row.calls_per_repeat = cand.number


def stable(cands: list[Candidate]) -> bool:
    """Stop early when every ratio to eager is known to within 0.5 %."""
    eager = cands[0].times
    for cand in cands[1:]:
        ratios = [e / t for e, t in zip(eager, cand.times, strict=True)]
        q1, q2, q3 = quartiles(ratios)
        if (q3 - q1) / q2 > 0.005:
            return False
    return True


def summarise(cand: Candidate, eager: Candidate | None, min_effect: float) -> None:
    """A row's quartiles of time per call and, against eager's times of the same repeats,
    its paired speedups, their interval and its verdict."""
    row = cand.row
    if not cand.times:
        return
    q1, med, q3 = quartiles(cand.times)
    row.median_s, row.q1_s, row.q3_s, row.iqr_s = med, q1, q3, q3 - q1
    row.times_s = [round(t, 9) for t in cand.times[:MAX_REPEATS]]
    if eager is None or not eager.times:
        return
    ratios = [e / t for e, t in zip(eager.times, cand.times, strict=True)]
    r1, r2, r3 = quartiles(ratios)
    row.speedup, row.speedup_q1, row.speedup_q3 = r2, r1, r3
    e = eager.row
    assert e.q1_s is not None and e.q3_s is not None
    row.spreads_overlap = not (q3 < e.q1_s or q1 > e.q3_s)
    judged = judge_speedups(ratios, min_effect)
    row.speedup_ci_low, row.speedup_ci_high = judged.ci_low, judged.ci_high
    row.significant = judged.significant
    row.verdict = judged.verdict
    if judged.reason:
        row.notes.append(judged.reason)


def cut_to_complete_repeats(candidates: list[Candidate], specs: list[ModeSpec]) -> None:
    """After Ctrl-C: keep the modes prepared so far and the repeats every one finished
    (a repeat cut short would pair a mode with no eager block)."""
    while candidates and candidates[-1].call is None and candidates[-1].row.status == "ok":
        candidates.pop()  # reached but interrupted before its first call ended
    timed = [c for c in candidates if c.call is not None]
    repeats = min((len(c.times) for c in timed), default=0)
    for cand in timed:
        del cand.times[repeats:]
        cand.row.repeats = repeats
        cand.row.calls_per_repeat = cand.number
