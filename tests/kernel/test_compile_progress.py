"""Live compile progress: the steps of a running compile, from torch's own trace events.

A real kernel compiles a function for several seconds on its first call; the live summary's
updates name the steps torch goes through while it runs, then end in the usual record.
"""

from __future__ import annotations

import random

from jupyter_client.manager import start_new_kernel

from nbcompile.core.records import MIME_TYPE, CompileProgress
from nbcompile.core.trace.listener import TraceEvent
from nbcompile.core.trace.progress import ProgressTracker
from nbcompile.display.summary_model import progress_text, step_text

from .test_display_updates import _execute


def _slow_cell(name: str) -> str:
    """A function whose first compile takes seconds: a long chain of distinct ops with
    constants unique to this run (no compile cache can answer it)."""
    seed = random.randrange(10**6)
    lines = [f"def {name}(x):"]
    for i in range(24):
        c = 1 + (seed + i) / 1e7
        op = ("torch.sin", "torch.cos", "torch.tanh", "torch.sigmoid")[i % 4]
        lines.append(f"    x = {op}(x * {c!r}) + x.sum(dim={i % 2}, keepdim=True) / {i + 2}")
    lines.append("    return x")
    return "%%compile\nimport torch\n" + "\n".join(lines) + "\n"


def test_running_compile_names_its_steps_then_ends_in_the_record():
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        _execute(kc, "%load_ext nbcompile")
        _execute(kc, _slow_cell("slow_chain"))
        called = _execute(kc, "slow_chain(torch.randn(64, 64)).shape")
        updates = [m["content"]["data"] for m in called if m["msg_type"] == "update_display_data"]
        targets = [u[MIME_TYPE]["targets"][0] for u in updates]
        running = [(t, u) for t, u in zip(targets, updates, strict=True)
                   if t["status"] == "compiling"]
        steps = [t["progress"]["phase"] for t, _ in running if "progress" in t]
        assert len(set(steps)) >= 2, steps  # e.g. AOTAutograd, then Inductor lowering
        assert {"tracing bytecode", "AOTAutograd", "Inductor lowering",
                "Inductor code generation", "compiling kernels",
                "loading the compiled code"} & set(steps), steps
        last_running = next(t for t, _ in reversed(running) if "progress" in t)
        assert last_running["progress"]["frame"] == "slow_chain"
        assert last_running["progress"]["compile_id"] == "0/0"
        # the worded step and frame are in the text the kernel publishes
        texts = [u["text/plain"] for _, u in running]
        assert any("frame 0/0 slow_chain (line " in text for text in texts), texts[-1]
        assert any(f": {step} for " in text for text in texts for step in steps)
        assert all(t["status_text"].startswith("compiling...") for t, _ in running)
        # the end: the usual record, its phases bar; the progress is not part of it
        final = targets[-1]
        assert final["status"] == "compiled" and "progress" not in final
        assert final["compiles"][0]["phases"]
        assert "frame 0/0" not in updates[-1]["text/plain"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


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
