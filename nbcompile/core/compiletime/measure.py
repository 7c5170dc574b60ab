"""``compile_time()``: the first call of a fresh process with empty caches (cold) and with
a warm Inductor cache (restart), where the cold seconds went, and each remedy tried in
fresh processes of its own, its outputs checked against eager's.

The user's objects, caches and settings are untouched: every compile happens in a child
process, on a copy of the call (``fresh.py``), with a cache directory of its own.
"""

from __future__ import annotations

import platform
import shutil
import statistics
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import torch

from .. import torch_compat
from ..perf.call_options import (
    CallOptionError,
    CallOptionTypeError,
    check_budget,
    check_repeat,
)
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from . import earlier as earlier_keys
from .fresh import Child, Shipment, private_dir, run_child, ship
from .history import kernel_frames
from .record import REMEDY_KINDS, CompileTime, FreshRun, Remedy
from .rounds import (
    MIN_ROUNDS,
    ROUNDS,
    Rounds,
    could_settle,
    cut_words,
    judge_rounds,
    secs,
)
from .where import Candidate, records_from_events, repeated_blocks, where


class CompileTimeInterrupted(Interrupted):
    """Ctrl-C during ``compile_time()``: ``partial`` holds the runs measured so far."""


def _unwrap(fn: Any) -> Any:
    """The eager callable behind a compiled one (``torch.compile``'s wrappers)."""
    if isinstance(fn, torch.nn.Module) and hasattr(fn, "_orig_mod"):
        return fn._orig_mod
    return torch_compat.orig_callable(fn)


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return (f"Tensor{list(value.shape)} {str(value.dtype).removeprefix('torch.')} "
                f"{value.device}")
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _check_kinds(kinds: Any) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = [k.strip() for k in kinds.split(",") if k.strip()]
    kinds = tuple(kinds)
    bad = [k for k in kinds if k not in REMEDY_KINDS]
    if bad:
        raise CallOptionError(f"remedies must be among {', '.join(REMEDY_KINDS)}, not "
                              f"{', '.join(map(repr, bad))}")
    return kinds


def _cut(before: float | None, after: float | None) -> float | None:
    if before is None or after is None or before <= 0:
        return None
    return 1.0 - after / before


def _ratio(after: float | None, before: float | None) -> float | None:
    if after is None or before is None or before <= 0:
        return None
    return round(after / before, 3)


class _Measurement:
    """The state of one ``compile_time()`` call (so Ctrl-C can hand over what it has)."""

    def __init__(self, fn: Any, calls: list[tuple[tuple[Any, ...], dict[str, Any]]],
                 options: dict[str, Any], budget_s: float | None, progress: Progress | None,
                 steady_budget_s: float) -> None:
        self.fn, self.calls, self.options = fn, calls, options
        self.budget_s, self.progress = budget_s, progress
        self.steady_budget_s = steady_budget_s
        self.start = time.perf_counter()
        self.result = CompileTime(
            name=_name(fn), budget_s=budget_s or 0.0,
            inputs=[_describe(a) for a in calls[0][0]],
            environment={"torch": torch.__version__, "python": platform.python_version(),
                         "machine": platform.machine()},
            created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        self.work = private_dir()
        self.shipment = Shipment()
        self.step = 0
        self.rounds = ROUNDS
        self.last_baseline: FreshRun | None = None  # the latest baseline cold run measured
        #: each later round's baseline cold run, by round: the remedies share it
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
                or cold is None or self.last_baseline is None):
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
            need = last.wall_s + (0.0 if shared else self.last_baseline.wall_s)
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
            self.last_baseline, last = base.run, mine.run
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


