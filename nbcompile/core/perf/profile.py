"""Where the time goes: measured time per generated kernel and per source line.

``profile(fn, *args, repeat=N)`` compiles a *fresh copy* of ``fn`` (the user's own
compiled target and its Dynamo caches stay untouched) with Inductor's kernel profiling on
(``cpp.enable_kernel_profile``: it changes the generated C++, so it is set, scoped, for
this copy's compile only), warms it up, then runs it ``repeat`` times under
``torch.profiler``. Each C++ kernel shows there as ``graph_<N>_<kernel name>`` and each
extern call as its aten op, inside ``## Call CompiledFxGraph <key> ##`` (torch < 2.9 logs no
such event: the launches sit directly in the compiled region); Dynamo's own costs
show as "TorchDynamo Cache Lookup", "Pregraph bytecode", "AOTDispatcher Runtime Wrapper
Prologue" and the like. Kernels are tied to source lines by the provenance links the
capture engine records for the copy's compiles (``Kernel.lines``).

The same call then runs eagerly: its time per source line is measured with a line tracer
limited to the target's own code object (like line_profiler), inclusive of what the line
calls.

Per call, the time splits into kernels (``sum(k.total_s) / repeat``), ``overhead_s``
(Dynamo/AOTAutograd machinery, torch.compile's Python wrapper, the generated wrapper's
launches and allocations, glue bytecode around the graphs), ``outside_graphs_s`` (Python
and eager ops between one graph and the next: what graph breaks cost) and
``unaccounted_s`` (the rest of the wall time measured around each call: the profiler's
own bookkeeping). The profile says when that rest exceeds 10 %.
"""

from __future__ import annotations

import inspect
import re
import sys
import time
import types
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..frames import Span
from ..notebook.options import CompileOptions
from ..notebook.session import CaptureSession
from ..notebook.snapshot import target_record
from ..notebook.targets import Target, eager_callable, fresh_copy, unwrap
from ..records import SCHEMA_VERSION, GraphBreak, Kernel, Omission, Record
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from ..trace import listener
from ..trace.listener import TraceListener, suppressed
from .environment import device_of
from .memory import (
    ProfileMemory,
    QuietProfile,
    SavedTensors,
    memory_events,
    peak_of,
    timeline,
    window,
)
from .sandbox import Sandbox

WARMUP_CALLS = 3
DEFAULT_REPEAT = 20
#: Largest share of the wall time the breakdown may miss before the profile says so.
TOLERANCE = 0.10
#: Share of the eager wall time outside the target's lines from which the profile says so.
EAGER_UNATTRIBUTED = 0.25
CALL_MARK = "nbcompile.profile.call"
#: The eager call measured for memory, and one range per executed source line inside it.
EAGER_MARK = "nbcompile.profile.eager_call"
LINE_MARK = "nbcompile.line:"
_KERNEL_EVENT = re.compile(r"^graph_\d+_(?P<name>.+)$")
_GRAPH_CALL = "## Call CompiledFxGraph"
_REGION = "Torch-Compiled Region"
#: Events of Dynamo's and AOTAutograd's runtime machinery (guards, wrappers, autograd glue).
_MACHINERY = (
    "TorchDynamo Cache Lookup",
    "Pregraph bytecode",
    "AOTDispatcher Runtime Wrapper Prologue",
    "CompiledFunction",
    "autograd::engine::evaluate_function: CompiledFunctionBackward",
)


#: Inductor settings for the profiled copy's compile (scoped by ``config.patch``). Caches
#: are off: a cached graph replays the kernel provenance (file and line numbers) of the
#: compile that filled the cache, which is stale once a cell is re-run or edited.
_COMPILE_CONFIG = {"cpp.enable_kernel_profile": True, "force_disable_caches": True}


class ProfileError(ValueError):
    """Bad input to ``profile``; the message says what is allowed."""


@dataclass
class KernelTime(Record):
    """Measured time of one generated kernel or extern call, over all profiled calls.

    ``name`` is the kernel's name in the report (``cpp_fused_add_0``,
    ``extern_kernels.addmm``) or the profiler's event name when no captured kernel
    matches; ``lines`` are the source lines it was generated from (empty: not tied).
    """

    name: str  # as in the report's kernels, or the profiler event's name
    kind: str  # kernel | extern | other (allocations, views, unknown ops)
    calls: int = 0  # launches over all profiled calls
    total_s: float = 0.0  # time over all profiled calls
    mean_s: float = 0.0  # per launch
    share: float = 0.0  # of all kernel time
    compile_id: str = ""  # the copy's compile that generated it ("" if none matched)
    stage: str = ""  # inference | forward | backward
    event: str = ""  # the profiler event name
    lines: list[int] = field(default_factory=list)  # in ``Profile.filename``; empty: not tied
    # bytes allocated in one call for the buffers it writes (an allocation between two
    # launches of a graph goes to the next launch: Inductor allocates just before use)
    allocated_bytes: int = 0

    OPTIONAL_KEYS = frozenset({"allocated_bytes"})


