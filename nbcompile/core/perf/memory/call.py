"""Memory of one call: peak and allocated tensor bytes, bytes kept for backward, a timeline.

Definitions (the same for every row of ``compare`` and for ``profile``, all measured by
``measure_call``, each call from the same starting state: the user's inputs, parameters,
buffers, gradients, optimizer state and RNG as a ``Sandbox`` resets them):

* ``peak_bytes``: the peak of tensor bytes in use during one call, above what was in use
  just before it (the call's output counts: it is in use when the call returns);
* ``allocated_bytes``: bytes the allocator handed out during the call (a buffer freed and
  allocated again counts twice);
* ``saved_bytes``: bytes of the tensors the forward saved for backward that the call
  created itself (activations); parameters, buffers and inputs it saved are held anyway
  and are counted apart (``saved_held_bytes``). Counted with
  ``torch.autograd.graph.saved_tensors_hooks`` (unique storages), which sees eager
  autograd and AOTAutograd's compiled forward alike: what the compiled forward saves is
  what its partitioner chose to keep (the rest it recomputes in backward).

How: on the CPU, ``torch.profiler.profile(profile_memory=True)`` records every
allocation and free of the CPU allocator with its time; the peak is the running maximum
of their signed sum (the profiler's own event list, in time order). On CUDA, the caching
allocator's statistics around one call: ``max_memory_allocated`` (a new high is the
call's peak; the user's peak statistics are never reset, so under the peak so far the
profiler's memory events say it) and the ``allocated_bytes.all.allocated`` counter; in
``profile`` the same profiler timeline as on the CPU, for the CUDA device.

The profiler is started for the measured call only and stopped after it (nothing stays
on to slow the timed calls); its start/stop banner, which libkineto writes straight to
the process's stderr, is kept out of the notebook. Nothing here changes the user's
objects: callers run the calls on a ``Sandbox``'s copies.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from ...records import Record
from ...units import format_bytes
from ..intervals import Interval, span

#: Most points a published timeline keeps (the peak and the end are always kept).
MAX_POINTS = 60
#: Device types the profiler reports for CPU memory (as torch's own ``profiler.py``).
_CPU_TYPES = ("CPU", "MKLDNN", "IDEEP")
MEMORY_EVENT = "[memory]"
#: The ``record_function`` range a measured call runs in (its window on the profiler's clock).
MEASURED_MARK = "nbcompile.measured_call"


@dataclass
class MemoryPoint(Record):
    """Bytes in use at one moment of one call (a step of the memory timeline)."""

    t_s: float  # seconds since the call started
    bytes: int  # tensor bytes in use, above those in use just before the call
    what: str = ""  # what allocated or freed at this point: a kernel, an op, ``line N``


@dataclass
class ProfileMemory(Record):
    """Where the memory of one call goes, compiled and eager (``Profile.memory``).

    Peaks and allocated bytes follow the definitions of ``core/perf/memory.py``: one call,
    above the bytes in use before it. Bytes per kernel are on ``Profile.kernels``
    (``allocated_bytes``), bytes per line on ``Profile.lines``.
    """

    device: str  # ``cpu`` or ``cuda:0``
    peak_bytes: int | None = None  # compiled: peak tensor bytes in use during one call
    eager_peak_bytes: int | None = None  # the same call run eagerly
    allocated_bytes: int | None = None  # compiled: bytes allocated during one call
    eager_allocated_bytes: int | None = None  # eager: bytes allocated during one call
    # compiled: bytes allocated outside any graph (eager ops and Python between graphs)
    outside_graphs_allocated_bytes: int = 0
    # compiled: bytes allocated by kernels not tied to a line of the target
    untied_allocated_bytes: int = 0
    # eager: bytes allocated outside the target's own lines (module call machinery ...)
    eager_untied_allocated_bytes: int = 0
    # activations the forward saved for backward (null: nothing was saved)
    saved_bytes: int | None = None
    eager_saved_bytes: int | None = None  # the same, eager
    # bytes in use between two graphs: intermediates a graph break keeps alive (largest)
    across_breaks_bytes: int = 0
    timeline: list[MemoryPoint] = field(default_factory=list)  # compiled, one call
    eager_timeline: list[MemoryPoint] = field(default_factory=list)  # eager, one call
    note: str = ""  # how it was measured
    notes: list[str] = field(default_factory=list)  # what could not be measured or tied


@dataclass(frozen=True)
class MemEvent:
    """One allocation (``nbytes > 0``) or free (``< 0``) on the profiler's clock (us,
    the time base of ``prof.profiler.function_events``)."""

    t_us: float
    nbytes: int


@dataclass
class CallMemory:
    """The memory of one measured call (plain data, not a record)."""

    peak_bytes: int | None = None
    allocated_bytes: int | None = None
    end_bytes: int | None = None  # still in use when the call returned (its output ...)
    saved_bytes: int | None = None
    saved_held_bytes: int | None = None
    allocations: int = 0
    note: str = ""
    profile: Any = None  # the profiler that watched the call (for attributions), if any


# --- the profiler, quietly -----------------------------------------------------------------


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null inside the block (libkineto prints its
    ``USDT: ... profiler_start`` banner there, below Python's ``sys.stderr``)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class QuietProfile:
    """``torch.profiler.profile`` whose start and stop write nothing to the notebook."""

    def __init__(self, device: torch.device, memory: bool = True,
                 cuda: bool | None = None) -> None:
        from torch.profiler import ProfilerActivity, profile

        activities = [ProfilerActivity.CPU]
        if device.type == "cuda" if cuda is None else cuda:
            activities.append(ProfilerActivity.CUDA)
        self.prof = profile(activities=activities, profile_memory=memory)

    def __enter__(self) -> Any:
        with _stderr_silenced():
            self.prof.__enter__()
        return self.prof

    def __exit__(self, *exc: Any) -> None:
        with _stderr_silenced():
            self.prof.__exit__(*exc)


def memory_events(prof: Any, device: torch.device) -> list[MemEvent] | None:
    """The allocations and frees the profiler recorded on ``device``, in time order;
    None when this torch's profiler does not expose them."""
    results = getattr(getattr(prof, "profiler", None), "kineto_results", None)
    if results is None:
        return None
    try:
        start = results.trace_start_ns()
        wanted = _CPU_TYPES if device.type == "cpu" else (device.type.upper(),)
        events = []
        for e in results.events():
            if e.name() != MEMORY_EVENT:
                continue
            kind = str(e.device_type()).rsplit(".", 1)[-1]
            if kind not in wanted:
                continue
            if device.type == "cuda" and device.index is not None \
                    and e.device_index() != device.index:
                continue
            events.append(MemEvent((e.start_ns() - start) / 1000.0, int(e.nbytes())))
    except (AttributeError, TypeError, RuntimeError):
        return None
    events.sort(key=lambda m: m.t_us)
    return events


