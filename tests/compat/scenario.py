"""A user's session on the torch of this venv, in a real kernel (``make compat TORCH=...``).

``%load_ext nbcompile``; a ``%%compile`` cell with a function that breaks its graph on a
``print`` and an ``nn.Module`` with its own ``forward``; calls at three shapes;
``nbcompile.report``; ``%compare --budget 1``; ``%kprun``; ``%suggest``; and
``open_trace`` on a ``TORCH_TRACE`` run written by this torch in a subprocess. Each cell
checks what it did; the exit status is nonzero when any cell failed (every cell still
runs, so one failure does not hide the next).

    .venv-compat-2.9.1/bin/python tests/compat/scenario.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]

CELLS = [
    ("kernel", f"""
import sys, torch
print(sys.executable, torch.__version__)
assert sys.executable == {sys.executable!r}, ("the kernel runs another Python", sys.executable)
"""),
    ("load_ext", "%load_ext nbcompile"),
    ("compile", """%%compile
import torch

def chain(x):
    y = torch.sin(x) * 2
    print("checkpoint")          # a graph break
    return torch.relu(y) + 1

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        return h * 2 + x

net = Net()
"""),
    ("three shapes", """
for n in (4, 8, 16):
    x = torch.randn(n, 16)
    out_chain, out_net = chain(x), net(x)
    assert torch.allclose(out_net, net.fc(x).relu() * 2 + x, atol=1e-5)
print(out_chain.shape, out_net.shape)
"""),
    ("report", """
import nbcompile
rc, rn = nbcompile.report(chain), nbcompile.report(net)
for r in (rc, rn):
    print(r.name, r.status, "graphs", r.graph_count, "breaks",
          [(b.lineno, b.line) for b in r.graph_breaks], "recompiles", len(r.recompiles),
          "kernels", len(r.kernels), "tied to lines", sum(bool(k.lines) for k in r.kernels))
assert rc.status == "compiled", rc.status
assert any("print" in b.line for b in rc.graph_breaks), rc.graph_breaks
assert rc.graph_count >= 2, rc.graph_count
assert rc.recompiles, "no recompile over three shapes"
assert rn.status == "compiled" and rn.graph_count >= 1, (rn.status, rn.graph_count)
assert rn.kernels, "no kernels for the module"
assert any(k.lines for r in (rc, rn) for k in r.kernels if k.kind == "kernel"), \\
    "no kernel tied to a source line"
html = rc._repr_html_()
assert "chain" in html
"""),
    ("compare", """
cmp = %compare chain(x) --budget 1
print([(r.mode, r.status, r.error) for r in cmp.rows])
assert [r.mode for r in cmp.rows][:2] == ["eager", "default"], cmp.rows
assert all(r.status == "ok" for r in cmp.rows), [r.error for r in cmp.rows]
assert all(r.median_s for r in cmp.rows)
"""),
    ("kprun", """
prof = %kprun net(x)
print(len(prof.kernels), prof.wall_s, [k.name for k in prof.kernels][:3])
assert prof.kernels, "no kernel timed"
assert prof.wall_s > 0
assert any(line.compiled_s for line in prof.lines), "no kernel time on any source line"
"""),
    ("suggest", """
sug = %suggest chain(x) --budget 30
print([(s.kind, s.change.splitlines()[0], s.status) for s in sug.items])
assert sug.problems, "no problem found"
assert sug.items, "no suggestion"
assert any("reorderable_logging_functions" in s.change for s in sug.items), sug.items
"""),
    ("open_trace", """
import subprocess, sys, tempfile, textwrap, os
trace_dir = tempfile.mkdtemp(prefix="nbcompile-compat-trace-")
script = os.path.join(trace_dir, "program.py")
with open(script, "w") as fh:
    fh.write(textwrap.dedent('''
        import torch

        def step(x):
            y = torch.cos(x) + 1
            print("checkpoint")
            return y * 2

        step = torch.compile(step)
        for n in (4, 8, 16):
            step(torch.randn(n))
    '''))
env = dict(os.environ, TORCH_TRACE=os.path.join(trace_dir, "logs"))
done = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True,
                      timeout=600)
assert done.returncode == 0, done.stderr[-2000:]
t = nbcompile.open_trace(os.path.join(trace_dir, "logs"))
print(len(t.compiles), [c.compile_id for c in t.compiles], t.problems, t.unknown_events)
assert t.compiles, "no compile in the trace"
assert not t.problems, t.problems
assert any("print" in b.line for c in t.compiles for b in c.graph_breaks)
assert any(c.kernels for c in t.compiles)
"""),
]


def main() -> int:
    import torch

    print(f"nbcompile compat scenario: torch {torch.__version__}, {sys.executable}")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(textwrap.dedent(src).strip()) for _, src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    with tempfile.TemporaryDirectory(prefix="nbcompile-compat-") as cwd:
        client = NotebookClient(nb, timeout=900, kernel_name="python3", allow_errors=True,
                                resources={"metadata": {"path": cwd}})
        try:
            client.execute()
        except Exception as e:  # the kernel died or would not start
            print(f"FAIL: the kernel: {type(e).__name__}: {e}")
            return 1
    failed = []
    for (label, _), cell in zip(CELLS, nb.cells, strict=True):
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        text = "".join(o.get("text", "") for o in cell.outputs
                       if o.get("output_type") == "stream" and o.get("name") == "stdout")
        status = "FAIL" if errors else "ok"
        print(f"--- {status}: {label}")
        if text.strip():
            print(textwrap.indent(text.strip()[-3000:], "    "))
        for e in errors:
            failed.append(label)
            tb = "\n".join(e.get("traceback", []))
            print(textwrap.indent(_strip_ansi(tb)[-4000:], "    "))
    summary = {"torch": torch.__version__, "cells": len(CELLS), "failed": failed,
               "at": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(json.dumps(summary))
    print(f"{len(CELLS) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def _strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
