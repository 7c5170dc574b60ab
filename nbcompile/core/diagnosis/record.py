"""The ``diagnosis`` record: what ``diagnose()`` found, as plain data (the schema's source).

``Diagnosis`` holds the verdict (``kind``, ``layer``), the ladder of backends
(``rungs``), the culprit (op or kernel, and the user's line), the float64 ``reference``
and the ``workarounds`` tried on copies, each with its measured effect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..records import SCHEMA_VERSION, Record

#: ``not run``: no verdict (Ctrl-C came before the compiled copy was judged)
Kind = Literal["crash", "accuracy", "ok", "not run"]
Layer = Literal["dynamo", "aot_autograd", "inductor"]
Outcome = Literal["ok", "accuracy", "crash", "not run"]
#: ``eager`` | ``compiled`` | ``neither`` (both as far): verdicts; ``unknown``: no reference
Closer = Literal["eager", "compiled", "neither", "unknown"]
WorkaroundStatus = Literal["verified", "tried, did not help", "not tried"]


@dataclass
class Rung(Record):
    """One rung of the ladder: a fresh copy compiled with one backend, judged against eager."""

    backend: str  # torch.compile backend: eager, aot_eager, aot_eager_decomp_partition, inductor
    layer: Layer  # the compiler layer this rung adds to the one below it
    outcome: Outcome = "not run"
    max_abs_diff: float | None = None  # largest abs difference to eager (null: none measured)
    mismatched: int | None = None  # elements outside the tolerance (null: none measured)
    numel: int = 0  # elements compared
    error: str = ""  # the crash: exception type and its first line
    first_call_s: float | None = None  # the first call: compile and run
    time_s: float | None = None  # median time of a later call
    options: str = ""  # compile options besides the backend (the user's, on the top rung)
    note: str = ""  # why it did not run, or what to know about it


@dataclass
class Bisection(Record):
    """What torch's ``CompilerBisector`` found: the backend, the compiler subsystem and the
    application of it (e.g. the lowering of one node) that brings the problem in."""

    backend: str  # the first backend that shows the problem ("" when none did)
    subsystem: str = ""  # e.g. lowerings, decomposition, post_grad_passes ("" when none found)
    bisect_number: int | None = None  # which application of the subsystem (0-based)
    debug_info: str = ""  # torch's note on it: a node name for lowerings, an op for decompositions
    steps: int = 0  # compiles the bisection ran
    elapsed_s: float = 0.0  # seconds it took
    note: str = ""  # stopped early, or found nothing


@dataclass
class Reference(Record):
    """The same function run in float64: who is closer to it, eager or compiled. Made
    eagerly with floating inputs and parameters upcast, or, for a function that casts
    inside, through its captured graph with every cast rewritten to float64 (torch's
    ``cast_to_fp64``); ``note`` says which, or why there is none."""

    dtype: str = "torch.float64"
    eager_error: float | None = None  # largest abs difference of eager's result to float64's
    compiled_error: float | None = None  # the same for the compiled result
    eager_mean_error: float | None = None  # mean abs difference of eager's result to float64's
    compiled_mean_error: float | None = None  # the same for the compiled result
    # the one whose largest error is at most 0.8 of the other's; neither when they are
    # close; unknown when there is no reference (no verdict: the note says why)
    closer: Closer = "unknown"
    note: str = ""  # how it was made, or why there is none


@dataclass
class Workaround(Record):
    """A change tried on a copy, with its measured effect and its cost in time."""

    kind: str  # setting | backend | disable | upcast
    change: str  # the change, as code
    # on the copy it removes the crash, or brings the result within tolerance
    verified: bool = False
    status: WorkaroundStatus = "not tried"
    outcome: Outcome = "not run"  # the copy's result judged against eager
    max_abs_diff: float | None = None  # largest abs difference to eager after the change
    mismatched: int | None = None  # elements outside the tolerance after the change
    numel: int = 0  # elements compared
    first_call_s: float | None = None  # the copy's first call: compile and run
    time_s: float | None = None  # median time of a later call
    cost: str = ""  # the time against the compiled (or eager) call, in words
    # largest abs difference of the changed copy's result to the float64 run (null: none)
    reference_error: float | None = None
    error: str = ""  # the copy crashed: exception type and its first line
    note: str = ""  # what it changes, what it costs or risks, why it was not tried


@dataclass
class Diagnosis(Record):
    """What ``diagnose()`` returns: does compiled code crash or change the numbers, in which
    layer, at which op and line, who is right, and which workarounds help."""

    name: str  # the function or module class
    # crash | accuracy | ok, against eager (not run: no verdict, interrupted before one or
    # nothing the call produced can be compared, e.g. a generator)
    kind: Kind
    layer: Layer | None = None  # the first rung of the ladder that shows the problem
    summary: str = ""  # the verdict in words (shown after the kind)
    rungs: list[Rung] = field(default_factory=list)  # the ladder, lowest rung first
    culprit: str = ""  # the graph, op or kernel that brings the problem in ("" when not found)
    filename: str | None = None  # where the culprit's line is
    lineno: int | None = None  # the culprit's line (1-based)
    line: str = ""  # its source text
    bisection: Bisection | None = None  # torch's CompilerBisector's answer (null: not run)
    max_abs_diff: float | None = None  # compiled vs eager before any workaround
    mismatched: int | None = None  # elements outside the tolerance before any workaround
    numel: int = 0  # elements compared
    tolerance: str = ""  # the tolerance used: assert_close's default for each dtype
    error: str = ""  # the crash: exception type and its first line
    error_detail: str = ""  # the crash's message, capped
    reference: Reference | None = None  # the float64 run (accuracy only; null: none)
    workarounds: list[Workaround] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)  # the arguments, described
    options: str = ""  # the compile options diagnosed (the user's, when nbcompile knows them)
    eager_time_s: float | None = None  # median time of an eager call
    compiled_time_s: float | None = None  # median time of a compiled call (null: it crashed)
    budget_s: float = 0.0  # seconds allowed
    elapsed_s: float = 0.0  # seconds it took
    skipped: list[str] = field(default_factory=list)  # steps left out, and why
    notes: list[str] = field(default_factory=list)
    # on a CUDA GPU, the reduced matmul precision torch's settings put in force for what the
    # graphs compute ("TF32 matmuls", ...; a note explains them); [] none, or not on CUDA
    matmul_precision: list[str] = field(default_factory=list)
    truncated: bool = False  # texts were cut to fit the output budget (the kernel has them)
    interrupted: bool = False  # Ctrl-C stopped it: what was established so far (see notes[0])
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["diagnosis"] = "diagnosis"

    OPTIONAL_KEYS = frozenset({"interrupted", "matmul_precision", "cell_names"})
    COMPUTED = {"cell_names": (dict[str, str], "each notebook cell's code file the record "
                                               "names, as written there -> the cell as the "
                                               "notebook names it (`cell [2]`) (published)")}
