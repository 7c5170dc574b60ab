"""Opening TORCH_TRACE runs: real torchrun (gloo, 2 ranks) and script traces, bad input,
the ``%nbcompile open`` magic and ``python -m nbcompile open``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import nbcompile
from tests.support import ROOT


def test_command_line(runs, tmp_path):
    out_json, out_html = tmp_path / "trace.json", tmp_path / "trace.html"
    cmd = [sys.executable, "-m", "nbcompile", "open", str(runs("ddp_divergent")),
           "--json", str(out_json), "--html", str(out_html)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True)
    assert "ranks: 0, 1" in done.stdout and "DIVERGENCE compile_ids" in done.stdout
    record = json.loads(out_json.read_text())
    assert record["record"] == "trace" and record["schema_version"] == nbcompile.SCHEMA_VERSION
    assert [c["compile_id"] for c in record["compiles"]] == ["0/0", "0/0", "0/1"]
    page = out_html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert "rank 1" in page

    missing = subprocess.run([sys.executable, "-m", "nbcompile", "open", str(tmp_path / "nope")],
                             capture_output=True, text=True, cwd=ROOT)
    assert missing.returncode == 2
    assert "no such trace file or directory" in missing.stderr


def test_reading_a_trace_imports_no_torch(tmp_path):
    """``python -m nbcompile open`` and ``nbcompile.open_trace`` read logs without torch
    (hundreds of MB and seconds before the first byte; tlparse needs none either)."""
    log = tmp_path / "dedicated_log_torch_trace_rank_0_a.log"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "traces" / "graph_break.log", log)
    out = tmp_path / "trace.json"
    code = ("import runpy, sys\n"
            "path, out = sys.argv[1:]\n"
            "sys.argv = ['nbcompile', 'open', path, '--json', out]\n"
            "try:\n"
            "    runpy.run_module('nbcompile', run_name='__main__', alter_sys=True)\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "after_cli = 'torch' in sys.modules\n"
            "import nbcompile\n"
            "report = nbcompile.open_trace(path)\n"
            "print(after_cli, 'torch' in sys.modules, len(report.compiles))\n")
    done = subprocess.run([sys.executable, "-c", code, str(log), str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-3:] == ["False", "False", "3"], done.stdout
    assert json.loads(out.read_text())["compiles"]
