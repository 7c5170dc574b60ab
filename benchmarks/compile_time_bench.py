"""13. ``nbcompile.compile_time`` on a model of 12 identical blocks, every number from
fresh processes: regional vs whole-model cold compile, the first call after a restart with
the portable cache and with a precompiled function (both into empty cache directories)
and with a warm Inductor cache, all vs cold; and ``compile_time()``'s wall time against
the sum of the fresh-process runs it reports (its accounting).

``python -m benchmarks --only 13``
"""

from __future__ import annotations

import time


def bench_compile_time(depth: int = 12) -> list[dict]:
    import torch

    from nbcompile.core.compiletime.measure import compile_time
    from tests.support.compile_models import stack

    model = stack(depth)
    x = torch.randn(4, 8)
    started = time.perf_counter()
    ct = compile_time(model, x, remedies=("regional", "portable_cache", "precompiled"))
    wall = time.perf_counter() - started
    rows: list[dict] = []
    cold = ct.cold_s or float("nan")

    def row(name: str, value: float | None, target: str, ok: bool, detail: str) -> None:
        rows.append({"name": name, "value": float("nan") if value is None else value,
                     "target": target, "ok": ok, "detail": detail})

    regional = ct.remedy("regional")
    ratio = regional.cold_s / cold if regional and regional.cold_s else None
    row(f"13. regional / whole-model cold compile, {depth} blocks", ratio, "<= 0.3",
        ratio is not None and ratio <= 0.3,
        f"cold {cold:.2f} s; regional: {regional.note if regional else '-'}")
    warm = ct.warm_restart_s / cold if ct.warm_restart_s else None
    row("13. warm Inductor cache restart / cold", warm, "(reported)", warm is not None,
        f"restart {ct.warm_restart_s} s")
    portable = ct.remedy("portable_cache")
    ratio = portable.restart_s / cold if portable and portable.restart_s else None
    row("13. portable cache restart (empty dirs) / cold", ratio, "(reported)",
        ratio is not None, portable.note if portable else "")
    pre = ct.remedy("precompiled")
    ratio = pre.restart_s / cold if pre and pre.restart_s else None
    row("13. precompiled (fullgraph) restart (empty dirs) / cold", ratio, "<= 0.10",
        ratio is not None and ratio <= 0.10, f"{pre.status}: {pre.note}" if pre else "")
    runs = sum(r.wall_s for r in ct.runs)
    row("13. compile_time() wall / sum of its fresh-process runs", wall / runs if runs else None,
        "<= 1.10", bool(runs) and wall / runs <= 1.10,
        f"{len(ct.runs)} runs, {runs:.1f} s of {wall:.1f} s")
    return rows
