"""Copies of the user's callables with their own code object (so their own Dynamo cache),
made through *entry functions* (a fresh function under a unique filename), and the empty
automatic-dynamic memory a run on a copy starts from."""

from __future__ import annotations

import collections
import contextlib
import itertools
import linecache
import re
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch

from .. import torch_compat
from ..frames import ENTRY_PREFIX
from .wrappers import eager_callable

_entry_ids = itertools.count()

#: IPython leaves frames that set ``__tracebackhide__`` out of tracebacks: a user's error
#: shows the user's frames (and torch's), not nbcompile's entry function.
_HIDE = "    __tracebackhide__ = True\n"


def make_entry(call: Callable[..., Any], label: str) -> types.FunctionType:
    """A fresh function (own code object, unique filename) that forwards to ``call``."""
    return define_entry(label, "*args, **kwargs",
                        "__nbcompile_call__(*args, **kwargs)", {"__nbcompile_call__": call})


def define_entry(label: str, params: str, call: str,
                 namespace: dict[str, Any]) -> types.FunctionType:
    """``def <label>(<params>): return <call>`` compiled under a unique entry filename
    (registered in ``linecache``), in ``namespace``."""
    ident = re.sub(r"\W", "_", label) or "target"
    if ident[0].isdigit():
        ident = f"_{ident}"
    filename = f"{ENTRY_PREFIX}{next(_entry_ids)}:{label}>"
    source = f"def {ident}({params}):\n{_HIDE}    return {call}\n"
    namespace["__name__"] = "nbcompile.entry"
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - fixed source
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return namespace[ident]


def fresh_copy(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A callable with the same behaviour but its own code object (own Dynamo cache).

    Used to compile a target again (e.g. to time other modes) without touching the
    compiled state of the user's own target.
    """
    if isinstance(fn, torch.nn.Module):
        return make_entry(eager_callable(fn), f"copy-of-{type(fn).__name__}")
    fn = eager_callable(fn)
    if isinstance(fn, types.FunctionType):
        copy = types.FunctionType(  # replace() makes a new, equal code object
            fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
        )
        copy.__kwdefaults__ = fn.__kwdefaults__
        if copy.__code__ is not fn.__code__:
            return copy
    return make_entry(fn, f"copy-of-{getattr(fn, '__name__', 'callable')}")


@contextlib.contextmanager
def own_automatic_dynamic() -> Iterator[None]:
    """An empty automatic-dynamic memory for one run on a copy, the session's put back after.

    Dynamo remembers per code location (file, line, name) which sizes and ints changed,
    and compiles them dynamic from then on; a copy has the user's function's location, so
    without this a copy made after the user's own calls would start dynamic and show no
    recompiles, and the copy's calls would leak into the user's next compile. On a torch
    without that memory (``torch_compat.pgo_state()`` None) runs share it.
    """
    pgo = torch_compat.pgo_state()
    if pgo is None:
        yield
        return
    names = (torch_compat.PGO_CODE_STATE.attr, torch_compat.PGO_INIT_CODE_STATE.attr)
    state_type = getattr(pgo, torch_compat.PGO_CODE_STATE_TYPE.attr)
    saved = [getattr(pgo, name) for name in names]
    for name in names:
        setattr(pgo, name, collections.defaultdict(state_type))
    try:
        yield
    finally:
        for name, value in zip(names, saved, strict=True):
            setattr(pgo, name, value)
