"""Run every nbcompile benchmark and print a table of ratios: ``python -m benchmarks``.

1. steady-state call time of a ``%%compile``d target vs a bare ``torch.compile``
2. cold compile time with nbcompile's capture on vs plain ``torch.compile`` (fresh
   ``TORCHINDUCTOR_CACHE_DIR`` per measurement, each in its own process); 2b. the same
   with the live progress shown (the summary re-rendered as often as ``%%compile``'s
   live display does while a compile runs)
3. first compile in a fresh process with a warm persistent cache vs cold
4. ``nbcompile.compare()``'s estimate vs an independent ``torch.utils.benchmark`` run
   (``benchmarks/compare_bench.py``, as 6)
5. time to publish a record whose output code has 10k lines
6. ``nbcompile.compare()``'s verdicts: a fused pointwise chain is faster than eager, a
   single matmul (the same extern kernel on both sides) shows no significant difference
7. ``nbcompile.profile()`` run time by profiled calls, its accounting, and normal calls
   after a profile (``benchmarks/profile_bench.py``)
9. saved notebook size with the default output budget vs none, for a tiny GPT-2 with 12
   compiles and a one-line function with 30 recompiles (``benchmarks/notebook_size.py``)
10. a heavy notebook in a real Lab: 50 targets, 500 compiles, a ~10k-line module: saved
   size per compile, inspector target switching, code view scrolling
   (``benchmarks/heavy_notebook.py``)
11. memory: ``compare``'s peak and allocated bytes against a fresh process's RSS
   high-water mark and page faults (tensors of 16 MiB: a pointwise chain, a matmul
   temporary, a training step, an in-place ``scatter_add_``; eager and compiled), and what
   measuring memory adds to ``%compare`` (``benchmarks/memory_measure.py``)
12. reading TORCH_TRACE logs: ``open_trace`` MB/s and peak RSS on 8-rank logs replayed
   from real recorded runs (``--trace-gb``, 0.5 GB here; ``python -m
   benchmarks.trace_index`` runs 1 GB), tlparse's time on the same input when installed,
   and two hostile shapes (one line without newline, one header line, ``--trace-gb`` each)
   (``benchmarks/trace_index.py``)
13. compile time you can cut, from fresh processes: regional vs whole-model cold compile
   on 12 identical blocks, restarts with the portable cache, a precompiled function and a
   warm Inductor cache vs cold, and ``compile_time()``'s accounting
   (``benchmarks/compile_time_bench.py``); 13b. the first call after a restart with what
   ``%nbcompile cache save`` carries (torch's portable cache and the built C++ kernels), and
   with a precompiled function and the same kernels, into empty cache directories
   (``benchmarks/restart_bench.py``)
14. nbcompile's own cost on real models' cold compile: a ``%%compile`` cell in an
   in-process shell vs ``torch.compile`` of the same code, fresh processes and empty
   cache directories, wall and CPU seconds: a random GPT-2, a small ResNet-style CNN,
   HF BigBird (graph breaks), a function with 30 graph breaks under ``--backend eager``
   (``--capture-pairs``; ``benchmarks/capture_overhead.py``)
15. CUDA graphs, on a CUDA GPU only (one printed line otherwise): ``reduce-overhead`` /
   ``default`` per call on a launch-bound model, ``%%compile``'d ``reduce-overhead`` / bare
   ``torch.compile``, ``compare``'s pool bytes / ``torch.cuda.memory_stats``
   (``benchmarks/cudagraph_bench.py``)
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .shared import alternated_ratios, compiled_and_bare

ROOT = Path(__file__).resolve().parent.parent

# --- 1. steady state --------------------------------------------------------------------

STEADY_CELL = """
import torch
def small_fn(x):
    return torch.relu(x * 2.0 + 1.0).sum()
class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(32, 32)
    def forward(self, x):
        return torch.relu(self.lin(x)) * 2
