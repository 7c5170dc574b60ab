"""``%compile_time`` (``nbcompile.compile_time``) of a GPU compile under
``max-autotune-no-cudagraphs``: where the cold compile's seconds go, checked against
torch's own metrics of that compile (``compilation_metrics``: the phases split its
``dynamo_cumulative_compile_time_us`` and add up to it; ``triton_compile_time_us`` is the
Triton compile; max-autotune's ``compile_time_autotune_time_us`` is inside Inductor's
lowering and code generation, whose seconds it is part of)."""

from __future__ import annotations

import torch

import nbcompile
from tests.support.compile_models import Plain
from tests.support.gpu import save

MODE = "max-autotune-no-cudagraphs"


def test_compile_time_splits_a_gpu_compile_as_torch_measured_it(evidence):
    model = Plain().cuda().requires_grad_(False)  # inference: one graph, two matmuls
    x = torch.randn(4, 8, device="cuda")
    result = nbcompile.compile_time(model, x, remedies=(), rounds=3, budget_s=120,
                                    options={"mode": MODE})
    save(evidence, "compile_time_max_autotune", result, [])
    assert result.reproducible, result.notes
    cold = result.runs[0]
    assert cold.status == "ok" and cold.first_call_s, cold
    where = result.where
    assert where.frames and where.total_s > 0, where
    for frame in where.frames:
        # the exclusive phases add up to torch's own seconds for the frame compile
        parts = sum(frame.phases.values())
        assert abs(parts - frame.seconds) <= 0.01 + 0.01 * frame.seconds, frame
    # Triton compiled the kernels in the cold process (torch's triton_compile_time_us)
    assert where.phases.get("C++/Triton compile", 0) > 0, where.phases
    assert where.phases.get("code generation", 0) + where.phases.get(
        "Inductor lowering", 0) > 0, where.phases