@dataclass
class LineTime(Record):
    """One source line of the target: compiled and eager seconds per call."""

    lineno: int
    line: str  # the source text
    compiled_s: float = 0.0  # kernel time per call (a fused kernel split over its lines)
    eager_s: float = 0.0  # eager time per call, inclusive of what the line calls
    kernels: list[str] = field(default_factory=list)  # names of the kernels it fed
    # bytes its kernels allocated in one compiled call (a fused kernel's split evenly)
    compiled_allocated_bytes: int = 0
    eager_allocated_bytes: int = 0  # bytes allocated on this line in one eager call

    OPTIONAL_KEYS = frozenset({"compiled_allocated_bytes", "eager_allocated_bytes"})
    COMPUTED = {"speedup": (float | None, "eager over compiled time (null unless both)")}

    @property
    def speedup(self) -> float | None:
        """Eager time over compiled time of this line (None unless both were measured)."""
        if self.compiled_s > 0 and self.eager_s > 0:
            return self.eager_s / self.compiled_s
        return None

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["speedup"] = self.speedup
        return data


@dataclass
class Profile(Record):
    """The result of ``profile()``: kernels, source lines and the per-call time budget.

    Per call: ``wall_s`` (measured), ``kernel_s`` (= ``sum(k.total_s) / repeat``),
    ``outside_graphs_s``, ``overhead_s``, ``unaccounted_s``; ``eager_wall_s`` is the same
    call run eagerly. ``accounted`` says whether the parts are within 10 % of the wall time;
    ``notes`` say what is missing and how much, and what could not be tied to a line.
    ``nbcompile.profile`` returns ``nbcompile.api.Profile``, this class with rich reprs.
    """

    name: str  # the profiled function or module
    repeat: int  # profiled calls
    kernels: list[KernelTime] = field(default_factory=list)  # slowest first
    lines: list[LineTime] = field(default_factory=list)  # every line of the target's source
    filename: str = ""  # the source file of ``lines``
    wall_s: float = 0.0  # measured wall time per compiled call
    kernel_s: float = 0.0  # sum of ``kernels[].total_s`` / ``repeat``
    outside_graphs_s: float = 0.0  # per call: Python and eager ops between graphs
    overhead_s: float = 0.0  # per call: guards, torch.compile/AOT wrappers, launches, allocs
    unaccounted_s: float = 0.0  # per call: wall time around the profiled call window
    untied_s: float = 0.0  # kernel time per call not tied to any line of the target
    eager_wall_s: float = 0.0  # wall time per eager call
    eager_untied_s: float = 0.0  # eager time per call outside the target's own lines
    accounted: bool = True  # kernels + outside graphs + overhead within 10 % of the wall
    compiles: list[str] = field(default_factory=list)  # compile ids of the profiled copy
    recompiles_during_profile: int = 0
    notes: list[str] = field(default_factory=list)  # what is missing, what is not tied
    graph_breaks: list[GraphBreak] = field(default_factory=list)  # of the profiled copy
    # peak and allocated bytes of one call, compiled and eager (null: not measured)
    memory: ProfileMemory | None = None
    interrupted: bool = False  # Ctrl-C stopped it: what was measured (see notes[0])
    schema_version: int = SCHEMA_VERSION
    record: str = "profile"

    OPTIONAL_KEYS = frozenset({"graph_breaks", "truncated", "omitted", "memory",
                               "interrupted"})
    COMPUTED = {
        "truncated": (bool, "set when published with some kernels or lines left out"),
        "omitted": (list[Omission], "kernels or lines left out of a published output to "
                                    "keep it within its byte budget (`how` gets them)"),
    }

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["lines"] = [ln.to_dict() for ln in self.lines]  # with their speedup
        return data

    def __repr__(self) -> str:
        return (f"<Profile {self.name}: {self.repeat} call(s), wall {self.wall_s * 1e3:.3f} ms"
                f"/call, kernels {self.kernel_s * 1e3:.3f} ms, {len(self.kernels)} row(s)>")


# --- running -----------------------------------------------------------------------------


class _CopyListener(TraceListener):
    """Hears the copy's compile events although the user's session is suppressed.

    torch interns each filename once per process, so the strings interned before this
    listener existed are read from torch's own table.
    """

    def install(self) -> None:
        for text, index in list(torch_compat.intern_table().items()):
            self.strings.add({"str": [text, index]})
        super().install()

    def emit(self, record: Any) -> None:
        token = listener._suppressed.set(False)
        try:
            super().emit(record)
        finally:
            listener._suppressed.reset(token)


def _source_code(fn: Any) -> types.CodeType | None:
    """The code object whose lines the profile shows: the function, or ``forward``."""
    if isinstance(fn, torch.nn.Module):
        inner, _ = unwrap(fn)
        code = getattr(type(inner).forward, "__code__", None)
    else:
        code = getattr(eager_callable(fn), "__code__", None)
    return code if isinstance(code, types.CodeType) else None


