"""What torch runs in place of a function (``report(f).compiles[i].runs_as``), held against
torch's own record of the same code in the same shell: the code torch runs for the frame
(its cache entry: the graphs it calls, depyf's source of it), ``explain``'s graph and break
counts, the resume functions Dynamo compiled, and the decompiled source run in place of
the transformed code giving the same result."""

from __future__ import annotations

import copy
import dis
import types

import pytest
import torch

import nbcompile
from nbcompile.core.trace.runs_as import (
    NO_NEW_CODE,
    SOURCE_CAP,
    target_walks,
    walk_text,
)
from nbcompile.core.units import clip

#: Each shape: a cell run first (a helper defined outside the compiled cell, "" none), the
#: ``%%compile`` cell, and the target it compiles (``P_f`` a function, ``P_m`` a module).
SHAPES = {
    "print": ("", "def P_f(x):\n    y = torch.sin(x) * 2\n    print('debug')\n"
                  "    return torch.relu(y) + 1\n", "P_f"),
    "item": ("", "def P_f(x):\n    y = x.sin()\n    s = y.sum().item()\n    return y * s\n",
             "P_f"),
    "branch": ("", "def P_f(x):\n    y = x.cos()\n    if y.sum() > 0:\n        return y + 1\n"
                   "    return y - 1\n", "P_f"),
    "disabled-helper": ("", "@torch.compiler.disable\ndef P_h(x):\n    return x * 3\n"
                            "def P_f(x):\n    y = x.sin()\n    return P_h(y).cos()\n", "P_f"),
    "nested": ("", "def P_g(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n"
                   "    return x * 2\ndef P_f(x):\n    return P_g(x.sin()) - 1\n", "P_f"),
    # the helper that breaks lives in another cell (its frame's file is that cell's)
    "helper-in-another-cell": (
        "import torch\ndef P_g(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n"
        "    return x * 2\n",
        "def P_f(x):\n    y = x.sin()\n    return P_g(y) - 1\n", "P_f"),
    "two-breaks": ("", "def P_f(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n"
                       "    x = x * 2\n    torch._dynamo.graph_break()\n    return x - 1\n",
                   "P_f"),
    # a loop left by ``break``: Dynamo unrolls it into one graph
    "loop-with-break": ("", "def P_f(x):\n    for i in range(5):\n        x = x.cos() + i\n"
                            "        if i == 2:\n            break\n    return x * 2\n", "P_f"),
    # a graph break inside a loop: Dynamo cannot resume inside it and gives up the frame
    "break-in-loop": ("", "def P_f(x):\n    for i in range(3):\n        x = x.sin() + i\n"
                          "        print(i)\n    return x * 2\n", "P_f"),
    "generator": ("", "def P_gen(x):\n    for i in range(3):\n        yield x * i\n"
                      "def P_f(x):\n    return sum(P_gen(x.sin())) + 1\n", "P_f"),
    "module-forward": ("", "class P_Mod(torch.nn.Module):\n    def __init__(self):\n"
                           "        super().__init__()\n        self.lin = torch.nn.Linear(8, 8)\n"
                           "    def forward(self, x):\n        y = self.lin(x).relu()\n"
                           "        print('m')\n        return y * 2\nP_m = P_Mod()\n", "P_m"),
    "no-break": ("", "def P_f(x):\n    return (x.sin() + 1).cos()\n", "P_f"),
}

#: Shapes whose transformed code depyf 0.20 does not decompile on Python 3.11 (a jump on
#: a data-dependent condition).
DEPYF_CANNOT = {"branch"}


