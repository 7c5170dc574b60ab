"""One ``compile_time()`` call's state: its fresh processes (``fresh.py``) counted in the
record's runs, the budget left, and a remedy's alternated rounds against the baseline
(the rule that judges them: ``rounds.py``)."""

from __future__ import annotations

import platform
import shutil
import time
from datetime import datetime, timezone
from typing import Any

import torch

from ..perf.call_args import describe_argument
from ..steps import Progress, tell
from .fresh import Child, Shipment, private_dir, run_child
from .record import CompileTime, FreshRun
from .rounds import MIN_ROUNDS, ROUNDS, Rounds, could_settle, judge_rounds


def name_of(fn: Any) -> str:
    """A function's name, or a module's class name."""
    return getattr(fn, "__name__", None) or type(fn).__name__


class Measurement:
    """The state of one ``compile_time()`` call (so Ctrl-C can hand over what it has)."""

    def __init__(self, fn: Any, calls: list[tuple[tuple[Any, ...], dict[str, Any]]],
                 options: dict[str, Any], budget_s: float | None, progress: Progress | None,
                 steady_budget_s: float) -> None:
        self.fn, self.calls, self.options = fn, calls, options
        self.budget_s, self.progress = budget_s, progress
        self.steady_budget_s = steady_budget_s
        self.start = time.perf_counter()
        self.result = CompileTime(
            name=name_of(fn), budget_s=budget_s or 0.0,
            inputs=[describe_argument(a) for a in calls[0][0]],
            environment={"torch": torch.__version__, "python": platform.python_version(),
                         "machine": platform.machine()},
            created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        self.work = private_dir()
        self.shipment = Shipment()
        self.step = 0
        self.rounds = ROUNDS
        #: each round's baseline cold run, by round (1: the cold run): the remedies share it
        self.round_baselines: dict[int, Child] = {}

    def left(self) -> float | None:
        if not self.budget_s:
            return None
        return self.budget_s - (time.perf_counter() - self.start)

    def child(self, label: str, variant: str, cache: str, **extra: Any) -> Child | None:
        """One fresh process, counted in the record's runs; ``None`` when the budget is
        spent (a run marked skipped)."""
        left = self.left()
        if left is not None and left < 1.0:
            self.result.runs.append(FreshRun(label, status="skipped",
                                             error="the budget was spent"))
            return None
        self.step += 1
        tell(self.progress, "compile_time", "fresh process", self.step, 0, label, left)
        cache_dir = self.work / cache
        cache_dir.mkdir(exist_ok=True)
        result = run_child(self.shipment, label, variant, cache_dir, self.work,
                           options=self.options, timeout_s=left,
                           steady_budget_s=self.steady_budget_s, **extra)
        self.result.runs.append(result.run)
        return result

    def alternate(self, first: Child | None, label: str, variant: str, cache: str,
                  **extra: Any) -> Rounds:
        """The remedy's alternated rounds: round 1 pairs ``first`` (its first run) with the
        baseline's cold run; each later round runs a baseline cold and the remedy, each
        into an empty cache directory, in ABBA order (baseline first in odd rounds), until
        ``judge_rounds`` gives a verdict, no round within ``rounds`` could give one, a run
        fails or the budget ends. A round's baseline run is shared: a remedy whose round
        ``i`` comes after another's pairs with the baseline that round measured, as every
        remedy's round 1 pairs with the one cold run."""
        rounds = Rounds()
        cold = self.round_baselines.get(1)
        if (first is None or first.run.status != "ok" or not first.run.first_call_s
                or cold is None):
            return rounds
        rounds.before.append(cold.run.first_call_s or 0.0)
        rounds.after.append(first.run.first_call_s)
        if first.run.same_result is False:  # no timing makes up for other outputs
            return rounds
        last = first.run
        for i in range(2, self.rounds + 1):
            if self.rounds >= MIN_ROUNDS:  # fewer asked for: run them all, for the numbers
                if len(rounds.before) >= MIN_ROUNDS and judge_rounds(
                        rounds.before, rounds.after).status != "inconclusive":
                    return rounds
                if not could_settle(rounds.before, rounds.after, self.rounds - i + 1):
                    rounds.stopped = (f"no further round within rounds={self.rounds} could "
                                      "settle it")
                    return rounds
            shared = self.round_baselines.get(i)
            left = self.left()
            latest = self.round_baselines[max(self.round_baselines)].run
            need = last.wall_s + (0.0 if shared else latest.wall_s)
            if left is not None and left < need + 1.0:
                rounds.stopped = (f"the budget ended after round {i - 1} ({left:.0f} s left, "
                                  f"a round takes about {need:.0f} s)")
                return rounds
            pair: dict[str, Child | None] = {"baseline": shared}
            for side in (("baseline", "remedy") if i % 2 else ("remedy", "baseline")):
                if side == "baseline" and shared is not None:
                    continue
                pair[side] = (
                    self.child(f"baseline cold (round {i})", "baseline", f"baseline-{i}")
                    if side == "baseline" else
                    self.child(f"{label} (round {i})", variant, f"{cache}-{i}", **extra))
                got = pair[side]
                if got is None or got.run.status != "ok" or not got.run.first_call_s:
                    why = got.run.error if got is not None else "the budget was spent"
                    rounds.stopped = f"round {i} stopped: the {side} run failed ({why})"
                    return rounds
            base, mine = pair["baseline"], pair["remedy"]
            assert base is not None and mine is not None
            self.round_baselines.setdefault(i, base)
            last = mine.run
            rounds.before.append(base.run.first_call_s or 0.0)
            rounds.after.append(mine.run.first_call_s or 0.0)
        if (len(rounds.before) < MIN_ROUNDS or judge_rounds(
                rounds.before, rounds.after).status == "inconclusive"):
            rounds.stopped = (f"rounds={self.rounds} reached" if self.rounds >= MIN_ROUNDS
                              else f"rounds={self.rounds} asked for")
        return rounds

    def finish(self) -> CompileTime:
        self.result.elapsed_s = round(time.perf_counter() - self.start, 3)
        shutil.rmtree(self.work, ignore_errors=True)
        return self.result
