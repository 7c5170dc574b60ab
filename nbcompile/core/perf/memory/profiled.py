"""Memory of a profiled call tied to its parts: the compiled call's allocations per kernel
launch, the eager call's per source line, their peaks and timelines."""

from __future__ import annotations

import torch

from ..intervals import Interval, span
from ..kernel_events import CALL_MARK, EAGER_MARK, LINE_MARK, KernelRows, graph_calls
from ..profile.record import KernelTime, Profile
from .call import CallMemory, ProfileMemory, mark_window, memory_events, timeline, window


def compiled_memory(rows: KernelRows, measured: CallMemory,
                    device: torch.device) -> ProfileMemory:
    """The compiled call's memory: its peak and allocated bytes as ``measure_call`` measured
    them (the definitions of ``compare``'s rows), and its allocations tied to launches: each
    goes to the kernel or extern launch that contains it, else to the next one of the same
    graph call (Inductor's wrapper allocates a buffer just before the kernel that writes
    it); outside any graph call it counts as ``outside_graphs_allocated_bytes``."""
    memory = ProfileMemory(device=str(device))
    prof = measured.profile
    events = memory_events(prof, device) if prof is not None else None
    bounds = mark_window(prof, CALL_MARK) if prof is not None else None
    if prof is None or events is None or bounds is None or measured.peak_bytes is None:
        memory.notes.append("memory not measured: this torch's profiler did not report "
                            "the call's allocations")
        return memory
    lo, hi = bounds
    mine = window(events, lo, hi)
    fevents = list(prof.events())
    graphs = sorted((e for e in graph_calls(fevents, rows.extern_ops, rows.kernel_names)
                     if lo <= e.time_range.start <= hi), key=lambda e: e.time_range.start)
    launches: list[tuple[Interval, Interval, KernelTime]] = []  # (graph, launch, row)
    for g in graphs:
        for event, row in rows.match(g):
            if row.kind in ("kernel", "extern"):
                launches.append((span(g), span(event), row))
    labels: dict[int, str] = {}
    wrapper = 0
    for i, m in enumerate(mine):
        graph = next((g for g in map(span, graphs) if g[0] <= m.t_us <= g[1]), None)
        if graph is None:
            labels[i] = "outside graphs"
            memory.outside_graphs_allocated_bytes += max(m.nbytes, 0)
            continue
        row = next((r for g, (_, end), r in launches if g == graph and end >= m.t_us), None)
        if row is None:
            labels[i] = "generated wrapper"
            wrapper += max(m.nbytes, 0)
            continue
        labels[i] = row.name
        if m.nbytes > 0:
            row.allocated_bytes += m.nbytes
    memory.peak_bytes, memory.allocated_bytes = measured.peak_bytes, measured.allocated_bytes
    index = {id(m): i for i, m in enumerate(mine)}
    memory.timeline = timeline(mine, lo, lambda m: labels.get(index[id(m)], ""))
    if len(graphs) > 1:
        ends = [span(g)[1] for g in graphs[:-1]]
        memory.across_breaks_bytes = max(
            sum(m.nbytes for m in mine if m.t_us <= end) for end in ends)
    if wrapper:
        memory.notes.append(f"{wrapper} bytes were allocated by the generated wrapper after "
                            "its last kernel launch (not tied to a kernel)")
    memory.note = (f"{measured.note} (compiled, {measured.allocations} allocations); the "
                   "eager call measured the same way")
    return memory


def fill_memory(result: Profile, device: torch.device, compiled: CallMemory,
                eager: CallMemory) -> None:
    """The eager side of ``result.memory``: peak (``measure_call``'s), bytes per line (the
    ``nbcompile.line:N`` range containing each allocation, innermost first), timeline;
    saved bytes of both sides."""
    memory = result.memory
    if memory is None:
        return
    memory.saved_bytes, memory.eager_saved_bytes = compiled.saved_bytes, eager.saved_bytes
    prof = eager.profile
    events = memory_events(prof, device) if prof is not None else None
    bounds = mark_window(prof, EAGER_MARK) if prof is not None else None
    if prof is None or events is None or bounds is None or eager.peak_bytes is None:
        memory.notes.append("eager memory not measured: the profiler did not report the "
                            "call's allocations")
        return
    lo, hi = bounds
    mine = window(events, lo, hi)
    fevents = list(prof.events())
    ranges = sorted(((span(e), int(e.name[len(LINE_MARK):])) for e in fevents
                     if e.name.startswith(LINE_MARK) and e.name[len(LINE_MARK):].isdigit()),
                    key=lambda r: r[0][1] - r[0][0])  # innermost (shortest) first
    by_line = {ln.lineno: ln for ln in result.lines}
    labels: list[str] = []
    for m in mine:
        lineno = next((n for (s, e), n in ranges if s <= m.t_us <= e), None)
        labels.append(f"line {lineno}" if lineno is not None else "outside the target's lines")
        if m.nbytes <= 0:
            continue
        if lineno is not None and lineno in by_line:
            by_line[lineno].eager_allocated_bytes += m.nbytes
        else:
            memory.eager_untied_allocated_bytes += m.nbytes
    memory.eager_peak_bytes, memory.eager_allocated_bytes = eager.peak_bytes, \
        eager.allocated_bytes
    index = {id(m): i for i, m in enumerate(mine)}
    memory.eager_timeline = timeline(mine, lo, lambda m: labels[index[id(m)]])
    if memory.eager_untied_allocated_bytes and result.lines:
        memory.notes.append(
            f"eager: {memory.eager_untied_allocated_bytes} bytes were allocated outside the "
            "target's own lines (module call machinery, hooks, callers)")
    if memory.untied_allocated_bytes:
        memory.notes.append(
            f"compiled: {memory.untied_allocated_bytes} bytes were allocated by kernels not "
            "tied to a line of the target")
