"""nbcompile.suggest / %suggest: fixes proposed and proven on copies, with real compiles.
The user's compiled target, its Dynamo caches, its report and torch's global
settings are checked unchanged."""

from __future__ import annotations

import torch
import torch._dynamo
from torch._dynamo.eval_frame import _debug_get_cache_entry_list

import nbcompile
from tests.support.shell import run_cell
from tests.support.suggestions import _item

torch.manual_seed(0)




TUTORIAL_04 = [  # the recompile examples of notebooks/04-recompiles-and-dynamic-shapes.py
    """
%%compile
def sg_soft_norm(x):
    return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))
""", """
import torch, nbcompile
sg_sizes = [(torch.randn(8, 16),), (torch.randn(8, 16),), (torch.randn(12, 16),)]
for args in sg_sizes:
    sg_soft_norm(*args)
""", """
%%compile --no-dynamic
def sg_scale_by_max(x):
    peak = x.abs().max().item()
    return x / peak
""", """
sg_data = [(torch.randn(64),) for _ in range(6)]
for args in sg_data:
    sg_scale_by_max(*args)
sg_sizes_r = nbcompile.suggest(sg_soft_norm, calls=sg_sizes)
sg_storm_r = nbcompile.suggest(sg_scale_by_max, calls=sg_data)
"""]


def test_tutorial_04_recompile_examples(ip):
    for cell in TUTORIAL_04:
        run_cell(ip, cell)
    sizes = ip.user_ns["sg_sizes_r"]
    assert sizes.baseline.recompiles == 1  # 8 rows, then 12 rows
    assert _item(sizes, "option", "--dynamic").verified
    assert _item(sizes, "setting", "mark_dynamic(arg0, 0)").verified
    storm = ip.user_ns["sg_storm_r"]  # --no-dynamic: every new peak value recompiles
    assert storm.baseline.breaks == 1 and storm.baseline.recompiles == 5
    assert _item(storm, "setting", "capture_scalar_outputs = True").verified
    assert _item(storm, "rewrite", "+ peak = x.abs().max()").verified
    dynamic = _item(storm, "option", "--dynamic")
    assert dynamic.verified and dynamic.after.recompiles == 0
    assert nbcompile.report(ip.user_ns["sg_scale_by_max"]).recompile_count == 5  # untouched


#: torch 2.9's Inductor fails to build the C++ of these steps with ``.item()`` captured
#: (CppCompileError; plain torch.compile of sg_step does too, checked): the trial fails there.
SCALAR_STEPS_COMPILE = torch.__version__ >= "2.10"

SETUP = """
%%compile
def sg_step(x):
    s = x.sum().item()
    print("step", s)
    return x * s
"""


def test_magic_leaves_the_users_target_untouched(ip):
    run_cell(ip, SETUP)
    run_cell(ip, "import torch\nsg_x = torch.randn(8)\n_ = sg_step(sg_x)")
    compiled = ip.user_ns["sg_step"]
    code = compiled._torchdynamo_orig_callable.__code__
    entries = [e.code for e in _debug_get_cache_entry_list(code)]
    report = nbcompile.report(compiled).to_dict()
    config = torch._dynamo.config.get_config_copy()
    assert report["graph_break_count"] >= 1

    run_cell(ip, "sg_s = %suggest sg_step(sg_x) --budget 120")
    result = ip.user_ns["sg_s"]
    assert isinstance(result, nbcompile.Suggestions)
    assert result.verified  # the .item() and print fixes are proven
    assert {s.change for s in result.verified} >= {
        "torch._dynamo.config.reorderable_logging_functions.add(print)"} | (
        {"torch._dynamo.config.capture_scalar_outputs = True"} if SCALAR_STEPS_COMPILE
        else set())
    bundle = result._repr_mimebundle_()
    assert bundle[nbcompile.MIME_TYPE]["record"] == "suggestions"
    assert "user-select:all" in bundle["text/html"] and "verified" in bundle["text/plain"]

    assert ip.user_ns["sg_step"] is compiled
    assert [e.code for e in _debug_get_cache_entry_list(code)] == entries
    assert nbcompile.report(compiled).to_dict() == report
    assert torch._dynamo.config.get_config_copy() == config


def test_magic_bad_input(ip):
    import pytest
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match="--budget must be a positive"):
        ip.run_line_magic("suggest", "resized(x) --budget 0")
    with pytest.raises(UsageError, match="needs a call"):
        ip.run_line_magic("suggest", "resized")
