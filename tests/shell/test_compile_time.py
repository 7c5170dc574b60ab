"""%compile_time on code defined in cells: the cells' definitions carried into fresh
processes, a remedy measured with equal outputs, the record displayed within its budget
(a cell-defined model's repeated blocks and the regional remedy's rounds: tutorial 10's
record, checked in tests/kernel/test_notebooks.py; the verdict's rule: tests/core)."""

from __future__ import annotations

import pytest

import nbcompile
from nbcompile.core import torch_compat
from nbcompile.core.compiletime.needs import needs
from nbcompile.core.records import MIME_TYPE
from tests.support.shell import run_cell


def test_magic_refuses_a_bad_remedy_before_running_anything(ip):
    run_cell(ip, "import torch\ndef twice(x):\n    return x * 2\nxt = torch.randn(3)\n")
    with pytest.raises(Exception, match="remedies must be among"):
        ip.run_line_magic("compile_time", "twice(xt) --remedies quantum")


def test_a_cell_function_gets_a_precompiled_remedy_that_loads_in_a_fresh_process(ip):
    run_cell(ip, "import torch\n"
                 "def squash(x):\n"
                 "    return torch.tanh(x) * 2 + torch.sigmoid(x)\n"
                 "xs = torch.randn(16)\n")
    ct = nbcompile.compile_time(ip.user_ns["squash"], ip.user_ns["xs"],
                                remedies=("precompiled", "regional"), rounds=1)
    assert "squash" in ct.how
    pre = ct.remedy("precompiled")
    if not torch_compat.has_aot_compile():  # torch 2.9: no torch.compile(...).aot_compile
        assert pre is not None and pre.status == "does not apply", pre
        assert "need a newer torch" in pre.note and pre.same_result is None
        return
    assert pre is not None and pre.same_result is True, pre
    # one round: numbers, no verdict (a verdict needs alternated rounds), said so; round 1
    # pairs the baseline's cold run with the remedy's restart
    assert pre.restart_s is not None and pre.status == "inconclusive", pre
    assert "a verdict needs at least 3" in pre.note and "rounds=1" in pre.note, pre.note
    runs = {r.label: r for r in ct.runs}
    assert pre.rounds_before_s == [runs["baseline cold"].first_call_s]
    assert pre.rounds_after_s == [runs["precompiled restart"].first_call_s]
    bundle = ct._repr_mimebundle_()
    assert bundle[MIME_TYPE]["record"] == "compile_time"
    assert "precompiled" in bundle["text/plain"] and "precompiled" in bundle["text/html"]
    # torch's own record: the loaded function compiled nothing (no Dynamo, no cache lookup)
    restart = next(r for r in ct.runs if r.label == "precompiled restart")
    assert restart.frames_compiled == 0 and not restart.caches
    regional = ct.remedy("regional")
    assert regional is not None and regional.status == "does not apply"


def test_a_compiled_target_is_measured_from_its_own_code(ip):
    ip.run_cell_magic("compile", "", "import torch\n"
                      "def wavy(x):\n"
                      "    return torch.sin(x) * 2\n"
                      "class Bump(torch.nn.Module):\n"
                      "    def forward(self, x):\n"
                      "        return torch.cos(x) + 1\n"
                      "bump = Bump()\n")
    run_cell(ip, "xw = torch.randn(8)\nwavy(xw); bump(xw)\n")
    for expr, name in (("wavy(xw)", "wavy"), ("bump(xw)", "Bump")):
        ct = ip.run_line_magic("compile_time", expr + " --remedies regional")
        assert ct.reproducible and ct.cold_s, (expr, ct.notes, ct.how)
        assert ct.name == name and name in ct.how
        # this kernel's own compile of the target, with torch's cache outcome
        assert ct.kernel_compiles and ct.kernel_compiles[0].caches, ct.kernel_compiles
    assert nbcompile.report(ip.user_ns["wavy"]).compiles  # the target is still its own


def _kernel_graph_ops(fn, *args) -> int:
    """This kernel's own compile of ``fn(*args)``: torch's op count of its graphs (the
    ``count_calls`` behind ``compilation_metrics``' ``graph_op_count``)."""
    import torch
    from torch._dynamo.utils import count_calls

    counted: list[int] = []

    def counting(gm, example_inputs):
        counted.append(count_calls(gm.graph))
        return gm.forward

    torch.compile(fn, backend=counting)(*args)
    return sum(counted)


