"""Live compile progress: the steps of a running compile, from torch's own trace events.

A real kernel compiles a function for several seconds on its first call; the live summary's
updates name the steps torch goes through while it runs, then end in the usual record.
"""

from __future__ import annotations

from nbcompile.core.records import CompileProgress
from nbcompile.core.trace.listener import TraceEvent
from nbcompile.core.trace.progress import ProgressTracker
from nbcompile.display.summary_model import progress_text, step_text


def _chromium(key, name: str, ph: str) -> TraceEvent:
    payload = f'{{"name": "{name}", "ph": "{ph}", "ts": 1, "cat": "dynamo_timed"}}'
    meta = {"chromium_event": {}}
    if key is not None:
        meta |= {"frame_id": key[0], "frame_compile_id": key[1], "attempt": 0}
    return TraceEvent.from_metadata(meta, payload)


def test_tracker_steps_kernels_and_end():
    clock = [0.0]
    tracker = ProgressTracker(clock=lambda: clock[0])
    key = (0, 1)
    tracker.feed(_chromium(key, "entire_frame_compile", "B"))
    state = tracker.get(key)
    assert state is not None and state.step == "tracing bytecode"
    tracker.feed(TraceEvent.from_metadata(
        {"frame_id": 0, "frame_compile_id": 1, "attempt": 0,
         "dynamo_start": {"stack": [{"name": "f", "filename": "<cell>", "line": 3}]}}))
    for name, ph, at in [("bytecode_tracing", "B", 0.0), ("bytecode_tracing", "E", 1.0),
                         ("backend_compile", "B", 1.5),
                         ("create_aot_dispatcher_function", "B", 1.5),
                         ("inductor_compile", "B", 2.0), ("code_gen", "B", 3.0)]:
        clock[0] = at
        tracker.feed(_chromium(key, name, ph))
    assert state.step == "Inductor code generation"
    tracker.feed(TraceEvent.from_metadata(
        {"frame_id": 0, "frame_compile_id": 1, "attempt": 0, "inductor_output_code": {}},
        "a = async_compile.cpp_pybinding(['x'], '''...''')\n"
        "b = async_compile.cpp_pybinding(['y'], '''...''')\n"))
    clock[0] = 5.0
    tracker.feed(_chromium(key, "PyCodeCache.load_by_key_path", "B"))
    tracker.feed(_chromium(key, "async_compile.wait", "B"))
    tracker.feed(_chromium(None, "compile_file", "B"))
    tracker.feed(_chromium(None, "compile_file", "E"))  # a worker thread's kernel
    clock[0] = 6.0
    snap = tracker.get(key).snapshot()
    assert snap == CompileProgress(
        compile_id="0/1", frame="f", filename="<cell>", lineno=3, phase="compiling kernels",
        elapsed_s=6.0, phase_seconds={"tracing bytecode": 1.0, "building the graph": 0.5,
                                      "AOTAutograd": 0.5, "Inductor lowering": 1.0,
                                      "Inductor code generation": 2.0,
                                      "compiling kernels": 1.0},
        kernels_total=2, kernels_done=1, kernel_language="C++")
    assert step_text(snap) == "compiling 2 C++ kernels (1 of 2 done) for 1s"
    assert progress_text(snap) == (
        "frame 0/1 f (line 3) \u00b7 so far: tracing bytecode 1.0s, building the graph 0.5s, "
        "AOTAutograd 0.5s, Inductor lowering 1.0s, Inductor code generation 2.0s")
    tracker.feed(TraceEvent.from_metadata(
        {"frame_id": 0, "frame_compile_id": 1, "attempt": 0, "compilation_metrics": {}}))
    assert state.finished and tracker.get(key) is None
    tracker.feed(_chromium(key, "dynamo", "E"))  # after the end: not a new compile
    assert tracker.get(key) is None


def test_tracker_ignores_bad_payloads():
    tracker = ProgressTracker()
    meta = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0, "chromium_event": {}}
    for payload in ("", "not json", "[1, 2]", '{"name": 5, "ph": "B"}'):
        tracker.feed(TraceEvent.from_metadata(meta, payload))
    assert tracker.get((0, 0)) is None or tracker.get((0, 0)).step