def window(events: Iterable[MemEvent], lo_us: float, hi_us: float) -> list[MemEvent]:
    return [m for m in events if lo_us <= m.t_us <= hi_us]


def peak_of(events: Iterable[MemEvent]) -> tuple[int, int, int, int]:
    """``(peak, allocated, end, allocations)`` of a window: the running maximum of the
    signed sum (never below 0: frees of tensors from before the call lower the level, the
    peak is measured above the level at the start), bytes allocated, the level at the
    end, and the number of allocations."""
    level = peak = allocated = count = 0
    for m in events:
        level += m.nbytes
        peak = max(peak, level)
        if m.nbytes > 0:
            allocated += m.nbytes
            count += 1
    return peak, allocated, level, count


def timeline(events: list[MemEvent], lo_us: float, label: Callable[[MemEvent], str],
             max_points: int = MAX_POINTS) -> list[MemoryPoint]:
    """The bytes in use after each event, as points; at most ``max_points`` (the peak, the
    first and the last point always kept, the rest evenly thinned)."""
    points: list[MemoryPoint] = [MemoryPoint(0.0, 0, "start")]
    level = 0
    for m in events:
        level += m.nbytes
        points.append(MemoryPoint(round((m.t_us - lo_us) / 1e6, 9), level, label(m)))
    if len(points) <= max_points:
        return points
    peak = max(range(len(points)), key=lambda i: points[i].bytes)
    keep = {0, len(points) - 1, peak}
    step = (len(points) - 1) / (max_points - len(keep))
    keep.update(round(i * step) for i in range(max_points - len(keep)))
    return [points[i] for i in sorted(keep)][:max_points]


# --- saved for backward ----------------------------------------------------------------------