def compile_time(fn: Any, *args: Any, budget_s: float | None = None,
                 remedies: Sequence[str] | str = REMEDY_KINDS,
                 options: dict[str, Any] | None = None,
                 more_calls: Sequence[tuple[tuple[Any, ...], dict[str, Any]]] = (),
                 steady_budget_s: float = 1.0, rounds: int = ROUNDS,
                 progress: Progress | None = None, **kwargs: Any) -> CompileTime:
    """Where ``fn(*args, **kwargs)``'s compile time goes and what cuts it, measured on fresh
    processes (the user's objects, caches and settings untouched).

    ``cold_s``: the first call of a fresh process with empty caches; ``warm_restart_s``:
    the same with the cache the cold process left (a kernel restart); ``where``: the cold
    compile split by frame, phase, cache layer and repeated block; ``remedies``: each kind
    asked for, tried in fresh processes (``regional``, ``nested_region``, ``dynamic``,
    ``portable_cache``, ``precompiled``), each judged from alternated rounds of a baseline
    cold run and a remedy run (the remedies share each round's baseline; ``judge_rounds``):
    *verified* only with a median cut of at least 10 % beyond the spread of its rounds and
    outputs equal to eager's, *inconclusive* when the rounds or the budget end first (the
    note gives each round's numbers).
    ``options``: ``torch.compile`` keyword arguments (``mode``, ``fullgraph``...);
    ``more_calls``: further ``(args, kwargs)`` the target is called with (their first calls
    count: a shape that recompiles shows there); ``rounds``: the most alternated rounds per
    remedy (a verdict needs at least 3; they stop at the first verdict, or when no round left
    could give one); ``budget_s``: wall-time limit (what is left untried says so). Ctrl-C
    raises ``CompileTimeInterrupted`` carrying the runs measured so far.
    """
    if not callable(fn):
        raise CallOptionTypeError(f"compile_time: {_describe(fn)} is a {type(fn).__name__}, "
                                  "not a function or module")
    if budget_s is not None:
        budget_s = check_budget(budget_s)
    kinds = _check_kinds(remedies)
    rounds = check_repeat(rounds, "rounds")
    target = _unwrap(fn)
    calls = [(tuple(args), dict(kwargs))] + [(tuple(a), dict(k)) for a, k in more_calls]
    m = _Measurement(target, calls, dict(options or {}), budget_s, progress, steady_budget_s)
    m.rounds = rounds
    try:
        with ctrl_c_watched():
            _measure(m, kinds)
    except KeyboardInterrupt:
        ctrl_c_delivered()
        m.result.interrupted = True
        m.result.notes.append("interrupted by Ctrl-C: the runs above are what was measured")
        raise CompileTimeInterrupted("compile_time", m.finish()) from None
    return m.finish()


def _measure(m: _Measurement, kinds: tuple[str, ...]) -> None:
    result = m.result
    result.kernel_compiles = kernel_frames(m.fn)
    keys = earlier_keys.current()
    if keys is not None and result.kernel_compiles:
        result.notes += keys.notes()
    module = m.fn if isinstance(m.fn, torch.nn.Module) else None
    # a module compiled in place pickles without its compiled call (put back after)
    saved = torch_compat.compiled_call_impl(module) if module is not None else None
    if saved is not None:
        torch_compat.set_compiled_call_impl(module, None)
    try:
        m.shipment = ship(m.fn, m.calls)
    finally:
        if saved is not None:
            torch_compat.set_compiled_call_impl(module, saved)
    result.how = m.shipment.how
    if m.shipment.problem:
        result.reproducible = False
        result.notes.append(m.shipment.problem)
        result.remedies = [Remedy(k, change="", status="not reproducible",  # type: ignore[arg-type]
                                  note=m.shipment.problem) for k in kinds]
        return
    portable = "portable_cache" in kinds
    cold = m.child("baseline cold", "portable_save" if portable else "baseline", "baseline",
                   artifact=m.work / "portable.bin")
    if cold is None or cold.run.status != "ok":
        why = cold.run.error if cold else "the budget was spent"
        result.reproducible = "rebuilding the call" not in why  # a budget is not the call
        result.notes.append(f"the baseline could not be measured in a fresh process: {why}")
        result.remedies = [Remedy(k, change="", status="not tried",  # type: ignore[arg-type]
                                  note="the baseline failed: " + why) for k in kinds]
        return
    result.cold_s = cold.run.first_call_s
    m.last_baseline = cold.run
    m.round_baselines[1] = cold
    result.steady_s = cold.run.steady_s
    compiles = records_from_events(cold.events)
    result.where = where(compiles, root=module)
    warm = m.child("baseline warm restart", "baseline", "baseline")
    if warm is not None and warm.run.status == "ok":
        result.warm_restart_s = warm.run.first_call_s
        restart = where(records_from_events(warm.events), history=compiles)
        missed = [f.cache_note for f in restart.frames
                  if any(c.outcome != "hit" for c in f.caches)]
        if missed:
            result.notes.append("the warm restart still missed a cache: " + "; ".join(missed))
    blocks = repeated_blocks(module) if module is not None else []
    for kind in kinds:
        result.remedies.append(_REMEDIES[kind](m, cold, blocks))


