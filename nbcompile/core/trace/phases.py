"""Compile time by phase, from the ``compilation_metrics`` event (live or read from a trace).

torch reports *cumulative*, nested times: Dynamo's total contains AOTAutograd's, which
contains Inductor's, which contains code generation, which contains the C++/Triton
compile. ``compile_phases`` turns them into exclusive phases that add up to (at most) the
frame's compile time, so they can be drawn as one stacked bar.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Phase names, in the order a compile goes through them.
PHASES = (
    "Dynamo tracing",
    "AOTAutograd",
    "Inductor passes",
    "Inductor lowering",
    "code generation",
    "C++/Triton compile",
    "gc",
)
_PASSES = ("pre_grad_pass_time_us", "post_grad_pass_time_us", "joint_graph_pass_time_us")


def _us(metrics: Mapping[str, Any], key: str) -> float:
    value = metrics.get(key)
    return float(value) / 1e6 if isinstance(value, (int, float)) and value > 0 else 0.0


def compile_phases(metrics: Mapping[str, Any]) -> tuple[dict[str, float], float | None]:
    """``(phase name -> seconds, guard latency in seconds or None)`` of one frame compile.

    Phases torch did not report (e.g. no Inductor on a cache hit) are left out.
    """
    dynamo = _us(metrics, "dynamo_cumulative_compile_time_us")
    if not dynamo:
        dynamo = float(metrics.get("entire_frame_compile_time_s") or 0.0)
    aot = min(_us(metrics, "aot_autograd_cumulative_compile_time_us"), dynamo)
    inductor = min(_us(metrics, "inductor_cumulative_compile_time_us"), aot)
    codegen = min(_us(metrics, "inductor_code_gen_cumulative_compile_time_us"), inductor)
    native = min(_us(metrics, "triton_compile_time_us"), codegen)
    lowering, aot_only = inductor - codegen, aot - inductor
    # Graph passes run inside AOTAutograd (joint graph) and Inductor (pre/post grad).
    passes = min(sum(_us(metrics, k) for k in _PASSES), lowering + aot_only)
    from_lowering = min(passes, lowering)
    lowering -= from_lowering
    aot_only -= passes - from_lowering
    tracing = dynamo - aot
    gc = min(_us(metrics, "gc_time_us"), tracing)
    values = (tracing - gc, aot_only, passes, lowering, codegen - native, native, gc)
    phases = {name: round(v, 6) for name, v in zip(PHASES, values, strict=True) if v > 0}
    guard = metrics.get("guard_latency_us")
    guard_s = float(guard) / 1e6 if isinstance(guard, (int, float)) else None
    return phases, guard_s
