"""From a profile's measurements to its record: kernel rows, the per-call time split
(kernels, outside graphs, overhead, unaccounted), source lines, notes.

Kernels are tied to source lines by the provenance links the capture engine records for
the profiled copy's compiles (``Kernel.lines``).
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import torch

from ...frames import Span
from ...notebook.capture.snapshot import target_record
from ...notebook.targets.target_state import Target
from ...records import Kernel
from ..intervals import Interval, clip, length, minus, span, union
from ..kernel_events import CALL_MARK, MACHINERY, REGION, KernelRows, graph_calls
from ..memory.call import CallMemory
from ..memory.profiled import compiled_memory
from .record import LineTime, Profile

#: Largest share of the wall time the breakdown may miss before the profile says so.
TOLERANCE = 0.10
#: Share of the eager wall time outside the target's lines from which the profile says so.
EAGER_UNATTRIBUTED = 0.25


def build(name: str, target: Target, code: types.CodeType | None, prof: Any,
          walls: list[float], eager_walls: list[float], eager_lines: dict[int, float],
          eager_traced_s: float, repeat: int, recompiles: int,
          memory: CallMemory | None = None, device: torch.device | None = None) -> Profile:
    """The profile of the copy's compiled calls (``prof``, timed ``walls``) and of the
    eager calls (their walls and seconds per line); with ``memory`` (one compiled call
    measured by ``memory.measure_call``), the compiled call's memory too."""
    record = target_record(target)
    groups: dict[tuple[str, str], list[Kernel]] = {}
    for k in record.kernels:
        if k.kind in ("kernel", "extern"):
            groups.setdefault((k.compile_id, k.stage), []).append(k)
    rows = KernelRows(groups, code.co_filename if code is not None else "")
    events = list(prof.events())
    calls = sorted((e for e in events if e.name == CALL_MARK), key=lambda e: e.time_range.start)
    launches: list[Interval] = []
    machinery: list[Interval] = []
    regions: list[Interval] = []
    graphs: list[Interval] = []
    for g in graph_calls(events, rows.extern_ops, rows.kernel_names):
        graphs.append(span(g))
        launches += rows.add(g)
    for e in events:
        if e.name.startswith(MACHINERY):
            machinery.append(span(e))
        elif e.name.startswith(REGION):
            regions.append(span(e))
    covered = union(machinery + graphs + launches)
    region_u = union(regions)
    outside = overhead = 0.0
    for call in calls:
        lo, hi = span(call)
        cov = clip(covered, lo, hi)
        in_graphs = clip(graphs, lo, hi)
        python = minus(clip(region_u, lo, hi), cov)  # bytecode of the compiled frames
        if in_graphs:
            first, last = min(s for s, _ in in_graphs), max(e for _, e in in_graphs)
            between = clip(python, first, last)
        else:
            between = []
        outside += length(between)
        overhead += length(cov) - length(clip(union(launches), lo, hi))
        overhead += length(python) - length(between)
        # The rest of the call window: torch.compile's Python wrapper around the frame
        # (eval-frame callback set-up and restore) before the first event and after the last.
        overhead += (hi - lo) - length(union(cov + clip(region_u, lo, hi)))
    n = max(len(calls), 1)
    kernel_rows = sorted(rows.rows.values(), key=lambda r: -r.total_s)
    kernel_total = sum(r.total_s for r in kernel_rows)
    for r in kernel_rows:
        r.mean_s = r.total_s / r.calls if r.calls else 0.0
        r.share = r.total_s / kernel_total if kernel_total else 0.0
    wall = sum(walls) / len(walls)
    prof_out = Profile(
        name=name, repeat=repeat, kernels=kernel_rows, wall_s=wall,
        kernel_s=kernel_total / repeat, outside_graphs_s=outside / n / 1e6,
        overhead_s=overhead / n / 1e6,
        eager_wall_s=sum(eager_walls) / len(eager_walls) if eager_walls else 0.0,
        compiles=[c.compile_id for c in record.compiles],
        recompiles_during_profile=recompiles,
        graph_breaks=list(record.graph_breaks),
    )
    # What perf_counter saw around the profiled call window (record_function bookkeeping).
    prof_out.unaccounted_s = max(wall - prof_out.kernel_s - prof_out.outside_graphs_s
                                 - prof_out.overhead_s, 0.0)
    if memory is not None:
        prof_out.memory = compiled_memory(rows, memory, device or torch.device("cpu"))
        prof_out.kernels = sorted(rows.rows.values(), key=lambda r: -r.total_s)
    _fill_lines(prof_out, code, eager_lines, eager_traced_s)
    if device is not None and device.type == "cuda" and eager_lines:
        prof_out.notes.append("eager line times synchronise the GPU at each line: a line's "
                              "time holds the kernels it launched, and its share of the syncs")
    _add_notes(prof_out, record)
    return prof_out


