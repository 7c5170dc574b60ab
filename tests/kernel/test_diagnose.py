"""nbcompile.diagnose / %diagnose: crash or accuracy, the layer, the culprit's line, the float64
verdict and workarounds proven on copies, with real compiles.

Cases: the bfloat16 chain (Inductor keeps float32 inside its fused kernel: compiled is
the closer to float64); torch's own fault injection in Inductor's C++ relu (a wrong
result, a compile error), found at the relu line; crashes only Dynamo or AOTAutograd
show (a custom op whose fake kernel is wrong; one whose backward formula is wrong); a
clean function. After each: the user's compiled target and its Dynamo cache, torch's
settings and the input tensors are checked unchanged.
"""

from __future__ import annotations

import re

from tests.support.kernel import execute_notebook, make_notebook, outputs_of

RUNTIME_ERROR_CELLS = [
    "%load_ext nbcompile",
    """import os, torch, nbcompile
def act(y):
    return torch.relu(y - 1.5) * 3
def block(x):
    y = torch.cos(x) + 1
    y = act(y)
    return y.sum(-1)
x = torch.randn(64, 64)
torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"
print("pid", os.getpid())
d = %diagnose block(x) --budget 900
print("kind", d.kind, "layer", d.layer, "line", d.lineno, d.line)
print("error", d.error)
print("culprit", d.culprit)
w = next(w for w in d.workarounds if w.kind == "disable")
print("disable", w.status, "|", w.outcome, "|", w.error, "|", w.note)
print("isolated", any("forked child process" in n for n in d.notes))""",
    """print("alive", os.getpid(), torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY)""",
]


def test_an_aborting_inductor_kernel_is_diagnosed_and_the_kernel_survives():
    """``cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"``: Inductor's C++ relu throws
    inside an OpenMP parallel region, which aborts the process it runs in; the diagnosis
    runs Inductor's copies in forked children, finds the relu, and the kernel lives on."""
    nb = execute_notebook(make_notebook(RUNTIME_ERROR_CELLS), timeout=1500)
    text = "".join(o.get("text", "") for o in outputs_of(nb.cells[1]))
    assert "kind crash layer inductor line 3 return torch.relu(y - 1.5) * 3" in text
    assert "error RuntimeError: unhandled error" in text
    assert "culprit Inductor's lowering of aten.relu" in text
    assert "disable verified" in text and "isolated True" in text, text
    after = "".join(o.get("text", "") for o in outputs_of(nb.cells[2]))
    pid = re.search(r"pid (\d+)", text)[1]
    assert after.strip() == f"alive {pid} runtime_error"  # the same kernel, its setting kept
