"""A TORCH_TRACE log torch wrote on an H200 GPU (torch 2.11; chromium_event lines trimmed):
its compiles read as torch logged them, Triton's per-kernel compile times attached to the
kernels, and no false problem about them."""

from __future__ import annotations

from nbcompile.core.trace.parsers import kernel_compile_times
from nbcompile.trace_report import open_trace
from tests.support import ROOT

LOG = ROOT / "tests" / "fixtures" / "traces" / "gpu" / "dedicated_log_torch_trace_h200.log"


def test_gpu_log_compiles_and_triton_kernel_times():
    trace = open_trace(str(LOG))
    assert [(c.compile_id, c.status) for c in trace.compiles] == [
        ("0/0", "restarted"), ("0/0_1", "compiled"), ("1/0", "compiled"),
        ("0/1", "restarted"), ("0/1_1", "compiled"), ("1/1", "compiled"),
        ("2/0", "compiled")]
    assert not any("triton_kernel_compile_times_us" in p for p in trace.problems), trace.problems
    for c in trace.compiles:
        kernels = [k for k in c.kernels if k.kind == "kernel"]
        assert bool(kernels) == (c.status == "compiled"), c.compile_id
        assert all(k.name.startswith("triton_") and k.language == "triton" for k in kernels)
        # torch's measure per kernel: [["triton_poi_fused_add_copy__mul_sin_0", 193503]]
        assert all(k.compile_time_s and 0 < k.compile_time_s < 10 for k in kernels)
    first = trace.compile("0/0_1")
    assert [(k.name, k.compile_time_s) for k in first.kernels if k.kind == "kernel"] == [
        ("triton_poi_fused_add_copy__mul_sin_0", 0.193503)]


def test_kernel_compile_times_read_text_or_list_and_drop_malformed_pairs():
    assert kernel_compile_times('[["k0", 1500000], ["k1", 2]]') == {"k0": 1.5, "k1": 2e-06}
    assert kernel_compile_times([["k0", 10]]) == {"k0": 1e-05}
    assert kernel_compile_times('[["k0", "x"], [1, 2], ["k1", NaN], ["k2"], ["k3", true]]') == {}
    assert kernel_compile_times("not json") == {}
    assert kernel_compile_times(None) == {}