def _copy_target(name: str, fn: Any, copy: Callable[..., Any],
                 code: types.CodeType | None) -> Target:
    spans = [Span.of(code)] if code is not None else []
    copy_code = getattr(copy, "__code__", None)
    entry = None
    if isinstance(copy_code, types.CodeType):
        if isinstance(fn, torch.nn.Module):
            entry = copy_code.co_filename
        else:
            spans.append(Span.of(copy_code))
    kind = "module" if isinstance(fn, torch.nn.Module) else "function"
    return Target(name=name, kind=kind, original=copy, bound=copy, options=CompileOptions(),
                  spans=spans, entry_filename=entry)


def _sync(args: tuple, kwargs: dict) -> None:
    if torch.cuda.is_available() and any(
        isinstance(v, torch.Tensor) and v.is_cuda for v in (*args, *kwargs.values())
    ):
        torch.cuda.synchronize()


def profile(fn: Any, *args: Any, repeat: int = DEFAULT_REPEAT, memory: bool = True,
            progress: Progress | None = None, **kwargs: Any) -> Profile:
    """Measure where the time (and memory) of ``fn(*args, **kwargs)`` goes, compiled
    and eagerly.

    ``fn`` is a function or module (compiled by ``%%compile`` or not); a fresh copy is
    compiled for the profile, warmed up (``WARMUP_CALLS`` calls, compile included), then
    called ``repeat`` times under ``torch.profiler``; the eager call runs ``repeat``
    times too. With ``memory``, one more compiled call and one more eager call run under
    ``torch.profiler(profile_memory=True)`` (``Profile.memory``: peaks, bytes per kernel
    and per line, a timeline). The calls run on copies of the tensor inputs, and the
    parameters, buffers, gradients, optimizer state and RNG they change are put back
    afterwards (a training step's updates do not reach the user's model). ``progress``
    hears each step as it starts (``core/steps.py``). Ctrl-C stops it: the user's objects
    and torch's settings are put back and a ``ProfileInterrupted`` (a ``KeyboardInterrupt``)
    carries what was measured (``partial``, marked ``interrupted``).
    """
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ProfileError(f"repeat must be a whole number of calls >= 1, not {repeat!r}")
    if not callable(fn):
        raise ProfileError(f"profile needs a function or module, not a {type(fn).__name__}")
    box = Sandbox(fn, args, kwargs)
    started = time.perf_counter()
    state = _State(getattr(fn, "__name__", None) or type(fn).__name__, repeat)
    try:
        with ctrl_c_watched():
            return _profile(fn, box.args, box.kwargs, repeat, memory, box.held_storages(),
                            progress, state)
    except KeyboardInterrupt:
        ctrl_c_delivered()
        partial = state.partial(time.perf_counter() - started)
    finally:
        box.restore()
    raise ProfileInterrupted(partial)


class ProfileInterrupted(Interrupted):
    """Ctrl-C during ``profile()``: ``partial`` holds what was measured (``interrupted``)."""

    def __init__(self, partial: Profile) -> None:
        super().__init__("profile", partial)


@dataclass
class _State:
    """How far ``_profile`` got: the step it is in and what it measured so far."""

    name: str
    repeat: int
    where: str = "the start"
    build: Callable[[], Profile] | None = None  # the profile of the compiled calls alone
    result: Profile | None = None  # built, before the eager memory call

    def partial(self, elapsed_s: float) -> Profile:
        """The result of an interrupted profile, marked ``interrupted``, with a note."""
        result = self.result
        kept = "nothing was measured"
        if result is not None:
            result.memory = None  # the eager half of the memory was not measured
            kept = ("the compiled and eager times are kept; the memory was not measured "
                    "(p.memory is empty)")
        elif self.build is not None:
            result = self.build()
            kept = ("the compiled calls' kernels and time per call are kept; the eager "
                    "calls, their lines and the memory were not measured (no eager times)")
        if result is None:
            result = Profile(self.name, self.repeat)
        result.interrupted = True
        result.notes.insert(0, (
            f"interrupted (Ctrl-C) during {self.where} after {elapsed_s:.1f}s: {kept}. "
            "Your objects, torch's settings and RNG state are as before."))
        return result


