"""The persistent compile cache: safe per-user directory, lazy env, warm restarts."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap

from nbcompile.core.notebook import cache
from tests.support import ROOT

LAZY = textwrap.dedent("""
    import os, sys, torch
    from nbcompile.core.notebook import cache
    def f(x):
        return torch.sin(x) + 1
    torch.compile(f)(torch.randn(8))          # Inductor used: its cache dir is now fixed?
    new = cache.use_dir(sys.argv[1])
    def g(x):
        return torch.cos(x) * 3
    torch.compile(g)(torch.randn(8))
    print(sorted(os.listdir(new)), flush=True)
    sys.stderr.flush()
    os._exit(0)  # no interpreter teardown (~1.2 s with torch loaded): the result is printed
""")


def test_inductor_reads_the_dir_lazily(tmp_path):
    """Setting the directory after import torch and after a compile takes effect."""
    env = {**os.environ, cache.ENV: str(tmp_path / "first")}
    out = subprocess.run([sys.executable, "-c", LAZY, str(tmp_path / "second")], env=env,
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    listed = out.stdout.strip().splitlines()[-1]
    assert "fxgraph" in listed and "aotautograd" in listed
    assert list((tmp_path / "second" / "fxgraph").rglob("*"))


RESTART = """
import json, os, sys
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_line_magic("load_ext", "nbcompile")
cell = "import torch\\ndef warm_me(x):\\n    return torch.tanh(x) * 2 + torch.sigmoid(x)\\n"
ip.run_cell_magic("compile", "", cell)
ip.run_cell("warm_me(torch.randn(16, 16))").raise_error()
import nbcompile
from nbcompile.display.bundle import summary_text
rep = nbcompile.report(ip.user_ns["warm_me"])
print(json.dumps({"dir": os.environ["TORCHINDUCTOR_CACHE_DIR"],
                  "cache": [c.cache for c in rep.compiles],
                  "text": summary_text([rep])}), flush=True)
sys.stderr.flush()
os._exit(0)  # no interpreter teardown (~1.2 s with torch loaded): the result is printed
"""


def test_restarted_kernel_compiles_warm_from_the_default_dir(tmp_path):
    """Two fresh processes with nbcompile's default dir: the second is served from disk,
    and the report says so."""
    env = {k: v for k, v in os.environ.items() if k != cache.ENV}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", RESTART], env=env, capture_output=True,
                             text=True, timeout=600, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    assert cold["dir"] == warm["dir"] == str(tmp_path / "nbcompile" / "inductor")
    assert cold["cache"][0].get("fx_graph_cache_miss") == 1
    assert warm["cache"][0].get("fx_graph_cache_hit") == 1
    assert "compile cache: cold" in cold["text"]
    assert "compile cache: warm" in warm["text"]
    assert stat.S_IMODE(os.stat(warm["dir"]).st_mode) == 0o700
