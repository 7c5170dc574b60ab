"""A call command's arguments in a few words, as each record lists them (``inputs`` of
``compare``, ``diagnose`` and ``compile_time``): a tensor by its shape, dtype and device,
anything else by its repr, cut to 60 characters."""

from __future__ import annotations

from typing import Any

import torch

from ..units import clip


def describe_argument(value: Any) -> str:
    """``Tensor[4, 32] float32 cpu``; another value's repr, at most 60 characters."""
    if isinstance(value, torch.Tensor):
        return (f"Tensor{list(value.shape)} {str(value.dtype).removeprefix('torch.')} "
                f"{value.device}")
    text = repr(value)
    return clip(text, 57, "...")


def describe_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """Each positional argument, then each keyword argument as ``name=value``."""
    return ([describe_argument(a) for a in args]
            + [f"{k}={describe_argument(v)}" for k, v in kwargs.items()])
