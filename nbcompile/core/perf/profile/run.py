"""``profile()``: run a fresh compiled copy and the eager call, measured, and build the
record of where the time (and memory) goes, per generated kernel and per source line.

``profile(fn, *args, repeat=N)`` compiles a *fresh copy* of ``fn`` (the user's own
compiled target and its Dynamo caches stay untouched) with Inductor's kernel profiling on
(``cpp.enable_kernel_profile``: it changes the generated C++, so it is set, scoped, for
this copy's compile only), warms it up, then runs it ``repeat`` times under
``torch.profiler`` (its events are read in ``kernel_events.py``, the record built in
``build.py``). With ``memory``, one more compiled call and one eager call are
measured by ``memory.measure_call``, each from the sandbox's starting state, as
``compare``'s rows are. The same call then runs eagerly: its time per source line is
measured with a line tracer limited to the target's own code object
(``line_tracer.py``), inclusive of what the line calls.

Per call, the time splits into kernels (``sum(k.total_s) / repeat``), ``overhead_s``
(Dynamo/AOTAutograd machinery, torch.compile's Python wrapper, the generated wrapper's
launches and allocations, glue bytecode around the graphs), ``outside_graphs_s`` (Python
and eager ops between one graph and the next: what graph breaks cost) and
``unaccounted_s`` (the rest of the wall time measured around each call: the profiler's
own bookkeeping). The profile says when that rest exceeds 10 %.
"""

from __future__ import annotations

import time
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from ... import torch_compat
from ...frames import Span
from ...notebook.capture.session import CaptureSession
from ...notebook.targets.options import CompileOptions
from ...notebook.targets.target_state import Target
from ...runs.copies import fresh_copy
from ...runs.sandbox import Sandbox
from ...runs.wrappers import eager_callable, unwrap
from ...steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from ...trace import listener
from ...trace.listener import TraceListener, suppressed
from ..call_options import check_flag, check_repeat
from ..environment import device_of
from ..kernel_events import CALL_MARK, EAGER_MARK, LINE_MARK
from ..line_tracer import LineRanges, line_times
from ..memory.call import CallMemory, QuietProfile, measure_call
from ..memory.profiled import fill_memory
from .build import build
from .record import Profile

WARMUP_CALLS = 3
DEFAULT_REPEAT = 20


#: Inductor settings for the profiled copy's compile (scoped by ``config.patch``). Caches
#: are off: a cached graph replays the kernel provenance (file and line numbers) of the
#: compile that filled the cache, which is stale once a cell is re-run or edited.
_COMPILE_CONFIG = {"cpp.enable_kernel_profile": True, "force_disable_caches": True}


class ProfileError(ValueError):
    """Bad input to ``profile``; the message says what is allowed."""


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
    if (sync := _device_sync(args, kwargs)) is not None:
        sync()


def _device_sync(args: tuple, kwargs: dict) -> Callable[[], None] | None:
    """``torch.cuda.synchronize`` when an input is on a CUDA device, else None."""
    if torch.cuda.is_available() and any(
        isinstance(v, torch.Tensor) and v.is_cuda for v in (*args, *kwargs.values())
    ):
        return torch.cuda.synchronize
    return None


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
    repeat, memory = check_repeat(repeat), check_flag(memory, "memory")
    if not callable(fn):
        raise ProfileError(f"profile needs a function or module, not a {type(fn).__name__}")
    box = Sandbox(fn, args, kwargs)
    started = time.perf_counter()
    state = _State(getattr(fn, "__name__", None) or type(fn).__name__, repeat)
    try:
        with ctrl_c_watched():
            return _profile(fn, box.args, box.kwargs, repeat, memory, box.held_storages(),
                            progress, state, box.reset)
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
             state: _State | None = None, reset: Callable[[], None] | None = None) -> Profile:
    """The steps of ``profile``; ``reset`` puts the calls' state back to the start before
    each memory call (both sides measured from the same state, as ``compare``'s rows)."""
    name = getattr(fn, "__name__", None) or type(fn).__name__
    state = state if state is not None else _State(name, repeat)
    device = device_of(args, kwargs)
    mem: CallMemory | None = None
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
    listener = _CopyListener(session.on_event)
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
            state.build = lambda: build(name, target, code, prof, walls, [], {}, 0.0, repeat,
                                        len(target.compiles) - before, None, device)
            if memory:
                step("measuring the memory of a compiled call")
                mem = measure_call(compiled, args, kwargs, device, held, reset=reset,
                                   mark=CALL_MARK, profiled=True)
            recompiles = len(target.compiles) - before
    finally:
        session.stop()
    eager = eager_callable(fn)
    step(f"timing {repeat} eager calls and their lines")
    eager(*args, **kwargs)  # warm-up: the first eager call pays one-off costs (lazy inits)
    _sync(args, kwargs)
    eager_walls = [_timed(eager, args, kwargs) for _ in range(repeat)]
    lines, eager_traced = line_times(lambda: _synced(eager, args, kwargs), code, repeat,
                                     _device_sync(args, kwargs))
    result = state.result = build(name, target, code, prof, walls, eager_walls, lines,
                                  eager_traced, repeat, recompiles, mem, device)
    if memory and mem is not None:
        step("measuring the memory of an eager call")
        # each executed line of ``code`` in a ``record_function`` range ``nbcompile.line:N``
        eager_mem = measure_call(eager, args, kwargs, device, held, reset=reset,
                                 mark=EAGER_MARK, inside=lambda: LineRanges(code, LINE_MARK),
                                 profiled=True)
        fill_memory(result, device, mem, eager_mem)
    return result


def _synced(call: Callable[..., Any], args: tuple, kwargs: dict) -> None:
    """One call, then its device synchronised (the line tracer times these)."""
    call(*args, **kwargs)
    _sync(args, kwargs)


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
