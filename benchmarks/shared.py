"""What several benchmarks share: one IPython shell per process, a cell compiled under
``%%compile`` beside the same code bare, and an interleaved A/B time ratio."""

from __future__ import annotations

import contextlib
import io
import statistics
import sys
import time
import types
from typing import Any


def ipython_shell() -> Any:
    """The process's one IPython shell with nbcompile loaded. ``start_ipython()`` returns
    None when a shell already exists (a second benchmark in the same ``make benchmarks``
    run), so it is called once and the shell reused after."""
    from IPython import get_ipython
    from IPython.testing.globalipapp import start_ipython

    ip = get_ipython() or start_ipython() or get_ipython()
    # As in a real kernel, __main__ is the user's namespace (Dynamo resolves the cell's
    # globals through sys.modules["__main__"]; under ``python -m`` it would be this file).
    sys.modules["__main__"] = ip.user_module
    if "nbcompile" not in ip.extension_manager.loaded:
        ip.run_line_magic("load_ext", "nbcompile")
    return ip


def compiled_and_bare(cell: str, flags: str, module: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``cell`` run under ``%%compile <flags>`` in the shell, and the same code executed
    again in a module of its own (``module``: its own code objects, for a bare
    ``torch.compile``): the two namespaces."""
    ip = ipython_shell()
    with contextlib.redirect_stdout(io.StringIO()):  # the live summary's text/plain
        ip.run_cell_magic("compile", flags, cell)
    bare = types.ModuleType(module)
    sys.modules[bare.__name__] = bare
    exec(compile(cell, "<bare>", "exec"), bare.__dict__)  # same code, own code objects
    return ip.user_ns, bare.__dict__


def interleaved_ratio(a: Any, b: Any, args: tuple, repeats: int,
                      block_s: float = 0.1) -> tuple[float, float]:
    """Median and IQR/2 of per-repeat time ratios a/b, A/B interleaved."""
    import torch
    from torch.utils.benchmark import Timer

    def timer(f):
        return Timer("f(*args)", globals={"f": f, "args": args},
                     num_threads=torch.get_num_threads())

    ta, tb = timer(a), timer(b)
    per_call = ta.blocked_autorange(min_run_time=0.2).median
    number = max(1, int(block_s / per_call))
    ratios = []
    for i in range(repeats):
        if i % 2:
            tb_ = tb.timeit(number).median
            ta_ = ta.timeit(number).median
        else:
            ta_ = ta.timeit(number).median
            tb_ = tb.timeit(number).median
        ratios.append(ta_ / tb_)
    q1, q2, q3 = statistics.quantiles(ratios, n=4)
    return q2, (q3 - q1) / 2




def alternated_ratios(a: Any, b: Any, args: tuple, rounds: int = 21, calls: int = 3000
                      ) -> dict[str, tuple[float, float]]:
    """Per-round time ratios a/b over ``rounds`` rounds of ``calls`` calls each, A and B
    alternated (ABBA): ``{"cpu": (median, IQR/2), "wall": (median, IQR/2)}``. CPU is the
    calling thread's CPU time (``time.thread_time``): what the calls cost this thread,
    whatever else the machine runs; wall is ``time.perf_counter``."""
    def run(f: Any) -> tuple[float, float]:
        cpu, wall = time.thread_time(), time.perf_counter()
        for _ in range(calls):
            f(*args)
        return time.thread_time() - cpu, time.perf_counter() - wall

    found: dict[str, list[float]] = {"cpu": [], "wall": []}
    for i in range(rounds):
        if i % 2:
            (bc, bw), (ac, aw) = run(b), run(a)
        else:
            (ac, aw), (bc, bw) = run(a), run(b)
        found["cpu"].append(ac / bc)
        found["wall"].append(aw / bw)
    out = {}
    for kind, ratios in found.items():
        q1, q2, q3 = statistics.quantiles(ratios, n=4)
        out[kind] = (q2, (q3 - q1) / 2)
    return out