def test_fresh_processes_run_the_code_the_kernel_runs_now(ip):
    run_cell(ip, "import torch\nfrom torch import nn\n"
                 "def ct_helper(x):\n"
                 "    return torch.sin(x) * 2\n")
    # Seeded: five layers grow Inductor's rounding to ~1e-5, and the fresh process's result is
    # judged by assert_close's default tolerance (about 2 in 10,000 unseeded draws crossed it)
    run_cell(ip, "CT_DEPTH = 2\ntorch.manual_seed(0)\n"
                 "class CtBlock(nn.Module):\n"
                 "    def __init__(self):\n"
                 "        super().__init__()\n"
                 "        self.fc = nn.Linear(8, 8)\n"
                 "    def forward(self, x):\n"
                 "        return ct_helper(self.fc(x))\n"
                 "ct_block = CtBlock().requires_grad_(False)\n"
                 "def ct_run(x):\n"
                 "    for _ in range(CT_DEPTH):\n"
                 "        x = ct_block(x) + ct_helper(x)\n"
                 "    return x\n")
    run_cell(ip, "CT_DEPTH = 5\ntorch.manual_seed(1)\nct_x = torch.randn(2, 8)\n")
    fn, x = ip.user_ns["ct_run"], ip.user_ns["ct_x"]
    kernel_ops = _kernel_graph_ops(fn, x)
    # a helper from another cell, a module whose forward calls it, a global changed after
    # its cell: the fresh process traces the graph this kernel traces, op for op
    ct = nbcompile.compile_time(fn, x, remedies=(), rounds=1)
    assert ct.reproducible and ct.cold_s, (ct.notes, ct.runs)
    cold = ct.runs[0]
    assert cold.label == "baseline cold" and cold.same_result is True
    assert cold.graph_ops == kernel_ops, (cold, kernel_ops)
    run_cell(ip, "CT_DEPTH = 2\n")  # the defining cell's value traces another graph
    try:
        assert _kernel_graph_ops(fn, x) < kernel_ops
    finally:
        run_cell(ip, "CT_DEPTH = 5\n")
    assert "ct_helper" in ct.how and "CtBlock" in ct.how and "CT_DEPTH" in ct.how, ct.how


def test_what_a_fresh_process_cannot_rebuild_is_said_and_nothing_is_started(ip):
    run_cell(ip, "import torch\n"
                 "ct_act = lambda x: x + 1\n"
                 "def ct_uses_lambda(x):\n"
                 "    return ct_act(x) * 2\n"
                 "def ct_make(k):\n"
                 "    def scaled(x):\n"
                 "        return x * k\n"
                 "    return scaled\n"
                 "ct_scaled = ct_make(3)\n"
                 "def ct_uses_closure(x):\n"
                 "    return ct_scaled(x)\n"
                 "ct_log = open(__import__('os').devnull, 'w')\n"
                 "def ct_uses_file(x):\n"
                 "    print(x.shape, file=ct_log)\n"
                 "    return x\n")
    import torch

    try:
        for name, why in (("ct_uses_lambda", "ct_act is a lambda"),
                          ("ct_uses_closure", "ct_scaled is a closure (it reads k"),
                          ("ct_uses_file", "ct_log is an open file")):
            ct = nbcompile.compile_time(ip.user_ns[name], torch.randn(3), remedies=("regional",))
            assert not ct.reproducible and not ct.runs, (name, ct.runs)
            assert "cannot be reproduced in a fresh process: " + why in ct.notes[0], ct.notes
            assert [r.status for r in ct.remedies] == ["not reproducible"]
    finally:
        ip.user_ns["ct_log"].close()


def test_a_target_that_is_not_callable_is_refused_in_the_same_words(ip):
    run_cell(ip, "import torch\nfive = 5\nxt = torch.randn(3)\n")
    with pytest.raises(Exception, match="five is a int, not a function or module"):
        ip.run_line_magic("compile_time", "five(xt)")
    with pytest.raises(TypeError, match="5 is a int, not a function or module"):
        nbcompile.compile_time(5, ip.user_ns["xt"])


def test_the_shells_own_names_resolve_as_pythons_or_are_refused_in_words(ip, tmp_path):
    """In a notebook ``open`` is IPython's wrapper of the builtin: a helper that opens a
    file is carried with Python's own ``open``; a name only the shell has
    (``get_ipython``, ``display``, ``In``) is refused in words, no internal exception
    text in them, and no fresh process is started."""
    import builtins
    import os

    import torch

    (tmp_path / "ct_scale.txt").write_text("3\n")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        run_cell(ip, "import torch\n"
                     "def ct_read_scale():\n"
                     "    with open('ct_scale.txt') as f:\n"
                     "        return float(f.read())\n"
                     "def ct_opened(x):\n"
                     "    return x * ct_read_scale()\n"
                     "def ct_shell_fn(x):\n"
                     "    return x * len(get_ipython().user_ns)\n"
                     "def ct_shows(x):\n"
                     "    display(x.shape)\n"
                     "    return x\n"
                     "def ct_history(x):\n"
                     "    return x * len(In)\n")
        assert ip.user_ns["open"] is not builtins.open  # IPython's own open
        # carried as Python's own (the fresh process's run and result: the kernel test,
        # tests/kernel/test_notebook_edges.py)
        found = needs(ip.user_ns["ct_opened"], [((torch.randn(4),), {})])
        assert found.problem == "" and "open" not in found.values, found.problem
        for name, global_ in (("ct_shell_fn", "get_ipython"), ("ct_shows", "display"),
                              ("ct_history", "In")):
            ct = nbcompile.compile_time(ip.user_ns[name], torch.randn(3), remedies=())
            assert not ct.reproducible and not ct.runs, (name, ct.runs)
            assert ct.notes[0] == (f"cannot be reproduced in a fresh process: {global_} is "
                                   "the notebook shell's own (IPython puts it in the "
                                   "namespace); a fresh Python process has no such name")
    finally:
        os.chdir(here)
