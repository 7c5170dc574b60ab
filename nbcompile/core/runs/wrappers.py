"""The module inside a wrapper (DDP, FSDP, DataParallel, Lightning Fabric) and the eager
behaviour of a target object (function or module, compiled or not)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import torch

from .. import torch_compat

Unwrapper = Callable[[Any], "torch.nn.Module | None"]


def _unwrap_parallel(obj: Any) -> torch.nn.Module | None:
    parallel: tuple[type, ...] = (torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel)
    if isinstance(obj, parallel):
        return obj.module
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel
    except ImportError:  # torch built without distributed
        return None
    if isinstance(obj, FullyShardedDataParallel):
        return obj.module
    return None


def _unwrap_fabric(obj: Any) -> torch.nn.Module | None:
    """Lightning Fabric's ``_FabricModule`` (what ``fabric.setup(model)`` returns).

    Its ``_forward_module`` is what runs (the module itself, or the strategy's DDP/FSDP
    wrapper around it, unwrapped next). No import: if Lightning is not loaded, no object
    can be a ``_FabricModule``.
    """
    for modname in ("lightning.fabric.wrappers", "lightning_fabric.wrappers"):
        wrappers = sys.modules.get(modname)
        cls = getattr(wrappers, "_FabricModule", None)
        if cls is not None and isinstance(obj, cls):
            return obj._forward_module
    return None


#: Functions that return the module to compile inside a wrapper, or None.
UNWRAPPERS: list[Unwrapper] = [_unwrap_parallel, _unwrap_fabric]


def unwrap(module: torch.nn.Module) -> tuple[torch.nn.Module, str | None]:
    """Return ``(module to compile, wrapper class names or None)``.

    Nested wrappers are named outermost first: ``"_FabricModule > DistributedDataParallel"``.
    """
    wrappers: list[str] = []
    for _ in range(8):  # wrappers can nest (e.g. DDP inside a framework wrapper)
        for unwrapper in UNWRAPPERS:
            inner = unwrapper(module)
            if inner is not None and inner is not module:
                wrappers.append(type(module).__name__)
                module = inner
                break
        else:
            break
    return module, " > ".join(wrappers) or None


def eager_callable(obj: Any) -> Callable[..., Any]:
    """The uncompiled behaviour of a target object (function or module)."""
    if isinstance(obj, torch.nn.Module):
        inner, _ = unwrap(obj)
        if inner is obj:
            return torch_compat.call_impl(obj)
        return lambda *a, **k: _eager_wrapper_call(obj, a, k)
    return torch_compat.orig_callable(obj)


def _eager_wrapper_call(wrapper: torch.nn.Module, args: tuple, kwargs: dict) -> Any:
    inner, _ = unwrap(wrapper)
    saved = torch_compat.compiled_call_impl(inner)
    torch_compat.set_compiled_call_impl(inner, None)
    try:
        return wrapper(*args, **kwargs)
    finally:
        torch_compat.set_compiled_call_impl(inner, saved)
