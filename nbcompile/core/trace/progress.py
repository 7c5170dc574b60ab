"""Where a running compile is: torch's live trace events -> ``CompileProgress``.

torch wraps each step of a compile in ``dynamo_timed``, which logs a ``chromium_event``
begin (``B``) and end (``E``) on the structured trace as the step starts and ends. The
innermost open step with a name below is the current one. The generated module
(``inductor_output_code``) names the kernels it compiles (``async_compile.cpp_pybinding(``,
``async_compile.triton(``...), and each C++ kernel a compile worker thread builds ends
with a ``compile_file`` event without a compile id, so kernels done of total are known
when torch compiles in worker threads (the CPU default with more than one compile
thread); kernels compiled in subprocess workers or inline log nothing that tells them
apart, and then only the total is known.

``ProgressTracker.feed`` is cheap (a dict lookup per event) and does nothing when nothing
compiles. A ``chromium_event`` is read from the value the builder's parser already made of
it (``Fed.parsed``: one decode per event); only events outside a compile (a worker
thread's ``compile_file``), which the builder does not parse, are decoded here.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from ..records import CompileProgress
from .builder import Fed
from .listener import TraceEvent
from .parsed import ChromiumEvent, Phase
from .parsers import parse

#: torch's ``dynamo_timed`` step names -> the step in words (innermost open one wins).
STEPS: dict[str, str] = {
    "bytecode_tracing": "tracing bytecode",
    "insert_deferred_runtime_asserts": "building the graph",
    "backend_compile": "compiling with the backend",
    "inductor_codecache_torch_key": "checking the compile cache",
    "CacheBase.get_system.triton_key": "checking the compile cache",
    "create_aot_dispatcher_function": "AOTAutograd",
    "aot_collect_metadata": "AOTAutograd",
    "aot_trace_joint_graph": "AOTAutograd",
    "_recursive_pre_grad_passes": "Inductor graph passes",
    "_recursive_joint_graph_passes": "Inductor graph passes",
    "_recursive_post_grad_passes": "Inductor graph passes",
    "inductor_compile": "Inductor lowering",
    "fx_codegen_and_compile": "Inductor lowering",
    "additional_fake_tensor_prop": "Inductor lowering",
    "GraphLowering.run": "Inductor lowering",
    "GraphLowering.compile_to_fn": "Inductor code generation",
    "code_gen": "Inductor code generation",
    "GraphLowering.codegen": "Inductor code generation",
    "Scheduler.__init__": "Inductor code generation",
    "Scheduler.codegen": "Inductor code generation",
    "PythonWrapperCodegen.generate": "Inductor code generation",
    "PyCodeCache.load_by_key_path": "loading the compiled code",
    "async_compile.wait": "compiling kernels",
    "AOTAutogradCache.inductor_load": "loading from the cache",
    "TritonBundler.read_and_emit": "loading from the cache",
    "build_guards": "building guards",
}
#: The step between named ones, after one of these ended (e.g. Dynamo's own work on the
#: graph after tracing, before the backend is called).
AFTER: dict[str, str] = {"bytecode_tracing": "building the graph",
                         "backend_compile": "building guards"}
FIRST_STEP = "tracing bytecode"
_KERNEL_CALL = re.compile(r"\basync_compile\.(cpp_pybinding|cpp|triton|halide)\(")
_KERNEL_FILE = "compile_file"
_LOADING = ("loading the compiled code", "compiling kernels")
#: Compiles followed at once (more are running only when compiles nest or leak).
MAX_OPEN = 32


class LiveProgress:
    """The progress of one frame compile, updated by the tracker, read by any thread."""

    def __init__(self, compile_id: str, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.compile_id = compile_id
        self.frame, self.filename, self.lineno = "", "", 0
        self.started = clock()
        self.step = FIRST_STEP
        self._step_since = self.started
        self._seconds: dict[str, float] = {}
        self._open: list[str] = []  # names of the open steps, outermost first
        self._between = FIRST_STEP
        self.kernels_total: int | None = None
        self.kernels_done: int | None = None
        self.kernel_language = ""
        self.finished = False
        self.version = 0  # bumped on every visible change (step, kernels, frame)

    def snapshot(self) -> CompileProgress:
        """The progress now, as a record."""
        with self._lock:
            now = self._clock()
            seconds = dict(self._seconds)
            seconds[self.step] = seconds.get(self.step, 0.0) + now - self._step_since
            return CompileProgress(
                compile_id=self.compile_id, frame=self.frame, filename=self.filename,
                lineno=self.lineno, phase=self.step, elapsed_s=round(now - self.started, 3),
                phase_seconds={k: round(v, 3) for k, v in seconds.items()
                               if v > 0 or k == self.step},
                kernels_total=self.kernels_total, kernels_done=self.kernels_done,
                kernel_language=self.kernel_language)

    # --- updates (the compiling thread) ---
    def _enter(self, step: str) -> None:
        if step == self.step:
            return
        now = self._clock()
        with self._lock:
            self._seconds[self.step] = self._seconds.get(self.step, 0.0) + now - self._step_since
            self.step, self._step_since = step, now
            self.version += 1

    def _current(self) -> str:
        for name in reversed(self._open):
            if name in STEPS:
                return STEPS[name]
        return self._between

    def begin(self, name: str) -> None:
        self._open.append(name)
        if name in STEPS:
            self._enter(STEPS[name])

    def end(self, name: str) -> None:
        if name in self._open:
            # drop the innermost open step of that name (and any left open inside it)
            index = len(self._open) - 1 - self._open[::-1].index(name)
            del self._open[index:]
        self._between = AFTER.get(name, self._between)
        self._enter(self._current())

    def located(self, frame: str, filename: str, lineno: int) -> None:
        with self._lock:
            self.frame, self.filename, self.lineno = frame, filename, lineno
            self.version += 1

    def code_generated(self, code: str) -> None:
        """The generated module: how many kernels it compiles, in which language."""
        kinds = _KERNEL_CALL.findall(code)
        if not kinds:
            return
        with self._lock:
            self.kernels_total = (self.kernels_total or 0) + len(kinds)
            self.kernel_language = "Triton" if "triton" in kinds else "C++"
            self.version += 1

    def kernel_compiled(self) -> None:
        if self.kernels_total is None:
            return
        with self._lock:
            self.kernels_done = min((self.kernels_done or 0) + 1, self.kernels_total)
            self.version += 1


class ProgressTracker:
    """Follows every running frame compile (keyed by ``(frame_id, frame_compile_id)``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 filename: Callable[[Any], str] = str) -> None:
        """``filename`` resolves the (interned) filenames of ``dynamo_start`` stacks."""
        self._clock = clock
        self._filename = filename
        self._live: OrderedDict[tuple[int, int], LiveProgress] = OrderedDict()
        self._closed: deque[tuple[int, int]] = deque(maxlen=MAX_OPEN)

    def get(self, key: tuple[int, int]) -> LiveProgress | None:
        return self._live.get(key)

    def _state(self, key: tuple[int, int], event: TraceEvent) -> LiveProgress | None:
        state = self._live.get(key)
        if state is None and key not in self._closed:
            cid = event.compile_id
            state = LiveProgress(str(cid.frame_compile) if cid else f"{key[0]}/{key[1]}",
                                 self._clock)
            self._live[key] = state
            while len(self._live) > MAX_OPEN:
                self._live.popitem(last=False)
        return state

    def feed(self, event: TraceEvent, fed: Fed | None = None) -> None:
        """Take one trace event (any kind; most are ignored at once). ``fed``: what the
        builder made of it (``CompileBuilder.feed``), so its payload is not decoded
        again; without it, or when the builder did not parse it (no compile id), a
        ``chromium_event`` is parsed here."""
        kind, key = event.kind, event.frame
        if kind == "chromium_event":
            parsed = (fed.parsed if fed is not None and fed.key is not None
                      else parse(kind, event.metadata, event.payload))
            if isinstance(parsed, ChromiumEvent):
                self._chromium(key, event, parsed.phase)
            return
        if key is None:
            return
        if kind == "dynamo_start":
            state = self._state(key, event)
            stack = event.data.get("stack") if isinstance(event.data, dict) else None
            if state is not None and isinstance(stack, list) and stack:
                inner = stack[-1] if isinstance(stack[-1], dict) else {}
                state.located(str(inner.get("name", "")), self._filename(inner.get("filename")),
                              int(inner.get("line", 0) or 0))
        elif kind == "inductor_output_code":
            state = self._live.get(key)
            if state is not None:
                state.code_generated(event.payload)
        elif kind == "compilation_metrics":
            state = self._live.pop(key, None)
            self._closed.append(key)
            if state is not None:
                state.finished = True

    def _chromium(self, key: tuple[int, int] | None, event: TraceEvent, phase: Phase) -> None:
        name, ph = phase.name, phase.ph
        if key is None:
            # a compile worker thread's C++ compile (no compile id): a kernel of the one
            # compile loading its generated module
            if name == _KERNEL_FILE and ph == "E":
                waiting = [s for s in self._live.values()
                           if s.kernels_total is not None and s.step in _LOADING]
                if len(waiting) == 1:
                    waiting[0].kernel_compiled()
            return
        state = self._state(key, event)
        if state is None:
            return
        if ph == "B":
            state.begin(name)
        elif ph == "E":
            state.end(name)
