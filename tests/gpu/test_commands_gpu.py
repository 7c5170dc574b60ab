"""nbcompile's commands on a CUDA GPU, each checked against torch's own numbers for the same
code: ``%compare``'s ``reduce-overhead`` row memory against torch's record of the row's
CUDA-graph pool (``torch.cuda.memory_snapshot``; ``memory_stats``' per-pool figure on torch
2.13+, within 5 %) and its peak against a plain compile's (``memory_stats``),
``%kprun``'s device time per kernel against ``torch.profiler``, ``open_trace`` on a
TORCH_TRACE log torch wrote on this GPU."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from typing import Any

import torch
from torch.profiler import ProfilerActivity
from torch.profiler import profile as torch_profile

from nbcompile.core import torch_compat
from nbcompile.trace_report import open_trace
from tests.fixtures.traces.gpu.record_gpu_trace import PROGRAM, trimmed
from tests.support import ROOT
from tests.support.gpu import save
from tests.support.shell import run_cell

CELL = ("def gk(x):\n    y = (x @ x).relu()\n    return y * 2 + 1\n")


def _reserved() -> int:
    """What the allocator keeps reserved (``reserved_bytes.all.current``) once dead objects
    are collected and the default pool's free cached blocks are back with CUDA
    (``torch.cuda.empty_cache()``; a live CUDA-graph pool keeps its segments)."""
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return int(torch.cuda.memory_stats()["reserved_bytes.all.current"])


def _pool_now() -> dict[str, Any]:
    """The current tree manager's pool as torch records it, read here (not by nbcompile's
    reader): its id, its segments in ``torch.cuda.memory_snapshot()`` and, on torch 2.13+,
    ``memory_stats``' ``reserved_bytes_by_private_pools`` for it."""
    torch.cuda.synchronize()
    manager = torch_compat.cudagraph_manager(torch.cuda.current_device())
    pool = getattr(manager, "cuda_graphs_thread_pool", None)
    if pool is None:
        return {}
    figures: dict[str, Any] = {"pool": list(pool), "snapshot_bytes": sum(
        int(seg["total_size"]) for seg in torch.cuda.memory_snapshot()
        if tuple(seg.get("segment_pool_id") or ()) == tuple(pool))}
    key = f"reserved_bytes_by_private_pools.{pool[0]}_{pool[1]}.all.current"
    stats = torch.cuda.memory_stats()
    if key in stats:
        figures["pool_stat_bytes"] = int(stats[key])
    return figures


def _torch_reduce_overhead_memory(fn, x) -> dict[str, int]:
    """torch's own figures for a fresh plain reduce-overhead compile of ``fn``, called as
    ``compare`` calls a row (its first call, then three warm-up calls: warm-up run,
    recording, replays): the peak of allocated bytes over the three calls above the bytes
    allocated before them, and what the allocator keeps reserved afterwards beyond before
    (``_reserved``). The tree manager is shut down after it (once: a second compile of the
    same code would reuse the graph of a shut-down tree)."""
    from torch._inductor.cudagraph_trees import reset_cudagraph_trees

    reserved0 = _reserved()
    compiled = torch.compile(fn, mode="reduce-overhead")
    compiled(x)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_stats()["allocated_bytes.all.current"]
    for _ in range(3):
        compiled(x)
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    figures = {"peak_bytes": int(stats["allocated_bytes.all.peak"]) - int(base),
               "allocated_growth": int(stats["allocated_bytes.all.current"]) - int(base),
               "reserved_growth": _reserved() - reserved0, **_pool_now()}
    del compiled
    reset_cudagraph_trees()
    _reserved()  # the old pool's segments back with CUDA
    return figures


def _keep_alive(t):
    return t * 2


def _within(mine: int | None, torch_figure: int, share: float = 0.05) -> bool:
    return mine is not None and abs(mine - torch_figure) <= share * torch_figure


def test_compare_reduce_overhead_row_memory_is_the_allocators(ip, evidence):
    run_cell(ip, "import torch\nimport nbcompile")
    ip.run_cell_magic("compile", "", CELL)
    # the default pool warmed by the same code first (cuBLAS, the kernels), so a
    # reduce-overhead compile grows only its CUDA-graph pool
    run_cell(ip, "xk = torch.randn(1024, 1024, device='cuda')\n_ = gk(xk)\ndel _")
    plain = _torch_reduce_overhead_memory(torch_compat.orig_callable(ip.user_ns["gk"]),
                                          ip.user_ns["xk"])
    # CUDA-graph trees keep one manager and pool per device while a compiled function
    # lives; the row's own compiled copy dies with the compare, and its pool with it. A
    # tiny graph kept alive keeps the pool, so the test reads the row's bytes in it after
    keep = torch.compile(_keep_alive, mode="reduce-overhead")
    tiny = torch.ones(8, device="cuda")
    kept = [keep(tiny) for _ in range(3)]
    before = _pool_now()
    run_cell(ip, "cmp = nbcompile.compare(gk, xk, modes=['eager', 'reduce-overhead'],"
                 " budget_s=2)")
    after = _pool_now()
    del keep, kept
    comparison = ip.user_ns["cmp"]
    out_bytes = 1024 * 1024 * 4
    row = next(r for r in comparison.rows if r.mode == "reduce-overhead")
    save(evidence, "compare_reduce_overhead",
         {"comparison": comparison.to_dict(), "plain_compile": plain,
          "pool_before": before, "pool_after": after}, [])
    assert row.status == "ok", row.error
    assert before and after.get("pool") == before["pool"], (before, after)  # one pool
    growth = after["snapshot_bytes"] - before["snapshot_bytes"]
    # torch's own: the recording's peak holds the graph's output and more
    assert plain["peak_bytes"] >= out_bytes, plain
    # nbcompile's row: not 0 B, and the pool's growth over the compare as torch records
    # it within 5 %
    assert row.held_bytes and _within(row.held_bytes, growth), (row.held_bytes, before, after)
    if "pool_stat_bytes" in before and "pool_stat_bytes" in after:  # torch 2.13+'s count
        stat_growth = after["pool_stat_bytes"] - before["pool_stat_bytes"]
        assert _within(row.held_bytes, stat_growth), (row.held_bytes, before, after)
    # the recording's peak, as a plain compile's
    assert _within(row.peak_memory_bytes, plain["peak_bytes"]), (row.peak_memory_bytes, plain)
    # the row says where the bytes are
    assert row.memory_note.startswith("in the CUDA-graph pool"), row.memory_note
    assert any("private memory pool" in note for note in row.notes), row.notes


