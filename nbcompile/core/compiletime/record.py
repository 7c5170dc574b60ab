"""The ``compile_time`` record: ``CompileTime`` with its ``Where`` (the split of the
seconds) and its ``Remedy`` rows, each measured on fresh processes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..records import SCHEMA_VERSION, Record

RemedyKind = Literal["regional", "nested_region", "dynamic", "portable_cache", "precompiled"]
#: Every remedy, in the order they are tried.
REMEDY_KINDS: tuple[RemedyKind, ...] = ("regional", "nested_region", "dynamic",
                                        "portable_cache", "precompiled")


@dataclass
class CacheOutcome(Record):
    """One cache layer's answer to one compile, in torch's words."""

    layer: str  # fx_graph | aotautograd | autotune | portable
    outcome: str  # hit | miss | bypass (torch's ``cache_state``)
    detail: str = ""  # torch's ``cache_status_detailed`` (e.g. ``full_miss``, ``guard_miss``)
    reason: str = ""  # torch's bypass reason; empty when torch gave none
    key: str = ""  # the cache key looked up
    time_saved_s: float | None = None  # compile time the hit saved, as torch measured it


@dataclass
class KeyChange(Record):
    """One component of a cache key that differs from the previous compile of the frame
    (read from torch's own key details: ``[hash] name: value`` lines)."""

    layer: str  # fx_graph | aotautograd
    component: str  # torch's component name (``fx_kwargs``, ``inductor_config``, ``gm``...)
    kind: str  # inductor_option | graph | inputs | torch_version | other
    words: str  # what differed, in words
    before: str = ""  # the previous value (capped)
    after: str = ""  # this compile's value (capped)


@dataclass
class EarlierCompile(Record):
    """The newest compile of the same frame in an earlier kernel of this notebook, read
    from the cache-key components that kernel saved (``earlier.py``)."""

    saved_at: str  # when that kernel saved it, ISO 8601 UTC
    compile_id: str = ""  # its compile id there
    same_cell: bool = True  # the same file and line, or a cell with the same text
    # every compared layer's key components equal (None: torch gave no components to compare)
    same_key: bool | None = None
    words: str = ""  # what differed, in words (or that nothing did, or that torch said nothing)


@dataclass
class FrameTime(Record):
    """One frame compile: its seconds, phases and cache layers."""

    # added after v1: a record saved before lacks it
    OPTIONAL_KEYS = frozenset({"earlier"})

    compile_id: str  # ``"0/1"``: frame 0, its second compile
    frame: str  # the code compiled (function name)
    filename: str = ""
    lineno: int = 0  # the code's first line
    seconds: float = 0.0  # the whole frame compile, as torch measured it
    phases: dict[str, float] = field(default_factory=dict)  # exclusive seconds per phase
    graph_op_count: int = 0  # ops in the frame's graphs
    recompile: bool = False  # a recompile of a frame compiled before
    recompile_reason: str = ""  # the failed guard(s), in words
    caches: list[CacheOutcome] = field(default_factory=list)  # each layer's outcome
    # Components of the cache key that differ from the previous compile of this frame
    key_changes: list[KeyChange] = field(default_factory=list)
    cache_note: str = ""  # why a cache missed, in words (or that torch gave no reason)
    # this frame's compile in an earlier kernel of this notebook (when this kernel had not
    # compiled it before): ``key_changes`` then compare with that compile
    earlier: EarlierCompile | None = None


@dataclass
class RepeatedBlock(Record):
    """Identical modules (same class, same structure) traced once each: their code is
    inlined into the graph again and again."""

    path: str  # where they are in the module tree (``blocks``, ``transformer.h``)
    cls: str  # their class name
    count: int  # how many
    # Times the block's forward appears in the traced graphs (from the graph's source lines)
    traced_copies: int = 0
    node_share: float = 0.0  # share of the graphs' ops that come from these blocks
    # Dynamo and Inductor seconds estimated for them (phase time times ``node_share``)
    dynamo_s: float = 0.0
    inductor_s: float = 0.0


@dataclass
class Where(Record):
    """Where a target's compile seconds went."""

    total_s: float = 0.0  # all frame compiles together
    phases: dict[str, float] = field(default_factory=dict)  # summed over frame compiles
    frames: list[FrameTime] = field(default_factory=list)  # one per frame compile, in order
    recompile_s: float = 0.0  # seconds spent in recompiles
    repeated: list[RepeatedBlock] = field(default_factory=list)  # blocks traced N times
    # ``layer outcome`` -> count, e.g. ``{"fx_graph miss": 1, "aotautograd hit": 2}``
    caches: dict[str, int] = field(default_factory=dict)


@dataclass
class FreshRun(Record):
    """One child process: what it ran and what it measured."""

    label: str  # baseline cold | baseline warm restart | regional cold | ...
    status: str = "ok"  # ok | failed | skipped
    error: str = ""  # ``Type: first line`` when failed
    first_call_s: float | None = None  # first call(s): the compile and one run
    steady_s: float | None = None  # median run time after the first call
    wall_s: float = 0.0  # the child process from start to end, imports included
    frames_compiled: int = 0  # frame compiles the child saw
    graph_ops: int = 0  # ops Dynamo traced into graphs (torch's ``graph_op_count``, summed)
    caches: dict[str, int] = field(default_factory=dict)  # ``layer outcome`` -> count
    same_result: bool | None = None  # output equal to eager's within the dtype's tolerance
    max_abs_diff: float | None = None  # against eager's output


@dataclass
class Remedy(Record):
    """One way to cut compile time, tried on fresh processes.

    Its timing verdict rests on alternated rounds, each a baseline cold run and a remedy
    run: *verified* with a median cut of at least 10 % beyond the spread of the rounds and
    outputs equal to eager's; *did not help* when the rounds rule such a cut out (or the
    outputs differ); *inconclusive* when the rounds or the budget ended first.
    """

    # added after v1: a record saved before lacks them
    OPTIONAL_KEYS = frozenset({"rounds_before_s", "rounds_after_s", "cut", "cut_low",
                               "cut_high"})

    kind: RemedyKind
    change: str  # the code a user would write
    # verified | did not help | inconclusive | does not apply | failed | not reproducible |
    # not tried
    status: str
    verified: bool = False  # a measured cut in cold or restart time, with the same outputs
    cold_s: float | None = None  # first call with empty caches, after (median of rounds)
    restart_s: float | None = None  # first call after a restart, after (median of rounds)
    steady_ratio: float | None = None  # steady-state time after / before
    same_result: bool | None = None  # outputs equal to eager's within the dtype's tolerance
    max_abs_diff: float | None = None  # against eager's output
    note: str = ""  # the numbers in words, or torch's words for why it does not apply
    # The baseline's first call in each alternated round (cold, with empty caches)
    rounds_before_s: list[float] = field(default_factory=list)
    # The remedy's first call in the same rounds (cold, or after a restart), paired
    rounds_after_s: list[float] = field(default_factory=list)
    cut: float | None = None  # median cut per round of the time it targets (0.3: 30 % less)
    # The interval of that cut the verdict rests on (with few rounds: their range)
    cut_low: float | None = None
    cut_high: float | None = None


@dataclass
class CompileTime(Record):
    """The result of ``compile_time()``: the cold and warm-restart first calls of fresh
    processes, where the seconds went, and each remedy tried.

    Plain data: ``nbcompile.compile_time`` returns the subclass with rich reprs.
    """

    name: str  # the function's ``__name__`` (or the module's class name)
    cold_s: float | None = None  # first call in a fresh process with empty caches
    warm_restart_s: float | None = None  # first call in a fresh process with a warm cache
    steady_s: float | None = None  # steady-state run time of the compiled call
    where: Where = field(default_factory=Where)  # the split of the cold compile
    remedies: list[Remedy] = field(default_factory=list)  # one per kind, in order
    runs: list[FreshRun] = field(default_factory=list)  # every child process, in order
    # This kernel's compiles of the call's code (heard since ``%load_ext``): each cache
    # layer's outcome and what differed in the key from the frame's previous compile
    kernel_compiles: list[FrameTime] = field(default_factory=list)
    how: str = ""  # how the call was carried into the fresh processes
    reproducible: bool = True  # the fresh processes could rebuild the call
    budget_s: float = 0.0  # the wall-time budget (0: none)
    elapsed_s: float = 0.0  # wall time of the whole measurement
    inputs: list[str] = field(default_factory=list)  # e.g. ``Tensor[2, 16] float32 cpu``
    environment: dict[str, str] = field(default_factory=dict)  # torch, python, machine
    created_at: str = ""  # ISO 8601, UTC
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False  # stopped by Ctrl-C: what was measured until then
    truncated: bool = False  # texts or frames cut to the output budget when published
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["compile_time"] = "compile_time"

    def remedy(self, kind: str) -> Remedy | None:
        """The remedy of ``kind`` (``regional``...), if tried or judged."""
        return next((r for r in self.remedies if r.kind == kind), None)
