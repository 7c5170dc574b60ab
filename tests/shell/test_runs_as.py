"""What torch runs in place of a function (``report(f).compiles[i].runs_as``), held against
torch's own record of the same code in the same shell: ``explain``'s graph and break
counts, the resume functions Dynamo compiled, and the decompiled source run in place of
the transformed code giving the same result."""

from __future__ import annotations

import pytest
import torch

import nbcompile
from nbcompile.core.trace.runs_as import target_walks, walk_text

SHAPES = {
    "print": "def P_f(x):\n    y = torch.sin(x) * 2\n    print('debug')\n"
             "    return torch.relu(y) + 1\n",
    "item": "def P_f(x):\n    y = x.sin()\n    s = y.sum().item()\n    return y * s\n",
    "branch": "def P_f(x):\n    y = x.cos()\n    if y.sum() > 0:\n        return y + 1\n"
              "    return y - 1\n",
    "disabled-helper": "@torch.compiler.disable\ndef P_h(x):\n    return x * 3\n"
                       "def P_f(x):\n    y = x.sin()\n    return P_h(y).cos()\n",
    "nested": "def P_g(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n    return x * 2\n"
              "def P_f(x):\n    return P_g(x.sin()) - 1\n",
    "two-breaks": "def P_f(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n"
                  "    x = x * 2\n    torch._dynamo.graph_break()\n    return x - 1\n",
    "no-break": "def P_f(x):\n    return (x.sin() + 1).cos()\n",
}

#: Shapes whose transformed code depyf 0.20 does not decompile on Python 3.11 (a jump on
#: a data-dependent condition).
DEPYF_CANNOT = {"branch"}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_walk_matches_torchs_own_record(ip, shape):
    prefix = f"ra_{shape.replace('-', '_')}_"
    source = SHAPES[shape].replace("P_", prefix)
    ip.run_cell(f"%%compile --backend eager --only {prefix}f\nimport torch\n{source}")
    f = ip.user_ns[f"{prefix}f"]
    x = torch.randn(8)
    expected = f(x)
    compiles = nbcompile.report(f).compiles
    walks = target_walks(compiles)
    assert len(walks) == 1, [walk_text(w) for w in walks]
    steps = walks[0]

    # torch's own record: explain of the same function, fresh code (a copy of its code)
    original = f._torchdynamo_orig_callable
    copy = type(original)(original.__code__.replace(), original.__globals__)
    explained = torch._dynamo.explain(copy)(x)
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

    # the decompiled source, run in place of the transformed code, gives the same result;
    # where depyf cannot decompile (a data-dependent jump), the view says so and shows dis
    top = next(c for c in compiles if c.frame == original.__name__)
    assert top.runs_as is not None
    if not top.runs_as.source:
        assert shape in DEPYF_CANNOT and "depyf could not" in top.runs_as.problem
        assert "LOAD_GLOBAL" in top.runs_as.dis, top.runs_as.dis[:500]
        return
    space = dict(original.__globals__)
    exec(top.runs_as.source, space)  # noqa: S102 - depyf's decompiled transformed code
    assert torch.equal(space[original.__name__](x), expected)


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
    (gb,) = published_record(target_record(target))["graph_breaks"]
    assert gb["runs_as"] == ("what torch runs at line 5: graph of "
                             f"{target_record(target).compiles[0].compile_id} (1 op: cos) -> "
                             "print('x') in Python (line 5) -> resume in "
                             "torch_dynamo_resume_in_ra_pub_f_at_5"), gb
