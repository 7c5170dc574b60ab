"""``%diagnose`` (``nbcompile.diagnose``) on a CUDA GPU: an mm-heavy function under
``torch.set_float32_matmul_precision('high')`` is named a TF32 difference, with torch as
the oracle that TF32 is the cause (plain ``torch.compile`` differs from eager under 'high'
and matches it under 'highest')."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

import nbcompile
from tests.support.gpu import save


def mm_t(a, b, w):
    outer = a @ b  # k == 1: Inductor may compute it pointwise, eager's cuBLAS in TF32
    return (outer @ w).relu() @ w


@pytest.fixture
def tf32() -> Iterator[None]:
    """float32 matmuls in TF32 for the test, torch's setting put back after."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def _differs(args: tuple[torch.Tensor, ...], precision: str) -> float | None:
    """torch's own: plain ``torch.compile`` against eager under ``precision``; the largest
    difference when out of ``assert_close``'s float32 tolerance, else None."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(precision)
    try:  # Dynamo guards torch's matmul settings: a change of precision recompiles
        compiled, eager = torch.compile(mm_t)(*args), mm_t(*args)
        torch.cuda.synchronize()
        try:
            torch.testing.assert_close(compiled, eager)
        except AssertionError:
            return float((compiled - eager).abs().max())
        return None
    finally:
        torch.set_float32_matmul_precision(before)


def test_diagnose_names_tf32_as_the_cause(tf32, evidence):
    torch.manual_seed(0)
    args = (torch.randn(256, 1, device="cuda"), torch.randn(1, 256, device="cuda"),
            torch.randn(256, 256, device="cuda"))
    high, highest = _differs(args, "high"), _differs(args, "highest")
    d = nbcompile.diagnose(mm_t, *args, budget_s=15)
    save(evidence, "diagnose_tf32", {"diagnosis": d.to_dict(), "torch_high_diff": high,
                                     "torch_highest_diff": highest}, [])
    assert torch.get_float32_matmul_precision() == "high"  # diagnose put nothing else back
    if high is None or highest is not None:
        pytest.skip(f"torch shows no TF32-only difference for mm_t on this device (plain "
                    f"compile vs eager: {high} under 'high', {highest} under 'highest'): "
                    "the scenario needs a function torch compiles differently under TF32")
    assert d.kind == "accuracy", d.summary
    note = next(n for n in d.notes if n.startswith("reduced matmul precision: "))
    assert "float32 matmuls run in TF32" in note and "'high'" in note, note
    assert "TF32 matmuls are in force" in d.summary, d.summary
