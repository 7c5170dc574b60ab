"""Numeric check of a result against eager's: max absolute difference and a tolerance by dtype."""

from __future__ import annotations

import math
from typing import Any

import torch

from ..torch_compat import tree_leaves

#: (rtol, atol) of the numeric check against eager, by dtype.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-3, 1e-4),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (1.6e-2, 1e-2),
}


def leaves(value: Any) -> list[Any]:
    return tree_leaves(value)


def snapshot_outputs(value: Any) -> list[Any]:
    """The output's leaves, tensors detached and copied (later calls may reuse buffers)."""
    return [v.detach().clone() if isinstance(v, torch.Tensor) else v for v in leaves(value)]


def numeric_diff(reference: list[Any], value: Any) -> tuple[float, bool, str, list[str]]:
    """``(max abs difference, within tolerance, tolerance text, notes)`` vs ``reference``."""
    got_leaves = leaves(value)
    notes: list[str] = []
    if len(got_leaves) != len(reference):
        return math.inf, False, "", [
            f"output structure differs from eager ({len(got_leaves)} vs {len(reference)} values)"
        ]
    worst, ok, tols = 0.0, True, set()
    for ref, got in zip(reference, got_leaves, strict=True):
        if isinstance(ref, torch.Tensor) and isinstance(got, torch.Tensor):
            if ref.shape != got.shape:
                notes.append(f"shape {tuple(got.shape)} differs from eager's {tuple(ref.shape)}")
                return math.inf, False, "", notes
            if ref.dtype != got.dtype:
                notes.append(f"dtype {got.dtype} differs from eager's {ref.dtype}")
                ok = False
            if ref.numel() == 0:
                continue
            a = ref.detach().to("cpu", torch.float64)
            b = got.detach().to("cpu", torch.float64)
            both_nan = torch.isnan(a) & torch.isnan(b)
            diff = torch.where(both_nan, torch.zeros_like(a), (a - b).abs())
            if torch.isnan(diff).any():
                notes.append("NaN where eager has a number (or the reverse)")
                return math.inf, False, "", notes
            worst = max(worst, float(diff.max()))
            if ref.is_floating_point() or ref.is_complex():
                rtol, atol = TOLERANCES.get(ref.dtype, (1e-5, 1e-8))
                tols.add(f"{ref.dtype}: rtol={rtol:g}, atol={atol:g}")
                if not torch.allclose(b, a, rtol=rtol, atol=atol, equal_nan=True):
                    ok = False
            elif not torch.equal(a, b):
                ok = False
        elif isinstance(ref, torch.Tensor) or isinstance(got, torch.Tensor):
            notes.append("a tensor output of eager is not a tensor here (or the reverse)")
            return math.inf, False, "", notes
        elif isinstance(ref, (int, float)) and isinstance(got, (int, float)):
            d = abs(float(ref) - float(got))
            worst = max(worst, d)
            ok &= d <= 1e-6 * max(1.0, abs(float(ref)))
        elif ref != got:
            notes.append(f"non-tensor output differs: {got!r} vs eager's {ref!r}")
            ok = False
    return worst, ok, "; ".join(sorted(tols)) or "exact", notes

