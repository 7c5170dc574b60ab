"""The floating dtypes a call computes in, read from its captured graphs, not its signature.

Dynamo's graph text (``print_readable``) annotates every node and input with its value's
dtype and shape (``y: "bf16[64, 128][128, 1]cpu" = l_x_.to(torch.bfloat16)``); Inductor's
post-grad graph does the same. A function with float32 inputs and outputs that computes
in bfloat16 inside shows ``bf16`` there, so the precision workarounds apply to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import torch

#: the annotation's dtype abbreviation (torch's ``dtype_abbrs``) -> the dtype's name
FLOATING = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
            "c32": "complex32", "c64": "complex64", "c128": "complex128"}
LOW = ("float16", "bfloat16")
_ANNOTATION = re.compile(r'\w+: "(?P<dtype>[a-z]+\d*)\[')


def graph_dtypes(graphs: Iterable[str]) -> set[str]:
    """The floating dtypes (``"bfloat16"``, ``"float32"`` ...) of the values in ``graphs``
    (readable FX graph texts): inputs and every node."""
    found: set[str] = set()
    for text in graphs:
        for m in _ANNOTATION.finditer(text):
            name = FLOATING.get(m["dtype"])
            if name is not None:
                found.add(name)
    return found


def value_dtypes(values: Iterable[Any]) -> set[str]:
    """The floating dtypes of the tensors among ``values``."""
    return {str(v.dtype).removeprefix("torch.") for v in values
            if isinstance(v, torch.Tensor) and (v.is_floating_point() or v.is_complex())}


def low_dtypes(graphs: Iterable[str], values: Iterable[Any] = ()) -> list[str]:
    """The float16/bfloat16 dtypes the call computes in (its graphs) or returns."""
    found = graph_dtypes(graphs) | value_dtypes(values)
    return [d for d in LOW if d in found]


def casts_inside(graphs: Iterable[str]) -> bool:
    """Whether the graphs compute in more than one real floating dtype: the function casts
    inside, so upcasting its inputs does not make it run in float64."""
    real = {d for d in graph_dtypes(graphs) if not d.startswith("complex")}
    return len(real) > 1
