"""Overwritten CUDA-graph outputs in a real IPython shell, on a CPU: torch's error (its own
text, from ``CUDAGraphTreeManager.format_dealloc_msg``) is explained above its traceback,
and a ``reduce-overhead`` target on a CPU starts no watch (nothing is read after a cell).
On a GPU, ``tests/gpu/test_hazard_gpu.py`` checks the whole path against torch."""

from __future__ import annotations

import torch

from nbcompile.core.notebook.cudagraphs.hazard import get_watch
from tests.support.shell import run_cell


def test_torchs_error_is_explained_above_its_traceback(ip, capsys):
    run_cell(ip, "from torch._inductor.cudagraph_trees import CUDAGraphTreeManager as _M\n"
                 "hz_text = _M.format_dealloc_msg("
                 "'  File \"<ipython-input-3-5f1a>\", line 2, in gk\\n    y = x.relu()\\n')")
    capsys.readouterr()
    result = ip.run_cell("raise RuntimeError(hz_text)")
    assert type(result.error_in_exec) is RuntimeError
    shown = capsys.readouterr().out
    assert "nbcompile: this tensor is a CUDA-graph output that a later call" in shown, shown
    assert "It was produced in `gk`" in shown and ".clone()" in shown
    assert "overwritten by a subsequent run" in shown  # torch's own error follows
    # any other RuntimeError is shown as before
    result = ip.run_cell("raise RuntimeError('something else')")
    assert "nbcompile: this tensor" not in capsys.readouterr().out


def test_no_watch_on_a_cpu(ip, capsys):
    if torch.cuda.is_available():
        return
    ip.run_cell_magic("compile", "--mode reduce-overhead", "def hz_f(x):\n    return x + 1\n")
    run_cell(ip, "import torch\nhz_y1 = hz_f(torch.ones(3))\nhz_y2 = hz_f(torch.ones(3))")
    watch = get_watch()
    assert not watch.reports and not watch.ledger._bound
