"""11. Memory: nbcompile's peak and allocated bytes against an independent measurement, and
what measuring memory costs ``%compare``.

Independent measurement, in a fresh process per workload (``python -m
benchmarks.memory_measure WORKLOAD`` prints JSON): glibc is told to serve every large
allocation with its own ``mmap`` and to give it back on free (``MALLOC_MMAP_THRESHOLD_``),
so the process's resident memory follows the tensors. Around one call, after its
warm-up: the kernel's high-water mark of resident memory is reset (``/proc/self/
clear_refs`` 5) and read back (``VmHWM`` minus ``VmRSS`` before the call: the peak), and
the minor page faults are counted (``ru_minflt`` x page size: every page of a fresh
mapping faults once when first written, so this is the bytes allocated and written).
Then one more call is measured by nbcompile (``core/perf/memory/call.py``: torch.profiler's
allocation events). Workloads whose tensors dominate memory (16 MiB each): a 4-op
pointwise chain, a matmul temporary, a training step, an in-place ``scatter_add_``;
each eagerly and compiled.

Cost: ``nbcompile.compare`` of the chain with ``memory=True`` and ``memory=False``,
alternated; the memory phase's seconds (against one call of every row, and as a share of
the command), compiled calls right after a memory measurement against calls after none
(alternating blocks: the profiler is off again, nothing of it slows the timed calls), and
whether the profiler is left on.

``python -m benchmarks --only 11``
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MiB = 2**20
#: Agreement asked of nbcompile's figures with the independent ones.
TOLERANCE = 0.10
#: Differences below this are allocator noise (both figures near zero).
FLOOR = 512 * 1024
PAGE = os.sysconf("SC_PAGE_SIZE")
WORKLOADS = ("chain", "temporary", "step", "scatter")


def _workload(name: str):
    """``(fn, args)`` of a workload; tensors of 16 MiB."""
    import torch

    torch.manual_seed(0)
    if name == "chain":
        def chain(x):
            y = x * 1.7 + 0.3
            y = torch.sin(y) * y
            y = torch.exp(y) / (1 + torch.exp(y))
            return torch.tanh(y * 3.1 - 0.2)
        return chain, (torch.randn(2048, 2048),)
    if name == "temporary":
        def temporary(x, w):
            h = x @ w
            return h.amax(dim=1)
        return temporary, (torch.randn(512, 512), torch.randn(512, 8192))
    if name == "step":
        w = torch.randn(1024, 1024, requires_grad=True)

        def step(x):
            y = torch.sin(x @ w)
            y = y * torch.cos(y) + torch.exp(-y * y)
            y.sum().backward()
            return y.detach().sum()
        return step, (torch.randn(4096, 1024),)
    if name == "scatter":
        def scatter(buf, idx, src):
            buf.scatter_add_(0, idx, src)
            return buf
        return scatter, (torch.zeros(2048, 2048), torch.randint(0, 2048, (256, 2048)),
                         torch.randn(256, 2048))
    raise ValueError(name)


def _status(key: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def _independent(call, args) -> tuple[int, int]:
    """(peak, allocated) of one call from the kernel's view of this process."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
        f.write("5")  # reset VmHWM to the current resident size
    base = _status("VmRSS:")
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    out = call(*args)
    peak = _status("VmHWM:") - base
    allocated = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) * PAGE
    del out
    return max(0, peak), allocated


def worker(name: str) -> dict:
    """Measure one workload eagerly and compiled, both ways (run in a fresh process)."""
    import torch

    from nbcompile.core.perf.memory.call import measure_call
    from nbcompile.core.runs.sandbox import storages_of

    fn, args = _workload(name)
    compiled = torch.compile(fn)
    held = storages_of([*args, *(c.cell_contents for c in fn.__closure__ or ()
                                 if isinstance(c.cell_contents, torch.Tensor))])
    out: dict = {}
    for side, call in (("eager", fn), ("compiled", compiled)):
        for _ in range(3):
            call(*args)
        rss_peak, faulted = _independent(call, args)
        m = measure_call(call, args, {}, torch.device("cpu"), held)
        out[side] = {"peak": m.peak_bytes, "allocated": m.allocated_bytes,
                     "rss_peak": rss_peak, "faulted": faulted, "saved": m.saved_bytes}
    return out


def _agree(a: int, b: int) -> float:
    """Relative difference of two byte counts (0 when both are below ``FLOOR``)."""
    if max(a, b) <= FLOOR:
        return 0.0
    return abs(a - b) / max(a, b)


def _mib(n: int | None) -> str:
    return "-" if n is None else f"{n / MiB:.1f}"


