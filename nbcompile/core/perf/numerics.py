"""Numeric check of a result against eager's: max absolute difference and a tolerance by dtype."""

from __future__ import annotations

import math
from typing import Any

import torch

from ..runs.produced import Opaque, label_of, not_comparable, snapshot
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
    """The output's leaves, tensors detached and copied (later calls may reuse buffers),
    NumPy arrays as tensors, values that cannot be compared as ``Opaque``
    (``runs.produced``)."""
    return snapshot(value)


def nan_matched_gap(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``|a - b|`` element by element, in float64 on the CPU (complex tensors compared in
    complex128): 0 where both are NaN, NaN where only one is."""
    wide = torch.complex128 if a.is_complex() or b.is_complex() else torch.float64
    wide_a, wide_b = a.detach().cpu().to(wide), b.detach().cpu().to(wide)
    gap = (wide_a - wide_b).abs().to(torch.float64)
    both_nan = torch.isnan(wide_a) & torch.isnan(wide_b)
    return torch.where(both_nan, torch.zeros_like(gap), gap)


def drift(first: list[Any], again: list[Any]) -> float | None:
    """How far two snapshots of the same call, made from the same start, are apart: None
    when identical (bit for bit, NaN matching NaN), else the largest absolute difference
    (``inf`` when their structure differs). Eager is not always reproducible on a first
    call: oneMKL picks a VML function's kernel on its first call, and when intra-op
    threads make that call at once one thread can run a low-accuracy kernel on its chunk
    (pytorch/pytorch#188792; seen here as torch 2.13's CPU ``cos`` computing one thread's
    half of a 64x64 input 1.5e-4 off in 4 of 110 fresh processes)."""
    if len(first) != len(again):
        return math.inf
    worst: float | None = None
    for a, b in zip(first, again, strict=True):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            if a.shape != b.shape or a.dtype != b.dtype:
                return math.inf
            floating = a.is_floating_point() or a.is_complex()
            if torch.equal(a, b) or (floating and torch.allclose(
                    a, b, rtol=0.0, atol=0.0, equal_nan=True)):
                continue
            gap = nan_matched_gap(a, b).nan_to_num(nan=math.inf)
            worst = max(worst or 0.0, float(gap.max()) if gap.numel() else 0.0)
        elif isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return math.inf
        elif isinstance(a, Opaque) or isinstance(b, Opaque):
            if not (isinstance(a, Opaque) and isinstance(b, Opaque)):
                return math.inf  # nothing to say about two objects that cannot be compared
        elif a != b and not (isinstance(a, float) and isinstance(b, float)
                             and math.isnan(a) and math.isnan(b)):
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                worst = max(worst or 0.0, abs(float(a) - float(b)))
            else:
                return math.inf
    return worst


def drift_note(gap: float) -> str:
    """What a reference made from a second eager call says about the first."""
    return (f"eager's first call and its second, on the same inputs, differ (by up to "
            f"{gap:.3g}): eager is not reproducible on a first call here (e.g. a kernel "
            "library's first use on a thread); results are judged against the second call")


def numeric_diff(reference: list[Any], value: Any, labels: list[str] | None = None
                 ) -> tuple[float | None, bool | None, str, list[str]]:
    """``(max abs difference, within tolerance, tolerance text, notes)`` vs ``reference``
    (``labels`` name its leaves: a changed input or state tensor that differs is named in
    the notes). Values that cannot be compared are noted ("not comparable: generator"),
    never judged; when nothing can be compared, the difference and the check are None."""
    got_leaves = leaves(value)
    notes: list[str] = []
    if len(got_leaves) != len(reference):
        return math.inf, False, "", [
            f"output structure differs from eager ({len(got_leaves)} vs {len(reference)} values)"
        ]
    worst, ok, tols, compared = 0.0, True, set(), 0
    for index, (ref, got) in enumerate(zip(reference, got_leaves, strict=True)):
        label = label_of(labels, index, len(reference))
        if isinstance(ref, Opaque) or isinstance(got, Opaque):
            if not (isinstance(ref, Opaque) and isinstance(got, Opaque)):
                notes.append(f"{label}: {got!r} where eager's is {ref!r}")
                return math.inf, False, "", notes
            continue
        compared += 1
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
            gap = float(diff.max())
            worst = max(worst, gap)
            close = True
            if ref.is_floating_point() or ref.is_complex():
                rtol, atol = TOLERANCES.get(ref.dtype, (1e-5, 1e-8))
                tols.add(f"{ref.dtype}: rtol={rtol:g}, atol={atol:g}")
                close = torch.allclose(b, a, rtol=rtol, atol=atol, equal_nan=True)
            elif not torch.equal(a, b):
                close = False
            if not close:
                ok = False
                if not label.startswith("output"):
                    notes.append(f"{label} differs from eager's after the call "
                                 f"(max abs difference {gap:.3g})")
        elif isinstance(ref, torch.Tensor) or isinstance(got, torch.Tensor):
            notes.append("a tensor output of eager is not a tensor here (or the reverse)")
            return math.inf, False, "", notes
        elif _number(ref) and _number(got):
            d = abs(complex(ref) - complex(got))
            worst = max(worst, d)
            ok &= d <= 1e-6 * max(1.0, abs(complex(ref)))
        elif ref != got:
            notes.append(f"non-tensor output differs: {got!r} vs eager's {ref!r}"[:300])
            ok = False
    notes += not_comparable(reference, labels)
    if not compared:
        return None, None, "", notes
    return worst, ok, "; ".join(sorted(tols)) or "exact", notes


def _number(value: Any) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)
