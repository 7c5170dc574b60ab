"""The ``profile`` record: ``Profile`` and its rows, ``KernelTime`` and ``LineTime``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...records import SCHEMA_VERSION, GraphBreak, Omission, Record
from ..memory.call import ProfileMemory


@dataclass
class KernelTime(Record):
    """Measured time of one generated kernel or extern call, over all profiled calls.

    ``name`` is the kernel's name in the report (``cpp_fused_add_0``,
    ``extern_kernels.addmm``) or the profiler's event name when no captured kernel
    matches; ``lines`` are the source lines it was generated from (empty: not tied).
    """

    name: str  # as in the report's kernels, or the profiler event's name
    kind: str  # kernel | extern | other (allocations, views, unknown ops)
    calls: int = 0  # launches over all profiled calls
    total_s: float = 0.0  # time over all profiled calls
    mean_s: float = 0.0  # per launch
    share: float = 0.0  # of all kernel time
    compile_id: str = ""  # the copy's compile that generated it ("" if none matched)
    stage: str = ""  # inference | forward | backward
    event: str = ""  # the profiler event name
    lines: list[int] = field(default_factory=list)  # in ``Profile.filename``; empty: not tied
    # bytes allocated in one call for the buffers it writes (an allocation between two
    # launches of a graph goes to the next launch: Inductor allocates just before use)
    allocated_bytes: int = 0

    OPTIONAL_KEYS = frozenset({"allocated_bytes"})


@dataclass
class LineTime(Record):
    """One source line of the target: compiled and eager seconds per call."""

    lineno: int
    line: str  # the source text
    compiled_s: float = 0.0  # kernel time per call (a fused kernel split over its lines)
    eager_s: float = 0.0  # eager time per call, inclusive of what the line calls
    kernels: list[str] = field(default_factory=list)  # names of the kernels it fed
    # bytes its kernels allocated in one compiled call (a fused kernel's split evenly)
    compiled_allocated_bytes: int = 0
    eager_allocated_bytes: int = 0  # bytes allocated on this line in one eager call
    # the part of ``compiled_s`` from backward kernels: a forward line feeds them, while
    # eager runs that backward at the line that calls ``backward()``
    compiled_backward_s: float = 0.0

    OPTIONAL_KEYS = frozenset({"compiled_allocated_bytes", "eager_allocated_bytes",
                               "compiled_backward_s"})
    COMPUTED = {"speedup": (float | None, "eager over compiled time of the same work: the "
                            "line's forward kernels (null unless both)")}

    @property
    def speedup(self) -> float | None:
        """Eager time over the compiled time of the same work (None unless both were
        measured): the line's kernels less its backward ones, since eager runs a line's
        backward where ``backward()`` is called."""
        forward = self.compiled_s - self.compiled_backward_s
        if forward > 1e-12 and self.eager_s > 0:
            return self.eager_s / forward
        return None

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["speedup"] = self.speedup
        return data


@dataclass
class Profile(Record):
    """The result of ``profile()``: kernels, source lines and the per-call time budget.

    Per call: ``wall_s`` (measured), ``kernel_s`` (= ``sum(k.total_s) / repeat``),
    ``outside_graphs_s``, ``overhead_s``, ``unaccounted_s``; ``eager_wall_s`` is the same
    call run eagerly. ``accounted`` says whether the parts are within 10 % of the wall time;
    ``notes`` say what is missing and how much, and what could not be tied to a line.
    ``nbcompile.profile`` returns ``nbcompile.api.Profile``, this class with rich reprs.
    """

    name: str  # the profiled function or module
    repeat: int  # profiled calls
    kernels: list[KernelTime] = field(default_factory=list)  # slowest first
    lines: list[LineTime] = field(default_factory=list)  # every line of the target's source
    filename: str = ""  # the source file of ``lines``
    wall_s: float = 0.0  # measured wall time per compiled call
    kernel_s: float = 0.0  # sum of ``kernels[].total_s`` / ``repeat``
    outside_graphs_s: float = 0.0  # per call: Python and eager ops between graphs
    overhead_s: float = 0.0  # per call: guards, torch.compile/AOT wrappers, launches, allocs
    unaccounted_s: float = 0.0  # per call: wall time around the profiled call window
    untied_s: float = 0.0  # kernel time per call not tied to any line of the target
    eager_wall_s: float = 0.0  # wall time per eager call
    eager_untied_s: float = 0.0  # eager time per call outside the target's own lines
    accounted: bool = True  # kernels + outside graphs + overhead within 10 % of the wall
    compiles: list[str] = field(default_factory=list)  # compile ids of the profiled copy
    recompiles_during_profile: int = 0
    notes: list[str] = field(default_factory=list)  # what is missing, what is not tied
    graph_breaks: list[GraphBreak] = field(default_factory=list)  # of the profiled copy
    # peak and allocated bytes of one call, compiled and eager (null: not measured)
    memory: ProfileMemory | None = None
    interrupted: bool = False  # Ctrl-C stopped it: what was measured (see notes[0])
    schema_version: int = SCHEMA_VERSION
    record: str = "profile"

    OPTIONAL_KEYS = frozenset({"graph_breaks", "truncated", "omitted", "memory",
                               "interrupted", "cell_names"})
    COMPUTED = {
        "cell_names": (dict[str, str], "each notebook cell's code file the record names (a "
                                       "break's file), as written there -> the cell as the "
                                       "notebook names it (`cell [2]`) (published)"),
        "truncated": (bool, "set when published with some kernels or lines left out"),
        "omitted": (list[Omission], "kernels or lines left out of a published output to "
                                    "keep it within its byte budget (`how` gets them)"),
    }

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["lines"] = [ln.to_dict() for ln in self.lines]  # with their speedup
        return data

    def __repr__(self) -> str:
        return (f"<Profile {self.name}: {self.repeat} call(s), wall {self.wall_s * 1e3:.3f} ms"
                f"/call, kernels {self.kernel_s * 1e3:.3f} ms, {len(self.kernels)} row(s)>")