def _fill_lines(prof: Profile, code: types.CodeType | None, eager_lines: dict[int, float],
                eager_traced_s: float) -> None:
    if code is None:
        prof.notes.append("the target's source is not available: no per-line view")
        prof.untied_s = prof.kernel_s
        return
    prof.filename = code.co_filename
    try:
        source, first = inspect.getsourcelines(code)
    except (OSError, TypeError):
        source, first = [], code.co_firstlineno
    span = Span.of(code)
    rows = {first + i: LineTime(first + i, text.rstrip("\n")) for i, text in enumerate(source)}
    for lineno in range(span.first, span.last + 1):
        rows.setdefault(lineno, LineTime(lineno, ""))
    untied = 0.0
    untied_bytes = 0
    shared = False
    for k in prof.kernels:
        mine = [ln for ln in k.lines if ln in rows]  # lines of code.co_filename only
        per_call = k.total_s / prof.repeat
        if not mine:
            untied += per_call
            untied_bytes += k.allocated_bytes
            continue
        shared |= len(mine) > 1
        for i, ln in enumerate(mine):
            rows[ln].compiled_s += per_call / len(mine)
            if k.stage == "backward":
                rows[ln].compiled_backward_s += per_call / len(mine)
            # whole bytes, the remainder on the first line: the lines add up to the kernel
            share, rest = divmod(k.allocated_bytes, len(mine))
            rows[ln].compiled_allocated_bytes += share + (rest if i == 0 else 0)
            if k.name not in rows[ln].kernels:
                rows[ln].kernels.append(k.name)
    for ln, seconds in eager_lines.items():
        if ln in rows:
            rows[ln].eager_s += seconds / prof.repeat
    prof.lines = [rows[ln] for ln in sorted(rows)]
    prof.untied_s = untied
    if prof.memory is not None:
        prof.memory.untied_allocated_bytes = untied_bytes
    lines_s = sum(r.eager_s for r in prof.lines)
    prof.eager_untied_s = max(prof.eager_wall_s - lines_s, 0.0)
    if prof.eager_wall_s > 0 and prof.eager_untied_s > EAGER_UNATTRIBUTED * prof.eager_wall_s:
        prof.notes.append(
            f"eager: the target's lines add up to {lines_s * 1e3:.3f} ms of the "
            f"{prof.eager_wall_s * 1e3:.3f} ms eager wall time per call; the other "
            f"{prof.eager_untied_s * 1e3:.3f} ms "
            f"({prof.eager_untied_s / prof.eager_wall_s:.0%}) is unattributed: it ran "
            "outside the target's own lines (a module's call machinery and hooks, code "
            "before or after its frame) or varied between the untraced calls timed for "
            "the wall and the traced ones timed per line")
    if shared:
        prof.notes.append("a kernel fused from several lines has its time (and its "
                          "allocated bytes) split evenly between them")
    if eager_traced_s > prof.eager_wall_s * prof.repeat * 1.5:
        prof.notes.append("eager line times come from a line tracer and include its own "
                          f"cost ({eager_traced_s / prof.repeat * 1e3:.3f} ms per traced call "
                          f"vs {prof.eager_wall_s * 1e3:.3f} ms untraced)")


def _add_notes(prof: Profile, record: Any) -> None:
    ms = 1e3
    parts = prof.kernel_s + prof.outside_graphs_s + prof.overhead_s
    missing = prof.wall_s - parts
    prof.accounted = abs(missing) <= TOLERANCE * prof.wall_s
    if not prof.accounted:
        prof.notes.append(
            f"kernels + outside graphs + overhead = {parts * ms:.3f} ms of the "
            f"{prof.wall_s * ms:.3f} ms wall time per call: {missing * ms:.3f} ms "
            f"({missing / prof.wall_s:.0%}) is missing: the profiler's own bookkeeping "
            "around each call, outside its events (or other processes taking the CPU)"
        )
    if prof.untied_s > 0:
        names = sorted({k.name for k in prof.kernels if not any(
            ln.lineno in k.lines for ln in prof.lines)})
        prof.notes.append(
            f"{prof.untied_s * ms:.3f} ms per call of kernel time is not tied to a line of "
            f"the target: {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}"
        )
    if prof.recompiles_during_profile:
        prof.notes.append(f"{prof.recompiles_during_profile} compile(s) happened during the "
                          "profiled calls: their time is in the measurement")
    if not prof.kernels:
        prof.notes.append("no generated kernel ran (nothing compiled, or the graphs hold no "
                          "computation)")
    if record.graph_breaks:
        prof.notes.append(f"{len(record.graph_breaks)} graph break(s): their cost is in "
                          "outside_graphs_s")
