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
     statistics of a Binomial(n, 1/2)) wider than ``MAX_CI_RATIO`` (upper bound / lower
     bound > 1.5): "inconclusive on this machine now", with the interval (the machine is
     too noisy for the repeats this budget bought);
  3. the interval excludes 1.0 and the median effect is at least ``min_effect`` (3 % by
     default): "faster" or "slower" (``significant``);
  4. otherwise: "no significant difference".

  A verdict therefore never rests on a handful of repeats or on a spread that would let
  the next run say the opposite. ``spreads_overlap`` (the run-time IQRs of the mode and
  of eager) is still reported but no longer decides;
* every call runs in a ``Sandbox`` (``nbcompile.core.isolation``): on copies of the tensor
  inputs, with the parameters and buffers it can reach saved and restored afterwards, each
  candidate starting from the same inputs, state and RNG state; the user's objects and
  RNG are as they were. A function that changes its inputs in place is said so
  (``mutated_inputs``, and the changed inputs are compared with eager's too); one that
  draws random numbers (``random_ops``) is not called wrong when compiled code draws
  different ones. What the function prints is captured and counted
  (``captured_output_lines``);
* every mode's output is compared with eager's (max absolute difference, and a
  tolerance check), so a fast but wrong mode is visible;
* peak memory is measured on CUDA (``max_memory_allocated``); on CPU PyTorch keeps no
  allocator statistics, and the row says "not measured".

Everything here is plain data (``Comparison.to_dict()`` is the ``timing`` record, see
``docs/records.md``); rendering lives in ``nbcompile.display.timing``, and the public
``nbcompile.compare`` returns ``nbcompile.api.Comparison``, this class with rich reprs.
"""

from __future__ import annotations

import datetime
import math
import os
import platform
import statistics
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from . import explain as explain_mod
from . import profile as profile_mod
from .capture import suppressed
from .isolation import Sandbox
from .records import SCHEMA_VERSION, Explanation, Record
from .targets import eager_callable, fresh_copy

EAGER = "eager"
COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
DEFAULT_MODES = ("eager", "default", "reduce-overhead", "max-autotune-no-cudagraphs")
BACKEND_PREFIX = "backend:"
#: Smallest relative difference reported as a real speedup or slowdown.
MIN_EFFECT = 0.03
#: Profiled calls behind the explanation of a mode not faster than eager.
EXPLAIN_REPEAT = 5
MIN_REPEATS = 5
#: Fewest paired repeats a faster/slower/no-difference verdict may rest on.
MIN_VERDICT_REPEATS = 10
#: Confidence level of the interval of the median paired speedup.
CONFIDENCE = 0.95
#: Widest interval (upper bound / lower bound) a verdict may rest on.
MAX_CI_RATIO = 1.5
INCONCLUSIVE = "inconclusive on this machine now"
MAX_REPEATS = 200
WARMUP_CALLS = 3

#: (rtol, atol) of the numeric check against eager, by dtype.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-3, 1e-4),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (1.6e-2, 1e-2),
}
#: Backends that make no sense as a row (uncompiled eager has its own name; inductor is
#: what the compile modes use).
_HIDDEN_BACKENDS = {"eager", "inductor"}


class CompareError(ValueError):
    """Bad input to ``compare``; the message says what is allowed."""


@dataclass(frozen=True)
class ModeSpec:
    """One row to measure: the uncompiled baseline, an Inductor mode, or a backend."""

    label: str
    kind: str  # eager | mode | backend
    mode: str | None = None
    backend: Any = "inductor"

    def compile_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"backend": self.backend}
        if self.mode is not None and self.mode != "default":
            kwargs["mode"] = self.mode
        return kwargs


def available_backends() -> list[str]:
    """Dynamo backends usable as a row (besides the Inductor modes)."""
    import torch._dynamo

    return [b for b in torch._dynamo.list_backends(None) if b not in _HIDDEN_BACKENDS]


def allowed_modes() -> list[str]:
    """Every name ``modes=`` accepts as a string."""
    return [EAGER, *COMPILE_MODES, *available_backends()]


def resolve_modes(modes: Sequence[Any]) -> list[ModeSpec]:
    """Turn ``modes=`` items into rows; eager is always the first row (the baseline).

    Items: ``"eager"``, an Inductor mode name, a Dynamo backend name (``"aot_eager"``,
    or ``"backend:NAME"``), or a backend callable ``(gm, example_inputs) -> callable``.
    """
    if isinstance(modes, (str, bytes)) or callable(modes):
        modes = [modes]
    specs: list[ModeSpec] = [ModeSpec(EAGER, "eager")]
    seen = {EAGER}
    backends: list[str] | None = None
    for item in modes:
        if callable(item):
            label = getattr(item, "__name__", None) or type(item).__name__
            spec = ModeSpec(f"backend:{label}", "backend", None, item)
        elif isinstance(item, str):
            name = item.strip()
            if name == EAGER:
                continue
            if name in COMPILE_MODES:
                spec = ModeSpec(name, "mode", name, "inductor")
            else:
                backend = name.removeprefix(BACKEND_PREFIX)
                if backends is None:
                    import torch._dynamo

                    backends = list(torch._dynamo.list_backends(None))
                if backend not in backends or (
                    backend in _HIDDEN_BACKENDS and not name.startswith(BACKEND_PREFIX)
                ):
                    raise CompareError(
                        f"unknown mode {item!r}; allowed: {', '.join(allowed_modes())} "
                        "(or backend:NAME for any Dynamo backend, or a backend callable)"
                    )
                spec = ModeSpec(f"backend:{backend}" if name.startswith(BACKEND_PREFIX)
                                else backend, "backend", None, backend)
        else:
            raise CompareError(
                f"modes must be names or backend callables, not {type(item).__name__}"
            )
        if spec.label in seen:
            continue
        seen.add(spec.label)
        specs.append(spec)
    return specs


# --- results ---------------------------------------------------------------------------


@dataclass
class TimingRow(Record):
    """The measurements of one mode (or backend); eager is the baseline row."""

    # ``eager``, an Inductor mode, a Dynamo backend name, or ``backend:<name>``
    mode: str
    kind: str  # eager | mode | backend
    backend: str = "inductor"  # ``inductor`` for modes, the backend's name, ``""`` for eager
    status: str = "ok"  # ok | failed
    error: str = ""  # ``Type: first line`` when failed
    first_call_s: float | None = None  # the first call (compile + one run), timed apart
    compile_s: float | None = None  # ``first_call_s`` minus the steady-state median
    median_s: float | None = None  # per-call run time over the repeats (warm-up excluded)
    q1_s: float | None = None  # first quartile of the per-call run time
    q3_s: float | None = None  # third quartile of the per-call run time
    iqr_s: float | None = None  # interquartile range of the per-call run time
    repeats: int = 0  # interleaved repeats
    calls_per_repeat: int = 0  # calls per timed block
    speedup: float | None = None  # median of the per-repeat ratios eager/mode
    speedup_q1: float | None = None  # first quartile of those ratios
    speedup_q3: float | None = None  # third quartile of those ratios
    # The ``confidence`` interval of the median paired speedup (order statistics)
    speedup_ci_low: float | None = None
    speedup_ci_high: float | None = None  # upper bound of that interval
    # At least ``min_verdict_repeats`` repeats, the interval no wider than ``max_ci_ratio``,
    # excluding 1.0, and the effect is >= ``min_effect``
    significant: bool = False
    spreads_overlap: bool | None = None  # whether the run-time IQRs of mode and eager overlap
    # baseline | faster | slower | no significant difference | inconclusive on this machine
    # now | failed
    verdict: str = ""
    # Max absolute difference of the outputs (and inputs changed in place) to eager's
    # (null: structure differs, NaN mismatch, or random ops made them incomparable)
    max_abs_diff: float | None = None
    numerics_ok: bool | None = None  # within ``tolerance`` of eager's output
    tolerance: str = ""  # e.g. ``torch.float32: rtol=0.001, atol=0.0001``, or ``exact``
    peak_memory_bytes: int | None = None  # CUDA ``max_memory_allocated`` in one call
    memory_note: str = ""  # how memory was measured, or ``not measured on CPU``
    cache: dict[str, int] = field(default_factory=dict)  # this row's compile cache hits/misses
    notes: list[str] = field(default_factory=list)  # e.g. ``numerics differ from eager ...``
    times_s: list[float] = field(default_factory=list)  # per-call time of each repeat's block
    # Why this mode is not faster than eager, from a measured profile (``core/explain.py``)
    explanations: list[Explanation] = field(default_factory=list)

    OPTIONAL_KEYS = frozenset({"speedup_ci_low", "speedup_ci_high", "explanations"})


@dataclass
class Comparison(Record):
    """The result of ``compare()``: one row per mode, eager first.

    ``rows`` (each a ``TimingRow``), ``best`` (the fastest mode that is significantly
    faster than eager and numerically right, or None), ``to_dict()`` (the ``timing``
    record). Plain data: ``nbcompile.compare`` returns the subclass with rich reprs.
    """

    name: str  # the function's ``__name__`` (or the module's class name)
    rows: list[TimingRow] = field(default_factory=list)  # eager first, then one per mode
    device: str = "cpu"  # device of the first tensor argument (``cpu``, ``cuda:0``)
    num_threads: int = 1  # ``torch.get_num_threads()``, held for every measurement
    budget_s: float = 0.0  # the steady-state measurement budget (compiles come on top)
    elapsed_s: float = 0.0  # wall time of the whole comparison, compiles included
    min_effect: float = MIN_EFFECT  # smallest relative difference called significant
    inputs: list[str] = field(default_factory=list)  # e.g. ``Tensor[256, 1024] float32 cpu``
    # ``torch``, ``python``, ``machine``, ``cpu_count``, ``processor`` (``gpu``)
    environment: dict[str, str] = field(default_factory=dict)
    created_at: str = ""  # ISO 8601, UTC
    notes: list[str] = field(default_factory=list)  # comparison-wide notes
    confidence: float = CONFIDENCE  # level of the median speedup's confidence interval
    min_verdict_repeats: int = MIN_VERDICT_REPEATS  # fewest paired repeats for a verdict
    max_ci_ratio: float = MAX_CI_RATIO  # widest interval (upper / lower) for a verdict
    # Inputs the call changes in place (``args[0]``); timed on copies, the user's unchanged
    mutated_inputs: list[str] = field(default_factory=list)
    random_ops: bool = False  # the call draws random numbers (same RNG start for every mode)
    captured_output_lines: int = 0  # lines the function printed (captured, not shown)
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["timing"] = "timing"

    OPTIONAL_KEYS = frozenset({"confidence", "min_verdict_repeats", "max_ci_ratio",
                               "mutated_inputs", "random_ops", "captured_output_lines"})
    COMPUTED = {"best": (str | None, "fastest mode significantly faster than eager and "
                         "numerically right")}

    def row(self, mode: str) -> TimingRow:
        for r in self.rows:
            if r.mode == mode:
                return r
        raise KeyError(f"no row {mode!r}; rows: {', '.join(r.mode for r in self.rows)}")

    @property
    def best(self) -> TimingRow | None:
        good = [r for r in self.rows if r.verdict == "faster" and r.numerics_ok is not False]
        return max(good, key=lambda r: r.speedup or 0.0) if good else None

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        best = self.best
        data["best"] = best.mode if best is not None else None
        return data


# --- numeric check ---------------------------------------------------------------------


def _leaves(value: Any) -> list[Any]:
    from torch.utils._pytree import tree_flatten

    return tree_flatten(value)[0]


def _snapshot(value: Any) -> list[Any]:
    """The output's leaves, tensors detached and copied (later calls may reuse buffers)."""
    return [v.detach().clone() if isinstance(v, torch.Tensor) else v for v in _leaves(value)]


def numeric_diff(reference: list[Any], value: Any) -> tuple[float, bool, str, list[str]]:
    """``(max abs difference, within tolerance, tolerance text, notes)`` vs ``reference``."""
    leaves = _leaves(value)
    notes: list[str] = []
    if len(leaves) != len(reference):
        return math.inf, False, "", [
            f"output structure differs from eager ({len(leaves)} vs {len(reference)} values)"
        ]
    worst, ok, tols = 0.0, True, set()
    for ref, got in zip(reference, leaves, strict=True):
        if isinstance(ref, torch.Tensor) and isinstance(got, torch.Tensor):
            if ref.shape != got.shape:
                notes.append(f"shape {tuple(got.shape)} differs from eager's {tuple(ref.shape)}")
                return math.inf, False, "", notes
            if ref.dtype != got.dtype:
                notes.append(f"dtype {got.dtype} differs from eager's {ref.dtype}")
                ok = False
            if ref.numel() == 0:
                continue
            a = ref.detach().to("cpu", torch.float64)
            b = got.detach().to("cpu", torch.float64)
            both_nan = torch.isnan(a) & torch.isnan(b)
            diff = torch.where(both_nan, torch.zeros_like(a), (a - b).abs())
            if torch.isnan(diff).any():
                notes.append("NaN where eager has a number (or the reverse)")
                return math.inf, False, "", notes
            worst = max(worst, float(diff.max()))
            if ref.is_floating_point() or ref.is_complex():
                rtol, atol = TOLERANCES.get(ref.dtype, (1e-5, 1e-8))
                tols.add(f"{ref.dtype}: rtol={rtol:g}, atol={atol:g}")
                if not torch.allclose(b, a, rtol=rtol, atol=atol, equal_nan=True):
                    ok = False
            elif not torch.equal(a, b):
                ok = False
        elif isinstance(ref, torch.Tensor) or isinstance(got, torch.Tensor):
            notes.append("a tensor output of eager is not a tensor here (or the reverse)")
            return math.inf, False, "", notes
        elif isinstance(ref, (int, float)) and isinstance(got, (int, float)):
            d = abs(float(ref) - float(got))
            worst = max(worst, d)
            ok &= d <= 1e-6 * max(1.0, abs(float(ref)))
        elif ref != got:
            notes.append(f"non-tensor output differs: {got!r} vs eager's {ref!r}")
            ok = False
    return worst, ok, "; ".join(sorted(tols)) or "exact", notes


# --- measurement -------------------------------------------------------------------------


def _device_of(args: tuple, kwargs: dict) -> torch.device:
    for leaf in _leaves((args, kwargs)):
        if isinstance(leaf, torch.Tensor):
            return leaf.device
    return torch.device("cpu")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _describe_input(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"Tensor{list(value.shape)} {str(value.dtype).removeprefix('torch.')} {value.device}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _counter(group: str, name: str) -> int:
    from torch._dynamo.utils import counters

    return int(counters[group][name])


def _cache_counts() -> dict[str, int]:
    return {
        "fx_graph_cache_hit": _counter("inductor", "fxgraph_cache_hit"),
        "fx_graph_cache_miss": _counter("inductor", "fxgraph_cache_miss"),
        "aotautograd_cache_hit": _counter("aot_autograd", "autograd_cache_hit"),
        "aotautograd_cache_miss": _counter("aot_autograd", "autograd_cache_miss"),
    }


def _frames() -> int:
    return _counter("frames", "total")


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


@dataclass
class _Candidate:
    spec: ModeSpec
    row: TimingRow
    call: Callable[..., Any] | None = None
    timer: Any = None
    block: Any = None
    number: int = 1
    times: list[float] = field(default_factory=list)  # per-call seconds, one per repeat


def _make_timer(call: Callable[..., Any], args: tuple, kwargs: dict, threads: int) -> Any:
    from torch.utils.benchmark import Timer

    return Timer(
        stmt="__nbcompile_f(*__nbcompile_args, **__nbcompile_kwargs)",
        globals={"__nbcompile_f": call, "__nbcompile_args": args, "__nbcompile_kwargs": kwargs},
        num_threads=threads,
        label="nbcompile.compare",
    )


def _block_timer(call: Callable[..., Any], args: tuple, kwargs: dict,
                 device: torch.device) -> timeit.Timer:
    """A plain ``timeit.Timer`` for the interleaved blocks: ``Timer.timeit`` runs at least
    two warm-up calls before each block, which for a slow call triples the cost of every
    repeat (fewer paired repeats for the same budget). The callables are already warm,
    and the thread count is the current one."""

    def clock() -> float:
        _sync(device)
        return time.perf_counter()

    return timeit.Timer("f(*args, **kwargs)", timer=clock,
                        globals={"f": call, "args": args, "kwargs": kwargs})


def _per_call(timer: Any, block_s: float, deadline: float) -> tuple[float, int]:
    """Calibrate: the per-call time and the number of calls that fill ``block_s``."""
    number = 1
    while True:
        per_call = timer.timeit(number).median
        if per_call * number >= block_s / 4 or number >= 10**6 or time.perf_counter() > deadline:
            break
        number = min(10**6, max(number * 10, int(block_s / 4 / max(per_call, 1e-9)) + 1))
    return per_call, max(1, min(10**6, round(block_s / max(per_call, 1e-9))))


def compare(
    fn: Callable[..., Any],
    *args: Any,
    modes: Sequence[Any] = DEFAULT_MODES,
    budget_s: float = 10.0,
    min_effect: float = MIN_EFFECT,
    explain: bool = True,
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
    copies). Other keyword arguments are passed to ``fn``.
    """
    if not callable(fn):
        raise CompareError(f"compare needs a function or module, not {type(fn).__name__}")
    if not budget_s or budget_s <= 0:
        raise CompareError(f"budget_s must be positive, not {budget_s!r}")
    specs = resolve_modes(modes)
    started = time.perf_counter()
    threads = torch.get_num_threads()
    device = _device_of(args, kwargs)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    result = Comparison(
        name=name,
        device=str(device),
        num_threads=threads,
        budget_s=float(budget_s),
        min_effect=min_effect,
        inputs=[_describe_input(a) for a in args]
        + [f"{k}={_describe_input(v)}" for k, v in kwargs.items()],
        environment=_environment(device),
        created_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    )
    box = Sandbox(fn, args, kwargs)
    try:
        with box.captured_output():
            candidates, recompiled = _run_all(fn, specs, box, result, device, threads,
                                              float(budget_s))
        eager_row = candidates[0]
        _summarise(eager_row, None, min_effect)
        for cand in candidates[1:]:
            _summarise(cand, eager_row, min_effect)
        for cand in candidates:
            if cand.row.first_call_s is not None and cand.spec.kind != "eager":
                steady = cand.row.median_s or 0.0
                cand.row.compile_s = round(max(0.0, cand.row.first_call_s - steady), 6)
        result.rows = [c.row for c in candidates]
        if explain:
            _explain_rows(fn, box, result, recompiled)
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
    if device.type != "cuda":
        result.notes.append("peak memory: not measured on CPU (PyTorch keeps no CPU "
                            "allocator statistics).")
    return result


def _explain_rows(fn: Any, box: Sandbox, result: Comparison, recompiled: int) -> None:
    """Profile the call once (default mode) and explain each mode not faster than eager."""
    rows = [r for r in result.rows if explain_mod.needs_explanation(r)]
    if not rows:
        return
    box.reset()
    try:
        with box.captured_output():
            prof = profile_mod.profile(fn, *box.args, repeat=EXPLAIN_REPEAT, **box.kwargs)
    except Exception as exc:  # an explanation must never cost the user the comparison
        result.notes.append(f"could not profile {result.name} to explain the slow mode(s): "
                            f"{_first_line(f'{type(exc).__name__}: {exc}')}")
        return
    for row in rows:
        row.explanations = explain_mod.explain(row, prof, recompiled)
        if row.mode not in ("default", "inductor"):
            for e in row.explanations:
                e.message += " (measured on a default-mode compile of the same call)"


def _run_all(fn: Any, specs: list[ModeSpec], box: Sandbox, result: Comparison,
             device: torch.device, threads: int, budget_s: float
             ) -> tuple[list[_Candidate], int]:
    """The eager reference call, each mode's first call, then the interleaved timing."""
    args, kwargs = box.args, box.kwargs
    eager = eager_callable(fn)
    with suppressed():
        _sync(device)
        t0 = time.perf_counter()
        reference = eager(*args, **kwargs)
        _sync(device)
        eager_first = time.perf_counter() - t0
    result.mutated_inputs = box.mutated_inputs()
    result.random_ops = box.rng_used()
    reference_leaves = _snapshot((reference, box.inputs_named(result.mutated_inputs)))
    del reference

    candidates: list[_Candidate] = []
    for spec in specs:
        row = TimingRow(mode=spec.label, kind=spec.kind,
                        backend=spec.backend if isinstance(spec.backend, str)
                        else getattr(spec.backend, "__name__", repr(spec.backend)))
        cand = _Candidate(spec, row)
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
        _prepare(cand, fn, box, device, reference_leaves, result)

    live = [c for c in candidates if c.call is not None]
    with suppressed():
        for cand in live:
            _measure_memory(cand, args, kwargs, device)
        frames_before = _frames()
        _measure(live, args, kwargs, threads, budget_s)
        recompiled = _frames() - frames_before
    if recompiled:
        result.notes.append(
            f"{recompiled} frame compile(s) happened during the timed calls: some "
            "measurements include compile time (a guard failed between calls)."
        )
    return candidates, recompiled


def _prepare(cand: _Candidate, fn: Any, box: Sandbox, device: torch.device,
             reference: list[Any], result: Comparison) -> None:
    """Compile a fresh copy, time its first call, check its numerics, warm it up."""
    row, spec = cand.row, cand.spec
    args, kwargs = box.args, box.kwargs
    skips_before = _counter("inductor", "cudagraph_skips")
    cache_before = _cache_counts()
    try:
        copy = fresh_copy(fn)
        compiled = torch.compile(copy, **spec.compile_kwargs())
        with suppressed():
            _sync(device)
            t0 = time.perf_counter()
            out = compiled(*args, **kwargs)
            _sync(device)
            row.first_call_s = time.perf_counter() - t0
            diff, ok, tol, notes = numeric_diff(
                reference, (out, box.inputs_named(result.mutated_inputs)))
            del out
            for _ in range(WARMUP_CALLS):
                compiled(*args, **kwargs)
            _sync(device)
    except Exception as e:  # one failing mode must not hide the others
        row.status = "failed"
        row.verdict = "failed"
        row.error = f"{type(e).__name__}: {_first_line(str(e))}"
        return
    cand.call = compiled
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
    if not ok and result.random_ops:
        row.max_abs_diff, row.numerics_ok = None, None
        row.notes.append(
            "outputs not comparable with eager's: the call draws random numbers (dropout, "
            "randn, ...) and compiled code draws different ones even from the same RNG "
            f"state (max abs difference {diff:.3g}); set "
            "torch._inductor.config.fallback_random = True to compare them"
        )
    elif not ok:
        row.notes.append(
            f"numerics differ from eager (max abs difference {diff:.3g}, tolerance {tol})"
        )
    after = _cache_counts()
    row.cache = {k: after[k] - cache_before[k] for k in after if after[k] - cache_before[k]}
    skips = _counter("inductor", "cudagraph_skips") - skips_before
    if skips:
        if device.type == "cuda":
            row.notes.append(f"CUDA graphs were skipped for {skips} graph(s) "
                             "(Inductor found them unsafe here): ran without them.")
        else:
            row.notes.append("CUDA graphs do not apply on CPU: this mode ran without them "
                             "(Inductor skipped cudagraphs).")


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 300 else line[:297] + "..."


def _measure_memory(cand: _Candidate, args: tuple, kwargs: dict, device: torch.device) -> None:
    row = cand.row
    if device.type != "cuda":
        row.memory_note = "not measured on CPU"
        return
    assert cand.call is not None
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    cand.call(*args, **kwargs)
    torch.cuda.synchronize(device)
    row.peak_memory_bytes = int(torch.cuda.max_memory_allocated(device))
    row.memory_note = f"peak CUDA allocation during one call ({base} bytes held before)"


def _measure(cands: list[_Candidate], args: tuple, kwargs: dict, threads: int,
             budget_s: float) -> None:
    """Interleaved blocks: each repeat times every candidate once, in rotating order."""
    if not cands:
        return
    start = time.perf_counter()
    deadline = start + budget_s
    n = len(cands)
    # Calibration takes at most ~15 % of the budget; blocks aim at ~25 repeats.
    block_s = min(0.2, max(0.002, budget_s / (n * 25)))
    calib_deadline = start + 0.15 * budget_s
    for cand in cands:
        assert cand.call is not None
        cand.timer = _make_timer(cand.call, args, kwargs, threads)
        cand.block = _block_timer(cand.call, args, kwargs, _device_of(args, kwargs))
        _, cand.number = _per_call(cand.timer, block_s, calib_deadline)
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
        per_repeat = (now - start) / repeats
        if repeats >= MIN_REPEATS and now + per_repeat > deadline:
            break
        if repeats >= 4 * MIN_REPEATS and _stable(cands):
            break
    for cand in cands:
        cand.row.repeats = repeats
        cand.row.calls_per_repeat = cand.number


def _stable(cands: list[_Candidate]) -> bool:
    """Stop early when every ratio to eager is known to within 0.5 %."""
    eager = cands[0].times
    for cand in cands[1:]:
        ratios = [e / t for e, t in zip(eager, cand.times, strict=True)]
        q1, q2, q3 = _quartiles(ratios)
        if (q3 - q1) / q2 > 0.005:
            return False
    return True


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
    if low <= 0 or high / low > max_ci_ratio:
        return Judgement(INCONCLUSIVE, False, median, low, high, (
            f"{INCONCLUSIVE}: the {CONFIDENCE:.0%} confidence interval of the median "
            f"speedup is {low:.2f}x-{high:.2f}x over {n} paired repeats, wider than "
            f"{max_ci_ratio:g}x allows (the machine is busy or the call is noisy). "
            "Give it a larger budget or run it when the machine is quieter."))
    if (low > 1.0 or high < 1.0) and abs(median - 1.0) >= min_effect:
        return Judgement("faster" if median > 1 else "slower", True, median, low, high)
    reason = (f"a difference below {min_effect:.0%}: treated as noise ({spread})"
              if low > 1.0 or high < 1.0
              else f"the {CONFIDENCE:.0%} interval of the speedup contains 1.0 ({spread})")
    return Judgement("no significant difference", False, median, low, high, reason)


def _summarise(cand: _Candidate, eager: _Candidate | None, min_effect: float) -> None:
    row = cand.row
    if not cand.times:
        return
    q1, med, q3 = _quartiles(cand.times)
    row.median_s, row.q1_s, row.q3_s, row.iqr_s = med, q1, q3, q3 - q1
    row.times_s = [round(t, 9) for t in cand.times[:MAX_REPEATS]]
    if eager is None or not eager.times:
        return
    ratios = [e / t for e, t in zip(eager.times, cand.times, strict=True)]
    r1, r2, r3 = _quartiles(ratios)
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


def _environment(device: torch.device) -> dict[str, str]:
    env = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": str(os.cpu_count() or ""),
        "processor": _cpu_name(),
    }
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
    return env


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
