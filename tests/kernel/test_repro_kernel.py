"""``%repro`` and ``%nbcompile trace`` in a real kernel, as a new user runs them: a graph
break in a helper of another cell and a recompile on a global each give a script that a
fresh ``python repro.py`` reproduces (torch's record in that process decides), a trace
directory ``python -m nbcompile open`` reads, and a report."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import ROOT
from tests.support.kernel import execute_notebook, make_notebook, outputs_of


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    base = tmp_path_factory.mktemp("repro")
    cells = [
        "%load_ext nbcompile",
        "import json, torch, nbcompile\nRK_K = 1",
        'def rk_helper(x):\n    print("a break")\n    return x.cos()',
        "%%compile --backend eager\ndef rk_f(x):\n    return rk_helper(x.sin()) * 2\n"
        "def rk_g(x):\n    return x * RK_K + 1",
        f"%nbcompile trace {base / 'live'}",
        "_ = rk_f(torch.randn(4))\n_ = rk_g(torch.randn(3))\nRK_K = 2\n_ = rk_g(torch.randn(3))",
        "%nbcompile trace off",
        f"b = %repro rk_f(torch.randn(4)) --dir {base / 'break'} --no-env\n"
        f"r = %repro rk_g(torch.randn(3)) --dir {base / 'recompile'} --no-env\n"
        "print(json.dumps([[x.kind, x.reproduced, x.path, x.trace_dir, x.report_path]"
        " for x in (b, r)]))",
    ]
    return base, execute_notebook(make_notebook(cells))


def test_each_repro_reproduces_in_a_fresh_python(executed):
    base, nb = executed
    printed = "".join(o.get("text", "") for o in outputs_of(nb.cells[-1])
                      if o.get("output_type") == "stream")
    results = json.loads(next(line for line in printed.splitlines() if line.startswith("[")))
    assert [(kind, ok) for kind, ok, *_ in results] == [("graph_breaks", True),
                                                        ("recompile", True)], results
    for _, _, path, trace_dir, report in results:
        # the user's own run of the script: it exits 0 only where torch shows the fact
        done = subprocess.run([sys.executable, path], capture_output=True, text=True,
                              timeout=240, cwd=base)
        assert done.returncode == 0, done.stderr[-2000:]
        opened = subprocess.run([sys.executable, "-m", "nbcompile", "open", trace_dir],
                                capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert opened.returncode == 0 and "compile" in opened.stdout, opened.stderr
        assert "torch" in open(report).read()


def test_the_live_trace_is_read_as_a_scripts(executed):
    base, _ = executed
    opened = subprocess.run([sys.executable, "-m", "nbcompile", "open", str(base / "live")],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert opened.returncode == 0, opened.stderr
    assert "rk_f" in opened.stdout and "break" in opened.stdout, opened.stdout[:2000]