def _profile(fn: Any, args: tuple, kwargs: dict, repeat: int, memory: bool,
             held: set[int], progress: Progress | None = None,
             state: _State | None = None) -> Profile:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    state = state if state is not None else _State(name, repeat)
    device = device_of(args, kwargs)
    mem_prof = mem_saved = None
    steps = iter(range(1, 6 if memory else 4))
    total = 5 if memory else 3

    def step(what: str) -> None:
        index = next(steps, 0)
        state.where = f"step {index} of {total} ({what})"
        tell(progress, "profile", what, index, total)
    code = _source_code(fn)
    copy = fresh_copy(fn)
    target = _copy_target(name, fn, copy, code)
    session = CaptureSession()
    listener = _CopyListener(session._on_event)
    listener.strings = session.listener.strings  # the table the session's builder reads
    session.listener = listener
    session.register(target)
    session.start()
    try:
        with torch_compat.inductor_patch(_COMPILE_CONFIG), suppressed(), \
                warnings.catch_warnings():
            warnings.filterwarnings("ignore", "dynamo_pgo force disabled")
            compiled = torch.compile(copy)
            step("compiling a copy and warming it up")
            for _ in range(WARMUP_CALLS):
                compiled(*args, **kwargs)
            _sync(args, kwargs)
            before = len(target.compiles)
            step(f"profiling {repeat} compiled calls")
            prof, walls = _profiled_calls(compiled, args, kwargs, repeat)
            state.build = lambda: _build(name, target, code, prof, walls, [], {}, 0.0, repeat,
                                         len(target.compiles) - before, None, device)
            if memory:
                step("measuring the memory of a compiled call")
                mem_saved = SavedTensors(held)
                mem_prof = _memory_call(compiled, args, kwargs, device, mem_saved)
            recompiles = len(target.compiles) - before
    finally:
        session.stop()
    eager = eager_callable(fn)
    step(f"timing {repeat} eager calls and their lines")
    eager(*args, **kwargs)  # warm-up: the first eager call pays one-off costs (lazy inits)
    _sync(args, kwargs)
    eager_walls = [_timed(eager, args, kwargs) for _ in range(repeat)]
    line_times, eager_traced = _eager_lines(eager, code, args, kwargs, repeat)
    result = state.result = _build(name, target, code, prof, walls, eager_walls, line_times,
                                   eager_traced, repeat, recompiles, mem_prof, device)
    if memory and mem_prof is not None and mem_saved is not None:
        step("measuring the memory of an eager call")
        eager_saved = SavedTensors(held)
        eager_prof = _eager_memory_call(eager, code, args, kwargs, device, eager_saved)
        _fill_memory(result, device, mem_saved, eager_prof, eager_saved)
    return result


def _memory_call(compiled: Callable[..., Any], args: tuple, kwargs: dict,
                 device: torch.device, saved: SavedTensors) -> Any:
    """One compiled call under ``profile_memory``, marked like the timed calls."""
    from torch.profiler import record_function

    with QuietProfile(device) as prof, saved:
        with record_function(CALL_MARK):
            out = compiled(*args, **kwargs)
            _sync(args, kwargs)
    del out
    return prof


def _eager_memory_call(eager: Callable[..., Any], code: types.CodeType | None, args: tuple,
                       kwargs: dict, device: torch.device, saved: SavedTensors) -> Any:
    """One eager call under ``profile_memory``, each executed line of ``code`` inside a
    ``record_function`` range named ``nbcompile.line:N`` (a tracer limited to ``code``)."""
    from torch.profiler import record_function

    open_ranges: dict[int, Any] = {}  # frame id -> the range of its current line

    def close(frame: types.FrameType) -> None:
        rng = open_ranges.pop(id(frame), None)
        if rng is not None:
            rng.__exit__(None, None, None)

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event in ("line", "return"):
            close(frame)
        if event == "line":
            rng = record_function(f"{LINE_MARK}{frame.f_lineno}")
            rng.__enter__()
            open_ranges[id(frame)] = rng
        return local

    def global_trace(frame: types.FrameType, event: str, arg: Any) -> Any:
        if code is not None and frame.f_code is code and event == "call":
            return local
        return None

    saved_trace = sys.gettrace()
    with QuietProfile(device) as prof, saved:
        with record_function(EAGER_MARK):
            sys.settrace(global_trace)
            try:
                out = eager(*args, **kwargs)
            finally:
                sys.settrace(saved_trace)
                for rng in open_ranges.values():
                    rng.__exit__(None, None, None)
                open_ranges.clear()
            _sync(args, kwargs)
    del out
    return prof


def _timed(call: Callable[..., Any], args: tuple, kwargs: dict) -> float:
    t0 = time.perf_counter()
    call(*args, **kwargs)
    _sync(args, kwargs)
    return time.perf_counter() - t0


def _profiled_calls(compiled: Callable[..., Any], args: tuple, kwargs: dict,
                    repeat: int) -> tuple[Any, list[float]]:
    from torch.profiler import record_function

    walls: list[float] = []
    with QuietProfile(device_of(args, kwargs), memory=False,
                      cuda=torch.cuda.is_available()) as prof:
        for _ in range(repeat):
            t0 = time.perf_counter()
            with record_function(CALL_MARK):
                compiled(*args, **kwargs)
                _sync(args, kwargs)
            walls.append(time.perf_counter() - t0)
    return prof, walls


def _eager_lines(eager: Callable[..., Any], code: types.CodeType | None, args: tuple,
                 kwargs: dict, repeat: int) -> tuple[dict[int, float], float]:
    """Inclusive seconds per line of ``code`` over ``repeat`` eager calls, and the total
    traced time (a line tracer limited to ``code``; other frames run untraced)."""
    totals: dict[int, float] = {}
    if code is None:
        return totals, 0.0
    state: dict[str, Any] = {"line": None, "t": 0.0}

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        now = time.perf_counter()
        if state["line"] is not None:
            totals[state["line"]] = totals.get(state["line"], 0.0) + now - state["t"]
        state["line"] = frame.f_lineno if event == "line" else None
        state["t"] = now
        return local

    def global_trace(frame: types.FrameType, event: str, arg: Any) -> Any:
        if frame.f_code is code and event == "call":
            return local
        return None

    saved = sys.gettrace()
    t0 = time.perf_counter()
    sys.settrace(global_trace)
    try:
        for _ in range(repeat):
            state["line"] = None
            eager(*args, **kwargs)
            _sync(args, kwargs)
    finally:
        sys.settrace(saved)
    return totals, time.perf_counter() - t0


