"""Why is it slower: explanations from real profiles of workloads built to
show each cause (tiny op -> overhead, one big matmul -> extern, a print in the step a
loop calls -> graph breaks), and ``compare`` attaching them to a mode not faster than eager."""

from __future__ import annotations

from nbcompile.core.perf import explain
from tests.support.shell import run_cell


def test_compare_magic_explains_a_mode_not_faster(ip):
    run_cell(ip, "import torch\nx_tiny = torch.randn(8)\n"
                 "def add_one(x):\n    return x + 1.0\n")
    run_cell(ip, "res_tiny = %compare add_one(x_tiny) --modes eager,default --budget 3")
    res = ip.user_ns["res_tiny"]
    row = res.row("default")
    # ~7 us of Dynamo overhead around one tiny add: "slower" unless the machine is too
    # loaded for a verdict ("inconclusive": then nothing is explained)
    assert bool(row.explanations) == (row.verdict in explain.NOT_FASTER), row
    assert res.row("eager").explanations == []
    if row.explanations:
        assert "why not faster" in res._repr_mimebundle_()["text/plain"]
