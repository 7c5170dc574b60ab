"""Compile once per machine: a kernel saves its compiled artifacts, a restarted kernel with
an empty Inductor cache loads them (only when asked) and compiles with cache hits, its C++
kernels placed as built (not built again); the same file cut short is refused in one line,
nothing loaded."""

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
TRUNCATED, LEFT = "", []
if sys.argv[1] == "load":
    from pathlib import Path
    from IPython.core.error import UsageError
    from nbcompile.core.compiletime import artifacts
    saved = artifacts.default_path()[0]
    good = saved.read_bytes()
    saved.write_bytes(good[: len(good) * 2 // 3])  # cut short, as by a full disk
    try:
        ip.run_line_magic("nbcompile", "cache load")
    except UsageError as e:
        TRUNCATED = str(e)
    LEFT = [str(p) for p in Path(os.environ["TORCHINDUCTOR_CACHE_DIR"]).rglob("*")
            if p.is_file() and ("fxgraph" in p.parts or "aotautograd" in p.parts
                                or p.suffix == ".so")]
    saved.write_bytes(good)
    ip.run_line_magic("nbcompile", "cache load")
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
                  "placed_at": PLACED, "truncated": TRUNCATED, "left": LEFT}), flush=True)
sys.stderr.flush()
os._exit(0)  # no interpreter teardown (~1.2 s with torch loaded): the result is printed
"""


def _kernel(step: str, tmp_path, cache_dir: str) -> tuple[dict, str, str]:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / cache_dir),
           "XDG_CACHE_HOME": str(tmp_path / "home"), "JPY_SESSION_NAME": "/nb/carry.ipynb"}
    out = subprocess.run([sys.executable, "-c", KERNEL, step], env=env, capture_output=True,
                         text=True, timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stdout, out.stderr


def test_a_restarted_kernel_loads_saved_artifacts_and_hits_the_caches(tmp_path):
    os.chmod(tmp_path, 0o700)
    first, printed, _ = _kernel("save", tmp_path, "cold")
    assert "nbcompile: saved" in printed and "carry-" in printed
    assert any(c.get("fx_graph_cache_miss") for c in first["cache"])
    assert first["libs"] and "built C++ kernel" in printed
    second, printed, errors = _kernel("load", tmp_path, "empty")  # an empty cache directory
    # the file cut short: torch's checksum refuses it; one line, nothing loaded or placed
    assert second["truncated"].startswith("%nbcompile cache load: not loaded: torch could "
                                          "not read ")
    assert "truncated or damaged" in second["truncated"] and "\n" not in second["truncated"]
    assert second["left"] == []
    assert "un-pickle" not in errors and "compiler/_cache.py" not in errors  # torch warns
    # the intact file: loaded, and torch's own counters show the compile hitting the cache
    assert "nbcompile: loaded" in printed and "nbcompile: loaded 0 " not in printed
    assert any(c.get("fx_graph_cache_hit") for c in second["cache"]), second
    # the kernels the call loaded are the ones the load placed, untouched: none was built
    kernels = len(first["libs"])
    assert f"{kernels} built C++ kernel{'' if kernels == 1 else 's'}" in printed
    assert second["libs"] and second["libs"] == {
        p: t for p, t in second["placed_at"].items() if p in second["libs"]}
