"""The live summary: status changes reach it, and a running compile shows elapsed time."""

from __future__ import annotations

import time

import torch

from nbcompile.core.notebook.capture.session import get_session
from nbcompile.core.notebook.targets.compiling import compile_function
from nbcompile.core.notebook.targets.options import CompileOptions
from nbcompile.core.records import CellRef
from nbcompile.display.live import TICK_SECONDS, LiveSummary
from tests.support.shell import run_cell


def test_status_goes_pending_compiling_compiled(ip):
    ip.run_cell_magic("compile", "", "import torch\ndef watched(x):\n    return torch.cos(x) + 1\n")
    target = get_session().find(ip.user_ns["watched"])
    seen: list[tuple[str, float | None]] = []
    unsubscribe = get_session().subscribe(
        lambda t, settled: seen.append((t.status, t.compiling_since)) if t is target else None
    )
    try:
        assert target.status == "pending"
        run_cell(ip, "watched(torch.ones(3))")
    finally:
        unsubscribe()
    statuses = [s for s, _ in seen]
    assert statuses[0] == "compiling" and seen[0][1] is not None
    assert statuses[-1] == "compiled" and seen[-1][1] is None


def test_frame_compiles_inside_a_call_are_told_unsettled_and_its_end_settled(ip, capsys):
    # each graph break makes a frame compile of its own inside the one call: the display
    # may wait for the call's end (or its next tick) to publish them
    body = "".join(f"    x = torch.sin(x) + {i}\n    torch._dynamo.graph_break()\n"
                   for i in range(4))
    ip.run_cell_magic("compile", "--backend eager", f"import torch\ndef broken(x):\n{body}"
                      "    return x\n")
    target = get_session().find(ip.user_ns["broken"])
    seen: list[tuple[str, bool]] = []
    unsubscribe = get_session().subscribe(
        lambda t, settled: seen.append((t.status, settled)) if t is target else None)
    try:
        run_cell(ip, "broken(torch.ones(3))")
    finally:
        unsubscribe()
    assert len(target.compiles) == 5  # torch's frame compiles: the function, 4 resumes
    assert seen[-1] == ("compiled", True)
    assert all(not settled for _, settled in seen[:-1])
    out = capsys.readouterr().out
    # the last publish shows the final state (the last frame has no graph: a bare return)
    assert "compiled; 4 graph(s), 4 break(s)" in out.rsplit("broken (function):", 1)[-1]


def test_running_compile_shows_elapsed_seconds_and_ticks(ip, capsys):
    def slow(x):
        return x

    target = compile_function("slow", slow, CompileOptions(), CellRef())
    get_session().register(target)
    live = LiveSummary(get_session(), [target], {})
    try:
        capsys.readouterr()
        target.start_compile()
        target.compiling_since = time.time() - 3
        live._changed(target)  # what the session calls when the compile starts
        time.sleep(TICK_SECONDS * 2.5)
        out = capsys.readouterr().out
        assert out.count("slow (function): compiling...") >= 2  # the update, then ticks
        assert "compiling... 3s" in out or "compiling... 4s" in out
    finally:
        target.status = "compiled"
        target.compiling_since = None
        live.close()
        get_session().targets.remove(target)
    time.sleep(TICK_SECONDS * 1.5)
    assert not live._ticker.is_alive()  # stops once nothing compiles


def test_summary_for_cell_without_targets(ip, capsys):
    ip.run_cell_magic("compile", "", "import torch\nplain_value = torch.ones(1)\n")
    assert "nothing to compile in this cell" in capsys.readouterr().out
    assert isinstance(ip.user_ns["plain_value"], torch.Tensor)
