"""Reading ``torch.profiler`` events of a profiled call: nbcompile's marks, Dynamo's
machinery, graph calls, and their launches matched to the captured kernels.

Each C++ kernel shows as ``graph_<N>_<kernel name>`` (``cpp.enable_kernel_profile``), each
Triton kernel on a GPU under its own name (``CachingAutotuner._pre_launch`` opens a
``_RecordFunctionFast`` named ``inductor_meta["kernel_name"]``, no ``graph_<N>_`` prefix)
and each extern call as its aten op (``extern_kernels.mm`` -> ``aten::mm``), inside
``## Call CompiledFxGraph <key> ##`` (torch < 2.9 logs no such event: the launches sit
directly in the compiled region). With caches off every graph call's key reads ``None``,
forward and backward alike: the launches themselves say which graph ran.

On a GPU the device's work reaches these CPU events through CUPTI's correlation ids:
``_parse_kineto_results`` appends each CUDA kernel (cuBLAS's ``sm90_xmma_gemm_...``, a
Triton kernel) to the frontend op whose ``correlation_id`` equals the kernel's
``linked_correlation_id`` (the innermost op open at the launch: ``aten::mm`` for an extern
matmul, the Triton kernel's own event), and ``device_time_total`` sums an event's kernels
and its children's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..records import Kernel
from .intervals import Interval, span
from .profile.record import KernelTime

#: The range around each profiled compiled call (timed and memory calls alike).
CALL_MARK = "nbcompile.profile.call"
#: The eager call measured for memory, and one range per executed source line inside it.
EAGER_MARK = "nbcompile.profile.eager_call"
LINE_MARK = "nbcompile.line:"
KERNEL_EVENT = re.compile(r"^graph_\d+_(?P<name>.+)$")
GRAPH_CALL = "## Call CompiledFxGraph"
REGION = "Torch-Compiled Region"
#: Events of Dynamo's and AOTAutograd's runtime machinery (guards, wrappers, autograd glue).
MACHINERY = (
    "TorchDynamo Cache Lookup",
    "Pregraph bytecode",
    "AOTDispatcher Runtime Wrapper Prologue",
    "CompiledFunction",
    "autograd::engine::evaluate_function: CompiledFunctionBackward",
)
#: The profiler's own bookkeeping (CUPTI buffer requests on a GPU), recorded inside
#: whatever call was running: never a launch of the graph.
PROFILER_INTERNAL = ("Activity Buffer Request",)


@dataclass
class _Range:
    start: float
    end: float


@dataclass
class _LaunchGroup:
    """torch < 2.9 logs no ``## Call CompiledFxGraph`` event: the launches one compiled
    region (or autograd function) makes stand for its graph call."""

    name: str
    cpu_children: list[Any]
    time_range: _Range


#: Events whose direct children are a graph's launches when torch logs no graph call.
_CONTAINERS = (REGION, "CompiledFunction",
               "autograd::engine::evaluate_function: CompiledFunctionBackward")


def launched_kernel(name: str, kernel_names: Collection[str] = ()) -> str | None:
    """The generated kernel an event launches: ``graph_<N>_<name>`` (C++), or a captured
    kernel's own name (Triton on a GPU); None for anything else (extern ops, allocations)."""
    m = KERNEL_EVENT.match(name)
    if m:
        return m.group("name")
    return name if name in kernel_names else None


def graph_calls(events: list[Any], extern_ops: set[str],
                kernel_names: Collection[str] = ()) -> list[Any]:
    """The ``## Call CompiledFxGraph`` events; on a torch that logs none, each compiled
    region's launches: its children from the first kernel (or captured extern op) on, up
    to the first child that is neither (the eager code after a graph break, a nested
    region), spanning from the end of the machinery before them."""
    calls = [e for e in events if e.name.startswith(GRAPH_CALL)]
    if calls:
        return calls
    groups: list[Any] = []
    for e in events:
        if not e.name.startswith(_CONTAINERS):
            continue
        launches: list[Any] = []
        lo = float(e.time_range.start)  # the wrapper allocates before its first launch
        for child in sorted(e.cpu_children, key=lambda c: c.time_range.start):
            if (launched_kernel(child.name, kernel_names) is not None
                    or op_name(child.name) in extern_ops):
                launches.append(child)
            elif launches or not child.name.startswith(MACHINERY):
                break
            else:
                lo = span(child)[1]
        if launches:
            hi = max(span(c)[1] for c in launches)
            groups.append(_LaunchGroup(f"{e.name} (launches)", launches, _Range(lo, hi)))
    return groups


def device_time_us(event: Any) -> float:
    """Microseconds the device spent in the kernels ``event`` and its children launched
    (0 on a CPU, or when the profiler recorded no device activity)."""
    for attr in ("device_time_total", "cuda_time_total"):  # the name before torch 2.4
        value = getattr(event, attr, None)
        if isinstance(value, (int, float)):
            return float(value)
    return 0.0


