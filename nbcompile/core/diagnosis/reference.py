"""The float64 reference of an accuracy diagnosis: is eager or compiled closer to it.

Two ways to make it, chosen by what the captured graphs show:

* the function computes in one floating dtype: the same function, eager, with its
  floating inputs and a module's parameters in float64 (``Bench.float64``);
* it casts inside (several floating dtypes in its captured graphs), so upcast inputs
  would still be rounded where it casts: its Dynamo graphs, each traced
  to ATen ops and rewritten by torch's ``cast_to_fp64`` (parameters, inputs and every
  cast's dtype in float64), as torch's accuracy minifier makes its reference.

The first that works is the reference; when none does, ``closer`` is ``unknown`` and the
note says why (never a verdict).
"""

from __future__ import annotations

import copy
import time
import warnings
from typing import Any

import torch

from ..perf.numerics import leaves, snapshot_outputs
from ..runs.copies import fresh_copy, own_automatic_dynamic
from ..runs.timed import first_line
from ..trace.listener import suppressed
from .precision import casts_inside
from .record import Diagnosis, Reference
from .runs import Bench, Run, float64_only
from .torch_names import cast_to_fp64

#: The closer result's largest error is at most this share of the other's.
CLOSER = 0.8
THROUGH_GRAPH = ("its captured graph with every cast rewritten to float64 "
                 "(torch._dynamo.debug_utils.cast_to_fp64, as torch's accuracy minifier "
                 "makes its reference)")


def reference(result: Diagnosis, bench: Bench, top: Run, options: dict[str, Any],
              deadline: float) -> list[Any] | None:
    """Fill ``result.reference``; the float64 run's output leaves (None: none)."""
    if time.perf_counter() > deadline:
        result.skipped.append("float64 reference: the time budget was used up")
        return None
    ref, note = float64_run(bench, top.dynamo_graphs, options)
    if ref is None or top.leaves is None:
        result.reference = _none(note if ref is None else "the compiled run kept no outputs")
        return None
    eager_err = errors(ref, bench.expected)
    compiled_err = errors(ref, top.leaves)
    if eager_err is None or compiled_err is None:
        result.reference = _none("the outputs do not line up")
        return None
    found = Reference(eager_error=eager_err[0], compiled_error=compiled_err[0],
                      eager_mean_error=eager_err[1], compiled_mean_error=compiled_err[1],
                      closer="neither", note=note)
    if compiled_err[0] <= CLOSER * eager_err[0]:
        found.closer = "compiled"
    elif eager_err[0] <= CLOSER * compiled_err[0]:
        found.closer = "eager"
    result.reference = found
    return ref


def _none(why: str) -> Reference:
    return Reference(closer="unknown", note=f"no float64 reference: {why}")


def float64_run(bench: Bench, graphs: list[str], options: dict[str, Any] | None = None
                ) -> tuple[list[Any] | None, str]:
    """The call's output leaves in float64, and how they were made (or None, and why
    not): through the graph when ``graphs`` show the function casts inside, else eager
    with float64 inputs, then through the graph if that failed."""
    if bench.random:
        return None, ("the call draws random numbers: a float64 run draws different ones, "
                      "so it is no reference")
    if casts_inside(graphs):
        ref, note = through_graph(bench, options or {})
        return ref, note if ref is not None else f"the function casts inside and {note}"
    ref, note = bench.float64()
    if ref is not None:
        return ref, note
    again, why = through_graph(bench, options or {})
    if again is not None:
        return again, f"{THROUGH_GRAPH}; eager with float64 inputs was none: {note}"
    return None, f"{note}; and {why}"


def through_graph(bench: Bench, options: dict[str, Any]) -> tuple[list[Any] | None, str]:
    """A fresh copy compiled with a backend that runs each Dynamo graph the way torch's
    accuracy minifier makes its float64 reference: traced to ATen ops (``make_fx``, on
    fake tensors), then ``cast_to_fp64``. Python between graphs runs eagerly on what the
    graphs return."""
    cast = cast_to_fp64()
    if cast is None:
        return None, f"this torch {torch.__version__} has no torch._dynamo.debug_utils.cast_to_fp64"
    from torch.fx.experimental.proxy_tensor import make_fx

    def float64_graph(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        def run(*args: Any) -> Any:
            traced = make_fx(gm, tracing_mode="fake")(*args)
            model, inputs = cast(copy.deepcopy(traced), list(args))
            return model(*inputs)

        return run

    float64_graph.generates_code = False  # type: ignore[attr-defined]
    keep = {k: v for k, v in options.items() if k in ("dynamic", "fullgraph")}
    box = bench.box
    box.reset()
    with (suppressed(), box.captured_output(), warnings.catch_warnings(),
          own_automatic_dynamic()):
        warnings.simplefilter("ignore")
        try:
            call = torch.compile(fresh_copy(bench.fn), backend=float64_graph, **keep)
            out = call(*box.args, **box.kwargs)
            got = snapshot_outputs(out)
        except Exception as e:  # the reason is the finding
            return None, (f"the float64 run through its graph failed ({type(e).__name__}: "
                          f"{first_line(str(e))[:200]})")
        finally:
            box.reset()
    return float64_only(got, THROUGH_GRAPH, lambda narrow: (
        f"the float64 run through its graph still returned {narrow} (Python between its "
        "graphs casts, or a complex value)"))


def errors(reference: list[Any], got: list[Any]) -> tuple[float, float] | None:
    """(largest, mean) abs difference of ``got``'s floating tensors to ``reference``'s."""
    refs, values = leaves(reference), leaves(got)
    if len(refs) > len(values):
        return None
    worst, total, count = 0.0, 0.0, 0
    for ref, value in zip(refs, values, strict=False):
        if not (isinstance(ref, torch.Tensor) and isinstance(value, torch.Tensor)):
            continue
        if not (ref.is_floating_point() or ref.is_complex()) or ref.shape != value.shape:
            continue
        if ref.numel() == 0:
            continue
        diff = (ref.detach().cpu().to(torch.complex128 if ref.is_complex() else torch.float64)
                - value.detach().cpu().to(torch.complex128 if value.is_complex()
                                          else torch.float64)).abs()
        diff = torch.nan_to_num(diff, nan=0.0)
        worst = max(worst, float(diff.max()))
        total += float(diff.sum())
        count += diff.numel()
    return (worst, total / count) if count else None
