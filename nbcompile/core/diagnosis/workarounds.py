"""Workarounds tried on copies, each with its measured effect and cost.

* ``torch._inductor.config.emulate_precision_casts = True`` (Inductor rounds to the
  low-precision dtype where eager does): numeric differences where the captured graphs
  compute in float16/bfloat16, whatever the dtypes in and out;
* ``torch._inductor.config.fallback_random = True`` (random ops run as eager runs them):
  calls that draw random numbers;
* a lower backend rung (the highest rung below the problem's layer that was fine):
  measured on the ladder already, not run again;
* the culprit line upcast (float16/bfloat16 accuracy): the line computes in float32 and
  its result is cast back once (``upcast``), judged against eager running the same
  change, since the change is to the user's code;
* ``torch.compiler.disable`` on the function that holds the culprit's line: a helper
  the function calls (rebound in a copy of the function's globals, never the user's) or
  the function itself (then nothing of it is compiled).

``verified``: on the copy, no crash and the result within tolerance of eager's.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

import torch

from ..runs.copies import fresh_copy
from ..runs.wrappers import eager_callable
from .record import Rung, Workaround
from .runs import Bench, Run, Trial
from .sites import Site, culprit_function, error_text
from .upcast import UpcastLine, change_text

LADDER_LAYERS = {"eager": "dynamo", "aot_eager": "aot_autograd",
                 "aot_eager_decomp_partition": "aot_autograd", "inductor": "inductor"}


@dataclass
class Candidate:
    workaround: Workaround
    trial: Trial | None = None  # None: not run (see the note), or measured already
    measured: Rung | None = None  # a ladder rung that measured it already
    #: a change to the user's code: eager running the same change, judged against instead
    against: Trial | None = None
    upcast: UpcastLine | None = None  # the upcast's graph pass (what it changed)


def candidates(bench: Bench, kind: str, layer: str | None, rungs: list[Rung],
               site: Site | None, options: dict[str, Any], low: list[str],
               own: set[str]) -> list[Candidate]:
    """The workarounds worth trying for this diagnosis, in order; those that do not apply
    are listed with why (never run). ``low``: the float16/bfloat16 dtypes the call
    computes in, read from its captured graphs (``precision.low_dtypes``)."""
    out: list[Candidate] = []
    accuracy = kind == "accuracy"
    inductor = layer == "inductor"

    change = "torch._inductor.config.emulate_precision_casts = True"
    if accuracy and inductor and low:
        out.append(Candidate(Workaround(
            "setting", change,
            note=f"the graph computes in {'/'.join(low)}: Inductor keeps intermediate "
                 "values in float32 where eager rounds each op's result; this rounds them "
                 "as eager does"),
            Trial(options=dict(options), config={"emulate_precision_casts": True})))
    else:
        why = ("it is for numeric differences, not crashes" if not accuracy
               else "the difference comes in before Inductor" if not inductor
               else "its captured graphs compute in no float16/bfloat16")
        out.append(Candidate(Workaround("setting", change, note=f"not tried: {why}")))

    change = "torch._inductor.config.fallback_random = True"
    top_inductor = bool(rungs) and rungs[-1].backend == "inductor"
    if bench.config.get("fallback_random"):
        out.append(Candidate(Workaround("setting", change, note=(
            "not tried: every compiled copy already ran with it, so the difference is "
            "not in the random numbers drawn"))))
    elif accuracy and top_inductor and bench.random:
        out.append(Candidate(Workaround(
            "setting", change,
            note="random ops run as in eager, so compiled code draws the same numbers"),
            Trial(options=dict(options), config={"fallback_random": True})))
    else:
        why = ("the call draws no random numbers" if not bench.random
               else "it is for numeric differences, not crashes" if not accuracy
               else "the compiled backend is not Inductor")
        out.append(Candidate(Workaround("setting", change, note=f"not tried: {why}")))

    out.append(_upcast(kind, site, options, top_inductor, low))
    out.append(_lower_rung(layer, rungs))
    out.append(_disable(bench, site, options, own))
    return out


def _upcast(kind: str, site: Site | None, options: dict[str, Any], top_inductor: bool,
            low: list[str]) -> Candidate:
    dtype = low[0] if low else None
    why = ("it is for numeric differences, not crashes" if kind != "accuracy"
           else "its captured graphs compute in no float16/bfloat16" if dtype is None
           else "no culprit line was found" if site is None or site.lineno is None
           else "the compiled backend is not Inductor (the change is made by its "
                "pre_grad_custom_pass)" if not top_inductor else "")
    if why:
        return Candidate(Workaround("upcast", "# the culprit line in float32, its result "
                                    "cast back", note=f"not tried: {why}"))
    assert site is not None and dtype is not None
    upcast = UpcastLine(site)
    keep = {k: v for k, v in options.items() if k in ("dynamic", "fullgraph")}
    return Candidate(
        Workaround("upcast", change_text(site, dtype), note=(
            f"line {site.lineno} computes in float32 and rounds to {dtype} once, where "
            f"eager rounds every op")),
        Trial(options=dict(options), config={"pre_grad_custom_pass": upcast}),
        against=Trial(backend=upcast.eager_backend(), options=keep), upcast=upcast)


def _lower_rung(layer: str | None, rungs: list[Rung]) -> Candidate:
    first_bad = next((i for i, r in enumerate(rungs) if r.outcome in ("crash", "accuracy")),
                     None)
    below = [r for r in rungs[:first_bad] if r.outcome == "ok"] if first_bad else []
    if not below:
        what = ("every rung shows the problem, Dynamo's own included" if layer == "dynamo"
                else "no rung below the problem's was fine")
        return Candidate(Workaround("backend", "torch.compile(fn, backend=...)  # a lower rung",
                                    note=f"not tried: {what}"))
    rung = below[-1]
    what = {"eager": "Dynamo only: graphs captured, run by eager PyTorch (no AOTAutograd, "
                     "no Inductor kernels)",
            "aot_eager": "Dynamo and AOTAutograd, run by eager PyTorch (no Inductor kernels)",
            "aot_eager_decomp_partition": "Dynamo, AOTAutograd, decompositions and the "
                                          "partitioner, run by eager PyTorch (no Inductor "
                                          "kernels)"}.get(rung.backend, rung.backend)
    return Candidate(Workaround(
        "backend", f'torch.compile(fn, backend="{rung.backend}")\n'
                   f"%%compile --backend {rung.backend}", note=what), measured=rung)


def _disable(bench: Bench, site: Site | None, options: dict[str, Any],
             own: set[str]) -> Candidate:
    change = "torch.compiler.disable(...)  # the function that holds the culprit's line"
    if site is None or site.lineno is None:
        return Candidate(Workaround("disable", change,
                                    note="not tried: no culprit line was found"))
    found = culprit_function(site, bench.fn, own)
    if found is None:
        return Candidate(Workaround("disable", change, note=(
            f"not tried: line {site.lineno} is not in the function or in a function its "
            "globals name")))
    name, func = found
    if name == "":  # the line is in the function itself
        fn_name = getattr(func, "__name__", "fn")
        if isinstance(bench.fn, torch.nn.Module):
            return Candidate(Workaround("disable", f"torch.compiler.disable({fn_name})", note=(
                "not tried: the line is in the module's own forward; move it into a helper "
                "function and disable that")))
        disabled = torch.compiler.disable(fresh_copy(bench.fn))
        return Candidate(Workaround(
            "disable", f"{fn_name} = torch.compiler.disable({fn_name})", note=(
                f"line {site.lineno} is in {fn_name} itself: disabling it means not "
                "compiling it at all (to keep the rest compiled, move the line into a "
                "helper function and disable that)")),
            Trial(function=disabled, compile=False))
    if isinstance(bench.fn, torch.nn.Module):
        return Candidate(Workaround("disable", f"{name} = torch.compiler.disable({name})", note=(
            "not tried for a module: rebinding a global its forward uses would change "
            "your namespace")))
    copy = _with_global(bench.fn, name, torch.compiler.disable(func))
    if copy is None:
        return Candidate(Workaround("disable", f"{name} = torch.compiler.disable({name})",
                                    note="not tried: the function cannot be copied"))
    return Candidate(Workaround(
        "disable", f"{name} = torch.compiler.disable({name})", note=(
            f"{name} (which holds line {site.lineno}) runs in Python, eagerly; the graph "
            "breaks around its call")),
        Trial(function=copy, options=dict(options)))


def _with_global(fn: Any, name: str, value: Any) -> types.FunctionType | None:
    """A copy of ``fn`` whose globals are a copy of its own with ``name`` rebound (the
    user's namespace keeps its own binding)."""
    func = eager_callable(fn)
    if not isinstance(func, types.FunctionType):
        return None
    namespace = dict(func.__globals__)
    namespace[name] = value
    copy = types.FunctionType(func.__code__.replace(), namespace, func.__name__,
                              func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    return copy


def settle(candidate: Candidate, run: Run | None, baseline_s: float | None,
           baseline_what: str) -> Workaround:
    """Fill a workaround from its run (or from the ladder rung that measured it)."""
    w = candidate.workaround
    if candidate.measured is not None:
        rung = candidate.measured
        w.outcome = rung.outcome
        w.max_abs_diff, w.mismatched, w.numel = rung.max_abs_diff, rung.mismatched, rung.numel
        w.first_call_s, w.time_s, w.error = rung.first_call_s, rung.time_s, rung.error
        w.note = f"{w.note}; measured on the ladder"
    elif run is not None and run.outcome == "not run":
        w.note = f"{w.note}; not tried: {run.note}"
        return w
    elif run is not None:
        w.outcome = run.outcome  # type: ignore[assignment]
        w.first_call_s, w.time_s = run.first_call_s, run.time_s
        if run.error is not None:
            w.error = error_text(run.error)[0]
        elif run.judged is not None:
            w.max_abs_diff, w.mismatched = run.judged.max_abs_diff, run.judged.mismatched
            w.numel = run.judged.numel
    else:
        return w
    w.verified = w.outcome == "ok"
    w.status = "verified" if w.verified else "tried, did not help"
    if w.time_s is not None and baseline_s:
        w.cost = f"{w.time_s / baseline_s:.2f}x the {baseline_what} time per call"
    return w
