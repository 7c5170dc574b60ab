"""The record schema: what a compile produced, as plain, JSON-serialisable data.

These dataclasses are the one contract between the kernel and every renderer
(inline HTML, the JupyterLab sidebar, saved notebooks). ``to_dict()`` output is
documented in ``docs/records.md`` and validated against
``nbcompile/schema/record-v1.schema.json``. Bump ``SCHEMA_VERSION`` on any
incompatible change.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

SCHEMA_VERSION = 1
MIME_TYPE = "application/vnd.nbcompile.v1+json"

KernelLanguage = Literal["cpp", "triton", "python"]
KernelKind = Literal["kernel", "extern", "wrapper"]
TargetStatus = Literal[
    "pending",  # compiled lazily: waiting for the first call
    "compiling",  # a compile is running right now
    "compiled",  # at least one compile finished
    "failed",  # the last compile raised (e.g. a fullgraph break)
    "disabled",  # --disable: the target runs eagerly
]


def _plain(value: Any) -> Any:
    """Recursively turn dataclasses, tuples and sets into JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


class Record:
    """Mixin: ``to_dict()`` for every record dataclass."""

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass
class SourceLine(Record):
    """One line of user source: where it lives and what it says."""

    filename: str
    lineno: int
    line: str = ""


@dataclass
class GraphBreak(Record):
    """A place where Dynamo stopped tracing and fell back to Python."""

    reason: str
    filename: str | None = None
    lineno: int | None = None
    line: str = ""
    hint: str = ""
    explanation: str = ""
    gb_type: str = ""
    compile_id: str = ""
    # Dynamo's user stack, outermost first: e.g. the user's cell line, then the library
    # lines it called into, down to the line that broke (``filename``/``lineno``).
    stack: list[SourceLine] = field(default_factory=list)
    gb_id: str = ""  # Dynamo's graph-break id, e.g. "GB0170"
    doc_url: str = ""  # the graph break's documentation page


@dataclass
class Recompile(Record):
    """A compile triggered because an earlier compile's guards failed."""

    reason: str
    compile_id: str = ""
    guard: str = ""


@dataclass
class Kernel(Record):
    """One piece of generated code: a C++/Triton kernel, an extern call or the wrapper.

    ``language`` is ``cpp``, ``triton`` or ``python``; ``kind`` is ``kernel`` (generated),
    ``extern`` (a call into a library op such as ``extern_kernels.addmm``) or ``wrapper``
    (the Python ``call`` function that launches everything).
    """

    name: str
    language: str
    source: str
    kind: str = "kernel"
    size: int = 0
    compile_id: str = ""
    ops: list[str] = field(default_factory=list)
    lines: list[SourceLine] = field(default_factory=list)
    stage: str = ""  # inference | forward | backward (AOT graph the code belongs to)
    handle: str = ""  # Inductor's provenance handle ("cpp_fused_add_1:4"), when tracked
    nodes: list[str] = field(default_factory=list)  # FX node names it computes


@dataclass
class CompileRecord(Record):
    """One Dynamo frame compile (``compile_id`` like ``"0/1"``): graphs, guards, code."""

    compile_id: str
    frame: str
    filename: str = ""
    firstlineno: int = 0
    status: str = "ok"  # ok | failed
    error: str = ""
    recompile_reason: str = ""  # the failed guard(s), in words
    recompile_guard: str = ""  # the failed guard(s) as Dynamo wrote them
    graphs: list[str] = field(default_factory=list)
    graph_op_count: int = 0
    guards: str = ""
    output_code: str = ""
    output_code_path: str = ""
    kernels: list[Kernel] = field(default_factory=list)
    post_grad_graphs: list[str] = field(default_factory=list)  # Inductor's input graphs
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    times: dict[str, float] = field(default_factory=dict)
    cache: dict[str, int] = field(default_factory=dict)
    started_at: float = 0.0
    recompile_limit: int = 0  # torch._dynamo.config.recompile_limit in force (0: unknown)
    phases: dict[str, float] = field(default_factory=dict)  # phase name -> seconds (phases.py)
    guard_latency_s: float | None = None  # guard evaluation time per call, when reported


