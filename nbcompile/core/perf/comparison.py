"""The ``timing`` record: one ``TimingRow`` per mode, eager first, in a ``Comparison``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..records import SCHEMA_VERSION, Explanation, Record
from .verdict import CONFIDENCE, MAX_CI_RATIO, MIN_EFFECT, MIN_VERDICT_REPEATS


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
    # At least ``min_verdict_repeats`` repeats, the interval excluding 1.0 and the effect
    # >= ``min_effect`` (however wide the interval; see ``core/perf/verdict.py``)
    significant: bool = False
    spreads_overlap: bool | None = None  # whether the run-time IQRs of mode and eager overlap
    # baseline | faster | slower | no significant difference | inconclusive on this machine
    # now | failed
    verdict: str = ""
    # Max absolute difference of the outputs (and inputs and state changed in place) to
    # eager's (null: structure differs, NaN mismatch, random numbers drawn differently, or
    # nothing comparable, e.g. a generator)
    max_abs_diff: float | None = None
    # within ``tolerance`` of eager's output, changed inputs and state (null: not comparable)
    numerics_ok: bool | None = None
    tolerance: str = ""  # e.g. ``torch.float32: rtol=0.001, atol=0.0001``, or ``exact``
    # Peak tensor bytes in use during one call, above those in use before it (CPU:
    # torch.profiler's allocation events; CUDA: ``max_memory_allocated``); null: not measured
    peak_memory_bytes: int | None = None
    memory_note: str = ""  # how memory was measured, or why it was not
    allocated_bytes: int | None = None  # bytes allocated during one call
    peak_memory_ratio: float | None = None  # ``peak_memory_bytes`` over eager's
    memory_verdict: str = ""  # e.g. ``0.25x eager's peak``; ``baseline`` for eager
    # Activations one call's forward saved for backward (storages the call created;
    # parameters and inputs it saved are held anyway); null: nothing saved
    saved_bytes: int | None = None
    # CUDA: bytes still allocated after the mode's compile and warm-up, beyond those
    # before it (for reduce-overhead: its CUDA graph memory pool's growth, a floor when the
    # shared pool had free room); null off CUDA, or when a shared CUDA-graph pool with free
    # room did not grow (not known: a note says)
    held_bytes: int | None = None
    cache: dict[str, int] = field(default_factory=dict)  # this row's compile cache hits/misses
    notes: list[str] = field(default_factory=list)  # e.g. ``numerics differ from eager ...``
    times_s: list[float] = field(default_factory=list)  # per-call time of each repeat's block
    # Why this mode is not faster than eager, from a measured profile (``core/perf/explain.py``)
    explanations: list[Explanation] = field(default_factory=list)
    # Why this mode needs more memory than eager, each naming its measured numbers
    memory_explanations: list[Explanation] = field(default_factory=list)

    OPTIONAL_KEYS = frozenset({"speedup_ci_low", "speedup_ci_high", "explanations",
                               "allocated_bytes", "peak_memory_ratio", "memory_verdict",
                               "saved_bytes", "held_bytes", "memory_explanations"})


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
    # Where ``elapsed_s`` went: ``first calls`` (compiles), ``memory``, ``timed calls``
    # (what ``budget_s`` bounds), ``explaining profile``, ``other``
    phases_s: dict[str, float] = field(default_factory=dict)
    memory_measured: bool = False  # each row's memory was measured (``memory=True``)
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
    # Stopped by Ctrl-C: the rows hold what was measured until then (see ``notes``)
    interrupted: bool = False
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["timing"] = "timing"

    OPTIONAL_KEYS = frozenset({"confidence", "min_verdict_repeats", "max_ci_ratio",
                               "mutated_inputs", "random_ops", "captured_output_lines",
                               "phases_s", "memory_measured", "interrupted"})
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