def test_kprun_kernel_times_are_device_times(ip, evidence):
    ip.run_cell_magic("compile", "", CELL.replace("gk", "gp"))
    run_cell(ip, "xp = torch.randn(2048, 2048, device='cuda')\n"
                 "prof = nbcompile.profile(gp, xp, repeat=20, memory=False)")
    prof = ip.user_ns["prof"]
    # torch's own: the same code compiled plainly, its kernels' device time per call
    plain = torch.compile(torch_compat.orig_callable(ip.user_ns["gp"]))
    xp = ip.user_ns["xp"]
    for _ in range(3):
        plain(xp)
    torch.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(20):
            plain(xp)
        torch.cuda.synchronize()
    device_us = {e.key: e.device_time_total / 20 for e in p.key_averages()
                 if e.key.startswith("triton_") and e.device_time_total > 0}
    # and eager: the matmul line's kernels' device time per call
    eager = torch_compat.orig_callable(ip.user_ns["gp"])
    with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(20):
            eager(xp)
        torch.cuda.synchronize()
    eager_mm_us = sum(e.device_time_total for e in p.key_averages()
                      if e.key == "aten::mm") / 20
    save(evidence, "kprun", {"profile": prof.to_dict(), "torch_device_us": device_us,
                             "torch_eager_mm_device_us": eager_mm_us}, [])
    # an eager line's time holds the device work it launched (the H200 once read the
    # launch alone: 41 us for a 2048^2 float32 matmul of ~340 us), so 'speedup' per line
    # compares like with like
    (mm_line,) = [ln for ln in prof.lines if "x @ x" in ln.line]
    assert mm_line.eager_s * 1e6 >= 0.8 * eager_mm_us, (mm_line, eager_mm_us)
    kernels = {k.name: k for k in prof.kernels if k.name.startswith("triton_")}
    assert kernels and device_us, (prof.kernels, device_us)
    for name, us in device_us.items():
        assert name in kernels, (name, sorted(kernels))
        mine = kernels[name].total_s / prof.repeat * 1e6
        assert 0.5 < mine / us < 2.0, (name, mine, us)  # device time, not a launch span


def test_open_trace_reads_a_gpu_log(evidence, tmp_path):
    raw = tmp_path / "raw"
    env = dict(os.environ, TORCH_TRACE=str(raw), TORCH_LOGS="cudagraphs")
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    (evidence / "trace_program.cudagraphs.log").write_text(done.stderr)
    (log,) = raw.glob("dedicated_log_torch_trace_*.log")
    kept = trimmed(log.read_text().splitlines(keepends=True))
    (evidence / "trace_program.torch_trace.log").write_text("".join(kept))
    trace = open_trace(str(log))
    (evidence / "trace_program.record.json").write_text(json.dumps(trace.to_dict(), indent=1))
    assert not trace.problems, trace.problems
    compiled = [c for c in trace.compiles if c.status == "compiled"]
    assert len(compiled) >= 4, [(c.compile_id, c.status) for c in trace.compiles]
    for c in compiled:
        kernels = [k for k in c.kernels if k.kind == "kernel"]
        assert kernels and all(k.language == "triton" for k in kernels), c.compile_id
    # torch said on stderr why reduce-overhead skipped the mutated input
    assert "mutated inputs" in done.stderr


def test_compare_leaves_the_users_peak_statistics(ip, evidence):
    """The user's ``max_memory_allocated`` is theirs: %compare never resets it, and each
    row's peak is still measured when it stays under the user's peak (the profiler's
    memory events say it)."""
    run_cell(ip, "import torch\nimport nbcompile")
    ip.run_cell_magic("compile", "", "def pk(x):\n    return (x * 2).sin() + x\n")
    torch.cuda.reset_peak_memory_stats()
    big = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    del big
    peak = torch.cuda.max_memory_allocated()
    run_cell(ip, "xp = torch.randn(512, 512, device='cuda')\n"
                 "cmpk = nbcompile.compare(pk, xp, modes=['eager', 'default', "
                 "'reduce-overhead'], budget_s=1)")
    after = torch.cuda.max_memory_allocated()
    rows = ip.user_ns["cmpk"].rows
    save(evidence, "compare_user_peak", {"peak_before": peak, "peak_after": after,
                                         "rows": [r.to_dict() for r in rows]}, [])
    assert after == peak, (peak, after)
    measured = [r for r in rows if r.status == "ok"]
    assert measured and all(r.peak_memory_bytes for r in measured), [
        (r.mode, r.peak_memory_bytes, r.memory_note) for r in measured]