def _fresh(target, code):
    """``target`` again with a copy of ``code`` (no compiled version yet) for ``explain``."""
    if isinstance(target, torch.nn.Module):
        forward = types.FunctionType(code.replace(), type(target).forward.__globals__)
        fresh = copy.copy(target)
        fresh.forward = types.MethodType(forward, fresh)
        return fresh
    original = target._torchdynamo_orig_callable
    return types.FunctionType(code.replace(), original.__globals__)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_walk_matches_torchs_own_record(ip, shape):
    prefix = f"ra_{shape.replace('-', '_')}_"
    before, source, name = (part.replace("P_", prefix) for part in SHAPES[shape])
    if before:
        ip.run_cell(before)
    ip.run_cell(f"%%compile --backend eager --only {name}\nimport torch\n{source}")
    target = ip.user_ns[name]
    module = isinstance(target, torch.nn.Module)
    x = torch.randn(2, 8) if module else torch.randn(8)
    expected = target(x)
    compiles = nbcompile.report(target).compiles
    walks = target_walks(compiles)
    assert len(walks) == 1, [walk_text(w) for w in walks]
    steps = walks[0]
    fn = type(target).forward if module else target._torchdynamo_orig_callable
    code = fn.__code__
    top = next(c for c in compiles if c.frame == code.co_name)
    assert top.runs_as is not None

    # torch's own record 1: the code torch runs for the frame now (its cache entry), the
    # code the walk was read from; none where Dynamo gave the frame up (it runs as written)
    entries = torch._dynamo.eval_frame._debug_get_cache_entry_list(code)
    if not entries:
        assert top.runs_as.problem == NO_NEW_CODE and not steps, top.runs_as
    else:
        runs = entries[0].code
        loaded = [i.argval for i in dis.get_instructions(runs) if i.opname == "LOAD_GLOBAL"]
        assert (sum(str(n).startswith("__compiled_fn_") for n in loaded)
                == sum(s.kind == "graph" for s in top.runs_as.steps)), loaded
        if top.runs_as.source:
            import depyf

            assert top.runs_as.source == clip(depyf.decompile(runs), SOURCE_CAP)

    # torch's own record 2: explain of the same code, fresh (a copy of its code)
    explained = torch._dynamo.explain(_fresh(target, code))(x)
    assert sum(s.kind == "graph" for s in steps) == explained.graph_count, walk_text(steps)
    # one Python step per break reason torch gives (a break inside a called function
    # is two: the call in the caller's frame, the break in the callee's own frame)
    breaks = [s for s in steps if s.kind == "python"]
    assert len(breaks) == len(explained.break_reasons), (
        walk_text(steps), [b.reason for b in explained.break_reasons])
    resumes = [s.frame for s in steps if s.kind == "resume" and not s.alternative]
    compiled_frames = {c.frame for c in compiles}
    assert all(r and r in compiled_frames for r in resumes), (resumes, compiled_frames)
    assert len(resumes) == sum(c.frame.startswith("torch_dynamo_resume_in_") and
                               c.compile_id.endswith("/0") for c in compiles)
    for s in steps:
        if s.kind == "python":  # the break's line in this cell, as torch logged it
            assert s.lineno and f"in Python (line {s.lineno})" in s.text, s
    if not entries:
        return

    # the decompiled source, run in place of the transformed code, gives the same result;
    # where depyf cannot decompile (a data-dependent jump), the view says so and shows dis
    if not top.runs_as.source:
        assert shape in DEPYF_CANNOT and "depyf could not" in top.runs_as.problem
        assert "LOAD_GLOBAL" in top.runs_as.dis, top.runs_as.dis[:500]
        return
    space = dict(fn.__globals__)
    exec(top.runs_as.source, space)  # noqa: S102 - depyf's decompiled transformed code
    again = space[code.co_name](*((target, x) if module else (x,)))
    assert torch.equal(again, expected)


def test_the_summary_says_the_walk_once_per_break(ip):
    ip.run_cell("%%compile --backend eager --only ra_sum_f\nimport torch\n"
                "def ra_sum_f(x):\n    y = torch.sin(x) * 2\n    print('debug')\n"
                "    return torch.relu(y) + 1\n")
    ip.run_cell("_ = ra_sum_f(torch.randn(4))")
    from nbcompile.display.summary_model import summarize

    (summary,) = summarize([nbcompile.report(ip.user_ns["ra_sum_f"])]).targets
    walks = [i.text for i in summary.items if i.text.startswith("what torch runs")]
    assert walks == ["what torch runs at line 5: graph of 0/0 (2 ops: sin, mul) -> "
                     "print('debug') in Python (line 5) -> resume in "
                     "torch_dynamo_resume_in_ra_sum_f_at_5"], walks


def test_each_published_break_carries_its_walk(ip):
    """The inspector's inline summary shows the sentence the kernel wrote on the break."""
    from nbcompile.core.notebook.capture.session import get_session
    from nbcompile.core.notebook.capture.snapshot import target_record
    from nbcompile.display.payload import published_record

    ip.run_cell("%%compile --backend eager --only ra_pub_f\nimport torch\n"
                "def ra_pub_f(x):\n    y = x.cos()\n    print('x')\n    return y + 1\n")
    ip.run_cell("_ = ra_pub_f(torch.randn(4))")
    target = get_session().find(ip.user_ns["ra_pub_f"])
    assert target is not None
    (gb,) = published_record(target_record(target))["graph_breaks"]
    assert gb["runs_as"] == ("what torch runs at line 5: graph of "
                             f"{target_record(target).compiles[0].compile_id} (1 op: cos) -> "
                             "print('x') in Python (line 5) -> resume in "
                             "torch_dynamo_resume_in_ra_pub_f_at_5"), gb
