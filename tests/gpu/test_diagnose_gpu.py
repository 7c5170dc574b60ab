"""``%diagnose`` (``nbcompile.diagnose``) on a CUDA GPU: an mm-heavy function under
``torch.set_float32_matmul_precision('high')`` is named a TF32 difference, with torch as
the oracle that TF32 is the cause (plain ``torch.compile`` differs from eager under 'high'
and matches it under 'highest')."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch
from torch._inductor import config as inductor_config

import nbcompile
from tests.support.gpu import save


def mm_t(a, b, w):
    outer = a @ b  # k == 1: Inductor may compute it pointwise, eager's cuBLAS in TF32
    return (outer @ w).relu() @ w


def mv(a, w):
    # M == 1 under coordinate-descent tuning: Inductor computes it as a float32
    # reduction (its ``mm`` decomposition), eager's cuBLAS may use TF32
    return (a @ w).relu()


def _candidates() -> list[tuple[Any, tuple[torch.Tensor, ...], dict[str, Any]]]:
    """Functions, inputs and Inductor settings that may compile differently under TF32."""
    torch.manual_seed(0)
    return [
        (mm_t, (torch.randn(256, 1, device="cuda"), torch.randn(1, 256, device="cuda"),
                torch.randn(256, 256, device="cuda")), {}),
        (mv, (torch.randn(1, 256, device="cuda"), torch.randn(256, 256, device="cuda")),
         {"coordinate_descent_tuning": True}),
    ]


@pytest.fixture
def tf32() -> Iterator[None]:
    """float32 matmuls in TF32 for the test, torch's setting put back after."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def _differs(fn, args: tuple[torch.Tensor, ...], precision: str) -> float | None:
    """torch's own: plain ``torch.compile`` against eager under ``precision``; the largest
    difference when out of ``assert_close``'s float32 tolerance, else None."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(precision)
    try:  # Dynamo guards torch's matmul settings: a change of precision recompiles
        compiled, eager = torch.compile(fn)(*args), fn(*args)
        torch.cuda.synchronize()
        try:
            torch.testing.assert_close(compiled, eager)
        except AssertionError:
            return float((compiled - eager).abs().max())
        return None
    finally:
        torch.set_float32_matmul_precision(before)


def test_diagnose_names_tf32_as_the_cause(tf32, evidence):
    seen: dict[str, tuple[float | None, float | None]] = {}
    chosen = None
    for fn, args, settings in _candidates():
        with inductor_config.patch(settings):
            high, highest = _differs(fn, args, "high"), _differs(fn, args, "highest")
        seen[fn.__name__] = (high, highest)
        if high is not None and highest is None:  # torch: TF32 alone makes the difference
            chosen = (fn, args, settings)
            break
    if chosen is None:
        save(evidence, "diagnose_tf32", {"torch_diffs_high_highest": seen}, [])
        pytest.skip(f"torch shows no TF32-only difference on this device (plain compile vs "
                    f"eager, under 'high' and 'highest': {seen}): the scenario needs a "
                    "function torch compiles differently under TF32")
    fn, args, settings = chosen
    with inductor_config.patch(settings):  # the user's settings apply to diagnose's copies
        d = nbcompile.diagnose(fn, *args, budget_s=15)
    save(evidence, "diagnose_tf32", {"diagnosis": d.to_dict(), "function": fn.__name__,
                                     "torch_diffs_high_highest": seen}, [])
    assert torch.get_float32_matmul_precision() == "high"  # diagnose put nothing else back
    assert d.kind == "accuracy", d.summary
    note = next(n for n in d.notes if n.startswith("reduced matmul precision: "))
    assert "float32 matmuls run in TF32" in note and "'high'" in note, note
    assert "TF32 matmuls are in force" in d.summary, d.summary