class SavedTensors:
    """Counts the storages a forward saves for backward (``saved_tensors_hooks``): bytes
    of storages created by the call (``bytes``) and of those held before it (``held``:
    parameters, buffers, inputs), each storage once."""

    def __init__(self, held: set[int]) -> None:
        self._held = held
        self._seen: dict[int, tuple[int, bool]] = {}
        self._hooks: Any = None

    def _pack(self, t: torch.Tensor) -> torch.Tensor:
        try:
            storage = t.untyped_storage()
            ptr = storage.data_ptr()
            if ptr and ptr not in self._seen:
                self._seen[ptr] = (storage.nbytes(), ptr in self._held)
        except (RuntimeError, NotImplementedError):  # a tensor without storage
            pass
        return t

    def __enter__(self) -> SavedTensors:
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, _unpack)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._hooks.__exit__(*exc)

    @property
    def any(self) -> bool:
        return bool(self._seen)

    @property
    def bytes(self) -> int:
        return sum(n for n, held in self._seen.values() if not held)

    @property
    def held(self) -> int:
        return sum(n for n, held in self._seen.values() if held)


def _unpack(t: torch.Tensor) -> torch.Tensor:
    return t


# --- one call ---------------------------------------------------------------------------------


def measure_call(call: Callable[..., Any], args: tuple, kwargs: dict, device: torch.device,
                 held: set[int] | None = None, *, reset: Callable[[], None] | None = None,
                 mark: str = MEASURED_MARK,
                 inside: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
                 profiled: bool = False) -> CallMemory:
    """Peak, allocated and saved-for-backward bytes of one call ``call(*args, **kwargs)``:
    the one measurement behind every row of ``compare`` and both sides of ``profile``.

    ``reset`` puts everything the call depends on back to one starting point first (a
    ``Sandbox``'s ``reset``: inputs, parameters, buffers, gradients, optimizer state, RNG),
    so every measured call starts from the same state: without it a call would be measured
    after whatever ran before it (a training step after another one's gradients, which its
    ``zero_grad`` frees in its favour). On the CPU the reset runs inside the profiler's
    session, before the measured range: the CPU profiler reports the free of a block only
    when it saw the block allocated, so the call's frees of what the reset put back (the
    old gradients ``zero_grad`` drops) are counted, whatever ran before.
    ``held``: storages in use before the call that a forward may save (parameters,
    buffers, inputs): counted apart from the activations it saves. ``mark``: the
    ``record_function`` range around the call (its window on the profiler's clock);
    ``inside``: a context entered around the call within that range (a line tracer).
    ``profiled``: on CUDA, run the profiler too (the caching allocator's statistics give
    the numbers either way); ``CallMemory.profile`` holds the profiler for attributions.
    """
    saved = SavedTensors(held or set())
    if device.type == "cuda":
        result = _cuda_call(call, args, kwargs, device, saved, reset, mark, inside, profiled)
    else:
        result = _profiled_call(call, args, kwargs, device, saved, reset, mark, inside)
    if saved.any:
        result.saved_bytes, result.saved_held_bytes = saved.bytes, saved.held
    return result


def _start_from(reset: Callable[[], None] | None, device: torch.device) -> None:
    """The starting state: ``reset``, unreachable objects collected, the device idle. The
    reset frees blocks allocated before the profiler started: torch logs a warning for
    those on the process's stderr, kept out of the notebook."""
    if reset is not None:
        with _stderr_silenced():
            reset()
    gc.collect()
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _around(call: Callable[..., Any], args: tuple, kwargs: dict, device: torch.device,
            saved: SavedTensors, mark: str | None,
            inside: Callable[[], contextlib.AbstractContextManager[Any]] | None) -> Any:
    """The measured call, in its ``mark`` range, with the saved-tensor hooks on."""
    from torch.profiler import record_function

    ranged = record_function(mark) if mark is not None else contextlib.nullcontext()
    with ranged, saved, inside() if inside is not None else contextlib.nullcontext():
        out = call(*args, **kwargs)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    return out


def _profiled_call(call: Callable[..., Any], args: tuple, kwargs: dict,
                   device: torch.device, saved: SavedTensors,
                   reset: Callable[[], None] | None, mark: str,
                   inside: Callable[[], contextlib.AbstractContextManager[Any]] | None,
                   ) -> CallMemory:
    quiet = QuietProfile(device)
    with quiet as prof:
        _start_from(reset, device)
        out = _around(call, args, kwargs, device, saved, mark, inside)
    del out  # freed after the profiler stopped: the output counts as in use at the end
    events = memory_events(prof, device)
    bounds = mark_window(prof, mark)
    if events is None or bounds is None:
        return CallMemory(profile=prof, note="not measured: this torch's profiler does not "
                                              "expose its memory events")
    peak, allocated, end, count = peak_of(window(events, *bounds))
    return CallMemory(peak, allocated, end, allocations=count, profile=prof, note=(
        f"torch.profiler(profile_memory=True) over one call: {count} CPU allocations; "
        "peak of the bytes in use above those in use before the call, output included; "
        "every call from the same starting state"))


