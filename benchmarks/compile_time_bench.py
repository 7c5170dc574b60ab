"""13. ``nbcompile.compile_time`` on models of 12 identical blocks (small residual blocks,
and GPT-2-style transformer blocks), every number from fresh processes: regional vs
whole-model cold compile, the first call after a restart with the portable cache and with
a precompiled function (both into empty cache directories) and with a warm Inductor cache,
all vs cold; what each layer costs (read from the same runs); and ``compile_time()``'s wall
time against the sum of the fresh-process runs it reports (its accounting).

``python -m benchmarks --only 13``
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def _models() -> list[tuple[str, Callable[[], Any], tuple[int, ...]]]:
    from tests.support.compile_models import stack, transformer

    return [("12 small residual blocks", lambda: stack(12), (4, 8)),
            ("12 transformer blocks", lambda: transformer(12), (2, 32, 64))]


def _s(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f} s"


def bench_compile_time() -> list[dict]:
    rows: list[dict] = []
    for label, make, shape in _models():
        rows += _bench_one(label, make, shape)
    return rows


def _bench_one(label: str, make: Callable[[], Any], shape: tuple[int, ...]) -> list[dict]:
    import torch

    from nbcompile.core.compiletime.compile_time import compile_time

    model = make()
    x = torch.randn(*shape)
    started = time.perf_counter()
    ct = compile_time(model, x, remedies=("regional", "portable_cache", "precompiled"))
    wall = time.perf_counter() - started
    rows: list[dict] = []
    cold = ct.cold_s or float("nan")

    def row(name: str, value: float | None, target: str, ok: bool, detail: str) -> None:
        rows.append({"name": f"13. {label}: {name}",
                     "value": float("nan") if value is None else value,
                     "target": target, "ok": ok, "detail": detail})

    phases = ", ".join(f"{k} {v:.2f} s" for k, v in ct.where.phases.items() if v >= 0.01)
    outside = cold - ct.where.total_s if ct.cold_s else None
    row("cold first call: compile / whole", ct.where.total_s / cold if ct.cold_s else None,
        "(reported)", ct.cold_s is not None,
        f"cold {_s(ct.cold_s)}: torch's frame compiles {_s(ct.where.total_s)} ({phases}); "
        f"the rest of the first call {_s(outside)} (the run itself, lazy initialisation)")
    regional = ct.remedy("regional")
    ratio = regional.cold_s / cold if regional and regional.cold_s else None
    row("regional / whole-model cold compile", ratio, "<= 0.3",
        ratio is not None and ratio <= 0.3,
        f"cold {cold:.2f} s; regional ({regional.status if regional else '-'}): "
        f"{regional.note if regional else '-'}")
    warm = ct.warm_restart_s / cold if ct.warm_restart_s else None
    row("warm Inductor cache restart / cold", warm, "(reported)", warm is not None,
        f"restart {_s(ct.warm_restart_s)}")
    portable = ct.remedy("portable_cache")
    port_s = portable.restart_s if portable else None
    ratio = port_s / cold if port_s else None
    builds = (f"; the kernels' builds (portable - warm restart, the same cache hits) "
              f"{_s(port_s - ct.warm_restart_s)}" if port_s and ct.warm_restart_s else "")
    row("portable cache restart (empty dirs) / cold", ratio, "(reported)",
        ratio is not None, (portable.note if portable else "") + builds)
    pre = ct.remedy("precompiled")
    pre_s = pre.restart_s if pre else None
    ratio = pre_s / cold if pre_s else None
    tracing = (f"; Dynamo and the cache lookups it skips (portable - precompiled) "
               f"{_s(port_s - pre_s)}" if port_s and pre_s else "")
    row("precompiled (fullgraph) restart (empty dirs) / cold", ratio, "<= 0.10",
        ratio is not None and ratio <= 0.10,
        (f"{pre.status}: {pre.note}" if pre else "") + tracing)
    runs = sum(r.wall_s for r in ct.runs)
    row("compile_time() wall / sum of its fresh-process runs", wall / runs if runs else None,
        "<= 1.10", bool(runs) and wall / runs <= 1.10,
        f"{len(ct.runs)} runs, {runs:.1f} s of {wall:.1f} s")
    return rows
