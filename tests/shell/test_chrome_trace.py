"""``report(x).save_chrome_trace(path)`` writes a compile's phase events as a
Chrome trace (real compile, real trace events)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import nbcompile
from nbcompile.display.payload import published_record
from tests.support.shell import run_cell

CELL = """
def trace_chain(x):
    return torch.sin(x) * 2.0 + torch.cos(x)
"""


@pytest.mark.parametrize("after_reset", [False, True], ids=["fresh", "after-dynamo-reset"])
def test_save_chrome_trace_writes_paired_dynamo_and_inductor_events(ip, tmp_path, after_reset):
    """Also after ``torch._dynamo.reset()`` (torch restarts its frame counter, so the new
    compile has the id of one captured before: its first phases are still its own)."""
    if after_reset:
        run_cell(ip, "import torch\ntorch._dynamo.reset()")
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "import torch\n_ = trace_chain(torch.randn(32))")
    rep = nbcompile.report(ip.user_ns["trace_chain"])
    path = rep.save_chrome_trace(tmp_path / "compile.json")
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert events and all({"name", "ph", "ts", "pid", "tid"} <= e.keys() for e in events)
    assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)
    begins = Counter(e["name"] for e in events if e["ph"] == "B")
    ends = Counter(e["name"] for e in events if e["ph"] == "E")
    assert begins and begins == ends  # every phase that opened closed
    for name in ("dynamo", "entire_frame_compile", "bytecode_tracing", "backend_compile"):
        assert name in begins, sorted(begins)  # Dynamo's phases and the backend's
    # Inductor compiled the graph, or loaded it from its cache (a warm on-disk cache)
    assert {"inductor_compile", "AOTAutogradCache.inductor_load"} & begins.keys(), begins
    assert {e["args"]["compile_id"] for e in events} == {c.compile_id for c in rep.compiles}
    # kept in the kernel, not published inline
    published = published_record(rep)
    assert all("chromium_events" not in c for c in published["compiles"])


def test_save_chrome_trace_without_events_says_why(ip, tmp_path):
    ip.run_cell_magic("compile", "", CELL.replace("trace_chain", "trace_never_called"))
    rep = nbcompile.report(ip.user_ns["trace_never_called"])
    with pytest.raises(ValueError, match="call the compiled target first"):
        rep.save_chrome_trace(tmp_path / "none.json")
    assert not (tmp_path / "none.json").exists()