small_net = SmallNet()
"""


def bench_steady_state(repeats: int) -> list[dict]:
    """Each target kind and mode against the same code under PyTorch's own API
    (``torch.compile(fn)``, ``module.compile()``), CPU time and wall time from the same
    alternated rounds."""
    import torch

    rows = []
    x = torch.randn(64, 32)
    for mode in ("default", "reduce-overhead"):
        ns, bare_ns = compiled_and_bare(STEADY_CELL, f"--mode {mode}",
                                        f"nbcompile_bench_bare_{mode.replace('-', '_')}")
        bare_fn = torch.compile(bare_ns["small_fn"], mode=mode)
        bare_net = bare_ns["small_net"]
        bare_net.load_state_dict(ns["small_net"].state_dict())
        bare_net.compile(mode=mode)
        with contextlib.redirect_stdout(io.StringIO()):
            for f in (ns["small_fn"], bare_fn, ns["small_net"], bare_net):
                for _ in range(3):
                    f(x)
        for label, ours, bare in (("function", ns["small_fn"], bare_fn),
                                  ("nn.Module", ns["small_net"], bare_net)):
            found = alternated_ratios(ours, bare, (x,), rounds=repeats)
            (cpu, cpu_spread), (wall, wall_spread) = found["cpu"], found["wall"]
            name = f"1. steady-state call, %%compile'd {label} ({mode}) / bare torch.compile"
            rows.append({"name": f"{name}, CPU time", "value": cpu, "spread": cpu_spread,
                         "target": "<= 1.01", "ok": cpu <= 1.01})
            rows.append({"name": f"{name}, wall time", "value": wall, "spread": wall_spread,
                         "target": "(noisy) <= 1.01", "ok": wall <= 1.01})
    return rows


# --- 2./3. compile times in fresh processes ------------------------------------------------

COMPILE_SCRIPT = r"""
import json, sys, time
mode = sys.argv[1]
import torch
t_import = time.perf_counter()
if mode in ("capture", "progress"):
    from nbcompile.core.notebook.capture.session import get_session
    from nbcompile.core.notebook.capture.snapshot import target_record
    from nbcompile.core.notebook.targets.options import CompileOptions
    from nbcompile.core.records import CellRef
    from nbcompile.core.notebook.targets.compiling import compile_target
session = None
src = '''
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(256, 256)
        self.b = torch.nn.Linear(256, 256)
    def forward(self, x):
        y = torch.nn.functional.gelu(self.a(x))
        y = torch.sin(y) * 2 + torch.cos(y)
        return torch.softmax(self.b(y), dim=-1)
'''
ns = {}
exec(compile(src, "<bench-cell>", "exec"), ns)
torch.manual_seed(0)
net = ns["Net"]()
x = torch.randn(64, 256)
if mode in ("capture", "progress"):
    session = get_session()
    session.start()
    target = compile_target("net", net, CompileOptions(), CellRef())
    session.register(target)
    call = net
else:
    call = torch.compile(net.forward)
refreshes = []
if mode == "progress":
    # the live summary of a %%compile cell, as in a kernel: display/live.py's LiveSummary
    # and its ticker (without a front end its updates print; they are counted, not shown)
    import contextlib, io
    from IPython.core.interactiveshell import InteractiveShell
    from nbcompile.display import live

    InteractiveShell.instance()  # display() publishes (here: prints) through a shell

    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        summary = live.LiveSummary(session, [target], {})
    bundle = summary.bundle

    def counted():
        b = bundle()
        refreshes.append("compiling: frame" in b["text/plain"])
        return b
    summary.bundle = counted
import resource
def cpu_s():  # CPU seconds of this process and its children (the C++ compiler)
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
c0 = cpu_s()
t0 = time.perf_counter()
if mode == "progress":
    with contextlib.redirect_stdout(shown):
        call(x)
else:
    call(x)
first = time.perf_counter() - t0
cpu = cpu_s() - c0
info = {"first_call_s": first, "cpu_s": cpu, "refreshes": len(refreshes),
        "with_step": sum(refreshes)}
if session is not None:
    rec = target_record(target)
    info["compiles"] = len(rec.compiles)
    info["cache"] = [c.cache for c in rec.compiles]
