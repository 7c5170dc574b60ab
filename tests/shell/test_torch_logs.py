"""torch's own log records about captured compiles go into the record, not to stderr;
``--torch-logs`` keeps them on stderr; other warnings pass through; unload restores
torch's logging exactly."""

from __future__ import annotations

import contextlib
import io
import logging
import re
import sys

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


def test_compiles_after_a_dynamo_reset_are_the_new_frames(ip):
    """``torch._dynamo.reset()`` restarts Dynamo's frame ids: each function below is frame
    0 in turn, and its compiles are its own. torch warns of a hit limit under the compile
    id it refused before that compile starts: the warning is the function's that hit it,
    not an earlier one's compile of that id; and a refused compile, which never started,
    is no part of a later function's real compile of that id."""
    def run(name: str, calls: int, limit: int = 8) -> tuple[list[str], list[str]]:
        ip.run_cell_magic("compile", "--no-dynamic", f"def {name}(x, k):\n    return x - k\n")
        run_cell(ip, "torch._dynamo.reset()\n"
                     f"with torch._dynamo.config.patch(recompile_limit={limit}):\n"
                     f"    for k in range({calls}):\n        {name}(torch.randn(2), k)")
        return compiles_and_limit_logs(name)

    def compiles_and_limit_logs(name: str) -> tuple[list[str], list[str]]:
        rep = nbcompile.report(ip.user_ns[name])
        return ([c.compile_id for c in rep.compiles],
                [log.compile_id for log in rep.torch_logs if LIMIT_WARNING in log.message])

    run_cell(ip, "import torch, torch._dynamo")
    assert run("tl_old", 3) == (["0/0", "0/1", "0/2"], [])
    assert run("tl_new", 3, limit=1) == (["0/0"], ["0/1"])  # refused 0/1: tl_old had one
    assert compiles_and_limit_logs("tl_old") == (["0/0", "0/1", "0/2"], [])
    assert run("tl_many", 7, limit=5) == ([f"0/{k}" for k in range(5)], ["0/5"])
    assert run("tl_again", 6) == ([f"0/{k}" for k in range(6)], [])  # its own 0/5
    assert compiles_and_limit_logs("tl_many")[0] == [f"0/{k}" for k in range(5)]


def test_logs_the_user_turned_on_reach_stderr(ip):
    """``set_logs(recompiles=True)`` after loading: torch's recompile lines for a target
    reach stderr whole, as for a plain ``torch.compile`` control; torch's default warning
    (the hit limit) is still folded into the record (the filter found the new handlers)."""
    from torch._logging._internal import set_logs  # what torch._logging.set_logs is

    before = [getattr(h, "stream", None) for name in ("torch", "torch._dynamo")
              for h in logging.getLogger(name).handlers]
    stream = io.StringIO()
    # torch's new handlers write to sys.stderr: the one they were made with (2.13), or
    # the one in force when they write (2.15's _StderrHandler)
    with contextlib.redirect_stderr(stream):
        set_logs(recompiles=True)
    try:
        with contextlib.redirect_stderr(stream):
            ip.run_cell_magic("compile", "--no-dynamic --backend eager",
                              "def tl_asked(x, k):\n    return x * k\n")
            run_cell(ip, "import torch._dynamo\n_saved = torch._dynamo.config.recompile_limit\n"
                         "torch._dynamo.config.recompile_limit = 2\n"
                         "tl_plain = torch.compile(lambda x, k: x * k, backend='eager',\n"
                         "                         dynamic=False)\n"
                         "try:\n    for k in range(3):\n        tl_asked(torch.randn(2), k)\n"
                         "        tl_plain(torch.randn(2), k)\n"
                         "finally:\n    torch._dynamo.config.recompile_limit = _saved")
    finally:
        with contextlib.redirect_stderr(next(filter(None, before), sys.__stderr__)):
            set_logs()
        run_cell(ip, "pass")  # the filter back on torch's default handlers
    printed = stream.getvalue()
    ours = re.findall(r"Recompiling function tl_asked in ", printed)
    theirs = re.findall(r"Recompiling function <lambda> in ", printed)
    assert len(ours) == len(theirs) == 2, printed
    assert len(re.findall(r"- \d+/1: k == 1 ", printed)) == 2, printed  # each guard, whole
    rep = nbcompile.report(ip.user_ns["tl_asked"])
    assert not [log for log in rep.torch_logs if "Recompiling" in log.message]
    # torch's default warning: the control's on stderr, the target's folded into its record
    assert "function: '<lambda>'" in printed and "function: 'tl_asked'" not in printed
    assert any(LIMIT_WARNING in log.message and "tl_asked" in log.message
               for log in rep.torch_logs), rep.torch_logs
