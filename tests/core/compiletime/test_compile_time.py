"""``compile_time()`` on fresh processes: a repeated-block model gets a verified regional
remedy with equal outputs; a model without repeated blocks gets none; what cannot be
carried into a fresh process is said, never measured."""

from __future__ import annotations

import pytest
import torch

from nbcompile.core.compiletime.measure import compile_time
from nbcompile.core.compiletime.where import repeated_blocks
from tests.support.compile_models import Plain, stack


def test_repeated_blocks_are_found_in_the_module_tree():
    found = repeated_blocks(stack(4))
    assert [(c.path, c.cls.__name__, c.count) for c in found] == [("blocks", "Block", 4)]
    assert repeated_blocks(Plain()) == []


def test_a_closure_is_not_reproducible_and_nothing_is_measured():
    scale = torch.tensor(2.0)
    result = compile_time(lambda x: x * scale, torch.randn(4), remedies=("regional",))
    assert not result.reproducible and not result.runs
    assert "cannot be copied into a fresh process" in result.notes[0]
    assert [r.status for r in result.remedies] == ["not reproducible"]


#: Blocks in the regional test: enough that one block's compile is clearly cheaper than
#: all of them (16 small blocks: ~0.7 of the whole model's cold compile here, against
#: the 0.9 a verdict needs; 4 blocks read ~0.8-0.9, a verdict noise can flip).
BLOCKS = 16


@pytest.mark.slow
def test_regional_compilation_of_repeated_blocks_is_verified():
    model = stack(BLOCKS)
    result = compile_time(model, torch.randn(2, 8), remedies=("regional",))
    regional = result.remedy("regional")
    if regional is not None and not regional.verified:
        # Wall-clock verdicts on a shared machine: a busy moment can eat a real cut once.
        retry = compile_time(model, torch.randn(2, 8), remedies=("regional",))
        result, regional = retry, retry.remedy("regional")
    assert result.reproducible, result.notes
    assert result.cold_s and result.warm_restart_s
    # where: torch's own compile record of the cold run, the blocks traced once each
    assert result.where.frames and result.where.total_s > 0
    assert result.where.phases.get("Dynamo tracing", 0) > 0
    assert result.where.caches.get("fx_graph miss", 0) >= 1
    block = result.where.repeated[0]
    assert (block.path, block.count, block.traced_copies) == ("blocks", BLOCKS, BLOCKS)
    assert 0.5 < block.node_share <= 1
    assert regional is not None
    assert regional.change == "for block in model.blocks:\n    block.compile()"
    assert regional.same_result is True
    # torch's own record: the regional run traced one block's ops, the baseline all of them
    cold, regional_run = result.runs[0], result.runs[2]
    assert regional_run.label == "regional cold" and regional_run.frames_compiled >= 1
    assert regional_run.graph_ops * BLOCKS == cold.graph_ops, (regional_run, cold)
    # verified: a measured cut of the cold first call, the same outputs
    assert regional.cold_s is not None and "cold first call" in regional.note
    assert regional.status == "verified" and regional.verified, (regional, result.cold_s)
    assert regional.cold_s <= 0.9 * result.cold_s
    # the user's model is untouched: not compiled, its parameters the same
    assert not getattr(model, "_compiled_call_impl", None)
    assert len(result.runs) == 4  # cold, warm restart, regional cold and restart


@pytest.mark.slow
def test_no_repeated_blocks_no_regional_remedy():
    result = compile_time(Plain().requires_grad_(False), torch.randn(2, 8),
                          remedies=("regional", "nested_region"))
    assert [(r.kind, r.status) for r in result.remedies] == [
        ("regional", "does not apply"), ("nested_region", "does not apply")]
    assert "no repeated blocks" in result.remedies[0].note
    assert [r.label for r in result.runs] == ["baseline cold", "baseline warm restart"]


@pytest.mark.slow
def test_ctrl_c_keeps_the_partial_record():
    from nbcompile.core.compiletime.measure import CompileTimeInterrupted

    def progress(step):
        if step.label == "baseline warm restart":
            raise KeyboardInterrupt

    with pytest.raises(CompileTimeInterrupted) as caught:
        compile_time(stack(2), torch.randn(2, 8), remedies=("regional",), progress=progress)
    partial = caught.value.partial
    assert partial.interrupted and "Ctrl-C" in partial.notes[-1]
    assert [r.label for r in partial.runs] == ["baseline cold"]
    assert partial.cold_s is not None and partial.where.frames


@pytest.mark.slow
def test_a_budget_too_small_stops_the_fresh_process_and_says_so():
    result = compile_time(stack(2), torch.randn(2, 8), budget_s=2.0, remedies=("regional",))
    assert result.cold_s is None and result.reproducible
    # stopped while importing torch, or not started when under a second was left
    assert "ran past the budget" in result.notes[0] or "budget was spent" in result.notes[0]
    assert [r.status for r in result.remedies] == ["not tried"]
    assert result.elapsed_s < 30


@pytest.mark.slow
def test_shape_driven_recompiles_get_the_dynamic_remedy():
    from tests.support.compile_models import wave

    result = compile_time(wave, torch.randn(8), more_calls=[((torch.randn(11),), {})],
                          remedies=("dynamic", "regional"))
    # torch's own record of the cold run: a recompile for the new size
    assert [f.recompile for f in result.where.frames] == [False, True]
    assert "size" in result.where.frames[1].recompile_reason
    assert result.where.recompile_s > 0
    dynamic = result.remedy("dynamic")
    assert dynamic is not None and dynamic.change == "wave = torch.compile(wave, dynamic=True)"
    assert dynamic.same_result is True and dynamic.cold_s is not None, dynamic
    assert "recompiled for:" in dynamic.note
    run = next(r for r in result.runs if r.label == "dynamic cold")
    assert run.frames_compiled == 1  # one dynamic compile serves both sizes
    assert result.remedy("regional").status == "does not apply"
