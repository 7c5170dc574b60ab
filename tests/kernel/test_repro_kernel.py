"""``%repro`` and ``%nbcompile trace`` in a real kernel, as a new user runs them: a graph
break in a helper of another cell, a recompile on a global, a crash injected in Inductor
(``%diagnose``'s test's ``cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"``, whose code
aborts a process running it with several threads) and a bfloat16 chain Inductor computes
in float32 each give a script that a fresh ``python repro.py`` reproduces (torch's record,
or the run's own numbers, in that process decide), a trace directory
``python -m nbcompile open`` reads, and a report with the versions. One kernel for all;
the kernel survives the crash (the same process, its setting kept)."""

from __future__ import annotations

import json
import platform
import re
import subprocess
import sys

import pytest
import torch

from nbcompile.core.repro.script import read_seen
from tests.support import ROOT
from tests.support.kernel import execute_notebook, make_notebook, outputs_of

CASES = ["graph_breaks", "recompile", "crash", "accuracy"]
SUMMARY = ("print('repro', json.dumps({x.kind: dict(reproduced=x.reproduced, path=x.path, "
           "trace_dir=x.trace_dir, report=x.report_path, expected=x.expected, seen=x.seen, "
           "notes=x.notes, differs=x.differs) for x in done}))")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    base = tmp_path_factory.mktemp("repro")
    cells = [
        "%load_ext nbcompile",
        "import json, os, torch, nbcompile\nRK_K = 1\ndone = []\nprint('pid', os.getpid())",
        'def rk_helper(x):\n    print("a break")\n    return x.cos()',
        "%%compile --backend eager\ndef rk_f(x):\n    return rk_helper(x.sin()) * 2\n"
        "def rk_g(x):\n    return x * RK_K + 1",
        f"%nbcompile trace {base / 'live'}",
        "_ = rk_f(torch.randn(4))\n_ = rk_g(torch.randn(3))\nRK_K = 2\n_ = rk_g(torch.randn(3))",
        "%nbcompile trace off",
        f"b = %repro rk_f(torch.randn(4)) --dir {base / 'break'} --no-env\n"
        f"r = %repro rk_g(torch.randn(3)) --dir {base / 'recompile'} --no-env\n"
        "done += [b, r]",
        # the crash: never called in the kernel (its code would abort it); %repro runs it
        # in a forked child, and the setting travels to the script as torch's config line
        'def rk_act(y):\n    return torch.relu(y - 1.5) * 3',
        "%%compile\ndef rk_block(x):\n    y = torch.cos(x) + 1\n    return rk_act(y).sum(-1)",
        'torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"',
        f"c = %repro rk_block(torch.randn(64, 64)) --dir {base / 'crash'} --no-env\n"
        "done.append(c)",
        "print('alive', os.getpid(), torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY)\n"
        "torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = None",
        # tutorial 9's bfloat16 chain: Inductor keeps float32 inside its fused loop
        "%%compile\ndef rk_squash(x):\n    y = x * 1.7 + 0.3\n    y = torch.sin(y) * y\n"
        "    y = torch.exp(y) / (1 + torch.exp(y))\n    return torch.tanh(y * 3.1 - 0.2)",
        f"a = %repro rk_squash(torch.randn(4096, dtype=torch.bfloat16)) "
        f"--dir {base / 'accuracy'} --no-env\n"
        "done.append(a)",
        SUMMARY,
    ]
    nb = execute_notebook(make_notebook(cells), timeout=1200)
    printed = "".join(o.get("text", "") for cell in nb.cells for o in outputs_of(cell)
                      if o.get("output_type") == "stream")
    line = next(ln for ln in printed.splitlines() if ln.startswith("repro "))
    return base, printed, json.loads(line.removeprefix("repro "))


def test_each_case_reproduces_in_nbcompiles_fresh_run(executed):
    _, _, results = executed
    assert list(results) == CASES
    for kind, r in results.items():
        assert r["reproduced"], (kind, r["differs"], r["seen"])
    crash = results["crash"]
    assert crash["expected"] == {"type": "RuntimeError", "message": "unhandled error"}
    assert any("forked child process" in n for n in crash["notes"]), crash["notes"]
    assert results["accuracy"]["expected"]["closer"] == "compiled"


def test_the_kernel_survives_the_crash_and_keeps_its_setting(executed):
    _, printed, _ = executed
    pid = re.search(r"^pid (\d+)$", printed, re.M)
    assert pid is not None, printed[-2000:]
    assert re.search(rf"^alive {pid[1]} runtime_error$", printed, re.M), printed[-2000:]


def test_a_users_own_python_repro_py_shows_each_fact(executed):
    """The user's own run of each script, all at once: it exits 0 only where the fact
    shows, and what it prints after its mark is the fact nbcompile expected."""
    base, _, results = executed
    runs = {kind: subprocess.Popen([sys.executable, r["path"]], cwd=base, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for kind, r in results.items()}
    for kind, proc in runs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0 and "reproduced:" in out, (kind, err[-2000:])
        seen, expected = read_seen(out), results[kind]["expected"]
        assert seen is not None, (kind, out[-2000:])
        if kind == "graph_breaks":
            assert seen["types"] == expected["types"] == ["Failed to trace builtin operator"]
        elif kind == "recompile":
            assert any(expected["guard"] in g for g in seen["guards"]), seen
        elif kind == "crash":
            assert seen["raised"] == expected, seen
        else:
            assert seen["within_tolerance"] is False and seen["closer"] == "compiled", seen


def test_each_trace_directory_is_read_and_each_report_has_the_versions(executed):
    base, _, results = executed
    dirs = [r["trace_dir"] for r in results.values()] + [str(base / "live")]
    opens = [subprocess.Popen([sys.executable, "-m", "nbcompile", "open", d], cwd=ROOT,
                              text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for d in dirs]
    for d, proc in zip(dirs, opens, strict=True):
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and "compile" in out, (d, err[-2000:])
        if d.endswith("live"):
            assert "rk_f" in out and "break" in out, out[:2000]
    for kind, r in results.items():
        report = open(r["report"]).read()
        assert f"- torch {torch.__version__}" in report, kind
        assert f"- Python {platform.python_version()}" in report, kind
        assert "reproduced in a fresh process" in report and r["trace_dir"] in report, kind
