"""The private torch names a diagnosis touches, each behind one accessor with its fallback.

The paths are registered in ``core/torch_compat.py`` (the one list of private names, with
what needs each and its fallback); they are looked up by name with ``torch_compat.lookup``,
so a torch that renamed one degrades as that registry says instead of failing at import.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

from .. import torch_compat
from ..torch_compat import MISSING, lookup

# The paths, with what needs them and what a diagnosis does without them, are registered
# in ``torch_compat.NAMES`` (listed by ``torch_compat.missing()``).
INDUCTOR_CONFIG = torch_compat.INDUCTOR_CONFIG.path
DYNAMO_CONFIG = torch_compat.DYNAMO_CONFIG.path
FUNCTORCH_CONFIG = torch_compat.FUNCTORCH_CONFIG.path
BISECTOR = torch_compat.BISECTOR.path
DEFAULT_TOLERANCES = torch_compat.DEFAULT_TOLERANCES.path
DISPATCH_MODE = torch_compat.DISPATCH_MODE.path
CAST_TO_FP64 = torch_compat.CAST_TO_FP64.path

#: ``torch.testing.assert_close``'s defaults (rtol, atol) as of torch 2.13.
_TOLERANCES = {
    "torch.float16": (1e-3, 1e-5),
    "torch.bfloat16": (1.6e-2, 1e-5),
    "torch.float32": (1.3e-6, 1e-5),
    "torch.float64": (1e-7, 1e-7),
    "torch.complex32": (1e-3, 1e-5),
    "torch.complex64": (1.3e-6, 1e-5),
    "torch.complex128": (1e-7, 1e-7),
}


def _required(path: str) -> Any:
    found = lookup(path)
    if found is MISSING:
        import torch

        raise RuntimeError(f"nbcompile.diagnose needs {path}, which torch "
                           f"{torch.__version__} lacks")
    return found


def inductor_config() -> Any:
    return _required(INDUCTOR_CONFIG)


def config_modules() -> dict[str, Any]:
    """The config modules whose settings a diagnosis saves and puts back, by path."""
    found = {path: lookup(path) for path in (DYNAMO_CONFIG, INDUCTOR_CONFIG, FUNCTORCH_CONFIG)}
    return {path: module for path, module in found.items()
            if module is not MISSING and hasattr(module, "get_config_copy")}


def inductor_patch(changes: dict[str, Any]) -> contextlib.AbstractContextManager[Any]:
    """``torch._inductor.config.patch(changes)`` (nothing to patch: a no-op context)."""
    if not changes:
        return contextlib.nullcontext()
    return inductor_config().patch(changes)


@contextlib.contextmanager
def caches_off() -> Iterator[None]:
    """Inductor's FX graph cache and AOTAutograd's cache off inside the block (a cached
    graph would skip the compiler steps a bisection switches off)."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(inductor_patch({"fx_graph_cache": False}))
        functorch = lookup(FUNCTORCH_CONFIG)
        if functorch is not MISSING and hasattr(functorch, "enable_autograd_cache"):
            stack.enter_context(functorch.patch(enable_autograd_cache=False))
        yield


def bisector() -> Any:
    """torch's ``CompilerBisector`` class, or None."""
    found = lookup(BISECTOR)
    return None if found is MISSING else found


def bisect_debug_info() -> dict[int, str]:
    """What a lowering bisection noted in this process (torch <= 2.9 keeps it in memory:
    a step run in a child sends it back); empty where torch keeps it in files."""
    found = torch_compat.BISECT_DEBUG_INFO.get()
    return dict(found) if isinstance(found, dict) else {}


def adopt_bisect_debug_info(noted: dict[int, str]) -> None:
    """Add what a child's bisection step noted to this process's (torch <= 2.9)."""
    found = torch_compat.BISECT_DEBUG_INFO.get()
    if isinstance(found, dict) and noted:
        found.update(noted)


def default_tolerances(dtype: Any) -> tuple[float, float]:
    """``(rtol, atol)`` that ``torch.testing.assert_close`` uses for ``dtype``."""
    found: Callable[..., tuple[float, float]] | Any = lookup(DEFAULT_TOLERANCES)
    if found is not MISSING:
        try:
            rtol, atol = found(dtype)
            return float(rtol), float(atol)
        except Exception:  # an older signature: the table below
            pass
    return _TOLERANCES.get(str(dtype), (0.0, 0.0))


def dispatch_mode_type() -> type | None:
    found = lookup(DISPATCH_MODE)
    return found if isinstance(found, type) else None


def cast_to_fp64() -> Callable[..., Any] | None:
    """torch's ``cast_to_fp64(graph_module, inputs)`` (the accuracy minifier's float64
    reference: parameters, inputs and the graph's dtype arguments in float64), or None."""
    found = lookup(CAST_TO_FP64)
    return found if callable(found) else None


def same_value(a: Any, b: Any) -> bool:
    """Whether two config values are the same (NaN equal to NaN; no comparison raises)."""
    try:
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return bool(a == b)
    except Exception:
        return a is b