def bench_memory_measure(pairs: int = 3, budget_s: float = 1.5) -> list[dict]:
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_TOP_PAD_": "0",
           "MALLOC_TRIM_THRESHOLD_": "0"}
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor"))
    results: dict[str, dict] = {}
    for name in WORKLOADS:
        done = subprocess.run([sys.executable, "-m", "benchmarks.memory_measure", name],
                              capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
        line = next((ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("{")),
                    None)
        if done.returncode != 0 and line is None:
            raise RuntimeError(f"memory worker {name} failed:\n{done.stderr[-2000:]}")
        results[name] = json.loads(line or "{}")
    worst_peak = worst_alloc = 0.0
    details = []
    for name, sides in results.items():
        for side, m in sides.items():
            dp, da = _agree(m["peak"], m["rss_peak"]), _agree(m["allocated"], m["faulted"])
            worst_peak, worst_alloc = max(worst_peak, dp), max(worst_alloc, da)
            details.append(f"{name}/{side}: peak {_mib(m['peak'])} vs RSS {_mib(m['rss_peak'])} "
                           f"MiB, allocated {_mib(m['allocated'])} vs faulted "
                           f"{_mib(m['faulted'])} MiB"
                           + (f", saved for backward {_mib(m['saved'])} MiB"
                              if m.get("saved") is not None else ""))
    rows = [
        {"name": "11. memory: nbcompile peak vs fresh-process RSS high-water, worst |diff|",
         "value": worst_peak, "spread": None, "target": f"under {TOLERANCE:.2f}",
         "ok": worst_peak <= TOLERANCE, "detail": "; ".join(details)},
        {"name": "11. memory: nbcompile allocated vs page faults x page, worst |diff|",
         "value": worst_alloc, "spread": None, "target": f"under {TOLERANCE:.2f}",
         "ok": worst_alloc <= TOLERANCE},
    ]
    return rows + _cost(pairs, budget_s)


def _cost(pairs: int, budget_s: float) -> list[dict]:
    """What ``memory=True`` adds to a ``compare`` of the chain, alternated with ``False``."""
    import torch

    import nbcompile

    fn, _ = _workload("chain")
    x = torch.randn(1024, 1024)
    # a first comparison fills Inductor's cache: the ones measured below compile alike
    nbcompile.compare(fn, x, modes=("default",), budget_s=0.3, explain=False, memory=False)
    on: list = []
    off: list = []
    for i in range(2 * pairs):
        memory = i % 2 == 0
        c = nbcompile.compare(fn, x, modes=("default",), budget_s=budget_s, explain=False,
                              memory=memory)
        (on if memory else off).append(c)
    enabled = torch.autograd.profiler._is_profiler_enabled
    phase = statistics.median(c.phases_s.get("memory", 0.0) for c in on)
    share = statistics.median(c.phases_s.get("memory", 0.0) / c.elapsed_s for c in on)
    # one more call per row is the floor: the profiler's own start, stop and events on top
    calls = statistics.median(c.phases_s.get("memory", 0.0)
                              / sum(r.median_s or 0.0 for r in c.rows) for c in on)
    elapsed_on = statistics.median(c.elapsed_s for c in on)
    elapsed_off = statistics.median(c.elapsed_s for c in off)
    timed = _after_effect(fn, x)
    row = on[0].row("default")
    return [
        {"name": "11. memory cost: seconds of the memory phase in %compare (2 rows)",
         "value": phase, "spread": None, "target": "reported", "ok": True,
         "detail": f"whole command {elapsed_on:.1f} s with memory, {elapsed_off:.1f} s "
                   "without (first calls and the budget dominate both); peaks "
                   f"{_mib(on[0].row('eager').peak_memory_bytes)} MiB eager, "
                   f"{_mib(row.peak_memory_bytes)} MiB compiled ({row.memory_verdict})"},
        {"name": "11. memory cost: memory phase / one call of every row (their medians)",
         "value": calls, "spread": None, "target": "under 1.5 (one call each)",
         "ok": calls <= 1.5,
         "detail": f"memory phase {phase:.3f} s, {share:.1%} of a %compare with "
                   f"--budget {budget_s:g}"},
        {"name": "11. memory cost: compiled calls right after a memory measurement / without",
         "value": timed, "spread": None, "target": "within 5% (0.95-1.05)",
         "ok": abs(timed - 1) <= 0.05 and not enabled,
         "detail": f"profiler left on: {enabled}"},
    ]


def _after_effect(fn, x, rounds: int = 21, calls: int = 5) -> float:
    """Median time of ``calls`` compiled calls just after a memory measurement, over the
    same just after nothing, in alternating rounds (adjacent blocks: robust to load)."""
    import time

    import torch

    from nbcompile.core.perf.memory.call import measure_call

    compiled = torch.compile(fn)
    for _ in range(3):
        compiled(x)
    after: list[float] = []
    plain: list[float] = []
    for i in range(rounds * 2):
        if i % 2:
            measure_call(compiled, (x,), {}, torch.device("cpu"))
        t0 = time.perf_counter()
        for _ in range(calls):
            compiled(x)
        (after if i % 2 else plain).append(time.perf_counter() - t0)
    return statistics.median(after) / statistics.median(plain)


if __name__ == "__main__":
    print(json.dumps(worker(sys.argv[1])))
