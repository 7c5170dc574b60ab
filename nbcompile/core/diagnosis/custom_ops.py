"""Custom ops a call runs, checked with ``torch.library.opcheck``: a wrong fake kernel,
schema, autograd registration or backward formula, named at the line that calls the op;
an op with no fake kernel said so (there is nothing to disagree with).
"""

from __future__ import annotations

import re
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any

import torch

from ..trace.listener import suppressed
from .runs import Bench
from .sites import Found, Site, is_user_file, make_site
from .torch_names import dispatch_mode_type

#: ATen's, torch's and Inductor's own op namespaces: not custom ops.
BUILTIN_NAMESPACES = frozenset({
    "aten", "prim", "prims", "quantized", "_quantized", "_c10d_functional",
    "_c10d_functional_autograd", "c10d", "profiler", "debugprims", "rngprims", "inductor",
    "higher_order", "_dtensor", "_nested_tensor",
})
#: Custom ops checked at most.
MAX_CUSTOM_OPS = 8

@dataclass
class OpCall:
    op: Any
    args: tuple
    kwargs: dict
    site: Site | None


def record_custom_ops(bench: Bench, own: set[str]) -> list[OpCall]:
    """The custom ops (not ATen's or torch's own) an eager call of the function runs, once
    each, with copies of their arguments and the user line that called them."""
    mode_type = dispatch_mode_type()
    if mode_type is None:
        return []
    calls: dict[str, OpCall] = {}

    class Recorder(mode_type):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (),
                               kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            namespace = getattr(func, "namespace", "aten")
            if (namespace not in BUILTIN_NAMESPACES and str(func) not in calls
                    and len(calls) < MAX_CUSTOM_OPS):
                calls[str(func)] = OpCall(func, _copies(args), _copies(kwargs),
                                          _calling_site(own))
            return func(*args, **kwargs)

    box = bench.box
    box.reset()
    with suppressed(), box.captured_output(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Recorder():
                bench.eager_fn(*box.args, **box.kwargs)
        except Exception:  # eager ran before; a mode it cannot run under records nothing
            pass
        finally:
            box.reset()
    return list(calls.values())


def _copies(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        return copy.requires_grad_(value.requires_grad) if copy.is_floating_point() else copy
    if isinstance(value, (list, tuple)):
        return type(value)(_copies(v) for v in value)
    if isinstance(value, dict):
        return {k: _copies(v) for k, v in value.items()}
    return value


def _calling_site(own: set[str]) -> Site | None:
    frame = sys._getframe(2)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename, own):
            return make_site(frame.f_code.co_filename, frame.f_lineno, None,
                         "the line that calls the custom op")
        frame = frame.f_back
    return None


#: torch's words when an op has no fake kernel: a ``custom_op`` ("There was no fake impl
#: registered for ...") or a ``torch.library`` op ("... there was no fake impl or Meta
#: kernel registered").
_NO_FAKE = re.compile(r"\bno fake impl\b", re.IGNORECASE)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def _no_fake_kernel(error: Any) -> BaseException | None:
    """The exception in ``error``'s chain that says the op has no fake kernel (torch's
    ``UnsupportedOperatorException`` names only the op; its cause says why), or None."""
    seen: set[int] = set()
    while isinstance(error, BaseException) and id(error) not in seen:
        seen.add(id(error))
        if _NO_FAKE.search(str(error)):
            return error
        error = error.__cause__ or error.__context__
    return None


def check_custom_ops(bench: Bench, own: set[str], deadline: float) -> Found | None:
    """The first custom op whose registration ``torch.library.opcheck`` finds wrong (its
    fake kernel, schema, autograd or backward formula disagree with the real kernel)."""
    opcheck = getattr(torch.library, "opcheck", None)
    if opcheck is None:
        return None
    for call in record_custom_ops(bench, own):
        if time.perf_counter() > deadline:
            return None
        with (suppressed(), bench.box.captured_output(), warnings.catch_warnings()):
            warnings.simplefilter("ignore")
            try:
                results = opcheck(call.op, call.args, call.kwargs, raise_exception=False)
            except Exception:  # opcheck itself could not run: nothing learnt
                continue
        failed = [(test, r) for test, r in results.items() if r != "SUCCESS"]
        if failed:
            test, error = failed[0]
            message = _first_line(error)
            missing = next(((t, m) for t, e in failed if (m := _no_fake_kernel(e))), None)
            if missing is not None:  # nothing to disagree with: torch found none registered
                return Found(f"custom op {call.op}: it has no fake (meta) kernel registered, "
                             "which torch.compile needs to trace it; add one with "
                             "torch.library.register_fake (torch.library.opcheck "
                             f"{missing[0]}: {_first_line(missing[1])[:300]})", call.site)
            what = {"test_faketensor": "its fake (meta) kernel disagrees with the real one",
                    "test_aot_dispatch_dynamic": "its backward formula or fake kernel fails "
                                                 "under AOTAutograd",
                    "test_autograd_registration": "its autograd registration is wrong",
                    "test_schema": "its schema does not match what it does"}.get(test, test)
            return Found(f"custom op {call.op}: {what} (torch.library.opcheck {test}: "
                         f"{message[:300]})", call.site)
    return None
