"""An FX-graph cache hit replays the kernel-to-line provenance of the compile that filled
the cache, whose cell file belonged to another process: the lines must still land on the
cell of this kernel. Both processes are fresh kernels (a test process's state, left by the
tests before it, would make its cache key its own)."""

from __future__ import annotations

from tests.support.kernel import execute_notebook, make_notebook

CELL = '''%%compile
def ripple_7f4(x):
    y = torch.sin(x) * 2.5 + torch.cos(x)
    return torch.tanh(y) * 0.5
'''
CALL = "ripple_7f4(torch.randn(64, 64))"


def test_kernel_lines_after_a_cache_hit_filled_by_another_process():
    def run() -> str:
        nb = make_notebook([
            "%load_ext nbcompile\nimport torch, nbcompile",
            CELL,
            CALL + "\nr = nbcompile.report(ripple_7f4)\n"
            "k = next(k for k in r.kernels if k.kind == 'kernel')\n"
            "print('cache', r.compiles[0].cache)\n"
            "print('same-file', {sl.filename for sl in k.lines} == {r.compiles[0].filename})\n"
            "print('lines', [a.lineno for a in r.annotate().by_category('kernel')])",
        ])
        execute_notebook(nb)
        return "".join(o.get("text", "") for o in nb.cells[2].outputs)

    first = run()  # fills the FX cache with its own /tmp/ipykernel_<pid>/ cell file
    assert "lines [3, 4]" in first, first
    text = run()  # another process: served from the cache the first one filled
    assert "fx_graph_cache_hit" in text, text  # the case under test: a replayed compile
    assert "same-file True" in text, text
    assert "lines [3, 4]" in text, text
