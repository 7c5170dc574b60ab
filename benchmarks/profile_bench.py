"""7. ``nbcompile.profile``: run time against profiled calls, the accounting identity on
the benchmark workloads, and no profiler cost on normal calls afterwards.

``python -m benchmarks --only 6``
"""

from __future__ import annotations

import contextlib
import io
import sys
import time

from .shared import interleaved_ratio, ipython_shell

PROFILE_CELL = """
import torch
def prof_chain(x):
    y = torch.sin(x) * 2.0
    z = torch.cos(y) + y
    return torch.tanh(z) / 3.0
class ProfNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(256, 256)
        self.b = torch.nn.Linear(256, 256)
    def forward(self, x):
        return self.b(torch.relu(self.a(x)) * 2)
prof_net = ProfNet()
"""


def _bare(ns_cell: str, name: str):
    """The same cell's object compiled with bare ``torch.compile`` (own code objects)."""
    import types

    import torch

    bare = types.ModuleType("nbcompile_profile_bench_bare")
    sys.modules[bare.__name__] = bare
    exec(compile(ns_cell, "<bare-profile>", "exec"), bare.__dict__)  # noqa: S102
    obj = bare.__dict__[name]
    if isinstance(obj, torch.nn.Module):
        from torch._dynamo.external_utils import wrap_inline

        obj._compiled_call_impl = torch.compile(wrap_inline(obj._call_impl))
        return obj
    return torch.compile(obj)


def bench_profile(counts: tuple[int, ...] = (5, 20, 80), repeats: int = 11) -> list[dict]:
    import torch

    import nbcompile

    ip = ipython_shell()
    with contextlib.redirect_stdout(io.StringIO()):
        ip.run_cell_magic("compile", "", PROFILE_CELL)
    ns = ip.user_ns
    x_chain, x_net = torch.randn(512, 512), torch.randn(64, 256)
    for _ in range(3):
        ns["prof_chain"](x_chain)
        ns["prof_net"](x_net)
    # Normal calls are compared with a bare torch.compile of the same code, interleaved,
    # before and after the profiles: the ratio of the two ratios is robust to machine load.
    pairs = {"prof_chain": x_chain, "prof_net": x_net}
    bares = {name: _bare(PROFILE_CELL, name) for name in pairs}
    if hasattr(bares["prof_net"], "load_state_dict"):
        bares["prof_net"].load_state_dict(ns["prof_net"].state_dict())
    for name, x in pairs.items():
        for _ in range(3):
            bares[name](x)
    before = {name: interleaved_ratio(ns[name], bares[name], (x,), repeats)
              for name, x in pairs.items()}
    rows: list[dict] = []
    runs: list[str] = []
    worst = 0.0
    for n in counts:
        for name, x in (("prof_chain", x_chain), ("prof_net", x_net)):
            t0 = time.perf_counter()
            p = nbcompile.profile(ns[name], x, repeat=n)
            runs.append(f"{name} x{n}: {time.perf_counter() - t0:.1f} s")
            parts = p.kernel_s + p.outside_graphs_s + p.overhead_s
            worst = max(worst, abs(parts - p.wall_s) / p.wall_s)
    rows.append({"name": "7. profile() run time by profiled calls (compile of the copy incl.)",
                 "value": 0.0, "spread": None, "target": "reported", "ok": True,
                 "detail": "; ".join(runs)})
    rows.append({"name": "7. accounting: |kernels+outside+overhead - wall| / wall, worst",
                 "value": worst, "spread": None, "target": "under 0.10", "ok": worst <= 0.10})
    enabled = torch.autograd.profiler._is_profiler_enabled
    kernel_profile = torch._inductor.config.cpp.enable_kernel_profile
    for name, x in pairs.items():
        after, spread = interleaved_ratio(ns[name], bares[name], (x,), repeats)
        ratio = after / before[name][0]
        spread = ratio * (spread / after + before[name][1] / before[name][0])
        rows.append({"name": f"7. %%compile'd {name} vs bare, after/before a profile",
                     "value": ratio, "spread": spread, "target": "within 5% (0.95-1.05)",
                     "ok": abs(ratio - 1) <= 0.05 and not enabled and not kernel_profile,
                     "detail": f"profiler left on: {enabled}, kernel profiling left on: "
                               f"{kernel_profile}"})
    return rows
