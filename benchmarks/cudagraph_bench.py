"""15. CUDA graphs (``--mode reduce-overhead``), on a CUDA GPU only: ratios measured in one run.

a. ``reduce-overhead`` / ``default`` per call (bare ``torch.compile``, each call waited for
   with ``torch.cuda.synchronize``) on a launch-bound model: eight small ``Linear`` + ReLU
   layers at batch 8, where launches, not the kernels, take the time;
b. nbcompile's per-call cost under ``reduce-overhead``: a ``%%compile --mode
   reduce-overhead`` target / bare ``torch.compile(mode="reduce-overhead")`` of the same
   code (A/B interleaved, CPU time per call: where nbcompile's work would show);
c. the pool memory ``compare`` reports for the ``reduce-overhead`` row (``held_bytes``) /
   torch's own figure, ``torch.cuda.memory_stats``' ``reserved_bytes.all.current`` growth
   over a fresh ``reduce-overhead`` compile and warm-up of the same function.

Without CUDA it prints one line and measures nothing. ``python -m benchmarks.cudagraph_bench``
"""

from __future__ import annotations

import contextlib
import gc
import io
import statistics
import time
from typing import Any

from .shared import compiled_and_bare, interleaved_ratio

SKIPPED = "15. CUDA graphs: skipped (no CUDA GPU; run `make benchmarks` on a GPU machine)"

CELL = """
import torch
class LaunchBound(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(256, 256) for _ in range(8))
    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x
def mlp(x):
    return launch_bound(x)
launch_bound = LaunchBound().cuda()
"""


def _per_call_s(fn: Any, x: Any, calls: int = 200) -> float:
    """Median over 5 blocks of the wall time per call, each call waited for."""
    import torch

    times = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(x)
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / calls)
    return statistics.median(times)


def _torch_held(fn: Any, x: Any) -> int:
    """torch's own figure: ``reserved_bytes.all.current`` growth over a fresh
    reduce-overhead compile, its first call and three more (warm-up, recording, replay),
    in a tree of its own; the tree manager is shut down after it (so is the earlier rows':
    nothing calls them again)."""
    import torch
    from torch._inductor.cudagraph_trees import reset_cudagraph_trees

    reset_cudagraph_trees()  # a pool of its own (the earlier rows' tree is still alive)
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()["reserved_bytes.all.current"]
    compiled = torch.compile(fn, mode="reduce-overhead")
    for _ in range(4):
        compiled(x)
    torch.cuda.synchronize()
    held = int(torch.cuda.memory_stats()["reserved_bytes.all.current"]) - int(before)
    del compiled
    gc.collect()
    reset_cudagraph_trees()
    return held


def bench_cudagraphs(repeats: int = 21, budget_s: float = 2.0) -> list[dict]:
    import torch

    if not torch.cuda.is_available():
        print(SKIPPED)
        return []
    import nbcompile

    ns, bare_ns = compiled_and_bare(CELL, "--mode reduce-overhead --only mlp",
                                    "nbcompile_bench_cudagraphs")
    bare_ns["launch_bound"].load_state_dict(ns["launch_bound"].state_dict())
    plain = bare_ns["mlp"]
    x = torch.randn(8, 256, device="cuda")
    bare_ro = torch.compile(plain, mode="reduce-overhead")
    bare_default = torch.compile(plain)
    ours = ns["mlp"]
    with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
        for f in (ours, bare_ro, bare_default):
            for _ in range(5):  # compile, warm-up, recording, replays
                f(x)
        torch.cuda.synchronize()
        ro_s, default_s = _per_call_s(bare_ro, x), _per_call_s(bare_default, x)
        ratio, spread = interleaved_ratio(ours, bare_ro, (x,), repeats)
    del ours, bare_ro, bare_default
    gc.collect()
    with torch.no_grad():
        theirs = _torch_held(plain, x)
        with contextlib.redirect_stdout(io.StringIO()):
            cmp = nbcompile.compare(plain, x, modes=["eager", "reduce-overhead"],
                                    budget_s=budget_s, explain=False)
    row = cmp.row("reduce-overhead")
    held = row.held_bytes or 0
    held_ratio = held / theirs if theirs else float("nan")
    return [
        {"name": "15a. CUDA graphs: reduce-overhead / default per call (launch-bound, batch 8)",
         "value": ro_s / default_s, "spread": None, "target": "below 1 (faster)",
         "ok": ro_s < default_s,
         "detail": f"per call {ro_s * 1e6:.1f} us vs {default_s * 1e6:.1f} us"},
        {"name": "15b. CUDA graphs: %%compile'd reduce-overhead / bare torch.compile",
         "value": ratio, "spread": spread, "target": "<= 1.01", "ok": ratio <= 1.01},
        {"name": "15c. CUDA graphs: compare's pool bytes / torch.cuda.memory_stats",
         "value": held_ratio, "spread": None, "target": "within 5% (0.95-1.05)",
         "ok": abs(held_ratio - 1) <= 0.05,
         "detail": f"held {held} B vs reserved growth {theirs} B; peak "
                   f"{row.peak_memory_bytes} B; {row.memory_note}"},
    ]


def main() -> None:
    rows = bench_cudagraphs()
    for r in rows:
        print(f"{r['name']}: {r['value']:.3f} (target {r['target']}) "
              f"{'ok' if r['ok'] else 'NO'}" + (f"; {r['detail']}" if r.get("detail") else ""))


if __name__ == "__main__":
    main()
