"""nbcompile.suggest / %suggest: fixes proposed and proven on copies, with real compiles
(issue 14). The user's compiled target, its Dynamo caches, its report and torch's global
settings are checked unchanged."""

from __future__ import annotations

import importlib.util
import json
import sys

import jsonschema
import torch
import torch._dynamo
from torch._dynamo.eval_frame import _debug_get_cache_entry_list

import nbcompile
from nbcompile.core.suggest import suggest
from nbcompile.schema.generate import SCHEMA_PATH

from .conftest import run_cell


def item_scale(x):
    s = x.sum().item()
    return x * s + 1


def item_branch(x):
    if x.sum().item() > 0:
        return x + 1
    return x - 1


def int_count(x):
    n = int(x.sum())
    return x / n


def resized(x):
    return torch.sin(x) * 2


def _item(result, kind, needle=""):
    found = [s for s in result.items if s.kind == kind and needle in s.change]
    assert found, [(s.kind, s.change) for s in result.items]
    return found[0]


def test_item_break_setting_is_verified_and_config_restored():
    before = torch._dynamo.config.capture_scalar_outputs
    logging_before = set(torch._dynamo.config.reorderable_logging_functions)
    result = suggest(item_scale, torch.randn(16))
    assert result.baseline.breaks == 1 and result.baseline.graphs == 2
    problem = result.problems[0]
    assert problem.kind == "graph_break" and problem.line == "s = x.sum().item()"
    assert not problem.in_library
    setting = _item(result, "setting", "capture_scalar_outputs = True")
    assert setting.verified and setting.status == "verified"
    assert setting.after.breaks == 0 and setting.after.graphs == 1
    assert setting.same_result.ok and setting.same_result.max_abs_diff < 1e-4
    rewrite = _item(result, "rewrite")
    assert "+ s = x.sum()" in rewrite.change and rewrite.verified
    assert torch._dynamo.config.capture_scalar_outputs is before
    assert set(torch._dynamo.config.reorderable_logging_functions) == logging_before
    data = json.loads(json.dumps(result.to_dict()))
    assert data["record"] == "suggestions" and data["schema_version"] == nbcompile.SCHEMA_VERSION
    assert data["items"][0]["problem"]["line"] == "s = x.sum().item()"
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(data)
    data["items"][0]["verified"] = "yes"
    assert not jsonschema.validators.validator_for(schema)(schema).is_valid(data)


def test_fix_that_does_not_remove_the_break_is_not_verified():
    result = suggest(item_branch, torch.randn(16))
    assert result.baseline.breaks >= 1
    assert result.items
    for item in result.items:
        assert not item.verified, (item.change, item.after, item.note)
        assert item.status in ("tried, did not help", "not tried")
    tried = [i for i in result.items if i.status == "tried, did not help"]
    assert tried and all(i.note for i in tried)


def test_rewrite_that_changes_the_result_is_never_verified():
    # int() truncates the sum (25.6 -> 25): keeping it a tensor differs by 1.6 * (1/25 -
    # 1/25.6) = 0.0015 per element, above float32's tolerance (fixed input: not by chance).
    x = torch.full((16,), 1.6)
    result = suggest(int_count, x)
    rewrite = _item(result, "rewrite")
    assert "+ n = x.sum()" in rewrite.change
    assert rewrite.after.breaks == 0  # the break is gone ...
    assert rewrite.same_result.ok is False and rewrite.same_result.max_abs_diff > 1e-3
    assert not rewrite.verified and "changes the result" in rewrite.note  # ... but not proven


LIBRARY = '''
import torch

def scale_by_total(x):
    total = x.sum().item()
    return x / total
'''


def test_library_break_gets_a_setting_or_disable_never_a_rewrite(tmp_path):
    path = tmp_path / "suggest_fake_lib.py"
    path.write_text(LIBRARY)
    spec = importlib.util.spec_from_file_location("suggest_fake_lib", path)
    lib = importlib.util.module_from_spec(spec)
    sys.modules["suggest_fake_lib"] = lib
    spec.loader.exec_module(lib)

    def uses_lib(x):
        y = lib.scale_by_total(x + 1)
        return y * 2

    result = suggest(uses_lib, torch.rand(16) + 1)
    problem = result.problems[0]
    assert problem.in_library and problem.line == "y = lib.scale_by_total(x + 1)"
    assert not [s for s in result.items if s.kind == "rewrite"]
    assert _item(result, "setting", "capture_scalar_outputs").verified
    assert not _item(result, "option", "torch.compiler.disable").verified


def test_recompiles_from_changing_sizes_suggest_dynamic():
    calls = [(torch.randn(4, 8),), (torch.randn(6, 8),), (torch.randn(9, 8),)]
    result = suggest(resized, calls=calls)
    assert result.baseline.recompiles >= 1 and result.baseline.breaks == 0
    dynamic = _item(result, "option", "--dynamic")
    assert dynamic.verified and dynamic.after.recompiles == 0
    mark = _item(result, "setting", "mark_dynamic(arg0, 0)")
    assert mark.verified and mark.after.recompiles < result.baseline.recompiles
    assert "mark_dynamic(arg0, 1)" not in mark.change  # dim 1 never changes
    for args in calls:  # marks went on nbcompile's copies, not the user's tensors
        assert not getattr(args[0], "_dynamo_dynamic_indices", set())


def test_bad_input_is_a_clear_error():
    import pytest

    with pytest.raises(ValueError, match="calls\\[0\\] is a list"):
        suggest(resized, calls=[[torch.randn(2)]])
    with pytest.raises(ValueError, match="budget_s must be a positive"):
        suggest(resized, torch.randn(2), budget_s=0)


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
        "torch._dynamo.config.capture_scalar_outputs = True",
        "torch._dynamo.config.reorderable_logging_functions.add(print)"}
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