def call_peak(before_peak: int, after_peak: int, base: int,
              events_peak: int | None) -> int | None:
    """A call's peak above the ``base`` bytes allocated before it, with the user's peak
    statistics left as they were (no ``reset_peak_memory_stats``): when the call set a new
    high (``max_memory_allocated`` after above before) the statistics say it; else the
    profiler's memory events over the call (``events_peak``), when it ran; else None."""
    if after_peak > before_peak:
        return after_peak - base
    return events_peak


def _cuda_call(call: Callable[..., Any], args: tuple, kwargs: dict, device: torch.device,
               saved: SavedTensors, reset: Callable[[], None] | None, mark: str,
               inside: Callable[[], contextlib.AbstractContextManager[Any]] | None,
               profiled: bool) -> CallMemory:
    # the user's peak statistics are theirs: never reset. When the peak so far is above
    # what is allocated now, the call's own peak may stay under it: the profiler watches
    # too, and its memory events say the call's peak
    need_events = (int(torch.cuda.max_memory_allocated(device))
                   > int(torch.cuda.memory_allocated(device)))
    watched = profiled or need_events
    quiet = QuietProfile(device) if watched else contextlib.nullcontext()
    with quiet as prof:
        _start_from(reset, device)
        before_peak = int(torch.cuda.max_memory_allocated(device))
        base = torch.cuda.memory_allocated(device)
        stats = torch.cuda.memory_stats(device)
        allocated0 = int(stats.get("allocated_bytes.all.allocated", 0))
        count0 = int(stats.get("allocation.all.allocated", 0))
        out = _around(call, args, kwargs, device, saved, mark if watched else None, inside)
        stats = torch.cuda.memory_stats(device)
        after_peak = int(torch.cuda.max_memory_allocated(device))
        end = int(torch.cuda.memory_allocated(device)) - base
    del out
    events_peak = None
    if watched and after_peak <= before_peak:
        events = memory_events(prof, device)
        bounds = mark_window(prof, mark)
        if events is not None and bounds is not None:
            events_peak = peak_of(window(events, *bounds))[0]
    peak = call_peak(before_peak, after_peak, base, events_peak)
    how = ("max_memory_allocated: the call set a new high" if after_peak > before_peak
           else "torch.profiler's memory events over the call: it stayed under the peak "
           "so far" if peak is not None else "not known: the call stayed under the peak so "
           "far and the profiler's memory events were not readable")
    count = int(stats.get("allocation.all.allocated", 0)) - count0
    return CallMemory(
        peak, int(stats.get("allocated_bytes.all.allocated", 0)) - allocated0, end,
        allocations=count, profile=prof if profiled else None,
        note=(f"CUDA caching allocator over one call ({how}; torch's peak statistics left "
              f"as they were): peak above the {base} bytes allocated before it, "
              f"{count} allocations; every call from the same starting state"))


def mark_window(prof: Any, mark: str) -> Interval | None:
    """The span (us, the profiler's clock) of the first range named ``mark``; None when
    the profiler did not log it."""
    event = next((e for e in prof.events() if e.name == mark), None)
    return span(event) if event is not None else None


# --- held between calls (CUDA graph pools) --------------------------------------------------


def allocated_now(device: torch.device) -> int | None:
    """Bytes the CUDA caching allocator holds for tensors now (None off CUDA)."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    return int(torch.cuda.memory_allocated(device))


# --- the memory verdict -----------------------------------------------------------------------


def peak_ratio(peak: int | None, eager_peak: int | None) -> float | None:
    if peak is None or eager_peak is None or eager_peak <= 0:
        return None
    return peak / eager_peak


def memory_verdict(peak: int | None, eager_peak: int | None) -> str:
    """``0.25x eager's peak``, said beside the time verdict."""
    if peak is None or eager_peak is None:
        return ""
    ratio = peak_ratio(peak, eager_peak)
    if ratio is not None:
        return f"{ratio:.2f}x eager's peak"
    if peak == eager_peak:
        return "same peak as eager (0 B)"
    return f"+{format_bytes(peak)} over eager's 0 B peak"

