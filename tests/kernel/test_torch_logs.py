"""torch's own log records about captured compiles go into the record, not to stderr;
``--torch-logs`` keeps them on stderr; other warnings pass through; unload restores
torch's logging exactly (issue 13 part 3)."""

from __future__ import annotations

import logging
import re

import pytest

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.bundle import summary_html, summary_text

from .conftest import execute_notebook, make_notebook, outputs_of, run_cell

ITEM_WARNING = "capture_scalar_outputs"
LIMIT_WARNING = "recompile_limit"


def stderr_of(cell) -> str:
    return "".join(o.get("text", "") for o in outputs_of(cell)
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


@pytest.fixture(scope="module")
def executed():
    nb = make_notebook([
        "%load_ext nbcompile\nimport torch\ntorch._dynamo.config.recompile_limit = 1",
        "%%compile\ndef item_break(x):\n    y = x.sum().item()\n    return x * y",
        "r = item_break(torch.randn(4))",
        "%%compile --torch-logs --no-dynamic\ndef shown(x, k):\n    return x * k",
        "for k in range(3):\n    shown(torch.randn(3), k)",
        "%%compile --no-dynamic\ndef folded(x, k):\n    return x + k",
        "for k in range(3):\n    folded(torch.randn(3), k)",
        "import logging, warnings\nwarnings.warn('a user warning stays')\n"
        "logging.getLogger('torch._dynamo').warning('torch outside any compile stays')",
        "import nbcompile\n"
        "print([log.message for log in nbcompile.report(item_break).torch_logs])\n"
        "print([log.message for log in nbcompile.report(folded).torch_logs])\n"
        "print(len(nbcompile.report(shown).torch_logs))",
    ])
    return execute_notebook(nb, timeout=600).cells


def test_graph_break_warning_leaves_stderr_for_the_record(executed):
    assert ITEM_WARNING not in stderr_of(executed[2])
    printed = "".join(o.get("text", "") for o in outputs_of(executed[8]))
    first, second, third = printed.strip().splitlines()
    assert "Graph break from `Tensor.item()`" in first and ITEM_WARNING in first
    assert LIMIT_WARNING in second and "folded" in second
    assert third == "0"


def test_summary_shows_torch_logs_once_folded(executed):
    bundles = [o["data"] for o in outputs_of(executed[1]) if MIME_TYPE in o.get("data", {})]
    assert bundles, outputs_of(executed[1])
    text, html = bundles[-1]["text/plain"], bundles[-1]["text/html"]
    record = bundles[-1][MIME_TYPE]["targets"][0]
    messages = [log["message"] for log in record["torch_logs"]]
    # the .item() warning; a CUDA build of torch on this CPU also logs "No CUDA runtime"
    assert [m for m in messages if "No CUDA runtime" not in m] == [
        next(m for m in messages if ITEM_WARNING in m)]
    said = f"torch logged {len(messages)} message" + ("s" if len(messages) > 1 else "")
    assert re.findall(r"torch logged \d+ messages?", text) == [said]
    assert f"<details><summary>{said}" in html and ITEM_WARNING in html


def test_torch_logs_flag_keeps_torch_output(executed):
    assert LIMIT_WARNING in stderr_of(executed[4])
    assert LIMIT_WARNING not in stderr_of(executed[6])


def test_other_warnings_pass_through(executed):
    err = stderr_of(executed[7])
    assert "a user warning stays" in err and "torch outside any compile stays" in err


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
