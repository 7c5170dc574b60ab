"""Compile once per machine: a kernel saves its compiled artifacts, a restarted kernel with
an empty Inductor cache loads them (only when asked) and compiles with cache hits, its C++
kernels placed as built (not built again)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import ROOT

KERNEL = """
import json, os, sys
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_line_magic("load_ext", "nbcompile")
cell = "import torch\\ndef carried(x):\\n    return torch.tanh(x) * 2 + torch.sigmoid(x)\\n"
PLACED = {}
if sys.argv[1] == "load":
    ip.run_line_magic("nbcompile", "cache load")
    from pathlib import Path
    PLACED = {str(p): p.stat().st_mtime_ns for p in Path(os.environ[
        "TORCHINDUCTOR_CACHE_DIR"]).glob("*/*.main.so")}
ip.run_cell_magic("compile", "", cell)
ip.run_cell("carried(torch.randn(16, 16))").raise_error()
if sys.argv[1] == "save":
    ip.run_line_magic("nbcompile", "cache save")
import nbcompile
from nbcompile.core import torch_compat
rep = nbcompile.report(ip.user_ns["carried"])
libs = {p: os.stat(p).st_mtime_ns for p in torch_compat.built_cpp_kernels()}
print(json.dumps({"cache": [c.cache for c in rep.compiles], "libs": libs,
                  "placed_at": PLACED}))
"""


def _kernel(step: str, tmp_path, cache_dir: str) -> tuple[dict, str]:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / cache_dir),
           "XDG_CACHE_HOME": str(tmp_path / "home"), "JPY_SESSION_NAME": "/nb/carry.ipynb"}
    out = subprocess.run([sys.executable, "-c", KERNEL, step], env=env, capture_output=True,
                         text=True, timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stdout


def test_a_restarted_kernel_loads_saved_artifacts_and_hits_the_caches(tmp_path):
    os.chmod(tmp_path, 0o700)
    first, printed = _kernel("save", tmp_path, "cold")
    assert "nbcompile: saved" in printed and "carry-" in printed
    assert any(c.get("fx_graph_cache_miss") for c in first["cache"])
    assert first["libs"] and "built C++ kernel" in printed
    second, printed = _kernel("load", tmp_path, "empty")  # an empty cache directory
    assert "nbcompile: loaded" in printed and "hit the caches" in printed
    assert any(c.get("fx_graph_cache_hit") for c in second["cache"]), second
    # the kernels the call loaded are the ones the load placed, untouched: none was built
    kernels = len(first["libs"])
    assert f"{kernels} built C++ kernel{'' if kernels == 1 else 's'}" in printed
    assert second["libs"] and second["libs"] == {
        p: t for p, t in second["placed_at"].items() if p in second["libs"]}