@dataclass
class LineAnnotation(Record):
    """What became of one source line (``%%compile --annotate``, ``report(obj).annotate()``).

    ``category``: ``kernel`` (fused into generated kernel(s)), ``extern`` (runs as a
    library call such as ``addmm``), ``graph_break`` (Dynamo stopped here; the line runs
    in Python), ``error`` (the compile failed here), ``traced`` (captured in the graph
    but no code of its own: views, constants), ``python`` (inside the compiled code but
    not in any graph: evaluated by Python/Dynamo), ``pending`` (not compiled yet),
    ``outside`` (not part of the compiled code), ``blank``.
    """

    filename: str
    lineno: int
    line: str
    category: str
    kernels: list[str] = field(default_factory=list)  # labels of generated kernels
    externs: list[str] = field(default_factory=list)  # labels of extern calls
    kernel_refs: list[int] = field(default_factory=list)  # indexes into TargetRecord.kernels
    ops: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class CodeDiff(Record):
    """What changed in one kernel's generated code since the previous compile."""

    kernel: str
    compile_id: str
    previous_compile_id: str
    previous_kernel: str = ""
    stage: str = ""
    language: str = ""
    change: str = "changed"  # changed | added | removed
    cause: str = ""  # the recompile reason, or "cell re-run"
    diff: str = ""  # unified diff text
    added: int = 0
    removed: int = 0


@dataclass
class TargetError(Record):
    """Why a target could not compile (e.g. a ``fullgraph=True`` break), tied to a line."""

    type: str
    message: str
    filename: str | None = None
    lineno: int | None = None
    line: str = ""
    hint: str = ""
    stack: list[SourceLine] = field(default_factory=list)  # as ``GraphBreak.stack``


@dataclass
class Advice(Record):
    """What the user should change, in words, from a pattern seen across compiles.

    ``kind``: ``recompile-storm`` (a size keeps changing, e.g. a growing KV cache),
    ``scalar-specialization`` (an ``.item()`` value baked in), ``recompile-limit``.
    """

    kind: str
    message: str
    fix: str = ""  # the setting or code to use


@dataclass
class CellRef(Record):
    """The notebook cell that defined a target."""

    filename: str = ""
    execution_count: int | None = None
    cell_id: str | None = None


@dataclass
class TargetRecord(Record):
    """Everything known about one compiled target, as one JSON-ready record.

    ``graph_count``, ``graph_breaks``, ``recompiles``, ``kernels``, ``output_code``
    and ``compile_time_s`` are derived from ``compiles`` when the record is built.
    """

    id: str
    name: str
    kind: str  # function | module
    options: dict[str, Any] = field(default_factory=dict)
    status: str = "pending"
    wrapper: str | None = None
    compiled_object: str = ""
    cell: CellRef = field(default_factory=CellRef)
    notes: list[str] = field(default_factory=list)
    error: TargetError | None = None
    compiling_since: float | None = None
    compiles: list[CompileRecord] = field(default_factory=list)
    graph_count: int = 0
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    output_code: str = ""
    compile_time_s: float = 0.0
    annotations: list[LineAnnotation] = field(default_factory=list)
    code_diffs: list[CodeDiff] = field(default_factory=list)
    advice: list[Advice] = field(default_factory=list)
    preview: str = ""  # e.g. "triton": generated code is a preview (--codegen triton)
    schema_version: int = SCHEMA_VERSION
    record: str = "target"

    @property
    def graph_break_count(self) -> int:
        return len(self.graph_breaks)

    @property
    def recompile_count(self) -> int:
        return len(self.recompiles)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["graph_break_count"] = self.graph_break_count
        data["recompile_count"] = self.recompile_count
        data["kernel_count"] = len(self.kernels)
        return data