def op_name(name: str) -> str:
    """``extern_kernels.addmm`` / ``aten::addmm`` / ``torch.ops.aten.bmm.default`` -> op."""
    if "::" in name:
        return name.split("::", 1)[1].split(".")[0]
    parts = name.split(".")
    if "aten" in parts and parts.index("aten") + 1 < len(parts):
        return parts[parts.index("aten") + 1]
    return parts[1] if parts[0] == "extern_kernels" and len(parts) > 1 else parts[-1]


@dataclass
class KernelRows:
    """Accumulates kernel rows, keyed by the captured kernel (or the event name)."""

    groups: dict[tuple[str, str], list[Kernel]]
    filename: str  # the target's source file: lines elsewhere are not the target's
    rows: dict[Any, KernelTime] = field(default_factory=dict)
    matches: dict[tuple[Any, ...], tuple[str, str] | None] = field(default_factory=dict)

    @cached_property
    def extern_ops(self) -> set[str]:
        """The ops of the captured extern kernels (``aten::mm`` shows as ``mm``); the
        groups are fixed, so read once."""
        return {op_name(k.name) for ks in self.groups.values() for k in ks
                if k.kind == "extern"}

    @cached_property
    def kernel_names(self) -> set[str]:
        """The names of the captured generated kernels (C++ or Triton), read once."""
        return {k.name for ks in self.groups.values() for k in ks if k.kind == "kernel"}

    def group_for(self, graph_event: str, names: list[str],
                  externs: list[str] | None = None) -> tuple[str, str] | None:
        """The captured (compile, stage) whose kernels the graph call launched: the
        ``names`` of its kernels, then the ops of its extern calls (``externs``), decide.

        A group qualifies when it holds every launched kernel; among those, one that also
        holds every launched extern op wins over one that does not, then one with exactly
        the launched kernels, then exactly the launched externs; the first such wins. A GPU
        backward of a Linear launches only ``aten::mm`` and a reduction: its externs tell
        it from the forward, whose graph call has the same name."""
        launched = Counter(externs or [])
        cache_key = (graph_event, tuple(names), tuple(sorted(launched.items())))
        if cache_key not in self.matches:
            best: tuple[str, str] | None = None
            best_score = (False, False, False)
            for key, kernels in self.groups.items():
                mine = [k.name for k in kernels if k.kind == "kernel"]
                if not all(n in mine for n in names):
                    continue
                held = Counter(op_name(k.name) for k in kernels if k.kind == "extern")
                score = (not launched - held, len(mine) == len(names), held == launched)
                if best is None or score > best_score:
                    best, best_score = key, score
                if all(score):
                    break
            self.matches[cache_key] = best
        return self.matches[cache_key]

    def add(self, graph_event: Any) -> list[Interval]:
        """Add the launches of one ``## Call CompiledFxGraph`` event; their intervals.

        A launch's time is the device time of the kernels it launched when the profiler
        recorded any (a GPU runs them after the CPU returns), else its span on the CPU."""
        spans: list[Interval] = []
        for event, row in self.match(graph_event):
            start, end = span(event)
            device_us = device_time_us(event)
            row.calls += 1
            row.total_s += (device_us if device_us > 0 else end - start) / 1e6
            spans.append((start, end))
        return spans

    def match(self, graph_event: Any) -> list[tuple[Any, KernelTime]]:
        """The launches of one ``## Call CompiledFxGraph`` event with their rows (made
        when first seen), in launch order."""
        children = sorted((e for e in graph_event.cpu_children
                           if not e.name.startswith(PROFILER_INTERNAL)),
                          key=lambda e: e.time_range.start)
        known = self.kernel_names
        externs = self.extern_ops
        launched = [launched_kernel(e.name, known) for e in children]
        names = [n for n in launched if n is not None]
        ops = [op_name(e.name) for e, n in zip(children, launched, strict=True)
               if n is None and op_name(e.name) in externs]
        key = self.group_for(graph_event.name, names, ops)
        kernels = self.groups.get(key, []) if key else []
        used: set[int] = set()
        found_rows: list[tuple[Any, KernelTime]] = []
        for event, name in zip(children, launched, strict=True):
            wanted = name if name is not None else op_name(event.name)
            kind = "kernel" if name is not None else "extern"
            found = next((i for i, k in enumerate(kernels) if i not in used and k.kind == kind
                          and (k.name if name is not None else op_name(k.name)) == wanted),
                         None)
            if found is not None:
                used.add(found)
                k = kernels[found]
                row_key: Any = (key, found)
                row = self.rows.get(row_key) or KernelTime(
                    name=k.name, kind=kind, compile_id=k.compile_id, stage=k.stage,
                    event=event.name, lines=sorted({ln.lineno for ln in k.lines
                                                    if ln.filename == self.filename}))
            else:
                row_key = ("", event.name)
                row = self.rows.get(row_key) or KernelTime(
                    name=name if name is not None else event.name,
                    kind="kernel" if name is not None else "other", event=event.name)
            self.rows[row_key] = row
            found_rows.append((event, row))
        return found_rows
