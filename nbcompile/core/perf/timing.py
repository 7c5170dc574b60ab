"""Timing comparisons: is the compiled code faster than eager, and which mode is best?

``compare(fn, *args, modes=...)`` compiles a *fresh copy* of ``fn`` once per mode (the
user's own compiled target and its Dynamo caches are never touched), reports the first
call apart (compile time), then measures steady-state run time with
``torch.utils.benchmark.Timer``:

* warm-up calls are excluded; the thread count is held at ``torch.get_num_threads()``
  (``Timer`` defaults to one thread, a value Dynamo guards on: it would recompile);
* every repeat measures one block of calls of *every* callable, eager included, in a
  rotating order (A/B interleaving, against clock drift and other load on the machine),
  so each mode's speedup is the median of per-repeat ratios to the eager block of the
  same repeat;
* the repeat count adapts to the time budget (the block size is calibrated first with
  ``Timer``; the repeated blocks use a plain ``timeit.Timer``, without ``Timer``'s two
  warm-up calls per block, so a slow call gets three times the repeats);
* the verdict of a row comes from its paired per-repeat speedups (eager time / mode time
  of the same repeat) by one rule, ``judge_speedups`` (a pure function over numbers):

  1. fewer than ``MIN_VERDICT_REPEATS`` (10) paired repeats: "inconclusive on this
     machine now" (the budget could not buy enough repeats for a verdict);
  2. the distribution-free 95 % confidence interval of the median speedup (order
     statistics of a Binomial(n, 1/2)) lies entirely above (below) 1.0 and the median
     effect is at least ``min_effect`` (3 % by default): "faster" ("slower"),
     ``significant``, however wide the interval;
  3. the interval contains 1.0 and is wider than ``MAX_CI_RATIO`` (upper bound / lower
     bound > 1.5): "inconclusive on this machine now", with the interval (the machine is
     too noisy for the repeats this budget bought);
  4. otherwise: "no significant difference".

  A verdict therefore never rests on a handful of repeats or on an interval that lets
  the next run say the opposite; the interval it rests on is shown, labelled, beside it.
  ``spreads_overlap`` (the run-time IQRs of the mode and of eager) is still reported but
  does not decide;
* every call runs in a ``Sandbox`` (``nbcompile.core.runs.sandbox``): on copies of the tensor
  inputs, with the parameters and buffers it can reach saved and restored afterwards, each
  candidate starting from the same inputs, state and RNG state; the user's objects and
  RNG are as they were. A function that changes its inputs in place is said so
  (``mutated_inputs``, and the changed inputs are compared with eager's too); one that
  draws random numbers (``random_ops``) is not called wrong when compiled code draws
  different ones. What the function prints is captured and counted
  (``captured_output_lines``);
* every mode's output is compared with eager's (max absolute difference, and a
  tolerance check), so a fast but wrong mode is visible;
* memory (``memory=True``): one more call of every row, eager included, each from the
  sandbox's starting state (the user's inputs, parameters, gradients, optimizer state and
  RNG, as ``profile`` measures too), measures the peak of tensor bytes in use above
  those in use before the call, the bytes allocated,
  and what the forward saved for backward (``core/perf/memory/call.py``: torch.profiler's
  allocation events on the CPU, the caching allocator's statistics on CUDA, plus, for a
  CUDA mode, the bytes it keeps allocated between calls such as reduce-overhead's CUDA
  graph pool); each row gets a memory verdict beside the time verdict ("0.25x eager's
  peak") and, when it needs more than eager, measured reasons (``explain.explain_memory``);
* the budget bounds the timed calls only; ``phases_s`` says what came on top (first
  calls with their compiles, memory, the explaining profile) and how long it took.

The parts: the timed calls in ``interleaved.py``, each row's memory in
``memory/rows.py``, the verdict rule in ``verdict.py``; here the orchestration (the eager
reference, each mode's compile, first call and numerics, the phases, the explanations).

Everything here is plain data (``Comparison.to_dict()`` is the ``timing`` record, see
``docs/records.md``); rendering lives in ``nbcompile.display.timing``, and the public
``nbcompile.compare`` returns ``nbcompile.api.Comparison``, this class with rich reprs.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from ..insight.diagnose_hint import DIAGNOSE_HINT  # where a failed or differing mode points
from ..runs.copies import fresh_copy
from ..runs.produced import (
    Produced,
)
from ..runs.sandbox import Sandbox
from ..runs.timed import first_line
from ..runs.wrappers import eager_callable
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from ..trace.listener import suppressed
from . import explain as explain_mod
from .call_args import describe_call
from .call_options import check_budget, check_flag, check_fraction, check_modes
from .comparison import Comparison, TimingRow
from .counters import cache_counts, counter, frames_compiled
from .environment import device_of, environment, sync
from .interleaved import Candidate, cut_to_complete_repeats, measure_blocks, summarise
from .memory import pool as pool_memory
from .memory.call import allocated_now
from .memory.rows import held_memory, measure_memory, memory_verdicts
from .modes import DEFAULT_MODES, CompareError, ModeSpec, resolve_modes
from .numerics import drift, drift_note
from .profile import run as profile_mod
from .row_numerics import judge_call, randomness
from .verdict import MIN_EFFECT

#: Profiled calls behind the explanation of a mode not faster than eager.
EXPLAIN_REPEAT = 5
WARMUP_CALLS = 3


def compare(
    fn: Callable[..., Any],
    *args: Any,
    modes: Sequence[Any] = DEFAULT_MODES,
    budget_s: float = 10.0,
    min_effect: float = MIN_EFFECT,
    explain: bool = True,
    memory: bool = True,
    progress: Progress | None = None,
    **kwargs: Any,
) -> Comparison:
    """Compare eager and compiled run times of ``fn(*args, **kwargs)``, mode by mode.

    ``fn`` is a function or ``nn.Module``, compiled or not: nbcompile compiles a fresh
    copy per mode and never touches ``fn``'s own compiled state. The calls run on copies
    of the tensor inputs, and the parameters, buffers and RNG state they change are put
    back afterwards. ``modes`` holds ``"eager"``, Inductor mode names, Dynamo backend
    names and/or backend callables. ``budget_s`` bounds the steady-state measurement
    (compiles come on top). With ``explain``, a mode not faster than eager gets
    ``explanations`` from a ``profile`` of the call (one more compile, on the same input
    copies). With ``memory``, every row's memory of one call is measured too
    (``peak_memory_bytes``, ``allocated_bytes``, ``saved_bytes``, ``memory_verdict``), and a
    mode needing more than eager gets ``memory_explanations``; without it nothing of the
    memory measurement runs. ``progress`` hears each step as it starts (mode i of n:
    compiling, warming up; memory; timing with the budget left; ``core/steps.py``).
    Ctrl-C stops the comparison: the user's objects are put back and a
    ``ComparisonInterrupted`` (a ``KeyboardInterrupt``) carries the rows measured so far
    (``partial``, marked ``interrupted``). Other keyword arguments are passed to ``fn``.
    """
    if not callable(fn):
        raise CompareError(f"compare needs a function or module, not {type(fn).__name__}")
    budget_s = check_budget(budget_s)
    min_effect = check_fraction(min_effect, "min_effect")
    explain, memory = check_flag(explain, "explain"), check_flag(memory, "memory")
    specs = resolve_modes(check_modes(modes))
    started = time.perf_counter()
    threads = torch.get_num_threads()
    device = device_of(args, kwargs)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    result = Comparison(
        name=name,
        device=str(device),
        num_threads=threads,
        budget_s=float(budget_s),
        min_effect=min_effect,
        inputs=describe_call(args, kwargs),
        environment=environment(device),
        created_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        memory_measured=bool(memory),
    )
    box = Sandbox(fn, args, kwargs)
    candidates: list[Candidate] = []
    try:
        try:
            with ctrl_c_watched(), box.captured_output():
                recompiled = _run_all(fn, specs, box, result, device, threads,
                                      float(budget_s), bool(memory), candidates, progress)
        except KeyboardInterrupt:
            ctrl_c_delivered()
            result.interrupted = True
            recompiled = 0
            cut_to_complete_repeats(candidates, specs)
        if candidates:
            eager_row = candidates[0]
            summarise(eager_row, None, min_effect)
            for cand in candidates[1:]:
                summarise(cand, eager_row, min_effect)
        for cand in candidates:
            if cand.row.first_call_s is not None and cand.spec.kind != "eager":
                steady = cand.row.median_s or 0.0
                cand.row.compile_s = round(max(0.0, cand.row.first_call_s - steady), 6)
        result.rows = [c.row for c in candidates]
        memory_verdicts(result)
        if explain and not result.interrupted:
            tell(progress, "compare", "profiling the call to explain a slow mode")
            t0 = time.perf_counter()
            _explain_rows(fn, box, result, recompiled)
            if time.perf_counter() - t0 > 0.001:
                result.phases_s["explaining profile"] = round(time.perf_counter() - t0, 3)
    finally:
        box.restore()
    result.captured_output_lines = box.printed_lines  # the explaining profile's prints too
    if box.printed_lines:
        result.notes.append(
            f"{name} printed {box.printed_lines} lines during the comparison; they were "
            "captured and not shown."
        )
    if result.mutated_inputs:
        result.notes.append(
            f"{name} changes {', '.join(result.mutated_inputs)} in place: every call ran on "
            "nbcompile's copies (your inputs are unchanged), each mode's first call from "
            "the same starting values, and the changed inputs are compared with eager's too."
        )
    if result.random_ops:
        result.notes.append(
            f"{name} draws random numbers: every mode's first call started from the same "
            "RNG state, and your RNG state is as it was."
        )
    result.elapsed_s = round(time.perf_counter() - started, 3)
    accounted = sum(result.phases_s.values())
    if result.elapsed_s - accounted > 0.001:
        result.phases_s["other"] = round(result.elapsed_s - accounted, 3)
    if result.interrupted:
        done = [r.mode for r in result.rows if r.median_s is not None]
        result.notes.insert(0, (
            f"interrupted (Ctrl-C) after {result.elapsed_s:.1f}s: "
            + (f"timings of {', '.join(done)} from {result.rows[0].repeats} repeats; "
               if done else "no mode was timed; ")
            + "modes not reached are left out. Your objects and RNG state are as before."))
        raise ComparisonInterrupted(result)
    return result


class ComparisonInterrupted(Interrupted):
    """Ctrl-C during ``compare()``: ``partial`` is the comparison so far (``interrupted``)."""

    def __init__(self, partial: Comparison) -> None:
        super().__init__("compare", partial)

def _explain_rows(fn: Any, box: Sandbox, result: Comparison, recompiled: int) -> None:
    """Profile the call once (default mode) and explain each mode not faster than eager,
    and each mode needing more memory than eager."""
    slow = [r for r in result.rows if explain_mod.needs_explanation(r)]
    eager = result.rows[0] if result.rows else None
    heavy = [r for r in result.rows if eager is not None
             and explain_mod.needs_memory_explanation(r, eager)]
    if not slow and not heavy:
        return
    box.reset()
    try:
        with box.captured_output():
            prof = profile_mod.profile(fn, *box.args, repeat=EXPLAIN_REPEAT,
                                       memory=bool(heavy), **box.kwargs)
    except Exception as exc:  # an explanation must never cost the user the comparison
        result.notes.append(f"could not profile {result.name} to explain the slow mode(s): "
                            f"{first_line(f'{type(exc).__name__}: {exc}')}")
        prof = None
    for row in slow:
        if prof is not None:
            row.explanations = explain_mod.explain(row, prof, recompiled)
    mutated = {label: t.untyped_storage().nbytes() for label, t in
               zip(result.mutated_inputs, box.inputs_named(result.mutated_inputs), strict=True)}
    for row in heavy:
        assert eager is not None
        row.memory_explanations = explain_mod.explain_memory(row, eager, prof, mutated)


class _PhaseClock:
    """Seconds of each phase into ``phases_s``; the phase Ctrl-C cut short counts too (an
    interrupted comparison says how long it timed calls before the Ctrl-C)."""

    def __init__(self, phases: dict[str, float]) -> None:
        self.phases = phases
        self.name: str | None = None
        self.started = 0.0

    def start(self, name: str) -> None:
        self.stop()
        self.name, self.started = name, time.perf_counter()

    def stop(self) -> None:
        if self.name is not None:
            self.phases[self.name] = round(time.perf_counter() - self.started, 3)
            self.name = None


def _run_all(fn: Any, specs: list[ModeSpec], box: Sandbox, result: Comparison,
             device: torch.device, threads: int, budget_s: float, memory: bool,
             candidates: list[Candidate], progress: Progress | None = None) -> int:
    """The eager reference call, each mode's first call, then the interleaved timing
    (``candidates`` filled as they are prepared); the frames recompiled while timing."""
    clock = _PhaseClock(result.phases_s)
    try:
        return _run_phases(fn, specs, box, result, device, threads, budget_s, memory,
                           candidates, progress, clock)
    finally:  # also on Ctrl-C: the phase it cut short is counted
        clock.stop()


def _run_phases(fn: Any, specs: list[ModeSpec], box: Sandbox, result: Comparison,
                device: torch.device, threads: int, budget_s: float, memory: bool,
                candidates: list[Candidate], progress: Progress | None,
                clock: _PhaseClock) -> int:
    args, kwargs = box.args, box.kwargs
    eager = eager_callable(fn)
    clock.start("first calls")
    total = len(specs)
    tell(progress, "compare", "running eagerly (the reference)", 1, total, "eager")
    with suppressed():
        sync(device)
        t0 = time.perf_counter()
        reference = eager(*args, **kwargs)
        sync(device)
        eager_first = time.perf_counter() - t0
    result.mutated_inputs = box.mutated_inputs()
    result.random_ops = box.rng_used()
    changed = box.changed_state()
    first = box.produced(reference, result.mutated_inputs, changed)
    del reference
    box.reset()  # the reference is a second call from the same start (numerics.drift)
    with suppressed(), box.captured_output():
        again = box.produced(eager(*args, **kwargs), result.mutated_inputs, changed)
    gap = drift(first.leaves, again.leaves)
    if gap is not None:
        result.notes.append(drift_note(gap))
    if changed:
        result.notes.append(
            f"{result.name} changes {', '.join(changed)}: every mode's first call started "
            "from the same values, what it left there is compared with eager's, and yours "
            "are put back.")
    reference_leaves = again

    for index, spec in enumerate(specs, start=1):
        row = TimingRow(mode=spec.label, kind=spec.kind,
                        backend=spec.backend if isinstance(spec.backend, str)
                        else getattr(spec.backend, "__name__", repr(spec.backend)))
        cand = Candidate(spec, row)
        candidates.append(cand)
        if spec.kind == "eager":
            row.backend = ""
            row.first_call_s = eager_first
            row.verdict = "baseline"
            row.max_abs_diff = 0.0
            row.numerics_ok = True
            cand.call = eager
            continue
        box.reset()
        _prepare(cand, fn, box, device, reference_leaves, result,
                 lambda what, i=index, label=spec.label: tell(progress, "compare", what, i,
                                                              total, label))
    clock.stop()

    live = [c for c in candidates if c.call is not None]
    with suppressed():
        if memory:
            clock.start("memory")
            held = box.held_storages()
            for index, cand in enumerate(live, start=1):
                tell(progress, "compare", "measuring memory", index, len(live), cand.row.mode)
                measure_memory(cand, box, device, held)
            clock.stop()
        else:
            for cand in live:
                cand.row.memory_note = "not measured (memory=False)"
        clock.start("timed calls")
        frames_before = frames_compiled()
        measure_blocks(live, args, kwargs, threads, budget_s, progress)
        recompiled = frames_compiled() - frames_before
        clock.stop()
    if recompiled:
        result.notes.append(
            f"{recompiled} frame compile(s) happened during the timed calls: some "
            "measurements include compile time (a guard failed between calls)."
        )
    return recompiled


def _prepare(cand: Candidate, fn: Any, box: Sandbox, device: torch.device,
             reference: Produced, result: Comparison,
             step: Callable[[str], None] = lambda what: None) -> None:
    """Compile a fresh copy, time its first call, check its numerics, warm it up."""
    row, spec = cand.row, cand.spec
    args, kwargs = box.args, box.kwargs
    skips_before = counter("inductor", "cudagraph_skips")
    cache_before = cache_counts()
    held_before = allocated_now(device)
    pool = pool_memory.watch(device, spec.cudagraphs)
    try:
        copy = fresh_copy(fn)
        compiled = torch.compile(copy, **spec.compile_kwargs())
        with suppressed():
            step("compiling (its first call)")
            sync(device)
            t0 = time.perf_counter()
            out = compiled(*args, **kwargs)
            sync(device)
            row.first_call_s = time.perf_counter() - t0
            diff, ok, tol, notes = judge_call(box, out, reference, result.mutated_inputs)
            del out
            step("warming up")
            if pool is not None:
                pool.recording()
            for _ in range(WARMUP_CALLS):
                compiled(*args, **kwargs)
            sync(device)
            held_after = allocated_now(device)
            cand.pool = pool.finish() if pool is not None else None
    except Exception as e:  # one failing mode must not hide the others
        if pool is not None:
            pool.stop_profile()
        row.status = "failed"
        row.verdict = "failed"
        row.error = f"{type(e).__name__}: {first_line(str(e))}"
        row.notes.append(DIAGNOSE_HINT)
        return
    cand.call = compiled
    held_memory(cand, held_before, held_after)
    row.max_abs_diff = diff
    row.numerics_ok = ok
    row.tolerance = tol
    row.notes.extend(notes)
    if result.mutated_inputs:
        row.notes.append(
            f"changes {', '.join(result.mutated_inputs)} in place, as eager does "
            + ("(same values)" if ok else "(checked against eager's changed values)")
            + "; timed on nbcompile's copies, your inputs are unchanged"
        )
    if ok is False and result.random_ops:
        randomness(row, fn, box, spec, reference, result.mutated_inputs, diff)
    elif ok is None:
        row.notes.append("no verdict on the numbers: nothing the call produced can be "
                         "compared with eager's")
    elif not ok:
        row.notes.append(
            f"numerics differ from eager (max abs difference {diff or 0.0:.3g}, "
            f"tolerance {tol})"
        )
        row.notes.append(DIAGNOSE_HINT)
    after = cache_counts()
    row.cache = {k: after[k] - cache_before[k] for k in after if after[k] - cache_before[k]}
    skips = counter("inductor", "cudagraph_skips") - skips_before
    if spec.cudagraphs and device.type != "cuda":
        # Said from the device: torch counts a skip only when it compiles the graph (a
        # function Dynamo already compiled in this mode runs again without a count).
        row.notes.append(f"CUDA graphs do not apply on {device.type.upper()}: this mode ran "
                         "without them" + (" (Inductor skipped cudagraphs)." if skips else "."))
    elif skips and device.type == "cuda":
        row.notes.append(f"CUDA graphs were skipped for {skips} graph(s) "
                         "(Inductor found them unsafe here): ran without them.")
