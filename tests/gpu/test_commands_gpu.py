"""nbcompile's commands on a CUDA GPU, each checked against torch's own numbers for the same
code: ``%compare``'s ``reduce-overhead`` row memory against the allocator's statistics,
``%kprun``'s device time per kernel against ``torch.profiler``, ``open_trace`` on a
TORCH_TRACE log torch wrote on this GPU."""

from __future__ import annotations

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


def _held_by_reduce_overhead(fn, x) -> int:
    """torch's own figure: bytes still allocated after a fresh reduce-overhead compile's
    warm-up, recording and a replay, beyond those before it (the graph pool's tensors)."""
    torch.cuda.synchronize()
    base = torch.cuda.memory_stats()["allocated_bytes.all.current"]
    compiled = torch.compile(fn, mode="reduce-overhead")
    for _ in range(3):
        compiled(x)
    torch.cuda.synchronize()
    return int(torch.cuda.memory_stats()["allocated_bytes.all.current"]) - int(base)


def test_compare_reduce_overhead_row_memory_is_the_allocators(ip, evidence):
    run_cell(ip, "import torch\nimport nbcompile")
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "xk = torch.randn(1024, 1024, device='cuda')\n"
                 "cmp = nbcompile.compare(gk, xk, modes=['eager', 'reduce-overhead'],"
                 " budget_s=2)")
    comparison = ip.user_ns["cmp"]
    out_bytes = 1024 * 1024 * 4
    torch_held = _held_by_reduce_overhead(torch_compat.orig_callable(ip.user_ns["gk"]),
                                          ip.user_ns["xk"])
    row = next(r for r in comparison.rows if r.mode == "reduce-overhead")
    save(evidence, "compare_reduce_overhead",
         {"comparison": comparison.to_dict(), "torch_held_bytes": torch_held}, [])
    assert row.status == "ok", row.error
    assert torch_held >= out_bytes  # the graph's output lives in its pool
    # not 0 B: the pool the mode holds, as the allocator counts it
    assert row.held_bytes is not None and row.held_bytes >= out_bytes, row
    assert row.peak_memory_bytes is not None and row.peak_memory_bytes > 0, row


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
