"""Two kernels of one notebook: the first compiles ``f`` with one Inductor option, the
second with another; the second's ``compile_time`` names the option from the cache keys the
first saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from nbcompile.core.notebook import cache

KERNEL = """
import json, sys
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_line_magic("load_ext", "nbcompile")
fusion = sys.argv[1]
ip.run_cell("import torch\\ndef f(x):\\n    return torch.relu(x) * 2 + 1\\n"
            f"y = torch.compile(f, options={{'epilogue_fusion': {fusion}}})(torch.randn(8))\\n",
            store_history=True).raise_error()
import nbcompile
ct = nbcompile.compile_time(ip.user_ns["f"], ip.user_ns["y"], budget_s=0.5, remedies=())
from nbcompile.display.compile_time import compile_time_text
print(json.dumps({"frames": [f.to_dict() for f in ct.kernel_compiles],
                  "text": compile_time_text(ct), "notes": ct.notes}), flush=True)
import os
sys.stderr.flush()
os._exit(0)  # no interpreter teardown (~1.2 s with torch loaded): the result is printed
"""


def test_the_second_kernel_names_the_option_the_first_compiled_with(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != cache.ENV}
    env.update(XDG_CACHE_HOME=str(tmp_path), JPY_SESSION_NAME="/nb/two kernels.ipynb",
               NBCOMPILE_CACHE_KEYS="on")
    runs = []
    for fusion in ("True", "False"):
        out = subprocess.run([sys.executable, "-c", KERNEL, fusion], env=env,
                             capture_output=True, text=True, timeout=600, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert first["frames"] and first["frames"][0]["earlier"] is None
    [frame] = second["frames"]
    assert frame["earlier"] is not None and frame["earlier"]["same_key"] is False
    # the cell's text changed with the option: matched by the function's name in a cell
    assert frame["earlier"]["same_cell"] is False
    assert "Inductor option epilogue_fusion: True -> False" in frame["cache_note"]
    assert "compiled in an earlier kernel of this notebook (saved " in second["text"]
    saved = list((tmp_path / "nbcompile" / "artifacts").glob("*.cache-keys.json"))
    assert len(saved) == 1 and saved[0].name.startswith("two_kernels-")
