"""``compile_time()``: the first call of a fresh process with empty caches (cold) and with
a warm Inductor cache (restart), where the cold seconds went, and each remedy tried in
fresh processes of its own, its outputs checked against eager's.

The user's objects, caches and settings are untouched: every compile happens in a child
process, on a copy of the call (``fresh.py``), with a cache directory of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from .. import torch_compat
from ..perf.call_args import describe_argument
from ..perf.call_options import (
    CallOptionError,
    CallOptionTypeError,
    check_budget,
    check_repeat,
)
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched
from . import earlier as earlier_keys
from .fresh import ship
from .history import kernel_frames
from .measurement import Measurement
from .record import REMEDY_KINDS, CompileTime, Remedy
from .remedies import REMEDIES
from .rounds import ROUNDS
from .where import records_from_events, repeated_blocks, where


class CompileTimeInterrupted(Interrupted):
    """Ctrl-C during ``compile_time()``: ``partial`` holds the runs measured so far."""


def _unwrap(fn: Any) -> Any:
    """The eager callable behind a compiled one (``torch.compile``'s wrappers)."""
    if isinstance(fn, torch.nn.Module) and hasattr(fn, "_orig_mod"):
        return fn._orig_mod
    return torch_compat.orig_callable(fn)


def _check_kinds(kinds: Any) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = [k.strip() for k in kinds.split(",") if k.strip()]
    kinds = tuple(kinds)
    bad = [k for k in kinds if k not in REMEDY_KINDS]
    if bad:
        raise CallOptionError(f"remedies must be among {', '.join(REMEDY_KINDS)}, not "
                              f"{', '.join(map(repr, bad))}")
    return kinds

def compile_time(fn: Any, *args: Any, budget_s: float | None = None,
                 remedies: Sequence[str] | str = REMEDY_KINDS,
                 options: dict[str, Any] | None = None,
                 more_calls: Sequence[tuple[tuple[Any, ...], dict[str, Any]]] = (),
                 steady_budget_s: float = 1.0, rounds: int = ROUNDS,
                 progress: Progress | None = None, **kwargs: Any) -> CompileTime:
    """Where ``fn(*args, **kwargs)``'s compile time goes and what cuts it, measured on fresh
    processes (the user's objects, caches and settings untouched).

    ``cold_s``: the first call of a fresh process with empty caches; ``warm_restart_s``:
    the same with the cache the cold process left (a kernel restart); ``where``: the cold
    compile split by frame, phase, cache layer and repeated block; ``remedies``: each kind
    asked for, tried in fresh processes (``regional``, ``nested_region``, ``dynamic``,
    ``portable_cache``, ``precompiled``), each judged from alternated rounds of a baseline
    cold run and a remedy run (the remedies share each round's baseline; ``judge_rounds``):
    *verified* only with a median cut of at least 10 % beyond the spread of its rounds and
    outputs equal to eager's, *inconclusive* when the rounds or the budget end first (the
    note gives each round's numbers).
    ``options``: ``torch.compile`` keyword arguments (``mode``, ``fullgraph``...);
    ``more_calls``: further ``(args, kwargs)`` the target is called with (their first calls
    count: a shape that recompiles shows there); ``rounds``: the most alternated rounds per
    remedy (a verdict needs at least 3; they stop at the first verdict, or when no round left
    could give one); ``budget_s``: wall-time limit (what is left untried says so). Ctrl-C
    raises ``CompileTimeInterrupted`` carrying the runs measured so far.
    """
    if not callable(fn):
        raise CallOptionTypeError(f"compile_time: {describe_argument(fn)} is a "
                                  f"{type(fn).__name__}, not a function or module")
    if budget_s is not None:
        budget_s = check_budget(budget_s)
    kinds = _check_kinds(remedies)
    rounds = check_repeat(rounds, "rounds")
    target = _unwrap(fn)
    calls = [(tuple(args), dict(kwargs))] + [(tuple(a), dict(k)) for a, k in more_calls]
    m = Measurement(target, calls, dict(options or {}), budget_s, progress, steady_budget_s)
    m.rounds = rounds
    try:
        with ctrl_c_watched():
            _measure(m, kinds)
    except KeyboardInterrupt:
        ctrl_c_delivered()
        m.result.interrupted = True
        m.result.notes.append("interrupted by Ctrl-C: the runs above are what was measured")
        raise CompileTimeInterrupted("compile_time", m.finish()) from None
    return m.finish()


def _measure(m: Measurement, kinds: tuple[str, ...]) -> None:
    result = m.result
    result.kernel_compiles = kernel_frames(m.fn)
    keys = earlier_keys.current()
    if keys is not None and result.kernel_compiles:
        result.notes += keys.notes()
    module = m.fn if isinstance(m.fn, torch.nn.Module) else None
    # a module compiled in place pickles without its compiled call (put back after)
    saved = torch_compat.compiled_call_impl(module) if module is not None else None
    if saved is not None:
        torch_compat.set_compiled_call_impl(module, None)
    try:
        m.shipment = ship(m.fn, m.calls)
    finally:
        if saved is not None:
            torch_compat.set_compiled_call_impl(module, saved)
    result.how = m.shipment.how
    if m.shipment.problem:
        result.reproducible = False
        result.notes.append(m.shipment.problem)
        result.remedies = [Remedy(k, change="", status="not reproducible",  # type: ignore[arg-type]
                                  note=m.shipment.problem) for k in kinds]
        return
    portable = "portable_cache" in kinds
    cold = m.child("baseline cold", "portable_save" if portable else "baseline", "baseline",
                   artifact=m.work / "portable.bin")
    if cold is None or cold.run.status != "ok":
        why = cold.run.error if cold else "the budget was spent"
        result.reproducible = "rebuilding the call" not in why  # a budget is not the call
        result.notes.append(f"the baseline could not be measured in a fresh process: {why}")
        result.remedies = [Remedy(k, change="", status="not tried",  # type: ignore[arg-type]
                                  note="the baseline failed: " + why) for k in kinds]
        return
    result.cold_s = cold.run.first_call_s
    m.round_baselines[1] = cold
    result.steady_s = cold.run.steady_s
    compiles = records_from_events(cold.events)
    result.where = where(compiles, root=module)
    warm = m.child("baseline warm restart", "baseline", "baseline")
    if warm is not None and warm.run.status == "ok":
        result.warm_restart_s = warm.run.first_call_s
        restart = where(records_from_events(warm.events), history=compiles)
        missed = [f.cache_note for f in restart.frames
                  if any(c.outcome != "hit" for c in f.caches)]
        if missed:
            result.notes.append("the warm restart still missed a cache: " + "; ".join(missed))
    blocks = repeated_blocks(module) if module is not None else []
    for kind in kinds:
        result.remedies.append(REMEDIES[kind](m, cold, blocks))
