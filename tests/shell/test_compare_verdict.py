"""Verdicts that hold under load: the rule is a pure function over
paired per-repeat speedups, tested on synthetic samples; the magic shows it."""

from __future__ import annotations

from nbcompile.core.perf.verdict import (
    INCONCLUSIVE,
    MIN_VERDICT_REPEATS,
)
from tests.support.shell import run_cell


def test_a_tiny_budget_says_inconclusive_in_the_row(ip):
    run_cell(ip, "import torch\ndef verdict_chain(x):\n"
                 "    for _ in range(4):\n        x = torch.sin(x) * 1.1 + torch.cos(x)\n"
                 "    return x\nverdict_x = torch.randn(256, 256)")
    run_cell(ip, "verdict_r = %compare verdict_chain(verdict_x) --modes default --budget 0.01")
    row = ip.user_ns["verdict_r"].row("default")
    assert row.repeats < MIN_VERDICT_REPEATS
    assert row.verdict == INCONCLUSIVE and not row.significant
    assert row.speedup_ci_low is not None and row.speedup_ci_high is not None
    assert any("inconclusive on this machine now" in n for n in row.notes)
    assert "inconclusive on this machine now" in repr(ip.user_ns["verdict_r"])
