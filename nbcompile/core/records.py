"""The record schema: what a compile produced, as plain, JSON-serialisable data.

These dataclasses are the one contract between the kernel and every renderer
(inline HTML, the JupyterLab sidebar, saved notebooks). ``to_dict()`` output is
the single source of ``nbcompile/schema/record-v1.schema.json`` and of the field
tables in ``docs/records.md`` (``python -m nbcompile.schema.generate`` rewrites both):
a field's annotation gives its JSON type, the comment on or above it its description.
Bump ``SCHEMA_VERSION`` only when a field changes meaning; a field added within v1
goes in its class's ``OPTIONAL_KEYS`` (optional in the schema: older saved records
lack it).
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

SCHEMA_VERSION = 1
MIME_TYPE = "application/vnd.nbcompile.v1+json"

KernelLanguage = Literal["cpp", "triton", "python"]
KernelKind = Literal["kernel", "extern", "wrapper"]
TargetStatus = Literal[
    "pending",  # compiled lazily: waiting for the first call
    "compiling",  # a compile is running right now
    "compiled",  # at least one compile finished
    "failed",  # the last compile raised (e.g. a fullgraph break)
    "disabled",  # --disable or @torch.compiler.disable: the target runs eagerly
    "not_compiled",  # compiles finished without a graph (e.g. torch.nn.LSTM): runs eagerly
    "compiled_inside",  # a module not called directly yet, compiled inside another target
]


def _plain(value: Any) -> Any:
    """Recursively turn dataclasses, tuples and sets into JSON-ready values (a
    dataclass's private ``_fields`` are internal state, never part of a record). JSON
    has no inf/nan: they become None (e.g. a timing row says why in its notes)."""
    kind = type(value)
    # the exact built-in types first, their leaves kept without a call: a big record
    # (50k graph breaks) is millions of values
    if kind in _LEAVES:
        return value
    if kind is list or kind is tuple:
        return [v if type(v) in _LEAVES else _plain(v) for v in value]
    if kind is dict:
        return {k if type(k) is str else str(k): v if type(v) in _LEAVES else _plain(v)
                for k, v in value.items()}
    fields = _public_fields(kind)
    if fields is not None:
        names, values = fields
        return {name: v if type(v) in _LEAVES else _plain(v)
                for name, v in zip(names, values(value), strict=True)}
    # subclasses (an enum of str, a named tuple) and the rest
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return repr(value)


#: Values ``_plain`` keeps as they are, by exact type (a float may be inf or nan).
_LEAVES = frozenset({type(None), bool, int, str})


#: A dataclass's public field names and a getter of their values (a tuple), by class
#: (``None``: not a dataclass): looked up once per class, not per value (a live summary
#: update converts thousands of values).
_FIELDS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]] | None] = {}


def _public_fields(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]] | None:
    try:
        return _FIELDS[cls]
    except KeyError:
        fields = None
        if dataclasses.is_dataclass(cls):
            names = tuple(f.name for f in dataclasses.fields(cls) if not f.name.startswith("_"))
            fields = (names, _values_of(names))
        _FIELDS[cls] = fields
        return fields


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A getter of an object's ``names`` as one tuple (``attrgetter`` gives a lone value
    for one name)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda value: (one(value),)
    return lambda value: ()


class Record:
    """Mixin: ``to_dict()`` for every record dataclass.

    ``OPTIONAL_KEYS``: keys a valid record may lack: fields and keys added after v1
    shipped (older saved records lack them), and a summary's empty cell ref.
    ``COMPUTED``: keys added beyond the fields (by ``to_dict()``, or when published):
    name -> (type, description).
    """

    OPTIONAL_KEYS: ClassVar[frozenset[str]] = frozenset()
    COMPUTED: ClassVar[dict[str, tuple[Any, str]]] = {}

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass
class SourceLine(Record):
    """One line of user source: where it lives and what it says."""

    filename: str  # the code filename, as in tracebacks (a cell's is ``<ipython-input-...>``)
    lineno: int  # 1-based; in a ``%%compile`` cell the magic line is line 1
    line: str = ""  # the source text


@dataclass
class GraphBreak(Record):
    """A place where Dynamo stopped tracing and fell back to Python."""

    reason: str  # type and explanation in words
    filename: str | None = None  # where it broke (the innermost frame)
    lineno: int | None = None
    line: str = ""  # the source text of that line
    hint: str = ""  # newline-separated hints from Dynamo
    explanation: str = ""  # Dynamo's explanation
    gb_type: str = ""  # Dynamo's graph-break type
    compile_id: str = ""  # the compile that broke (``"0/1"``)
    # Dynamo's user stack, outermost first: e.g. the user's cell line, then the library
    # lines it called into, down to the line that broke (``filename``/``lineno``).
    stack: list[SourceLine] = field(default_factory=list)
    gb_id: str = ""  # Dynamo's graph-break id, e.g. "GB0170"
    doc_url: str = ""  # the graph break's documentation page
    # frames of the process's own machinery above the user's first frame (in a kernel:
    # runpy, ipykernel, tornado, asyncio, IPython) that Dynamo printed and ``stack`` leaves out
    stack_dropped: int = 0

    OPTIONAL_KEYS = frozenset({"stack", "gb_id", "doc_url", "hits", "stack_dropped",
                               "runs_as"})
    COMPUTED = {"hits": (int, "compiles of the target that hit this break (published on a "
                              "target's graph_breaks, counted by insight/break_ranking.py)"),
                "runs_as": (str, "what torch runs around this break, in one line: the graph "
                                 "before it, the Python at its line, where it resumes "
                                 "(published on a target's graph_breaks from the compiles' "
                                 "runs_as; absent when not known)")}


@dataclass
class Recompile(Record):
    """A compile triggered because an earlier compile's guards failed."""

    reason: str  # the failed guard in words, e.g. ``tensor 'x' dtype mismatch. ...``
    compile_id: str = ""  # ``"0/1"``: frame 0, its second compile
    guard: str = ""  # the failed guard as Dynamo wrote it
    frame: str = ""  # the code recompiled (a resumed part: ``torch_dynamo_resume_in_<fn>_at_<n>``)
    cell: int | None = None  # execution count of the cell run whose call recompiled
    changed_by: list[int] = field(default_factory=list)  # cells that changed what it reads
    changes: list[str] = field(default_factory=list)  # in words: ``cell [7] set SCALE = 0.5``
    # Each compiled version torch tried for this call, newest first, with its own failed
    # guard; empty: torch named none (a record from an older nbcompile, or a trace without
    # them).
    failed_versions: list[FailedVersion] = field(default_factory=list)
    # The recompile in words, as every view shows it: the reason, who changed what the
    # guard reads, the call that paid and the versions torch tried; "": a record from an
    # older nbcompile (a view shows ``reason``).
    text: str = ""

    OPTIONAL_KEYS = frozenset({"frame", "cell", "changed_by", "changes", "failed_versions",
                               "text"})


@dataclass
class FailedVersion(Record):
    """One compiled version whose guards a call failed before torch recompiled."""

    compile_id: str  # the version's compile (``"0/2"``), as torch names it ("": not named)
    guard: str  # its failed guard(s) as torch wrote them (``; ``-joined)
    cell: int | None = None  # execution count of the cell run whose call compiled it


@dataclass
class Kernel(Record):
    """One piece of generated code: a C++/Triton kernel, an extern call or the wrapper.

    ``kind`` is ``kernel`` (generated code: the kernels that run), ``extern`` (a call
    into a library op such as ``extern_kernels.addmm``) or ``wrapper`` (the Python
    ``call`` function that launches everything).
    """

    name: str
    language: KernelLanguage
    source: str  # the code
    kind: KernelKind = "kernel"
    size: int = 0  # characters of source
    compile_id: str = ""
    ops: list[str] = field(default_factory=list)  # ATen ops it computes (``aten.mul``)
    # The user lines it came from: exact when Inductor's provenance tracking named them
    # (nbcompile turns it on while loaded), else matched by op names and order.
    lines: list[SourceLine] = field(default_factory=list)
    stage: str = ""  # inference | forward | backward (AOT graph the code belongs to)
    handle: str = ""  # Inductor's provenance handle ("cpp_fused_add_1:4"), when tracked
    nodes: list[str] = field(default_factory=list)  # FX node names it computes
    # Seconds Triton took to compile it, as torch measured (``compilation_metrics``'
    # ``triton_kernel_compile_times_us``; GPU compiles); None: torch did not say.
    compile_time_s: float | None = None
    # The compile it came from, in the words every view names it by (``compile 0/1``), so
    # two kernels of one name from two compiles read apart; "": not known.
    compile_label: str = ""

    OPTIONAL_KEYS = frozenset({"stage", "handle", "nodes", "compile_time_s", "compile_label"})


CudagraphStatus = Literal[
    "recorded",  # torch wrapped the graph to record it as a CUDA graph (at a later call)
    "skipped",  # torch skipped CUDA graphs for it and said why
    "not_used",  # nothing to capture: no CUDA device in the graph (torch counts a skip)
]


@dataclass
class CudagraphPartitionNode(Record):
    """A node Inductor kept out of CUDA graphs by graph partitioning
    (``torch._inductor.config.graph_partition``), in torch's words: its scheduler's
    ``cudagraphs`` DEBUG line for a node of a non-cudagraphable partition."""

    node: str  # Inductor's buffer name (``buf1``)
    reason: str  # torch's reason (``cpu ops``, ``DeviceCopy ops``)
    fx: str = ""  # the FX node as torch printed it (``mul(arg1_1, 2)``)
    line: SourceLine | None = None  # the user's line in the node's stack trace
    cell: int | None = None  # execution count of the cell that line is in, when known

    OPTIONAL_KEYS = frozenset({"fx", "line", "cell"})


@dataclass
class CudagraphPartitions(Record):
    """How Inductor split a compile's graphs around what CUDA graphs cannot capture
    (graph partitioning): torch's count of partitions, those it records as CUDA graphs,
    and the nodes it runs outside them. Summed over the compile's Inductor graphs."""

    partitions: int  # "Created N graph partitions"
    cudagraphable: int  # those CUDA-graph trees record
    outside: list[CudagraphPartitionNode] = field(default_factory=list)


@dataclass
class CudagraphOutcome(Record):
    """What torch did about CUDA graphs for one compile (``--mode reduce-overhead``), read
    from its own record: its ``cudagraphs`` log messages and
    ``counters["inductor"]["cudagraph_skips"]``."""

    status: CudagraphStatus
    # torch's reason in its words (``mutated inputs (1 instances)``, ``cpu device``);
    # empty when recorded
    reason: str = ""
    # the user's line torch named (its ``Found from:`` stack, innermost user frame)
    line: SourceLine | None = None
    cell: int | None = None  # execution count of the cell that line is in, when known
    messages: list[str] = field(default_factory=list)  # torch's messages, verbatim
    # Inductor's graph partitions (torch 2.9+ on a GPU, when its scheduler ran: not on an
    # FX-graph cache hit); None: torch said nothing of partitions
    partitions: CudagraphPartitions | None = None
    # why the partitions are not known, when torch could not say (``served from the
    # FX-graph cache``, ``not reported by torch 2.9``); empty otherwise
    partitions_unknown: str = ""
    # the outcome in words, as the Compiles column shows it (made in Python: the
    # inspector only renders it)
    text: str = ""

    OPTIONAL_KEYS = frozenset({"reason", "line", "cell", "messages", "partitions",
                               "partitions_unknown", "text"})


@dataclass
class CudagraphRerecord(Record):
    """A CUDA graph torch recorded again because an input changed (CUDA-graph trees'
    ``check_invariants``), in torch's words."""

    compile_id: str  # the compile whose graph was recorded again (``"0/1"``)
    # torch's reason (``CheckInvariantStatus``): ``static input data pointer changed``
    reason: str
    inputs: list[str] = field(default_factory=list)  # the graph inputs whose pointer changed
    # the user's source line torch gave for the first of those inputs, when it gave one
    line: str = ""

    OPTIONAL_KEYS = frozenset({"inputs", "line"})


@dataclass
class CudagraphShape(Record):
    """An input size a compile's CUDA graph was first recorded for (torch's symint key)."""

    compile_id: str  # the compile (``"0/1"``)
    key: str  # torch's key of dynamic sizes (``(48,)``); ``static`` for a graph without any
    cell: int | None = None  # execution count of the cell whose call recorded it

    OPTIONAL_KEYS = frozenset({"cell"})


@dataclass
class CudagraphCall(Record):
    """One call of a target under CUDA-graph trees, as torch's tree manager ran its graphs:
    warmed up (run eagerly once, in the graph pool), recorded, replayed, or sent to eager."""

    # the call's number among all calls of the target's compiled function, from its first
    # (0: not known, a function whose calls nbcompile cannot count; see
    # `core/notebook/targets/running.py`)
    call: int
    cell: int | None = None  # execution count of the cell that made the call
    warmups: int = 0  # graph runs that warmed up (the tree's ``run_eager``, first run)
    recordings: int = 0  # graphs recorded (the tree's ``record_function``), re-records too
    replays: int = 0  # recorded graphs replayed (the tree's ``execute_node``)
    eager: int = 0  # graph runs torch ran eagerly after warm-up (not as CUDA graphs)
    # the recordings that recorded a graph again (a recorded one's check failed), why
    rerecords: list[CudagraphRerecord] = field(default_factory=list)
    new_shapes: list[CudagraphShape] = field(default_factory=list)  # sizes first seen here
    # torch's message when it gave up on a graph and runs it eagerly from now on (past
    # ``cudagraph_unexpected_rerecord_limit``); empty: none
    fell_back: str = ""
    # bytes reserved by the CUDA-graph trees' private memory pool before and after the
    # call (None: not read); ``pool_source`` says how they were read
    pool_before: int | None = None
    pool_after: int | None = None
    pool_source: str = ""
    what: str = ""  # what happened, in the words the summary's line and the inspector show
    # the graph runs of a backward pass after call ``call`` (``loss.backward()``: outside
    # the target's calls; torch's lines say so, ``replays`` not counted there)
    backward: bool = False

    OPTIONAL_KEYS = frozenset({"cell", "warmups", "recordings", "replays", "eager",
                               "rerecords", "new_shapes", "fell_back", "pool_before",
                               "pool_after", "pool_source", "what", "backward"})


@dataclass
class CudagraphHazardName(Record):
    """A user's name in a CUDA-graph hazard: ``y1``, ``preds[0]``."""

    name: str
    bound_in: int | None = None  # execution count of the cell that bound it (None: not known)
    by: str = ""  # overwritten: the function whose call overwrote it ("": not known which)

    OPTIONAL_KEYS = frozenset({"bound_in", "by"})


@dataclass
class CudagraphHazard(Record):
    """User names found after a cell holding CUDA-graph outputs that are no longer theirs:
    ``overwritten`` (torch marked the output when a later call started a new generation of
    the trees: reading it raises torch's error) or ``shared`` (names holding a tensor a
    replay hands back again and writes into, with no error: several names made one tensor,
    or one name whose tensor a later replay wrote). Worded once, in Python: the
    cell's output, the summary and the inspector show ``text``."""

    kind: Literal["overwritten", "shared"]
    cell: int | None  # execution count of the cell after which it was found
    names: list[CudagraphHazardName] = field(default_factory=list)
    gradient: bool = False  # overwritten gradients (``.grad``): torch's advice differs
    text: str = ""  # what happened and the fix, in words

    OPTIONAL_KEYS = frozenset({"names", "gradient", "text"})


@dataclass
class CudagraphShapes(Record):
    """A target's CUDA graphs per input size: one recording per distinct size."""

    shapes: list[CudagraphShape] = field(default_factory=list)  # each size, in order seen
    # torch's warning limit on distinct sizes per graph and the config that sets it
    # (``torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit``); None: off
    warn_limit: int | None = None
    warn_limit_config: str = ""
    remedy: str = ""  # what fits when sizes keep coming (empty: nothing to do yet)

    OPTIONAL_KEYS = frozenset({"warn_limit", "warn_limit_config", "remedy"})


@dataclass
class RunStep(Record):
    """One step of what torch runs in place of a frame, in order."""

    kind: Literal["graph", "python", "resume"]
    text: str  # the step in words: ``graph 1 (3 ops: sin, mul)``, ``print('debug') in Python``
    # graph: which of this compile's ``graphs`` (0-based) Dynamo's code calls here
    graph: int | None = None
    lineno: int | None = None  # python: the user line run eagerly (the graph break's line)
    # resume: the resume function's frame (``torch_dynamo_resume_in_f_at_8``) whose own
    # compiles (``CompileRecord.frame``) carry its graphs, guards and recompiles; "" unknown
    frame: str = ""
    # python: where the graph break is when it is inside a function this line calls (that
    # function then runs as a frame of its own); None: the break is on ``lineno`` itself
    inner: SourceLine | None = None
    # resume: another branch's resume function (a data-dependent branch resumes in one
    # of two, whichever the condition picks)
    alternative: bool = False

    OPTIONAL_KEYS = frozenset({"graph", "lineno", "frame", "inner", "alternative"})


@dataclass
class RunsAs(Record):
    """What torch runs in place of a compiled frame: Dynamo's transformed bytecode,
    decompiled to Python (depyf), and the walk derived from it."""

    source: str = ""  # the transformed code as Python ("" when it could not be decompiled)
    steps: list[RunStep] = field(default_factory=list)  # graphs, Python, resume, in order
    walk: str = ""  # the steps in one line: ``graph 1 (2 ops: sin, mul) -> print(...) ...``
    dis: str = ""  # ``dis`` of the transformed code, when ``source`` is empty
    problem: str = ""  # why ``source`` is empty (depyf missing or failed), in words

    OPTIONAL_KEYS = frozenset({"source", "steps", "walk", "dis", "problem"})


@dataclass
class CompileRecord(Record):
    """One Dynamo frame compile (``compile_id`` like ``"0/1"``): graphs, guards, code."""

    compile_id: str  # ``"0/1"``: frame 0, its second compile
    # Code name; code after a graph break runs as ``torch_dynamo_resume_in_<fn>_at_<line>``.
    frame: str
    filename: str = ""
    firstlineno: int = 0
    status: Literal["ok", "failed"] = "ok"
    error: str = ""  # why it failed
    recompile_reason: str = ""  # the failed guard(s), in words
    recompile_guard: str = ""  # the failed guard(s) as Dynamo wrote them
    graphs: list[str] = field(default_factory=list)  # readable FX graphs (``# File:`` lines)
    graph_op_count: int = 0  # ops in the graphs
    guards: str = ""  # Dynamo's guard tree as text
    output_code: str = ""  # generated module (empty when published: it is at target level)
    output_code_path: str = ""  # where Inductor wrote the generated module
    kernels: list[Kernel] = field(default_factory=list)  # empty when published
    post_grad_graphs: list[str] = field(default_factory=list)  # Inductor's input graphs
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    # Seconds: ``total_s``, ``backend_compile_s``, ``inductor_compile_s``, ``code_gen_s``...
    times: dict[str, float] = field(default_factory=dict)
    # Counts of ``fx_graph_cache_hit``/``_miss``, ``aotautograd_cache_hit``/``_miss``.
    cache: dict[str, int] = field(default_factory=dict)
    started_at: float = 0.0  # Unix time the compile started
    recompile_limit: int = 0  # torch._dynamo.config.recompile_limit in force (0: unknown)
    # Exclusive seconds per compile phase (``Dynamo tracing``, ``AOTAutograd``, ``Inductor
    # passes``, ``Inductor lowering``, ``code generation``, ``C++/Triton compile``, ``gc``),
    # summing to at most ``times.total_s``; phases torch did not report are absent.
    phases: dict[str, float] = field(default_factory=dict)
    guard_latency_s: float | None = None  # guard evaluation time torch measured, if any
    # Seconds Dynamo traced this frame before a graph break made it start over (torch's
    # ``dynamo_time_before_restart_s``): tracing the break threw away; None: no restart.
    restart_s: float | None = None
    # torch's Chrome-trace events of this compile (``ph`` B/E/i, ``ts`` in us, ``name``,
    # ``cat``...), for ``report(x).save_chrome_trace(path)``; kept in the kernel, left out
    # of published records.
    chromium_events: list[dict[str, Any]] = field(default_factory=list)
    # What became of CUDA graphs for this compile's graphs (``--mode reduce-overhead``),
    # from torch's own messages and skip count; None: CUDA graphs were not asked for, or
    # torch neither said nor counted anything.
    cudagraphs: CudagraphOutcome | None = None
    # Execution count of the cell run that made the call (None: unknown, e.g. no cell ran).
    cell: int | None = None
    # Execution counts of the cell runs since the frame's previous compile that changed what
    # the failed guard reads (a global, a module's ``training``); empty: none known.
    changed_by: list[int] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # those, in words: ``cell [7] set X = 1``
    # What torch runs in place of the frame (its transformed code as Python and the walk
    # through graphs, Python and resume functions); None: not known (not heard;
    # a trace compile holds what its log does)
    runs_as: RunsAs | None = None
    # For a recompile: each compiled version torch tried, newest first, with its own failed
    # guard (torch's record of the call); empty: not a recompile, or torch named none.
    failed_versions: list[FailedVersion] = field(default_factory=list)
    # The compile as views head it, with the code named as the user wrote it:
    # ``compile 0/1 (f)``; the frame torch compiles for a module target (its ``wrap_inline``
    # wrapper, ``inner``) named by the module (``compile 0/0 (model)``); "": not set.
    label: str = ""
    # The code the compile ran, as the user wrote it: ``frame``, or for a module target's
    # wrapper frame the module's name (``model``, where torch says ``inner``); "": not set.
    code: str = ""
    _run: int = -1  # the cell run's sequence number (internal: where changes are looked from)

    OPTIONAL_KEYS = frozenset({"recompile_guard", "post_grad_graphs", "recompile_limit",
                               "phases", "guard_latency_s", "chromium_events", "cudagraphs",
                               "cell", "changed_by", "changes", "runs_as",
                               "failed_versions", "label", "restart_s", "code"})

    @property
    def cell_run(self) -> int:
        """The sequence number of the cell run that made the call (-1: not placed)."""
        return self._run

    def place(self, cell: int | None, run: int) -> bool:
        """Put this compile in the cell run that made its call (execution count ``cell``,
        sequence number ``run``); False when it was placed already."""
        if self._run >= 0:
            return False
        self.cell, self._run = cell, run
        return True


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
    line: str  # the source text
    category: str  # kernel | extern | graph_break | error | traced | python | pending | ...
    kernels: list[str] = field(default_factory=list)  # labels of generated kernels
    externs: list[str] = field(default_factory=list)  # labels of extern calls
    kernel_refs: list[int] = field(default_factory=list)  # indexes into TargetRecord.kernels
    ops: list[str] = field(default_factory=list)  # ATen ops of this line
    reason: str = ""  # for a graph break or an error: why


@dataclass
class CodeDiff(Record):
    """What changed in one kernel's generated code since the previous compile."""

    kernel: str  # the kernel's name in this compile
    compile_id: str
    previous_compile_id: str
    previous_kernel: str = ""  # its name in the previous compile
    stage: str = ""  # inference | forward | backward
    language: str = ""
    change: str = "changed"  # changed | added | removed
    cause: str = ""  # the recompile reason, or "cell re-run"
    diff: str = ""  # unified diff text
    added: int = 0  # lines added
    removed: int = 0  # lines removed


@dataclass
class TargetError(Record):
    """Why a target could not compile (e.g. a ``fullgraph=True`` break), tied to a line."""

    type: str  # the exception type
    message: str
    filename: str | None = None  # the innermost frame, often a library line
    lineno: int | None = None
    line: str = ""
    hint: str = ""  # newline-separated hints from Dynamo
    stack: list[SourceLine] = field(default_factory=list)  # as ``GraphBreak.stack``

    OPTIONAL_KEYS = frozenset({"stack"})


@dataclass
class Advice(Record):
    """What the user should change, in words, from a pattern seen across compiles.

    ``kind``: ``recompile-storm`` (a size keeps changing, e.g. a growing KV cache),
    ``scalar-specialization`` (an ``.item()`` value baked in), ``recompile-limit``,
    ``rank-change`` (a tensor's number of dimensions changes: dynamic shapes cannot help).
    """

    kind: str  # recompile-storm | scalar-specialization | recompile-limit | rank-change
    message: str  # in words
    fix: str = ""  # the setting or code to use


@dataclass
class TorchLog(Record):
    """A record torch logged during one of the target's compiles (kept out of stderr)."""

    level: str  # ``WARNING``, ``INFO``...
    logger: str  # e.g. ``torch._dynamo.variables.tensor``
    compile_id: str  # the compile it was logged in (``"0/1"``)
    message: str  # torch's text, as it would have printed (multi-line)


@dataclass
class Explanation(Record):
    """Why a compiled mode is not faster than eager, or needs more memory, from measurements.

    ``kind`` (time): ``overhead`` (per-call overhead dominates a small workload), ``extern``
    (library calls such as ``addmm`` dominate, so fusion has little to win),
    ``graph-breaks`` (Python between graphs in the hot path), ``recompiles`` (compiles
    during the measurement), ``kernels`` (the generated kernels themselves are slow).
    ``kind`` (memory): ``cudagraph-pool`` / ``held-between-calls`` (bytes kept allocated
    between calls), ``saved-for-backward`` (more activations kept for backward),
    ``functionalized-mutation`` (an in-place change of an input done out of place),
    ``live-across-breaks`` (a graph break keeps intermediates alive), ``buffers`` (more or
    larger buffers per call). The message says where each number comes from.
    """

    # overhead | extern | graph-breaks | recompiles | kernels | cudagraph-pool |
    # held-between-calls | saved-for-backward | live-across-breaks |
    # functionalized-mutation | buffers
    kind: str
    message: str  # in words, naming the numbers below
    evidence: dict[str, float] = field(default_factory=dict)  # the measured numbers
    lines: list[int] = field(default_factory=list)  # source lines it points at


@dataclass
class CellRef(Record):
    """The notebook cell that defined a target (a summary's may be empty)."""

    filename: str = ""  # the cell's code filename, as in tracebacks
    execution_count: int | None = None  # the cell number the notebook shows
    cell_id: str | None = None  # JupyterLab's cell id from the execute request, when known

    OPTIONAL_KEYS = frozenset({"filename", "execution_count", "cell_id"})


@dataclass
class Omission(Record):
    """A part of a record left out of a published output to keep it within its byte
    budget; the kernel keeps it whole (``how`` gets it there)."""

    field: str  # what was cut: ``compiles``, ``kernels``, ``compiles[].graphs``...
    count: int  # how many items (or characters, see ``unit``) were left out
    how: str  # the kernel expression that has them all: ``nbcompile.report(f).compiles``
    unit: str = "items"  # items | characters


@dataclass
class CompileProgress(Record):
    """Where a running frame compile is, from torch's live trace events (present only
    while a target compiles; the finished compile's phases are ``CompileRecord.phases``)."""

    compile_id: str  # ``"0/1"``: the frame compile running
    frame: str = ""  # the code being compiled (function name)
    filename: str = ""  # its file (a cell's is ``<ipython-input-...>``)
    lineno: int = 0  # its first line
    # The current step: ``tracing bytecode``, ``building the graph``, ``AOTAutograd``,
    # ``Inductor graph passes``, ``Inductor lowering``, ``Inductor code generation``,
    # ``compiling kernels``, ``loading the compiled code``, ``loading from the cache``,
    # ``building guards``
    phase: str = ""
    elapsed_s: float = 0.0  # seconds since the frame compile started
    # Seconds spent per step so far, in the order they ran (the current one included).
    phase_seconds: dict[str, float] = field(default_factory=dict)
    kernels_total: int | None = None  # kernels the generated code compiles, once known
    kernels_done: int | None = None  # of those, compiled so far (when torch reports it)
    kernel_language: str = ""  # ``C++`` or ``Triton``


@dataclass
class EagerRuns(Record):
    """Calls of a target that ran eagerly under a ``torch.compiler.set_stance`` stance
    (``force_eager``; ``eager_on_recompile`` when no compiled code fitted the call), or
    that ``fail_on_recompile`` refused (raised: they would have compiled)."""

    stance: str  # force_eager | eager_on_recompile | fail_on_recompile
    count: int  # calls
    cells: list[int] = field(default_factory=list)  # execution counts of their cells


@dataclass
class TargetRecord(Record):
    """Everything known about one compiled target, as one JSON-ready record.

    ``graph_count``, ``graph_breaks``, ``recompiles``, ``kernels``, ``output_code``
    and ``compile_time_s`` are derived from ``compiles`` when the record is built.
    """

    id: str  # unique per kernel session (``"t3"``); a re-run cell gets new ids
    name: str  # the name in the user's namespace
    kind: Literal["function", "module"]
    # ``mode``, ``fullgraph``, ``dynamic``, ``backend``, ``options``, ``disable`` as given.
    options: dict[str, Any] = field(default_factory=dict)
    status: TargetStatus = "pending"
    wrapper: str | None = None  # the wrapper(s) the name holds, outermost first
    compiled_object: str = ""  # what was compiled, e.g. ``torch.compile(fn)``
    cell: CellRef = field(default_factory=CellRef)  # the defining cell
    notes: list[str] = field(default_factory=list)  # things the user should know
    error: TargetError | None = None  # why the last compile failed
    compiling_since: float | None = None  # Unix time a running compile started
    compiles: list[CompileRecord] = field(default_factory=list)  # every frame compile
    graph_count: int = 0  # FX graphs produced (a graph break splits a function)
    graph_breaks: list[GraphBreak] = field(default_factory=list)  # de-duplicated
    recompiles: list[Recompile] = field(default_factory=list)  # in order
    kernels: list[Kernel] = field(default_factory=list)  # every code piece of every compile
    output_code: str = ""  # every compile's generated module, each after a header line
    compile_time_s: float = 0.0  # sum of the compiles' ``total_s``
    annotations: list[LineAnnotation] = field(default_factory=list)  # one per source line
    # Why none of the source lines maps to a kernel, in one sentence (the source pane shows
    # it instead of lines that never light); "": a line does, or there is no kernel yet.
    no_kernel_lines: str = ""
    code_diffs: list[CodeDiff] = field(default_factory=list)  # changes since last compile
    advice: list[Advice] = field(default_factory=list)  # what to change, from patterns
    preview: str = ""  # e.g. "triton": generated code is a preview (--codegen triton)
    # What a published copy left out to stay within the output budget (empty in the kernel)
    omitted: list[Omission] = field(default_factory=list)
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["target"] = "target"
    # torch's log records about its compiles, kept off stderr (``--torch-logs`` keeps them)
    torch_logs: list[TorchLog] = field(default_factory=list)
    # status compiled_inside: the target of the same cell whose graph this module ran in
    compiled_inside: str = ""
    # status compiling: where the running compile is (absent once it finished)
    progress: CompileProgress | None = None
    # the ``torch.compiler.set_stance`` stance in force (``%%stance``, ``%nbcompile stance``)
    stance: str = "default"
    eager_runs: list[EagerRuns] = field(default_factory=list)  # calls that ran eagerly
    # calls under CUDA graphs (``--mode reduce-overhead`` on a GPU) that warmed up,
    # recorded, re-recorded or fell back, each with the first call that replayed after
    cudagraph_calls: list[CudagraphCall] = field(default_factory=list)
    # the input sizes its CUDA graphs were recorded for (None: none recorded)
    cudagraph_shapes: CudagraphShapes | None = None
    # names found holding this target's CUDA-graph outputs after a later call took them
    # (the latest, at most ``cudagraphs.hazard.MAX_KEPT``)
    cudagraph_hazards: list[CudagraphHazard] = field(default_factory=list)

    OPTIONAL_KEYS = frozenset({"annotations", "code_diffs", "advice", "preview", "torch_logs",
                             "no_kernel_lines", "code_piece_count", "truncated", "omitted",
                             "compiled_inside", "status_text", "progress", "progress_text",
                             "stance",
                             "eager_runs", "cudagraph_calls", "cudagraph_shapes",
                             "cudagraph_hazards", "cell_names"})
    COMPUTED = {
        "graph_break_count": (int, "len(graph_breaks)"),
        "cell_names": (dict[str, str], "each notebook cell's code file the record names "
                                       "(a break's file, torch's text: an FX graph's "
                                       "`# File:` comments, guards, log messages), as written "
                                       "there -> the cell as the notebook names it "
                                       "(`cell [2]`); torch's text stays verbatim (published)"),
        "recompile_count": (int, "len(recompiles)"),
        "kernel_count": (int, "generated kernels that run (kernels of kind kernel)"),
        "code_piece_count": (int, "every code piece: kernels, extern calls, wrappers"),
        "truncated": (bool, "set when published inline and some text was capped"),
        "status_text": (str, "the status in words, as the kernel shows it (published; "
                             "`compiling` is ticked by the front end from compiling_since)"),
        "progress_text": (str, "status compiling: the current step, the frame and the "
                               "steps so far in words, as the kernel shows them (published)"),
    }

    @property
    def graph_break_count(self) -> int:
        return len(self.graph_breaks)

    @property
    def recompile_count(self) -> int:
        return len(self.recompiles)

    @property
    def kernel_count(self) -> int:
        """Generated kernels that run (``kind == "kernel"``; not externs or wrappers)."""
        return sum(1 for k in self.kernels if k.kind == "kernel")

    @property
    def code_piece_count(self) -> int:
        """Every piece of generated code: kernels, extern calls and wrappers."""
        return len(self.kernels)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["graph_break_count"] = self.graph_break_count
        data["recompile_count"] = self.recompile_count
        data["kernel_count"] = self.kernel_count
        data["code_piece_count"] = self.code_piece_count
        if data.get("progress") is None:  # only while compiling: not part of saved records
            data.pop("progress", None)
        return data


@dataclass
class SummaryRecord(Record):
    """The live output of a ``%%compile`` cell (``display.payload.summary_payload``)."""

    cell: CellRef  # the ``%%compile`` cell
    updated_at: float  # Unix time of this update
    targets: list[TargetRecord]  # the cell's targets (published: capped), in order
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["summary"] = "summary"
