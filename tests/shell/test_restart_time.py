"""The tracing a graph break threw away: each compile's ``restart_s`` is torch's own
``dynamo_time_before_restart_s`` of that compile (its compilation metrics), set exactly where
torch lists ``restart_reasons`` and absent everywhere else."""

from __future__ import annotations

import torch

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.report_html import report_bundle
from tests.support.shell import run_cell


def test_restart_seconds_are_torchs_own_for_each_compile(ip):
    run_cell(ip, "import torch")
    run_cell(ip, "%%compile\ndef restart_f(x):\n    y = x.sin()\n    print('debug')\n"
                 "    return y.cos()\n")
    run_cell(ip, "_ = restart_f(torch.ones(4))")
    report = nbcompile.report(ip.user_ns["restart_f"])
    metrics = {str(m.compile_id): m for m in torch._dynamo.utils.get_compilation_metrics()}
    assert len(report.compiles) == 2  # the function, then its resume function
    restarted = 0
    for c in report.compiles:
        torchs = metrics[c.compile_id]
        if torchs.restart_reasons:  # the frame the print broke: traced, then started over
            restarted += 1
            assert c.restart_s == torchs.dynamo_time_before_restart_s
            assert c.restart_s is not None and c.restart_s > 0
        else:
            assert c.restart_s is None
    assert restarted == 1
    published = report_bundle(report)[MIME_TYPE]["targets"][0]["compiles"]
    assert [p.get("restart_s") for p in published] == [c.restart_s for c in report.compiles]
