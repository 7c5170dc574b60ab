"""Issue 15 part 6: nbcompile's plumbing never shows in what the user reads."""

from __future__ import annotations

import nbcompile

from .conftest import run_cell

CELL = '''import torch
bn_model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8))
'''


def test_recompile_reason_names_the_users_module(ip):
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "_x = torch.randn(4, 8)\n_ = bn_model(_x)\nbn_model.eval()\n_ = bn_model(_x)")
    report = nbcompile.report(ip.user_ns["bn_model"])
    assert report.recompiles, "switching to eval mode must recompile"
    reason = report.recompiles[-1].reason
    assert "bn_model[1].training changed" in reason, reason
    assert "eval()" in reason, reason
    for plumbing in ("__nbcompile_call__", "L['self']", "_modules", "argument self"):
        assert plumbing not in reason, reason