def _judge(kind: str, change: str, child: Child | None, baseline: Child, rounds: Rounds,
           *, restart: Child | None = None, against: str = "cold", note: str = "") -> Remedy:
    """A remedy from its fresh runs: the timing verdict of its alternated rounds
    (``judge_rounds``), verified only with the same outputs as eager's; or failed."""
    remedy = Remedy(kind, change=change, status="failed")  # type: ignore[arg-type]
    if child is None:
        remedy.status, remedy.note = "not tried", "the budget was spent before it"
        return remedy
    if child.run.status != "ok":
        remedy.note = f"{child.run.error}"
        return remedy
    run = child.run
    remedy.same_result, remedy.max_abs_diff = run.same_result, run.max_abs_diff
    remedy.steady_ratio = _ratio(run.steady_s, baseline.run.steady_s)
    remedy.rounds_before_s, remedy.rounds_after_s = list(rounds.before), list(rounds.after)
    after = statistics.median(rounds.after) if rounds.after else run.first_call_s
    if against == "cold":
        remedy.cold_s = after  # the median over the rounds
        if restart is not None and restart.run.status == "ok":
            remedy.restart_s = restart.run.first_call_s
    else:
        remedy.restart_s = after
    if run.same_result is False:
        cut = _cut(rounds.before[0], rounds.after[0]) if rounds.before else None
        remedy.status = "did not help"
        remedy.note = (f"outputs differ from eager's (max abs diff {run.max_abs_diff}); "
                       f"{against} first call {secs(after)}"
                       + ("" if cut is None else f" ({cut_words(cut)} in one round)"))
    else:
        verdict = judge_rounds(rounds.before, rounds.after, target=against,
                               stopped=rounds.stopped)
        remedy.status, remedy.note = verdict.status, verdict.words
        remedy.verified = verdict.status == "verified" and bool(run.same_result)
        remedy.cut, remedy.cut_low, remedy.cut_high = (
            _round(verdict.cut), _round(verdict.cut_low), _round(verdict.cut_high))
    if note:
        remedy.note += "; " + note
    return remedy


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _regional(m: _Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    if not blocks:
        return Remedy("regional", change="", status="does not apply",
                      note="no repeated blocks: no container holds two or more modules of "
                           "one class with the same structure")
    change = "\n".join(f"for block in model.{b.path}:\n    block.compile()" if b.path else
                       "for block in model:\n    block.compile()" for b in blocks)
    paths = [b.path for b in blocks]
    child = m.child("regional cold", "regional", "regional", blocks=paths)
    restart = (m.child("regional restart", "regional", "regional", blocks=paths)
               if child is not None and child.run.status == "ok" else None)
    if child is not None and child.run.status == "ok" and not child.run.frames_compiled:
        return Remedy("regional", change=change, status="did not help",
                      note="the blocks' .compile() compiled nothing in the fresh process "
                           "(torch skips the forward of torch.nn's own classes)")
    rounds = m.alternate(child, "regional cold", "regional", "regional", blocks=paths)
    return _judge("regional", change, child, cold, rounds, restart=restart)


def _nested(m: _Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    if not blocks:
        return Remedy("nested_region", change="", status="does not apply",
                      note="no repeated blocks to mark as one nested compile region")
    names = sorted({b.cls.__name__ for b in blocks})
    change = "\n".join(f"{n}.forward = torch.compiler.nested_compile_region({n}.forward)"
                       for n in names) + "\nmodel = torch.compile(model)"
    paths = [b.path for b in blocks]
    child = m.child("nested_region cold", "nested_region", "nested", blocks=paths)
    rounds = m.alternate(child, "nested_region cold", "nested_region", "nested", blocks=paths)
    return _judge("nested_region", change, child, cold, rounds)


def _dynamic(m: _Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    shape = [f for f in m.result.where.frames if f.recompile
             and ("size mismatch" in f.recompile_reason or "size" in f.recompile_reason)]
    if not shape:
        why = ("no recompiles" if not any(f.recompile for f in m.result.where.frames)
               else "its recompiles are not shape-driven")
        return Remedy("dynamic", change="", status="does not apply",
                      note=f"{why} in the cold run"
                           + ("" if len(m.calls) > 1 else
                              " (one call measured: pass more_calls= with the other shapes)"))
    name = "model" if isinstance(m.fn, torch.nn.Module) else getattr(m.fn, "__name__", "fn")
    change = f"{name} = torch.compile({name}, dynamic=True)"
    child = m.child("dynamic cold", "dynamic", "dynamic")
    rounds = m.alternate(child, "dynamic cold", "dynamic", "dynamic")
    why = "recompiled for: " + "; ".join(f.recompile_reason for f in shape[:2])
    return _judge("dynamic", change, child, cold, rounds, note=why)


def _portable(m: _Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    change = ("artifacts, info = torch.compiler.save_cache_artifacts()  # after the first call\n"
              "# in the next process, before the first call:\n"
              "torch.compiler.load_cache_artifacts(artifacts)")
    artifact = m.work / "portable.bin"
    if not artifact.exists():
        return Remedy("portable_cache", change=change, status="failed",
                      note="torch.compiler.save_cache_artifacts() saved nothing in the cold run")
    child = m.child("portable_cache restart", "portable_load", "portable", artifact=artifact)
    rounds = m.alternate(child, "portable_cache restart", "portable_load", "portable",
                         artifact=artifact)
    return _judge("portable_cache", change, child, cold, rounds, against="restart",
                  note=(f"a warm Inductor cache directory gives {secs(m.result.warm_restart_s)}"
                        if m.result.warm_restart_s is not None else ""))


def _precompiled(m: _Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    is_module = isinstance(m.fn, torch.nn.Module)
    name = getattr(m.fn, "__name__", "fn")
    if is_module:  # the module an argument: saving then needs no external_data
        change = ("def call(model, *args):\n    return model(*args)\n\n"
                  "compiled = torch.compile(call, fullgraph=True).aot_compile(((model, x), {}))\n"
                  "compiled.save_compiled_function('model.pt2')\n"
                  "# in the next process (model built as before):\n"
                  "with open('model.pt2', 'rb') as f:\n"
                  "    compiled = torch.compiler.load_compiled_function(f)\n"
                  "y = compiled(model, x)")
    else:
        change = (f"compiled = torch.compile({name}, fullgraph=True).aot_compile(((x,), {{}}))\n"
                  f"compiled.save_compiled_function('{name}.pt2')\n"
                  "# in the next process:\n"
                  f"with open('{name}.pt2', 'rb') as f:\n"
                  f"    {name} = torch.compiler.load_compiled_function(f)")
    if not torch_compat.has_aot_compile():
        return Remedy("precompiled", change=change, status="does not apply",
                      note=f"this torch ({torch.__version__}) has no "
                           "torch.compile(...).aot_compile: precompiled functions need a "
                           "newer torch")
    breaks = [f for f in m.result.where.frames if f.frame.startswith("torch_dynamo_resume_in")]
    if breaks or len({f.frame for f in m.result.where.frames}) > 1 and not is_module:
        return Remedy("precompiled", change=change, status="does not apply",
                      note="graph breaks prevent aot_compile (torch: \"Graph breaks are not "
                           "supported with aot compile\")")
    artifact = m.work / "precompiled.pt2"
    save = m.child("precompiled cold", "precompiled_save", "precompiled_save",
                   artifact=artifact)
    if save is not None and save.run.status != "ok":
        status = "does not apply" if "Graph break" in save.run.error or "Unsupported" in \
            save.run.error else "failed"
        return Remedy("precompiled", change=change, status=status,
                      note=f"aot_compile failed in the fresh process: {save.run.error}")
    load = (m.child("precompiled restart", "precompiled_load", "precompiled_load",
                    artifact=artifact) if save is not None else None)
    rounds = m.alternate(load, "precompiled restart", "precompiled_load", "precompiled_load",
                         artifact=artifact)
    remedy = _judge("precompiled", change, load, cold, rounds, against="restart")
    if save is not None:
        remedy.cold_s = save.run.first_call_s
    return remedy


_REMEDIES = {"regional": _regional, "nested_region": _nested, "dynamic": _dynamic,
             "portable_cache": _portable, "precompiled": _precompiled}
