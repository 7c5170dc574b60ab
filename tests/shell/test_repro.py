"""``%repro`` / ``nbcompile.repro``: a standalone script of a target's graph breaks (in a
helper from another cell) or its recompile (on a global), run in a fresh process whose
torch record decides whether it reproduced; a report and the fresh run's trace beside it;
nothing of the notebook's unrelated names or environment carried; no file overwritten."""

from __future__ import annotations

import ast
import sys

import pytest
from IPython.core.error import UsageError

import nbcompile
from tests.support.shell import run_cell


def _imports(path: str) -> set[str]:
    tree = ast.parse(open(path).read())
    return {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
            for a in n.names} | {(n.module or "").split(".")[0] for n in ast.walk(tree)
                                 if isinstance(n, ast.ImportFrom)}


def test_a_break_in_a_helper_of_another_cell_reproduces_in_a_fresh_process(
        ip, tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SECRET_TOKEN", "s3cr3t")
    run_cell(ip, "import torch\nUNRELATED_NAME = 'not needed'\nSCALE = 3")
    run_cell(ip, 'def rp_helper(x):\n    print("a break")\n    return x.cos()')
    run_cell(ip, "%%compile --backend eager\ndef rp_fn(x):\n    return rp_helper(x.sin()) * SCALE")
    run_cell(ip, "rp_fn(torch.randn(4, 3)[:, 0].unsqueeze(1))")
    where = tmp_path / "bug"
    r = ip.run_line_magic("repro", f"rp_fn(torch.randn(6, 2).t()) --dir {where} --no-env")
    assert isinstance(r, nbcompile.Repro)
    assert r.kind == "graph_breaks" and r.reproduced, (r.differs, r.seen)
    # torch's record in the fresh process: its counters, and the line its own trace holds
    assert r.seen["types"] == ["Failed to trace builtin operator"]
    assert r.seen["lines"] == ['print("a break")']
    text = open(r.path).read()
    assert _imports(r.path) <= {"json", "sys", "torch"}
    assert "def rp_helper" in text and "SCALE = 3" in text
    assert "UNRELATED_NAME" not in text and "s3cr3t" not in text
    # the call's input: its shape, dtype and strides (a transposed view)
    assert "torch.randn((12,), dtype=torch.float32).as_strided((2, 6), (1, 2))" in text
    assert nbcompile.open_trace(r.trace_dir).compiles
    report = open(r.report_path).read()
    assert f"torch {__import__('torch').__version__}" in report and r.trace_dir in report
    assert "reproduced" in repr(r) and r.to_dict()["reproduced"] is True
    # never over existing files
    with pytest.raises(UsageError, match="not an empty folder"):
        ip.run_line_magic("repro", f"rp_fn(torch.randn(3)) --dir {where}")


def test_a_recompile_on_a_global_reproduces_and_its_absence_is_told(ip, tmp_path):
    run_cell(ip, "import torch\nRP_K = 1")
    run_cell(ip, "%%compile --backend eager\ndef rp_g(x):\n    return x * RP_K + 1")
    run_cell(ip, "rp_g(torch.randn(5))\nRP_K = 2\nrp_g(torch.randn(5))")
    r = nbcompile.repro(ip.user_ns["rp_g"], ip.user_ns["torch"].randn(5),
                        folder=tmp_path / "rc", collect_env=False)
    assert r.kind == "recompile" and r.reproduced, (r.differs, r.seen)
    assert any("G['RP_K'] == 1" in g for g in r.seen["guards"])
    assert "RP_K, RP_K_now = 1, RP_K" in open(r.path).read()
    # the script's own check fails, in words, where torch records no such recompile
    script = tmp_path / "rc" / "repro.py"
    edited = tmp_path / "edited.py"
    edited.write_text(script.read_text().replace("RP_K, RP_K_now = 1, RP_K",
                                                 "RP_K_now = RP_K"))
    import subprocess

    done = subprocess.run([sys.executable, str(edited)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "did not reproduce" in done.stderr


def test_nothing_to_reproduce_is_said_and_nothing_written(ip, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_cell(ip, "import torch")
    run_cell(ip, "%%compile --backend eager\ndef rp_ok(x):\n    return x + 1")
    with pytest.raises(UsageError, match="nothing to reproduce"):
        ip.run_line_magic("repro", "rp_ok(torch.randn(3))")
    with pytest.raises(UsageError, match="no record of"):
        ip.run_line_magic("repro", "print(1)")
    assert list(tmp_path.iterdir()) == []
