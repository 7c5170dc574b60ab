"""Compile once per machine: a kernel saves its compiled artifacts, a restarted kernel with
an empty Inductor cache loads them (only when asked) and compiles with cache hits."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import ROOT

KERNEL = """
import json, sys
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_line_magic("load_ext", "nbcompile")
cell = "import torch\\ndef carried(x):\\n    return torch.tanh(x) * 2 + torch.sigmoid(x)\\n"
if sys.argv[1] == "load":
    ip.run_line_magic("nbcompile", "cache load")
ip.run_cell_magic("compile", "", cell)
ip.run_cell("carried(torch.randn(16, 16))").raise_error()
if sys.argv[1] == "save":
    ip.run_line_magic("nbcompile", "cache save")
import nbcompile
rep = nbcompile.report(ip.user_ns["carried"])
print(json.dumps({"cache": [c.cache for c in rep.compiles]}))
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
    second, printed = _kernel("load", tmp_path, "empty")  # an empty cache directory
    assert "nbcompile: loaded" in printed and "hit the caches" in printed
    assert any(c.get("fx_graph_cache_hit") for c in second["cache"]), second