# --- analysis ----------------------------------------------------------------------------


Interval = tuple[float, float]


def _union(intervals: Iterable[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _length(intervals: Iterable[Interval]) -> float:
    return sum(end - start for start, end in intervals)


def _clip(intervals: Iterable[Interval], lo: float, hi: float) -> list[Interval]:
    return [(max(s, lo), min(e, hi)) for s, e in intervals if min(e, hi) > max(s, lo)]


def _minus(a: list[Interval], b: list[Interval]) -> list[Interval]:
    """Parts of the merged intervals ``a`` not covered by the merged intervals ``b``."""
    out: list[Interval] = []
    for start, end in a:
        cursor = start
        for bs, be in b:
            if be <= cursor or bs >= end:
                continue
            if bs > cursor:
                out.append((cursor, bs))
            cursor = max(cursor, be)
        if cursor < end:
            out.append((cursor, end))
    return out


def _span(event: Any) -> Interval:
    return (float(event.time_range.start), float(event.time_range.end))


@dataclass
class _Range:
    start: float
    end: float


@dataclass
class _LaunchGroup:
    """torch < 2.9 logs no ``## Call CompiledFxGraph`` event: the launches one compiled
    region (or autograd function) makes stand for its graph call."""

    name: str
    cpu_children: list[Any]
    time_range: _Range


#: Events whose direct children are a graph's launches when torch logs no graph call.
_CONTAINERS = (_REGION, "CompiledFunction",
               "autograd::engine::evaluate_function: CompiledFunctionBackward")


def _graph_calls(events: list[Any], extern_ops: set[str]) -> list[Any]:
    """The ``## Call CompiledFxGraph`` events; on a torch that logs none, each compiled
    region's launches: its children from the first kernel (or captured extern op) on, up
    to the first child that is neither (the eager code after a graph break, a nested
    region), spanning from the end of the machinery before them."""
    calls = [e for e in events if e.name.startswith(_GRAPH_CALL)]
    if calls:
        return calls
    groups: list[Any] = []
    for e in events:
        if not e.name.startswith(_CONTAINERS):
            continue
        launches: list[Any] = []
        lo = float(e.time_range.start)  # the wrapper allocates before its first launch
        for child in sorted(e.cpu_children, key=lambda c: c.time_range.start):
            if _KERNEL_EVENT.match(child.name) or _op_name(child.name) in extern_ops:
                launches.append(child)
            elif launches or not child.name.startswith(_MACHINERY):
                break
            else:
                lo = _span(child)[1]
        if launches:
            hi = max(_span(c)[1] for c in launches)
            groups.append(_LaunchGroup(f"{e.name} (launches)", launches, _Range(lo, hi)))
    return groups


def _op_name(name: str) -> str:
    """``extern_kernels.addmm`` / ``aten::addmm`` / ``torch.ops.aten.bmm.default`` -> op."""
    if "::" in name:
        return name.split("::", 1)[1].split(".")[0]
    parts = name.split(".")
    if "aten" in parts and parts.index("aten") + 1 < len(parts):
        return parts[parts.index("aten") + 1]
    return parts[1] if parts[0] == "extern_kernels" and len(parts) > 1 else parts[-1]


@dataclass
class _Rows:
    """Accumulates kernel rows, keyed by the captured kernel (or the event name)."""

    groups: dict[tuple[str, str], list[Kernel]]
    filename: str  # the target's source file: lines elsewhere are not the target's
    rows: dict[Any, KernelTime] = field(default_factory=dict)
    matches: dict[tuple[str, ...], tuple[str, str] | None] = field(default_factory=dict)

    def extern_ops(self) -> set[str]:
        """The ops of the captured extern kernels (``aten::mm`` shows as ``mm``)."""
        return {_op_name(k.name) for ks in self.groups.values() for k in ks
                if k.kind == "extern"}

    def group_for(self, graph_event: str, names: list[str]) -> tuple[str, str] | None:
        """The captured (compile, stage) whose kernels the graph call launched."""
        cache_key = (graph_event, *names)  # the graph key is "None" when caches are off
        if cache_key not in self.matches:
            best: tuple[str, str] | None = None
            for key, kernels in self.groups.items():
                mine = [k.name for k in kernels if k.kind == "kernel"]
                if all(n in mine for n in names):
                    if len(mine) == len(names):
                        best = key
                        break
                    best = best or key
            self.matches[cache_key] = best
        return self.matches[cache_key]

    def add(self, graph_event: Any) -> list[Interval]:
        """Add the launches of one ``## Call CompiledFxGraph`` event; their intervals."""
        spans: list[Interval] = []
        for event, row in self.match(graph_event):
            start, end = _span(event)
            row.calls += 1
            row.total_s += (end - start) / 1e6
            spans.append((start, end))
        return spans

    def match(self, graph_event: Any) -> list[tuple[Any, KernelTime]]:
        """The launches of one ``## Call CompiledFxGraph`` event with their rows (made
        when first seen), in launch order."""
        children = sorted(graph_event.cpu_children, key=lambda e: e.time_range.start)
        names = [k.group("name") for e in children if (k := _KERNEL_EVENT.match(e.name))]
        key = self.group_for(graph_event.name, names)
        kernels = self.groups.get(key, []) if key else []
        used: set[int] = set()
        found_rows: list[tuple[Any, KernelTime]] = []
        for event in children:
            m = _KERNEL_EVENT.match(event.name)
            wanted = m.group("name") if m else _op_name(event.name)
            kind = "kernel" if m else "extern"
            found = next((i for i, k in enumerate(kernels) if i not in used and k.kind == kind
                          and (k.name if m else _op_name(k.name)) == wanted), None)
            if found is not None:
                used.add(found)
                k = kernels[found]
                row_key: Any = (key, found)
                row = self.rows.get(row_key) or KernelTime(
                    name=k.name, kind=kind, compile_id=k.compile_id, stage=k.stage,
                    event=event.name, lines=sorted({ln.lineno for ln in k.lines
                                                    if ln.filename == self.filename}))
            else:
                row_key = ("", event.name)
                row = self.rows.get(row_key) or KernelTime(
                    name=m.group("name") if m else event.name,
                    kind="kernel" if m else "other", event=event.name)
            self.rows[row_key] = row
            found_rows.append((event, row))
        return found_rows


def _build(name: str, target: Target, code: types.CodeType | None, prof: Any,
           walls: list[float], eager_walls: list[float], eager_lines: dict[int, float],
           eager_traced_s: float, repeat: int, recompiles: int,
           mem_prof: Any = None, device: torch.device | None = None) -> Profile:
    record = target_record(target)
    groups: dict[tuple[str, str], list[Kernel]] = {}
    for k in record.kernels:
        if k.kind in ("kernel", "extern"):
            groups.setdefault((k.compile_id, k.stage), []).append(k)
    rows = _Rows(groups, code.co_filename if code is not None else "")
    events = list(prof.events())
    calls = sorted((e for e in events if e.name == CALL_MARK), key=lambda e: e.time_range.start)
    launches: list[Interval] = []
    machinery: list[Interval] = []
    regions: list[Interval] = []
    graphs: list[Interval] = []
    for g in _graph_calls(events, rows.extern_ops()):
        graphs.append(_span(g))
        launches += rows.add(g)
    for e in events:
        if e.name.startswith(_MACHINERY):
            machinery.append(_span(e))
        elif e.name.startswith(_REGION):
            regions.append(_span(e))
    covered = _union(machinery + graphs + launches)
    region_u = _union(regions)
    outside = overhead = 0.0
    for call in calls:
        lo, hi = _span(call)
        cov = _clip(covered, lo, hi)
        in_graphs = _clip(graphs, lo, hi)
        python = _minus(_clip(region_u, lo, hi), cov)  # bytecode of the compiled frames
        if in_graphs:
            first, last = min(s for s, _ in in_graphs), max(e for _, e in in_graphs)
            between = _clip(python, first, last)
        else:
            between = []
        outside += _length(between)
        overhead += _length(cov) - _length(_clip(_union(launches), lo, hi))
        overhead += _length(python) - _length(between)
        # The rest of the call window: torch.compile's Python wrapper around the frame
        # (eval-frame callback set-up and restore) before the first event and after the last.
        overhead += (hi - lo) - _length(_union(cov + _clip(region_u, lo, hi)))
    n = max(len(calls), 1)
    kernel_rows = sorted(rows.rows.values(), key=lambda r: -r.total_s)
    kernel_total = sum(r.total_s for r in kernel_rows)
    for r in kernel_rows:
        r.mean_s = r.total_s / r.calls if r.calls else 0.0
        r.share = r.total_s / kernel_total if kernel_total else 0.0
    wall = sum(walls) / len(walls)
    prof_out = Profile(
        name=name, repeat=repeat, kernels=kernel_rows, wall_s=wall,
        kernel_s=kernel_total / repeat, outside_graphs_s=outside / n / 1e6,
        overhead_s=overhead / n / 1e6,
        eager_wall_s=sum(eager_walls) / len(eager_walls) if eager_walls else 0.0,
        compiles=[c.compile_id for c in record.compiles],
        recompiles_during_profile=recompiles,
        graph_breaks=list(record.graph_breaks),
    )
    # What perf_counter saw around the profiled call window (record_function bookkeeping).
    prof_out.unaccounted_s = max(wall - prof_out.kernel_s - prof_out.outside_graphs_s
                                 - prof_out.overhead_s, 0.0)
    if mem_prof is not None:
        prof_out.memory = _compiled_memory(rows, mem_prof, device or torch.device("cpu"))
        prof_out.kernels = sorted(rows.rows.values(), key=lambda r: -r.total_s)
    _fill_lines(prof_out, code, eager_lines, eager_traced_s)
    _add_notes(prof_out, record)
    return prof_out


def _fill_lines(prof: Profile, code: types.CodeType | None, eager_lines: dict[int, float],
                eager_traced_s: float) -> None:
    if code is None:
        prof.notes.append("the target's source is not available: no per-line view")
        prof.untied_s = prof.kernel_s
        return
    prof.filename = code.co_filename
    try:
        source, first = inspect.getsourcelines(code)
    except (OSError, TypeError):
        source, first = [], code.co_firstlineno
    span = Span.of(code)
    rows = {first + i: LineTime(first + i, text.rstrip("\n")) for i, text in enumerate(source)}
    for lineno in range(span.first, span.last + 1):
        rows.setdefault(lineno, LineTime(lineno, ""))
    untied = 0.0
    untied_bytes = 0
    shared = False
    for k in prof.kernels:
        mine = [ln for ln in k.lines if ln in rows]  # lines of code.co_filename only
        per_call = k.total_s / prof.repeat
        if not mine:
            untied += per_call
            untied_bytes += k.allocated_bytes
            continue
        shared |= len(mine) > 1
        for i, ln in enumerate(mine):
            rows[ln].compiled_s += per_call / len(mine)
            # whole bytes, the remainder on the first line: the lines add up to the kernel
            share, rest = divmod(k.allocated_bytes, len(mine))
            rows[ln].compiled_allocated_bytes += share + (rest if i == 0 else 0)
            if k.name not in rows[ln].kernels:
                rows[ln].kernels.append(k.name)
    for ln, seconds in eager_lines.items():
        if ln in rows:
            rows[ln].eager_s += seconds / prof.repeat
    prof.lines = [rows[ln] for ln in sorted(rows)]
    prof.untied_s = untied
    if prof.memory is not None:
        prof.memory.untied_allocated_bytes = untied_bytes
    lines_s = sum(r.eager_s for r in prof.lines)
    prof.eager_untied_s = max(prof.eager_wall_s - lines_s, 0.0)
    if prof.eager_wall_s > 0 and prof.eager_untied_s > EAGER_UNATTRIBUTED * prof.eager_wall_s:
        prof.notes.append(
            f"eager: the target's lines add up to {lines_s * 1e3:.3f} ms of the "
            f"{prof.eager_wall_s * 1e3:.3f} ms eager wall time per call; the other "
            f"{prof.eager_untied_s * 1e3:.3f} ms "
            f"({prof.eager_untied_s / prof.eager_wall_s:.0%}) is unattributed: it ran "
            "outside the target's own lines (a module's call machinery and hooks, code "
            "before or after its frame) or varied between the untraced calls timed for "
            "the wall and the traced ones timed per line")
    if shared:
        prof.notes.append("a kernel fused from several lines has its time (and its "
                          "allocated bytes) split evenly between them")
    if eager_traced_s > prof.eager_wall_s * prof.repeat * 1.5:
        prof.notes.append("eager line times come from a line tracer and include its own "
                          f"cost ({eager_traced_s / prof.repeat * 1e3:.3f} ms per traced call "
                          f"vs {prof.eager_wall_s * 1e3:.3f} ms untraced)")


def _add_notes(prof: Profile, record: Any) -> None:
    ms = 1e3
    parts = prof.kernel_s + prof.outside_graphs_s + prof.overhead_s
    missing = prof.wall_s - parts
    prof.accounted = abs(missing) <= TOLERANCE * prof.wall_s
    if not prof.accounted:
        prof.notes.append(
            f"kernels + outside graphs + overhead = {parts * ms:.3f} ms of the "
            f"{prof.wall_s * ms:.3f} ms wall time per call: {missing * ms:.3f} ms "
            f"({missing / prof.wall_s:.0%}) is missing: the profiler's own bookkeeping "
            "around each call, outside its events (or other processes taking the CPU)"
        )
    if prof.untied_s > 0:
        names = sorted({k.name for k in prof.kernels if not any(
            ln.lineno in k.lines for ln in prof.lines)})
        prof.notes.append(
            f"{prof.untied_s * ms:.3f} ms per call of kernel time is not tied to a line of "
            f"the target: {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}"
        )
    if prof.recompiles_during_profile:
        prof.notes.append(f"{prof.recompiles_during_profile} compile(s) happened during the "
                          "profiled calls: their time is in the measurement")
    if not prof.kernels:
        prof.notes.append("no generated kernel ran (nothing compiled, or the graphs hold no "
                          "computation)")
    if record.graph_breaks:
        prof.notes.append(f"{len(record.graph_breaks)} graph break(s): their cost is in "
                          "outside_graphs_s")



# --- memory ------------------------------------------------------------------------------


def _call_window(events: list[Any], mark: str) -> Interval | None:
    call = next((e for e in events if e.name == mark), None)
    return _span(call) if call is not None else None


def _compiled_memory(rows: _Rows, prof: Any, device: torch.device) -> ProfileMemory:
    """The compiled call's allocations: each goes to the kernel or extern launch that
    contains it, else to the next one of the same graph call (Inductor's wrapper allocates
    a buffer just before the kernel that writes it); outside any graph call it counts as
    ``outside_graphs_allocated_bytes``."""
    memory = ProfileMemory(device=str(device))
    events = memory_events(prof, device)
    fevents = list(prof.events())
    span = _call_window(fevents, CALL_MARK)
    if events is None or span is None:
        memory.notes.append("memory not measured: this torch's profiler did not report "
                            "the call's allocations")
        return memory
    lo, hi = span
    mine = window(events, lo, hi)
    graphs = sorted((e for e in _graph_calls(fevents, rows.extern_ops())
                     if lo <= e.time_range.start <= hi), key=lambda e: e.time_range.start)
    launches: list[tuple[Interval, Interval, KernelTime]] = []  # (graph, launch, row)
    for g in graphs:
        for event, row in rows.match(g):
            if row.kind in ("kernel", "extern"):
                launches.append((_span(g), _span(event), row))
    labels: dict[int, str] = {}
    wrapper = 0
    for i, m in enumerate(mine):
        graph = next((g for g in map(_span, graphs) if g[0] <= m.t_us <= g[1]), None)
        if graph is None:
            labels[i] = "outside graphs"
            memory.outside_graphs_allocated_bytes += max(m.nbytes, 0)
            continue
        row = next((r for g, (_, end), r in launches if g == graph and end >= m.t_us), None)
        if row is None:
            labels[i] = "generated wrapper"
            wrapper += max(m.nbytes, 0)
            continue
        labels[i] = row.name
        if m.nbytes > 0:
            row.allocated_bytes += m.nbytes
    memory.peak_bytes, memory.allocated_bytes, _, count = peak_of(mine)
    index = {id(m): i for i, m in enumerate(mine)}
    memory.timeline = timeline(mine, lo, lambda m: labels.get(index[id(m)], ""))
    if len(graphs) > 1:
        ends = [_span(g)[1] for g in graphs[:-1]]
        memory.across_breaks_bytes = max(
            sum(m.nbytes for m in mine if m.t_us <= end) for end in ends)
    if wrapper:
        memory.notes.append(f"{wrapper} bytes were allocated by the generated wrapper after "
                            "its last kernel launch (not tied to a kernel)")
    memory.note = (f"torch.profiler(profile_memory=True) over one compiled call ({count} "
                   f"allocations) and one eager call; peaks above the bytes in use before "
                   "each call, output included")
    return memory


def _fill_memory(result: Profile, device: torch.device, saved: SavedTensors,
                 eager_prof: Any, eager_saved: SavedTensors) -> None:
    """The eager side of ``result.memory``: peak, bytes per line (the ``nbcompile.line:N``
    range containing each allocation, innermost first), timeline; saved bytes."""
    memory = result.memory
    if memory is None:
        return
    if saved.any:
        memory.saved_bytes = saved.bytes
    if eager_saved.any:
        memory.eager_saved_bytes = eager_saved.bytes
    events = memory_events(eager_prof, device)
    fevents = list(eager_prof.events())
    span = _call_window(fevents, EAGER_MARK)
    if events is None or span is None:
        memory.notes.append("eager memory not measured: the profiler did not report the "
                            "call's allocations")
        return
    lo, hi = span
    mine = window(events, lo, hi)
    ranges = sorted(((_span(e), int(e.name[len(LINE_MARK):])) for e in fevents
                     if e.name.startswith(LINE_MARK) and e.name[len(LINE_MARK):].isdigit()),
                    key=lambda r: r[0][1] - r[0][0])  # innermost (shortest) first
    by_line = {ln.lineno: ln for ln in result.lines}
    labels: list[str] = []
    for m in mine:
        lineno = next((n for (s, e), n in ranges if s <= m.t_us <= e), None)
        labels.append(f"line {lineno}" if lineno is not None else "outside the target's lines")
        if m.nbytes <= 0:
            continue
        if lineno is not None and lineno in by_line:
            by_line[lineno].eager_allocated_bytes += m.nbytes
        else:
            memory.eager_untied_allocated_bytes += m.nbytes
    memory.eager_peak_bytes, memory.eager_allocated_bytes, _, _ = peak_of(mine)
    index = {id(m): i for i, m in enumerate(mine)}
    memory.eager_timeline = timeline(mine, lo, lambda m: labels[index[id(m)]])
    if memory.eager_untied_allocated_bytes and result.lines:
        memory.notes.append(
            f"eager: {memory.eager_untied_allocated_bytes} bytes were allocated outside the "
            "target's own lines (module call machinery, hooks, callers)")
    if memory.untied_allocated_bytes:
        memory.notes.append(
            f"compiled: {memory.untied_allocated_bytes} bytes were allocated by kernels not "
            "tied to a line of the target")
