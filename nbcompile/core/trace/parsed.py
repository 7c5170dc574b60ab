"""What each parser makes of one trace event: one small frozen value per event kind.

``parsers`` returns these (``Parsed`` is their union), so no consumer asks whether a key is
present. A value holds what the event says, and how it applies to the compile being built
(``apply``) and to one already closed (``late``: True when its code changed); a new kind is
its parser and its value here, with nothing to edit in ``CompileBuilder``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..records import GraphBreak, SourceLine, TargetError
from .building import Building, add_output_code, time_kernels, traced_files
from .kernel_lines import apply_provenance


class Event:
    """A parsed event's part in building a compile (by default: none)."""

    def apply(self, c: Building) -> None:
        """Apply to an open compile (before ``compilation_metrics`` closes it)."""

    def late(self, c: Building) -> bool:
        """Apply to a closed compile; True when its generated code changed."""
        return False


@dataclass(frozen=True)
class Phase:
    """One Chrome-trace event of a compile (``ph`` is ``B``egin / ``E``nd / ``X``)."""

    name: str
    ph: str
    ts_us: float
    cat: str = ""


@dataclass(frozen=True)
class DynamoStart(Event):
    """``dynamo_start``: the user stack that led to the compiled frame, outermost first
    (each frame as the event holds it: ``name``, ``line``, ``filename`` maybe interned)."""

    stack: tuple[Mapping[str, Any], ...] = ()

    @property
    def innermost(self) -> Mapping[str, Any]:
        """The compiled frame (empty when the stack is)."""
        return self.stack[-1] if self.stack else {}


@dataclass(frozen=True)
class OutputGraph(Event):
    """``dynamo_output_graph``: one FX graph Dynamo produced, as readable code."""

    graph: str

    def apply(self, c: Building) -> None:
        c.record.graphs.append(self.graph)


@dataclass(frozen=True)
class Guards(Event):
    """``dynamo_cpp_guards_str``: the guards Dynamo installed."""

    text: str

    def apply(self, c: Building) -> None:
        c.record.guards = self.text


@dataclass(frozen=True)
class GraphBreakEvent(Event):
    """The ``dynamo_graph_break_reason`` artifact: one graph break, with its user stack."""

    graph_break: GraphBreak

    def apply(self, c: Building) -> None:
        c.record.graph_breaks.append(self.graph_break)


@dataclass(frozen=True)
class RecompileReasons(Event):
    """The ``recompile_reasons`` artifact: every failed guard, and those of the newest
    compiled version (what changed this time)."""

    reasons: tuple[str, ...]
    newest: tuple[str, ...]
    # every compiled version torch tried, newest first: (compile id, its failed guards)
    versions: tuple[tuple[str, str], ...] = ()

    def apply(self, c: Building) -> None:
        c.recompile_reasons.extend(self.reasons)
        c.recompile_newest.extend(self.newest)
        c.recompile_versions.extend(self.versions)


@dataclass(frozen=True)
class DynamoError(Event):
    """The ``dynamo_error`` artifact of a failed compile: the user stack at the failure."""

    stack: list[SourceLine]

    def apply(self, c: Building) -> None:
        c.error_stack = self.stack


@dataclass(frozen=True)
class CacheLookup(Event):
    """A ``*_cache_hit`` / ``*_cache_miss`` artifact: which cache, and the key looked up
    (``None`` when the payload does not name one)."""

    artifact: str
    key: str | None = None

    def apply(self, c: Building) -> None:
        c.record.cache[self.artifact] = c.record.cache.get(self.artifact, 0) + 1
        if self.key is not None:
            c.cache_keys.append((self.artifact, self.key))


@dataclass(frozen=True)
class PostGradGraph(Event):
    """Inductor's input graph (an artifact, or its own kind on FX-graph-cache hits)."""

    graph: str

    def apply(self, c: Building) -> None:
        c.record.post_grad_graphs.append(self.graph)

    def late(self, c: Building) -> bool:
        self.apply(c)  # the backward's, compiled at the first backward call
        return False


@dataclass(frozen=True)
class Provenance(Event):
    """Inductor's kernel -> source-line stack traces (the parsed JSON object)."""

    traces: dict[str, Any]

    def apply(self, c: Building) -> None:
        apply_provenance(c.record.kernels, self.traces, traced_files(c.record))

    def late(self, c: Building) -> bool:
        self.apply(c)
        return True


@dataclass(frozen=True)
class TransformedBytecode(Event):
    """``<co_name>_MODIFIED_BYTECODE``: a resume function's transformed code as torch logs
    it (``dis`` text; torch logs it for resume functions only)."""

    frame: str
    dis: str


@dataclass(frozen=True)
class OutputCode(Event):
    """``inductor_output_code``: the generated module and the file it was written to."""

    code: str
    path: str = ""

    def apply(self, c: Building) -> None:
        add_output_code(c.record, self.code, self.path)

    def late(self, c: Building) -> bool:
        self.apply(c)
        time_kernels(c.record, c.kernel_compile_s)
        return True


@dataclass(frozen=True)
class CollectiveSchedule(Event):
    """``inductor_collective_schedule``: the collectives Inductor scheduled in one graph, in
    order, as it names their kernels (``torch.ops._c10d_functional.all_reduce_.default``)."""

    ops: tuple[str, ...]


@dataclass(frozen=True)
class ChromiumEvent(Event):
    """A Chrome-trace event: its ``Phase`` and the event itself (for
    ``CompileRecord.chromium_events``)."""

    phase: Phase
    event: dict[str, Any]

    def apply(self, c: Building) -> None:
        c.phases.append(self.phase)
        c.record.chromium_events.append(self.event)

    def late(self, c: Building) -> bool:
        self.apply(c)
        return False


@dataclass(frozen=True)
class Metrics(Event):
    """``compilation_metrics`` (the last event of a frame compile): what it says."""

    frame: str = ""
    filename: str = ""
    firstlineno: int = 0
    graph_op_count: int = 0
    recompile_limit: int = 0
    recompile_reasons: list[str] = field(default_factory=list)  # when no artifact had them
    recompile_newest: list[str] = field(default_factory=list)  # the newest version's
    times: dict[str, float] = field(default_factory=dict)
    error: str = ""  # "FailType: reason" of a failed compile
    failure: TargetError | None = None  # the same, for the target's error view
    phases: dict[str, float] = field(default_factory=dict)  # exclusive seconds (phases.py)
    guard_latency_s: float | None = None
    #: seconds Dynamo traced before a graph break made it start the frame over (None: no
    #: restart, or not reported)
    restart_s: float | None = None
    #: seconds Triton took to compile each kernel, by kernel name (GPU compiles)
    kernel_compile_s: dict[str, float] = field(default_factory=dict)


#: Any parser's value.
Parsed = (DynamoStart | OutputGraph | Guards | GraphBreakEvent | RecompileReasons | DynamoError
          | CacheLookup | PostGradGraph | Provenance | OutputCode | CollectiveSchedule
          | ChromiumEvent | Metrics | TransformedBytecode)
