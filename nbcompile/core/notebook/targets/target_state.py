"""One target's state: a compiled function or module, its compiles, its status.

``Target`` is the state machine the capture session drives: ``start_compile`` ->
``finish_compile`` (provisional) -> ``end_call`` (what the call that compiled raised, if
anything), with the user's objects held weakly. Compiling a cell's targets is
``targets.py``'s job.
"""

from __future__ import annotations

import inspect
import itertools
import time
import types
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from ...frames import Span, is_torch_file
from ...records import (
    CellRef,
    CodeDiff,
    CompileRecord,
    CudagraphCall,
    CudagraphHazard,
    CudagraphShapes,
    EagerRuns,
    LineAnnotation,
    TargetError,
    TargetStatus,
    TorchLog,
)
from ...runs.wrappers import unwrap
from ...trace.progress import LiveProgress
from .options import CompileOptions
from .running import interrupted_in_compile
from .usernames import (
    graph_text,
    guard_text,
    module_text,
    optimizer_state_text,
    varargs_text,
    without_entry_frames,
    wrapped_args_text,
)
from .weakslot import WeakSlot

_target_ids = itertools.count(1)


def forward_arg_names(module: Any) -> tuple[str, ...]:
    """The positional argument names of ``module.forward`` (without ``self``)."""
    try:
        params = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return ()
    return tuple(p.name for p in params
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


@dataclass(frozen=True)
class DerivedViews:
    """A target's annotated source and code diffs (and why no line maps to a kernel), and
    the key of the compiles they were derived from."""

    key: tuple[Any, ...]
    annotations: list[LineAnnotation]
    code_diffs: list[CodeDiff]
    no_kernel_lines: str = ""


@dataclass(kw_only=True)
class Target:
    """One compiled function or module and everything captured for it so far.

    The user's objects (``original``, ``bound``, ``compiled_module``) are held weakly
    (``WeakSlot``): they read ``None`` once the user dropped them. Until the magic has
    bound them to the user's names, ``_keep`` holds them; ``release()`` lets go.
    """

    name: str
    kind: Literal["function", "module"]
    original: Any = WeakSlot()
    bound: Any = WeakSlot()  # what the user's name holds after compiling
    options: CompileOptions
    cell: CellRef = field(default_factory=CellRef)
    compiled_module: WeakSlot[torch.nn.Module] = WeakSlot()
    wrapper: str | None = None
    spans: list[Span] = field(default_factory=list)
    entry_filename: str | None = None
    #: the module target's ``ModuleCall``, weakly (the module holds it; its compiled
    #: function's context maps back to this target): its first call is checked for a
    #: compile shared with another target
    module_call: Any = None
    #: the code compiled for a torch.nn module (torch's ``wrap_inline`` around
    #: ``_call_impl``, see ``targets.module_entry``): its frames are this target's
    entry_code: types.CodeType | None = None
    notes: list[str] = field(default_factory=list)
    compiles: list[CompileRecord] = field(default_factory=list)
    status: TargetStatus = "pending"
    #: function targets of the same cell that call this module (set by the magic)
    used_by: list[Target] = field(default_factory=list)
    error: TargetError | None = None
    compiling_since: float | None = None
    id: str = field(default_factory=lambda: f"t{next(_target_ids)}")
    preview: str = ""  # "triton": --codegen triton (see triton_preview)
    previous_compiles: list[CompileRecord] = field(default_factory=list)  # before a re-run
    #: the annotated source and code diffs last derived, with what they were derived from
    #: (``snapshot.py`` reuses them while the compiles stay the same)
    derived_views: DerivedViews | None = field(default=None, repr=False)
    _keep: list[Any] = field(default_factory=list, repr=False)  # strong, until release()
    torch_logs: list[TorchLog] = field(default_factory=list)  # taken off stderr (torch_logs)
    show_torch_logs: bool = False  # --torch-logs: torch's log records stay on stderr
    #: its calls are seen (``calls.watch``): a frame compiled during one belongs to it
    watched: bool = False
    #: the running compile's progress (``core/trace/progress.py``), while one runs
    progress: LiveProgress | None = field(default=None, repr=False)
    #: calls that ran eagerly under a stance (``stance.py``), per stance
    eager_runs: list[EagerRuns] = field(default_factory=list)
    #: calls under CUDA-graph trees and the sizes recorded (``cudagraphs/per_call.py``)
    cudagraph_calls: list[CudagraphCall] = field(default_factory=list)
    cudagraph_shapes: CudagraphShapes | None = None
    #: names found holding its CUDA-graph outputs after a later call took them
    #: (``cudagraphs/hazard.py``, worded by ``display/hazard.py``)
    cudagraph_hazards: list[CudagraphHazard] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.keep(self.original, self.bound, self.compiled_module)

    def keep(self, *objects: Any) -> None:
        """Hold ``objects`` strongly until ``release()`` (e.g. a new ``bound`` wrapper)."""
        self._keep.extend(o for o in objects if o is not None)

    def release(self) -> None:
        """Hold the user's objects weakly from now on (they are bound to user names)."""
        self._keep = []

    @property
    def alive(self) -> bool:
        """Whether the user's object still exists."""
        return self.bound is not None or self.compiled_module is not None

    # --- attribution ---
    def owns_frame(self, filename: str, lineno: int) -> bool:
        if self.entry_filename is not None and filename == self.entry_filename:
            return True
        code = self.entry_code
        if code is not None and (filename, lineno) == (code.co_filename, code.co_firstlineno):
            return True
        return any(span.contains(filename, lineno) for span in self.spans)

    def matches(self, obj: Any) -> bool:
        candidates = (self.bound, self.original, self.compiled_module)
        if any(obj is c for c in candidates if c is not None):
            return True
        if isinstance(obj, torch.nn.Module) and self.compiled_module is not None:
            # e.g. fabric.setup(model) after %%compile: the wrapper holds our module
            inner, wrapper = unwrap(obj)
            return wrapper is not None and inner is self.compiled_module
        return False

    # --- lifecycle ---
    def start_compile(self, progress: LiveProgress | None = None) -> None:
        """A frame compile of this target started (``progress``: where it is, live)."""
        self.status = "compiling"
        self.progress = progress
        if self.compiling_since is None:
            self.compiling_since = time.time()

    def ran_eagerly(self, stance: str, cell: int | None) -> bool:
        """Count one call that ran eagerly under ``stance`` in cell ``cell``; True when
        it is the first of that stance or that cell (worth showing at once)."""
        runs = next((r for r in self.eager_runs if r.stance == stance), None)
        if runs is None:
            runs = EagerRuns(stance=stance, count=0)
            self.eager_runs.append(runs)
        runs.count += 1
        if cell is not None and cell not in runs.cells:
            runs.cells.append(cell)
            return True
        return runs.count == 1

    def name_in(self, record: CompileRecord, failure: TargetError | None = None) -> None:
        """Write a module target's names into a compile of its own code: guards and
        graphs name the entry's argument ``self``, not the user's name (done once per
        compile, by the innermost module target that owns the frame). A failure's user
        stack loses torch's ``Module._call_impl`` frame the entry called (the stack of
        ``module.compile()`` starts at ``forward``)."""
        if failure is not None:
            while failure.stack and _is_call_impl(failure.stack[0].filename):
                failure.stack = failure.stack[1:]
        if self.entry_code is not None:
            for attr in ("recompile_reason", "recompile_guard", "guards"):
                setattr(record, attr, wrapped_args_text(getattr(record, attr)))
            record.graphs = [wrapped_args_text(g) for g in record.graphs]
            record.post_grad_graphs = [wrapped_args_text(g) for g in record.post_grad_graphs]
        args = forward_arg_names(self.compiled_module)
        # The words name the user's module; ``recompile_guard`` stays torch's text (the
        # entry's plumbing undone above: what torch writes for the module itself).
        record.recompile_reason = module_text(record.recompile_reason, self.name, args)
        record.graphs = [graph_text(g, self.name, args) for g in record.graphs]
        record.post_grad_graphs = [graph_text(g, self.name, args)
                                   for g in record.post_grad_graphs]
        record.guards = guard_text(record.guards, self.name)
        record.error = without_entry_frames(record.error)

    def finish_compile(self, record: CompileRecord, failure: TargetError | None = None) -> None:
        """Add a finished frame compile. The status it gives is provisional for a watched
        target: the end of the call says whether the call raised (``end_call``)."""
        if any(record is c for c in self.compiles):
            return
        if not self.watched and self.kind == "module":
            self.name_in(record, failure)
        if record.recompile_reason and "len(" in record.recompile_reason:
            varargs = self._varargs_of(record)
            if varargs is not None:
                record.recompile_reason = varargs_text(record.recompile_reason, self.name,
                                                       varargs, record.guards)
        if record.recompile_reason and ".state" in record.recompile_reason:
            record.recompile_reason = optimizer_state_text(record.recompile_reason,
                                                           self.optimizers())
        self.compiles.append(record)
        self.compiling_since = None
        # Without fullgraph, Dynamo skips a frame it cannot trace ("Unsupported", e.g. an
        # RNN) and the call runs eagerly: not a failure the user saw.
        skipped = (record.status == "failed" and record.error.startswith("Unsupported")
                   and not self.options.fullgraph)
        if record.status == "failed" and not skipped:
            self.status = "failed"
            self.error = failure or self.error
        else:
            self.status = self.compiled_status()
            self.error = None

    def _varargs_of(self, record: CompileRecord) -> str | None:
        """The ``*args`` parameter name of the target's own function, if ``record`` is a
        compile of it."""
        for fn in user_functions(self.original) if self.kind == "function" else ():
            code = fn.__code__
            if (code.co_name == record.frame and code.co_filename == record.filename
                    and code.co_flags & inspect.CO_VARARGS):
                return code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
        return None

    def optimizers(self) -> dict[str, str]:
        """The optimizers the target's code reads as globals: name -> class name."""
        code_owner = (type(self.compiled_module).forward if self.compiled_module is not None
                      else self.original)
        code = getattr(code_owner, "__code__", None)
        namespace = getattr(code_owner, "__globals__", None)
        if code is None or not isinstance(namespace, dict):
            return {}
        found: dict[str, str] = {}
        for name in sorted(_global_names(code)):
            value = namespace.get(name)
            if isinstance(value, torch.optim.Optimizer):
                found[name] = type(value).__name__
        return found

    def compiled_status(self) -> TargetStatus:
        """``compiled`` when a compile produced a graph that runs; else ``not_compiled``
        (every frame was skipped or gave up: nothing runs compiled, see not_compiled)."""
        return ("compiled" if any(c.graphs for c in self.compiles if c.status == "ok")
                else "not_compiled")

    def end_call(self, raised: BaseException | None,
                 compiles: list[tuple[CompileRecord, TargetError | None]]) -> bool:
        """The status a finished call leaves, from what torch did during it: ``compiles``
        are the frame compiles started during the call (with their failures), ``raised``
        what the call raised. True if the target changed."""
        mine = [(r, f) for r, f in compiles if any(r is c for c in self.compiles)]
        if interrupted_in_compile(raised) and compiles:
            record = compiles[-1][0]  # the compile running when the interrupt came
            record.status = "failed"
            record.error = f"KeyboardInterrupt: interrupted before it finished; {INTERRUPTED}"
            if not any(record is c for c in self.compiles):
                self.compiles.append(record)
            self.error = TargetError(
                type="KeyboardInterrupt",
                message=(f"The compile of {record.frame or self.name} was interrupted "
                         f"(KeyboardInterrupt) before it finished: torch kept nothing of "
                         f"it, so the next call of {self.name} compiles it again."))
            self.status = "failed"
        elif raised is not None and (failure := _raised_failure(raised, mine)) is not None:
            self.status = "failed"  # the call raised what a compile failed with
            self.error = failure
        elif mine:
            self.status = self.compiled_status()
            self.error = None
        else:
            return False
        self.compiling_since = None
        return True


def _is_call_impl(filename: str) -> bool:
    return filename.replace("\\", "/").endswith("torch/nn/modules/module.py")


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


#: What an interrupted compile leaves: torch installs nothing it did not finish.
INTERRUPTED = "the next call compiles it again"


def _raised_failure(raised: BaseException,
                    compiles: list[tuple[CompileRecord, TargetError | None]]
                    ) -> TargetError | None:
    """The failure of the last compile that failed with the exception the call raised
    (``fullgraph=True``, ``error_on_graph_break``, a backend error); None when the call
    raised something else (e.g. the user's own code, run eagerly after a skipped frame)."""
    name = type(raised).__name__
    for record, failure in reversed(compiles):
        if record.status != "failed":
            continue
        if failure is not None and failure.type == name:
            return failure
        if failure is None and record.error.split(":", 1)[0].strip() == name:
            return TargetError(type=name, message=record.error)
    return None


def decorated_chain(fn: Any) -> list[types.FunctionType]:
    """``fn`` and the functions it decorates, outermost first: through ``__wrapped__``
    (``functools.wraps``: ``@torch.no_grad()``, ``@torch.inference_mode()``, the user's
    own decorators) and through the one function a torch wrapper closes over
    (``@torch._dynamo.error_on_graph_break(True)`` does not use ``functools.wraps``)."""
    chain: list[types.FunctionType] = []
    current = fn
    while isinstance(current, types.FunctionType) and all(current is not f for f in chain):
        chain.append(current)
        wrapped = current.__dict__.get("__wrapped__")
        if wrapped is None and is_torch_file(current.__code__.co_filename):
            inner = [c.cell_contents for c in current.__closure__ or ()
                     if _filled(c) and isinstance(c.cell_contents, types.FunctionType)]
            wrapped = inner[0] if len(inner) == 1 else None
        current = wrapped
    return chain


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def user_functions(fn: Any) -> list[types.FunctionType]:
    """The user's functions in ``decorated_chain(fn)`` (torch's wrappers left out)."""
    return [f for f in decorated_chain(fn) if not is_torch_file(f.__code__.co_filename)]


def user_spans(fn: Any) -> list[Span]:
    """The code spans of a (possibly decorated) function: the user's own code, not the
    lines of torch's decorator wrappers."""
    return [Span.of(f.__code__) for f in user_functions(fn)] or [Span.of(fn.__code__)]
