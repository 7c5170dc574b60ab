"""torch's own log records about captured compiles go into the record, not to stderr;
``--torch-logs`` keeps them on stderr; other warnings pass through; unload restores
torch's logging exactly."""

from __future__ import annotations

import logging
import re

import nbcompile
from nbcompile.display.bundle import summary_html, summary_text
from tests.support.shell import run_cell

LIMIT_WARNING = "recompile_limit"


def filter_state() -> dict:
    """Every torch logger's handlers, their filters, levels and propagation."""
    state = {}
    for name, lg in sorted(logging.Logger.manager.loggerDict.items()):
        if isinstance(lg, logging.Logger) and name.startswith("torch"):
            state[name] = (lg.level, lg.propagate, list(lg.filters),
                           [(h, list(h.filters), h.level) for h in lg.handlers])
    return state


def test_unload_restores_torch_logging_exactly(ip):
    ip.run_line_magic("unload_ext", "nbcompile")
    try:
        before = filter_state()
        ip.run_line_magic("load_ext", "nbcompile")
        loaded = filter_state()
        assert loaded != before  # a filter sits on torch's handlers while loaded
        ip.run_line_magic("unload_ext", "nbcompile")
        assert filter_state() == before
    finally:
        ip.run_line_magic("load_ext", "nbcompile")


def test_record_and_summary_in_process(ip):
    ip.run_cell_magic("compile", "",
                      "import torch\ndef tl_item(x):\n    return x * x.max().item()\n")
    # the Tensor.item() warning is logged once per process; a recompile-limit one is not
    ip.run_cell_magic("compile", "--no-dynamic", "def tl_limit(x, k):\n    return x - k\n")
    run_cell(ip, "import torch._dynamo\n_saved = torch._dynamo.config.recompile_limit\n"
                 "torch._dynamo.config.recompile_limit = 1\n"
                 "try:\n    for k in range(3):\n        tl_limit(torch.randn(2), k)\n"
                 "finally:\n    torch._dynamo.config.recompile_limit = _saved")
    rep = nbcompile.report(ip.user_ns["tl_limit"])
    # a CUDA build of torch on this CPU also logs "No CUDA runtime" at its first C++ build
    [log] = [log for log in rep.torch_logs if "No CUDA runtime" not in log.message]
    assert LIMIT_WARNING in log.message and log.logger.startswith("torch._dynamo")
    assert log.compile_id.startswith(rep.compiles[0].compile_id[0])
    text = summary_text([rep])
    n = len(rep.torch_logs)
    assert re.findall(r"torch logged \d+ messages?", text) == [
        f"torch logged {n} message" + ("s" if n > 1 else "")]
    assert len([line for line in text.splitlines() if "torch logged" in line]) == 1
    assert "<details>" in summary_html([rep])
