"""nbcompile's commands on a CUDA GPU, each checked against torch's own numbers for the same
code: ``%compare``'s ``reduce-overhead`` row memory against the allocator's statistics
(``torch.cuda.memory_stats``, within 5 %),
``%kprun``'s device time per kernel against ``torch.profiler``, ``open_trace`` on a
TORCH_TRACE log torch wrote on this GPU."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

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


def _torch_reduce_overhead_memory(fn, x) -> dict[str, int]:
    """torch's own figures (``torch.cuda.memory_stats``) for a fresh reduce-overhead compile
    of ``fn``, called as ``compare`` calls a row (its first call, then three warm-up calls:
    warm-up run, recording, replays): the growth of ``reserved_bytes.all.current`` (the
    CUDA-graph pool's segments: the default pool is warm, see the test) and the peak of
    allocated bytes over the three calls above the bytes allocated before them. The tree
    manager is shut down after it, so nbcompile's row records into a pool of its own."""
    from torch._inductor.cudagraph_trees import reset_cudagraph_trees

    torch.cuda.synchronize()
    reserved0 = torch.cuda.memory_stats()["reserved_bytes.all.current"]
    compiled = torch.compile(fn, mode="reduce-overhead")
    compiled(x)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_stats()["allocated_bytes.all.current"]
    for _ in range(3):
        compiled(x)
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    figures = {"held_bytes": int(stats["reserved_bytes.all.current"]) - int(reserved0),
               "peak_bytes": int(stats["allocated_bytes.all.peak"]) - int(base),
               "allocated_growth": int(stats["allocated_bytes.all.current"]) - int(base)}
    # torch 2.13+ also counts the tree's own pool (``reserved_bytes_by_private_pools``)
    manager = torch_compat.cudagraph_manager(torch.cuda.current_device())
    pool = getattr(manager, "cuda_graphs_thread_pool", None)
    if pool is not None:
        key = f"reserved_bytes_by_private_pools.{pool[0]}_{pool[1]}.all.current"
        if key in stats:
            figures["pool_stat_bytes"] = int(stats[key])
    del compiled
    gc.collect()
    reset_cudagraph_trees()
    return figures


def _within(mine: int | None, torch_figure: int, share: float = 0.05) -> bool:
    return mine is not None and abs(mine - torch_figure) <= share * torch_figure


def test_compare_reduce_overhead_row_memory_is_the_allocators(ip, evidence):
    run_cell(ip, "import torch\nimport nbcompile")
    ip.run_cell_magic("compile", "", CELL)
    # the default pool warmed by the same code first (cuBLAS, the kernels), so a
    # reduce-overhead compile grows only its CUDA-graph pool
    run_cell(ip, "xk = torch.randn(1024, 1024, device='cuda')\n_ = gk(xk)\ndel _")
    theirs = _torch_reduce_overhead_memory(torch_compat.orig_callable(ip.user_ns["gk"]),
                                           ip.user_ns["xk"])
    run_cell(ip, "cmp = nbcompile.compare(gk, xk, modes=['eager', 'reduce-overhead'],"
                 " budget_s=2)")
    comparison = ip.user_ns["cmp"]
    out_bytes = 1024 * 1024 * 4
    row = next(r for r in comparison.rows if r.mode == "reduce-overhead")
    save(evidence, "compare_reduce_overhead",
         {"comparison": comparison.to_dict(), "torch_memory_stats": theirs}, [])
    assert row.status == "ok", row.error
    # torch's own: the pool holds the graph's output and more
    assert theirs["held_bytes"] >= out_bytes and theirs["peak_bytes"] >= out_bytes, theirs
    # nbcompile's row: not 0 B, and torch's figures within 5 %
    assert _within(row.held_bytes, theirs["held_bytes"]), (row.held_bytes, theirs)
    if "pool_stat_bytes" in theirs:  # the pool itself, as torch counts it
        assert _within(row.held_bytes, theirs["pool_stat_bytes"]), (row.held_bytes, theirs)
    assert _within(row.peak_memory_bytes, theirs["peak_bytes"]), (row.peak_memory_bytes, theirs)
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
    save(evidence, "kprun", {"profile": prof.to_dict(), "torch_device_us": device_us}, [])
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
