"""A result judged against eager's with ``torch.testing.assert_close``'s default tolerance.

For each floating (or complex) output tensor: ``rtol``/``atol`` are assert_close's
defaults for its dtype (bfloat16: 0.016 / 1e-5, float32: 1.3e-6 / 1e-5 ...), an element
is out of tolerance where ``torch.isclose`` (the test assert_close runs) says so, NaN
matching NaN; integer and bool tensors must be equal, as in assert_close. The largest
absolute difference is computed in float64.
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass, field
from typing import Any

import torch

from ..perf.numerics import nan_matched_gap
from ..runs.produced import Opaque, label_of, not_comparable
from .torch_names import default_tolerances


@dataclass
class Judged:
    """One result against eager's: within tolerance, largest difference, elements out."""

    ok: bool = True
    max_abs_diff: float | None = 0.0  # None: not comparable (structure, shape, NaN)
    mismatched: int = 0
    numel: int = 0
    tolerances: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    #: False when no value could be compared (e.g. the output is a generator): no verdict
    comparable: bool = True

    @property
    def tolerance(self) -> str:
        return tolerance_text(self.tolerances)


def tolerance_text(tolerances: set[str]) -> str:
    if not tolerances:
        return "exact (no floating-point outputs)"
    return "torch.testing.assert_close defaults: " + "; ".join(sorted(tolerances))


def _tolerance(dtype: torch.dtype) -> tuple[float, float, str]:
    rtol, atol = default_tolerances(dtype)
    return rtol, atol, f"{str(dtype).removeprefix('torch.')} rtol={rtol:g}, atol={atol:g}"


def judge(expected: list[Any], got_leaves: list[Any], labels: list[str] | None = None
          ) -> Judged:
    """What a call produced against eager's (``Produced.leaves`` of each; ``labels`` name
    the leaves, so a changed input or state tensor that differs is named in the notes).
    Values that cannot be compared are noted, never judged; with none left,
    ``comparable`` is False."""
    result = Judged()
    if len(got_leaves) != len(expected):
        result.ok, result.max_abs_diff = False, None
        result.notes.append(f"the output has {len(got_leaves)} values where eager's has "
                            f"{len(expected)}")
        return result
    compared = 0
    for index, (ref, value) in enumerate(zip(expected, got_leaves, strict=True)):
        label = label_of(labels, index, len(expected))
        if isinstance(ref, Opaque) and isinstance(value, Opaque):
            continue
        compared += 1
        if isinstance(ref, torch.Tensor) and isinstance(value, torch.Tensor):
            before = result.mismatched
            _judge_tensor(result, ref, value)
            if result.mismatched > before and not label.startswith("output"):
                result.notes.append(f"{label} differs from eager's after the call: "
                                    f"{result.mismatched - before} of {ref.numel()} elements "
                                    "out of tolerance")
        elif isinstance(ref, torch.Tensor) or isinstance(value, torch.Tensor):
            result.ok, result.max_abs_diff = False, None
            result.notes.append("a tensor of eager's output is not a tensor here (or the reverse)")
        elif isinstance(ref, Opaque) or isinstance(value, Opaque):
            result.ok, result.max_abs_diff = False, None
            result.notes.append(f"{label}: {value!r} where eager has {ref!r}"[:300])
        elif _number(ref) and _number(value):
            result.numel += 1
            diff = abs(complex(ref) - complex(value))
            if result.max_abs_diff is not None:
                result.max_abs_diff = max(result.max_abs_diff, diff)
            if not cmath.isclose(complex(ref), complex(value), rel_tol=1.3e-6, abs_tol=1e-5):
                result.ok = False
                result.mismatched += 1
        elif ref != value:
            result.ok = False
            result.mismatched += 1
            result.notes.append(f"a value differs: {value!r} where eager has {ref!r}"[:300])
    result.notes += not_comparable(expected, labels)
    if not compared:
        result.comparable, result.max_abs_diff = False, None
    return result


def _number(value: Any) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _judge_tensor(result: Judged, ref: torch.Tensor, value: torch.Tensor) -> None:
    if ref.shape != value.shape:
        result.ok, result.max_abs_diff = False, None
        result.notes.append(f"shape {tuple(value.shape)} where eager's is {tuple(ref.shape)}")
        return
    if ref.dtype != value.dtype:
        result.ok = False
        result.notes.append(f"dtype {value.dtype} where eager's is {ref.dtype}")
    result.numel += ref.numel()
    if ref.numel() == 0:
        return
    a = ref.detach().cpu()
    b = value.detach().cpu()
    if a.is_floating_point() or a.is_complex():
        rtol, atol, text = _tolerance(a.dtype)
        result.tolerances.add(text)
        if b.dtype != a.dtype:
            b = b.to(a.dtype)
        close = torch.isclose(b, a, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = a == b.to(a.dtype)
    out = int((~close).sum())
    result.mismatched += out
    if out:
        result.ok = False
    diff = nan_matched_gap(a, b)
    if torch.isnan(diff).any():
        result.notes.append("NaN where eager has a number (or the reverse)")
        diff = torch.nan_to_num(diff, nan=math.inf)
    if result.max_abs_diff is not None:
        result.max_abs_diff = max(result.max_abs_diff, float(diff.max()))


def low_precision(values: list[Any]) -> bool:
    """Whether any tensor among ``values`` is float16 or bfloat16."""
    return any(isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16)
               for v in values)
