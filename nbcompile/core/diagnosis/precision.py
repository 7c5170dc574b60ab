"""The floating dtypes a call computes in, read from its captured graphs, not its signature.

Dynamo's graph text (``print_readable``) annotates every node and input with its value's
dtype and shape (``y: "bf16[64, 128][128, 1]cpu" = l_x_.to(torch.bfloat16)``); Inductor's
post-grad graph does the same. A function with float32 inputs and outputs that computes
in bfloat16 inside shows ``bf16`` there, so the precision workarounds apply to it.

On a CUDA GPU the matmul precision torch is set to changes results too: TF32 for float32
matmuls (``torch.set_float32_matmul_precision('high')``) and convolutions, reduced-precision
reductions for float16/bfloat16 matmuls. ``read_matmul_settings`` reads those settings;
``matmul_precision`` names them (pure: settings, dtypes and ops in, causes and words out).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
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


# --- matmul precision: TF32 and reduced-precision reductions on a CUDA GPU --------------

#: A matmul or convolution in Dynamo's readable graph (``x @ w`` prints as ``l_x_ @ l_w_``,
#: ``nn.Linear`` as ``torch._C._nn.linear(...)``, ``nn.Conv2d`` as ``torch.conv2d(...)``).
_MATMUL = re.compile(
    r"= (?:[\w.]+ @ [\w.]+|torch\.(?:_C\._nn\.linear|nn\.functional\.linear|matmul|mm|bmm|"
    r"addmm|baddbmm|addbmm|einsum|functional\.einsum|tensordot|inner|chain_matmul)\("
    r"|[\w.]+\.(?:matmul|mm|bmm)\()")
_CONV = re.compile(r"= torch\.(?:conv[123]d|conv_transpose[123]d|convolution)\(")


@dataclass(frozen=True)
class MatmulSettings:
    """torch's matmul precision settings in force at the call (read by
    ``read_matmul_settings``): ``torch.get_float32_matmul_precision()``, the cuBLAS and
    cuDNN TF32 switches and cuBLAS's reduced-precision reductions for float16/bfloat16."""

    float32_precision: str = "highest"  # highest | high | medium
    cuda_tf32: bool = False  # torch.backends.cuda.matmul.allow_tf32
    cudnn_tf32: bool = False  # torch.backends.cudnn.allow_tf32 (convolutions)
    fp16_reduced: bool = False  # ...matmul.allow_fp16_reduced_precision_reduction
    bf16_reduced: bool = False  # ...matmul.allow_bf16_reduced_precision_reduction


def read_matmul_settings() -> MatmulSettings:
    """The settings as torch reports them now (each read where torch 2.11 and 2.13 keep it;
    a setting this torch lacks reads as off)."""
    matmul = torch.backends.cuda.matmul
    with warnings.catch_warnings():  # newer torch warns that allow_tf32 gives way to fp32_precision
        warnings.simplefilter("ignore")
        return MatmulSettings(
            float32_precision=str(torch.get_float32_matmul_precision()),
            cuda_tf32=bool(getattr(matmul, "allow_tf32", False)),
            cudnn_tf32=bool(getattr(torch.backends.cudnn, "allow_tf32", False)),
            fp16_reduced=bool(getattr(matmul, "allow_fp16_reduced_precision_reduction",
                                      False)),
            bf16_reduced=bool(getattr(matmul, "allow_bf16_reduced_precision_reduction",
                                      False)))


def has_matmul(graphs: Iterable[str]) -> bool:
    """Whether the readable graphs multiply matrices (``@``, ``mm``, ``linear``, ...)."""
    return any(_MATMUL.search(text) for text in graphs)


def has_conv(graphs: Iterable[str]) -> bool:
    """Whether the readable graphs run a convolution."""
    return any(_CONV.search(text) for text in graphs)


#: The start of the diagnosis note that names reduced matmul precision.
MATMUL_NOTE = "reduced matmul precision: "


@dataclass(frozen=True)
class MatmulPrecision:
    """The reduced matmul precision in force for a call: its ``causes`` in short words
    (``"TF32 matmuls"``, what the summary names) and the diagnosis ``note`` that explains
    them with their settings and fixes; both empty when none applies."""

    causes: tuple[str, ...] = ()
    note: str = ""


def matmul_precision(settings: MatmulSettings, dtypes: set[str], matmul: bool, conv: bool,
                     eager_error: float | None = None,
                     compiled_error: float | None = None) -> MatmulPrecision:
    """TF32 and reduced-precision matmuls, from the settings torch reports, the dtypes the
    call's graphs compute in (``graph_dtypes``) and whether they multiply matrices or
    convolve, with the float64 verdict's errors when there is one; empty when none
    applies. Only for a call on a CUDA GPU (the caller checks): on a CPU none of these
    settings changes a result."""
    named: list[tuple[str, str, str]] = []  # (cause, words, fix)
    fp32 = "float32" in dtypes
    if matmul and fp32 and (settings.cuda_tf32 or settings.float32_precision != "highest"):
        named.append((
            "TF32 matmuls",
            "float32 matmuls run in TF32"
            + (" or bfloat16" if settings.float32_precision == "medium" else "")
            + " (torch.get_float32_matmul_precision() is "
            f"'{settings.float32_precision}', torch.backends.cuda.matmul.allow_tf32 is "
            f"{settings.cuda_tf32}); TF32 keeps 10 of float32's 23 mantissa bits, about "
            "1e-3 relative per product, so eager and compiled each round their matmuls "
            "and differ wherever their kernels split or sum them differently",
            "torch.set_float32_matmul_precision('highest')"))
    if conv and fp32 and settings.cudnn_tf32:
        named.append(("TF32 convolutions",
                      "float32 convolutions run in TF32 (torch.backends.cudnn.allow_tf32 is "
                      "True, torch's default)", "torch.backends.cudnn.allow_tf32 = False"))
    for dtype, on in (("float16", settings.fp16_reduced), ("bfloat16", settings.bf16_reduced)):
        if matmul and on and dtype in dtypes:
            named.append((
                "reduced-precision matmul reductions",
                f"{dtype} matmuls may reduce in reduced precision (torch.backends.cuda."
                f"matmul.allow_{dtype.replace('bfloat', 'bf').replace('float', 'fp')}"
                "_reduced_precision_reduction is True)",
                "the allow_*_reduced_precision_reduction flags set to False"))
    if not named:
        return MatmulPrecision()
    text = MATMUL_NOTE + "; ".join(words for _, words, _ in named)
    if eager_error is not None and compiled_error is not None:
        text += (f". Against float64 eager is off by {eager_error:.3g} and compiled by "
                 f"{compiled_error:.3g}: both carry that rounding")
    fixes = list(dict.fromkeys(fix for _, _, fix in named))
    causes = tuple(dict.fromkeys(cause for cause, _, _ in named))
    return MatmulPrecision(causes, text + ". To compute them in full precision (slower): "
                           + " and ".join(fixes))
