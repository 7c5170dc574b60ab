"""8. Memory: re-running a ``%%compile`` cell that builds a 128 MiB model, in a real kernel.

Each run rebinds ``big`` to a new ``torch.nn.Linear(4096, 8192)`` (128 MiB of weights)
and calls it once (compiles). The kernel's RSS after each run should stay flat: the
replaced module is freed. ``del big; gc.collect()`` and ``%reset -f`` then free the last
one. ``python -m benchmarks.memory_bench``
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

RSS = ("import gc, json, os\ngc.collect()\n"
       "print(json.dumps({'rss_mib': round(int([l for l in open('/proc/self/status') "
       "if l.startswith('VmRSS')][0].split()[1]) / 1024)}))")
MODEL_CELL = """%%compile
import torch
big = torch.nn.Linear(4096, 8192)
with torch.no_grad():
    _ = big(torch.randn(2, 4096))
del _"""


def measure(runs: int = 5) -> dict[str, Any]:
    """RSS (MiB) of a real kernel after each run of the model cell, then after freeing."""
    import nbformat
    from nbclient import NotebookClient

    cells = ["%load_ext nbcompile"]
    for _ in range(runs):
        cells += [MODEL_CELL, RSS]
    cells += ["del big", RSS, MODEL_CELL, "%reset -f", RSS]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    env_path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    os.environ["PYTHONPATH"] = env_path  # the kernel imports this checkout's nbcompile
    NotebookClient(nb, timeout=900, kernel_name="python3").execute()
    figures = []
    for cell in nb.cells:
        if cell.source == RSS:
            text = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
            figures.append(json.loads(text.strip().splitlines()[-1])["rss_mib"])
    stderr = [o.get("text", "") for c in nb.cells for o in c.outputs
              if o.get("name") == "stderr"]
    return {"per_run_mib": figures[:runs], "after_del_mib": figures[runs],
            "after_reset_mib": figures[runs + 1], "kernel_stderr": stderr}


def main() -> None:
    result = measure()
    runs = result["per_run_mib"]
    print(f"RSS per run of a 128 MiB model cell (MiB): {' -> '.join(map(str, runs))}")
    print(f"growth run 1 -> {len(runs)}: {runs[-1] - runs[0]} MiB "
          f"(a leak would be ~{128 * (len(runs) - 1)} MiB)")
    print(f"after `del big; gc.collect()`: {result['after_del_mib']} MiB; "
          f"after re-run + `%reset -f`: {result['after_reset_mib']} MiB")
    print(f"kernel stderr outputs: {len(result['kernel_stderr'])}")
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
