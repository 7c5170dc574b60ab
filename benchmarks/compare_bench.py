"""4 and 6: ``nbcompile.compare()``'s estimate against an independent
``torch.utils.benchmark`` run, and its verdicts on a fused pointwise chain (faster) and a
single matmul (no significant difference)."""

from __future__ import annotations

import statistics

import torch


def pointwise_chain(x):
    """Six fused sin/cos steps: Inductor's case (one kernel where eager runs 24 ops)."""
    for _ in range(6):
        x = torch.sin(x) * 1.5 + torch.cos(x)
    return torch.relu(x)

# --- 4. compare() vs an independent measurement --------------------------------------------


def bench_compare_accuracy(budget: float) -> list[dict]:
    from torch.utils.benchmark import Timer

    from nbcompile import compare
    from nbcompile.core.runs.copies import fresh_copy
    from nbcompile.core.trace.listener import suppressed

    chain = pointwise_chain
    x = torch.randn(256, 1024)
    ratios = []
    for _ in range(3):
        c = compare(chain, x, modes=("default",), budget_s=budget)
        est = c.row("default").median_s
        with suppressed():
            independent = torch.compile(fresh_copy(chain))
            independent(x)
            m = Timer("f(x)", globals={"f": independent, "x": x},
                      num_threads=torch.get_num_threads()).blocked_autorange(min_run_time=budget)
        ratios.append(est / m.median)
    ratio = statistics.median(ratios)
    return [{"name": "4. compare() estimate / independent Timer.blocked_autorange",
             "value": ratio, "spread": None, "target": "within 5% (0.95-1.05)",
             "ok": abs(ratio - 1) <= 0.05,
             "detail": "runs: " + ", ".join(f"{r:.3f}" for r in ratios)}]


# --- 6. compare() verdicts -----------------------------------------------------------------


def bench_compare_verdicts(budget: float) -> list[dict]:
    """The speed claims tests/core/perf/test_timing.py cannot make on a loaded machine."""
    from nbcompile import compare

    w = torch.randn(768, 768)

    def single_matmul(a):
        return a @ w

    chain = compare(pointwise_chain, torch.randn(256, 1024), modes=("default",),
                    budget_s=budget).row("default")
    matmul = compare(single_matmul, torch.randn(768, 768), modes=("default",),
                     budget_s=budget).row("default")

    def spread(row) -> float | None:
        if row.speedup_q1 is None or row.speedup_q3 is None:
            return None
        return (row.speedup_q3 - row.speedup_q1) / 2

    return [
        {"name": "6a. compare(): pointwise chain, default / eager speedup",
         "value": chain.speedup or 0.0, "spread": spread(chain),
         "target": "> 1.5, verdict faster",
         "ok": (chain.speedup or 0.0) > 1.5 and chain.verdict == "faster",
         "detail": f"verdict: {chain.verdict}; {chain.repeats} repeats"},
        {"name": "6b. compare(): single matmul, default / eager speedup",
         "value": matmul.speedup or 0.0, "spread": spread(matmul),
         "target": "no significant diff.",
         "ok": matmul.verdict == "no significant difference",
         "detail": f"verdict: {matmul.verdict}; {matmul.repeats} repeats"},
    ]
