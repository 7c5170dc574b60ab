"""Issue 15 part 4: statuses that are true (real IPython shell, real compiles)."""

from __future__ import annotations

import nbcompile

from .conftest import run_cell

DECORATED = '''import torch
@torch.compile
def deco_sin(x):
    return torch.sin(x) + 1
'''


def test_function_decorated_with_torch_compile_in_the_cell_keeps_a_record(ip):
    ip.run_cell_magic("compile", "", DECORATED)
    run_cell(ip, "_d = deco_sin(torch.randn(6))")
    report = nbcompile.report(ip.user_ns["deco_sin"])
    assert report.graph_count >= 1
    assert report.to_dict()["status"] == "compiled"
    assert any("already compiled with torch.compile" in n for n in report.to_dict()["notes"])