print(json.dumps(info))
"""


def _first_call(mode: str, cache_dir: str) -> dict:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", COMPILE_SCRIPT, mode], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_compile_times(pairs: int) -> list[dict]:
    capture, plain, warm, progress, refreshes = [], [], [], [], []
    cpu: dict[str, list[float]] = {"capture": [], "plain": [], "progress": []}
    modes = ("capture", "plain", "progress")
    with tempfile.TemporaryDirectory(prefix="nbcompile-bench-") as tmp:
        for i in range(pairs):
            order = modes[i % 3:] + modes[:i % 3]  # each mode first, second, last in turn
            for mode in order:
                d = os.path.join(tmp, f"{mode}-{i}")
                os.makedirs(d, mode=0o700)
                r = _first_call(mode, d)
                {"capture": capture, "plain": plain, "progress": progress}[mode].append(
                    r["first_call_s"])
                cpu[mode].append(r["cpu_s"])
                if mode == "progress":
                    refreshes.append((r["refreshes"], r["with_step"]))
                if mode == "capture":
                    if not r.get("compiles"):
                        raise RuntimeError("the capture run recorded no compile")
                    w = _first_call("capture", d)  # fresh process, same (now warm) dir
                    warm.append((w["first_call_s"], r["first_call_s"], w.get("cache")))
    cap, pla = statistics.median(capture), statistics.median(plain)
    pro = statistics.median(progress)
    # CPU seconds (process + compiler children) do not count time spent waiting for a
    # core, so they stay meaningful on a loaded machine
    cpu_ratio = statistics.median(cpu["progress"]) / statistics.median(cpu["capture"])
    overhead = cap / pla - 1
    ratios = [w / c for w, c, _ in warm]
    warm_ratio = statistics.median(ratios)
    return [
        {"name": "2. cold compile, capture on / plain torch.compile", "value": cap / pla,
         "spread": None, "target": "under +10% (< 1.10)", "ok": overhead < 0.10,
         "detail": f"median first call {cap:.2f} s vs {pla:.2f} s over {pairs} pair(s); "
                   f"capture {', '.join(f'{v:.2f}' for v in capture)}; "
                   f"plain {', '.join(f'{v:.2f}' for v in plain)}"},
        {"name": "2b. cold compile, capture + live progress / plain torch.compile",
         "value": pro / pla, "spread": None, "target": "under +10% (< 1.10)",
         "ok": pro / pla - 1 < 0.10,
         "detail": f"median first call {pro:.2f} s vs {pla:.2f} s over {pairs} pair(s); "
                   f"progress {', '.join(f'{v:.2f}' for v in progress)}; CPU seconds "
                   f"progress / capture {cpu_ratio:.3f} ("
                   + "; ".join(f"{m} " + ", ".join(f"{v:.1f}" for v in vs)
                               for m, vs in cpu.items())
                   + "); summary re-rendered " + ", ".join(
                       f"{n} times ({k} with a step)" for n, k in refreshes)},
        {"name": "3. first compile, fresh process: warm cache / cold", "value": warm_ratio,
         "spread": None, "target": "under 0.3", "ok": warm_ratio < 0.3,
         "detail": "warm " + ", ".join(f"{w:.2f} s (cache {c})" for w, _, c in warm)},
    ]


# --- 5. publishing a big record ------------------------------------------------------------


def bench_publish() -> list[dict]:
    from nbcompile.core.records import CompileRecord, TargetRecord
    from nbcompile.display.bundle import summary_bundle

    lines = [f"    buf{i} = torch.ops.aten.add.Tensor(buf{i - 1}, 1.0)  # line {i} <&>"
             for i in range(10_000)]
    code = "\n".join(["def call(args):", *lines, "    return (buf9999,)"])
    record = TargetRecord(id="t1", name="big", kind="function", status="compiled",
                          compiles=[CompileRecord(compile_id="0/0", frame="big",
                                                  output_code=code)],
                          output_code=code, graph_count=1)
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        bundle = summary_bundle([record])
        json.dumps(bundle)
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return [{"name": "5. publish a record with 10k-line output code (summary_bundle + JSON)",
             "value": med * 1e3, "unit": "ms", "spread": None, "target": "under 50 ms",
             "ok": med < 0.05, "detail": f"{len(code)} characters"}]


# --- driver --------------------------------------------------------------------------------


def _machine() -> str:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import torch

    return (f"{os.cpu_count()} cores ({cpu}), {platform.system()} {platform.machine()}, "
            f"Python {platform.python_version()}, torch {torch.__version__}, "
            f"{'CUDA' if torch.cuda.is_available() else 'CPU only'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=3,
                        help="cold-compile process triples for 2, 2b and 3 (default 3)")
    parser.add_argument("--repeats", type=int, default=21,
                        help="alternated rounds of 3,000 calls for 1 (default 21)")
    parser.add_argument("--budget", type=float, default=3.0,
                        help="compare() budget for 4 and 6 (default 3 s)")
    parser.add_argument("--trace-gb", type=float, default=0.5,
                        help="log size for 12, and of each hostile shape (default 0.5)")
    parser.add_argument("--capture-pairs", type=int, default=2,
                        help="capture/plain/listened process rounds per model for 14 (default 2)")
    parser.add_argument("--only", default="1,2,3,4,5,6,7,9,10,11,12,13,14,15",
                        help="which benchmarks (e.g. 1,5)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args(argv)
    only = {"2" if o.strip() == "3" else o.strip() for o in args.only.split(",")}
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor"))
    started = time.perf_counter()
    rows: list[dict] = []
    if "1" in only:
        rows += bench_steady_state(args.repeats)
    if "2" in only:
        rows += bench_compile_times(args.pairs)
    if "4" in only:
        from .compare_bench import bench_compare_accuracy

        rows += bench_compare_accuracy(args.budget)
    if "5" in only:
        rows += bench_publish()
    if "6" in only:
        from .compare_bench import bench_compare_verdicts

        rows += bench_compare_verdicts(args.budget)
    if "7" in only:
        from .profile_bench import bench_profile

        rows += bench_profile()
    if "9" in only:
        from .notebook_size import bench_notebook_size

        rows += bench_notebook_size()
    if "10" in only:
        from .heavy_notebook import bench_heavy_notebook

        rows += bench_heavy_notebook()
    if "11" in only:
        from .memory_measure import bench_memory_measure

        rows += bench_memory_measure()
    if "12" in only:
        from .trace_index import find_tlparse
        from .trace_index import run as bench_trace_index

        rows += bench_trace_index(args.trace_gb, tlparse=find_tlparse(),
                                  hostile_gb=args.trace_gb)
    if "13" in only:
        from .compile_time_bench import bench_compile_time
        from .restart_bench import bench_restart

        rows += bench_compile_time()
        rows += bench_restart("stack") + bench_restart("transformer")
    if "14" in only:
        from .capture_overhead import bench_capture_overhead

        rows += bench_capture_overhead(args.capture_pairs)
    if "15" in only:
        from .cudagraph_bench import bench_cudagraphs

        rows += bench_cudagraphs()
    date = datetime.date.today().isoformat()
    print(f"nbcompile benchmarks, {date}, {_machine()}")
    width = max((len(r["name"]) for r in rows), default=len("benchmark"))
    print(f"{'benchmark'.ljust(width)}  {'measured':>14}  {'target':<22}  ok")
    print(f"{'-' * width}  {'-' * 14}  {'-' * 22}  --")
    for r in rows:
        unit = r.get("unit", "x")
        value = f"{r['value']:.2f} ms" if unit == "ms" else f"{r['value']:.3f}"
        if r.get("spread") is not None:
            value += f" ±{r['spread']:.3f}"
        print(f"{r['name'].ljust(width)}  {value:>14}  {r['target']:<22}  "
              f"{'yes' if r['ok'] else 'NO'}")
    for r in rows:
        if r.get("detail"):
            print(f"  {r['name'].split(' ', 1)[0]} {r['detail']}")
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
