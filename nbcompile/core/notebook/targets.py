"""Targets: the functions and modules a cell defined, and compiling them the way PyTorch advises.

* functions are rebound to ``torch.compile(fn, ...)`` (the original stays reachable as
  ``compiled._torchdynamo_orig_callable``);
* modules are compiled in place with ``module.compile(...)``: same object, same
  ``state_dict`` keys;
* a DDP/FSDP/DataParallel wrapper has its inner module compiled.

``module.compile()`` compiles ``module._call_impl``, a torch-internal frame that Dynamo
skips; for torch.nn's own modules (``nn.Sequential`` ...) nothing then compiles at all.
nbcompile therefore hands ``torch.compile`` a per-target *entry function* that calls
``_call_impl`` (the same idea as ``torch._dynamo.external_utils.wrap_inline``). Its
unique filename also lets the capture engine attribute compile events to the target.
"""

from __future__ import annotations

import inspect
import itertools
import linecache
import re
import sys
import time
import types
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..frames import ENTRY_PREFIX, Span, is_torch_file
from ..records import CellRef, CompileRecord, TargetError, TorchLog
from ..trace.progress import LiveProgress
from .calls import interrupted_in_compile, watch
from .options import CompileOptions
from .usernames import (
    graph_text,
    guard_text,
    module_text,
    optimizer_state_text,
    varargs_text,
    without_entry_frames,
)
from .weakslot import WeakSlot

_entry_ids = itertools.count()
_target_ids = itertools.count(1)

# --- wrappers (DDP, FSDP, ...) -------------------------------------------------------

Unwrapper = Callable[[Any], "torch.nn.Module | None"]


def _unwrap_parallel(obj: Any) -> torch.nn.Module | None:
    parallel: tuple[type, ...] = (torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel)
    if isinstance(obj, parallel):
        return obj.module
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel
    except ImportError:  # torch built without distributed
        return None
    if isinstance(obj, FullyShardedDataParallel):
        return obj.module
    return None


def _unwrap_fabric(obj: Any) -> torch.nn.Module | None:
    """Lightning Fabric's ``_FabricModule`` (what ``fabric.setup(model)`` returns).

    Its ``_forward_module`` is what runs (the module itself, or the strategy's DDP/FSDP
    wrapper around it, unwrapped next). No import: if Lightning is not loaded, no object
    can be a ``_FabricModule``.
    """
    for modname in ("lightning.fabric.wrappers", "lightning_fabric.wrappers"):
        wrappers = sys.modules.get(modname)
        cls = getattr(wrappers, "_FabricModule", None)
        if cls is not None and isinstance(obj, cls):
            return obj._forward_module
    return None


#: Functions that return the module to compile inside a wrapper, or None.
UNWRAPPERS: list[Unwrapper] = [_unwrap_parallel, _unwrap_fabric]


def unwrap(module: torch.nn.Module) -> tuple[torch.nn.Module, str | None]:
    """Return ``(module to compile, wrapper class names or None)``.

    Nested wrappers are named outermost first: ``"_FabricModule > DistributedDataParallel"``.
    """
    wrappers: list[str] = []
    for _ in range(8):  # wrappers can nest (e.g. DDP inside a framework wrapper)
        for unwrapper in UNWRAPPERS:
            inner = unwrapper(module)
            if inner is not None and inner is not module:
                wrappers.append(type(module).__name__)
                module = inner
                break
        else:
            break
    return module, " > ".join(wrappers) or None


# --- entry functions -----------------------------------------------------------------


#: IPython leaves frames that set ``__tracebackhide__`` out of tracebacks: a user's error
#: shows the user's frames (and torch's), not nbcompile's entry function.
_HIDE = "    __tracebackhide__ = True\n"


def forward_arg_names(module: Any) -> tuple[str, ...]:
    """The positional argument names of ``module.forward`` (without ``self``)."""
    try:
        params = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return ()
    return tuple(p.name for p in params
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def make_entry(call: Callable[..., Any], label: str) -> types.FunctionType:
    """A fresh function (own code object, unique filename) that forwards to ``call``."""
    return _define_entry(label, "*args, **kwargs",
                         "__nbcompile_call__(*args, **kwargs)", {"__nbcompile_call__": call})


def _define_entry(label: str, params: str, call: str,
                  namespace: dict[str, Any]) -> types.FunctionType:
    """``def <label>(<params>): return <call>`` compiled under a unique entry filename
    (registered in ``linecache``), in ``namespace``."""
    ident = re.sub(r"\W", "_", label) or "target"
    if ident[0].isdigit():
        ident = f"_{ident}"
    filename = f"{ENTRY_PREFIX}{next(_entry_ids)}:{label}>"
    source = f"def {ident}({params}):\n{_HIDE}    return {call}\n"
    namespace["__name__"] = "nbcompile.entry"
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - fixed source
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return namespace[ident]


def make_module_entry(label: str) -> types.FunctionType:
    """A fresh function ``(self, *args, **kwargs)`` that calls ``self._call_impl``.

    Own code object and unique filename, like ``make_entry``; the module comes in as an
    argument so that nothing compiled holds it strongly.
    """
    return _define_entry(label, "self, /, *args, **kwargs",
                         "self._call_impl(*args, **kwargs)", {})


class ModuleCall:
    """What a module target's ``_compiled_call_impl`` holds: ``compiled(module, ...)``
    with the module held weakly. ``module.compile()`` (and a ``functools.partial``) store
    a callable that holds the module on the module itself: a reference cycle, so a
    replaced module (a re-run cell) waited for Python's collector to be freed."""

    __slots__ = ("__weakref__", "compiled", "module")

    def __init__(self, compiled: Callable[..., Any], module: torch.nn.Module) -> None:
        self.compiled = compiled
        self.module = weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        return self.compiled(self.module(), *args, **kwargs)


def eager_callable(obj: Any) -> Callable[..., Any]:
    """The uncompiled behaviour of a target object (function or module)."""
    if isinstance(obj, torch.nn.Module):
        inner, _ = unwrap(obj)
        if inner is obj:
            return torch_compat.call_impl(obj)
        return lambda *a, **k: _eager_wrapper_call(obj, a, k)
    return torch_compat.orig_callable(obj)


def _eager_wrapper_call(wrapper: torch.nn.Module, args: tuple, kwargs: dict) -> Any:
    inner, _ = unwrap(wrapper)
    saved = torch_compat.compiled_call_impl(inner)
    torch_compat.set_compiled_call_impl(inner, None)
    try:
        return wrapper(*args, **kwargs)
    finally:
        torch_compat.set_compiled_call_impl(inner, saved)


def fresh_copy(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A callable with the same behaviour but its own code object (own Dynamo cache).

    Used to compile a target again (e.g. to time other modes) without touching the
    compiled state of the user's own target.
    """
    if isinstance(fn, torch.nn.Module):
        return make_entry(eager_callable(fn), f"copy-of-{type(fn).__name__}")
    fn = eager_callable(fn)
    if isinstance(fn, types.FunctionType):
        copy = types.FunctionType(  # replace() makes a new, equal code object
            fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
        )
        copy.__kwdefaults__ = fn.__kwdefaults__
        if copy.__code__ is not fn.__code__:
            return copy
    return make_entry(fn, f"copy-of-{getattr(fn, '__name__', 'callable')}")


# --- targets -------------------------------------------------------------------------


@dataclass(kw_only=True)
class Target:
    """One compiled function or module and everything captured for it so far.

    The user's objects (``original``, ``bound``, ``compiled_module``) are held weakly
    (``WeakSlot``): they read ``None`` once the user dropped them. Until the magic has
    bound them to the user's names, ``_keep`` holds them; ``release()`` lets go.
    """

    name: str
    kind: str
    original: Any = WeakSlot()
    bound: Any = WeakSlot()  # what the user's name holds after compiling
    options: CompileOptions
    cell: CellRef = field(default_factory=CellRef)
    compiled_module: torch.nn.Module | None = WeakSlot()
    wrapper: str | None = None
    spans: list[Span] = field(default_factory=list)
    entry_filename: str | None = None
    notes: list[str] = field(default_factory=list)
    compiles: list[CompileRecord] = field(default_factory=list)
    status: str = "pending"
    #: function targets of the same cell that call this module (set by the magic)
    used_by: list[Target] = field(default_factory=list)
    error: TargetError | None = None
    compiling_since: float | None = None
    id: str = field(default_factory=lambda: f"t{next(_target_ids)}")
    preview: str = ""  # "triton": --codegen triton (see triton_preview)
    previous_compiles: list[CompileRecord] = field(default_factory=list)  # before a re-run
    _views: tuple[Any, ...] | None = field(default=None, repr=False)  # cached derived views
    _keep: list[Any] = field(default_factory=list, repr=False)  # strong, until release()
    torch_logs: list[TorchLog] = field(default_factory=list)  # taken off stderr (torch_logs)
    show_torch_logs: bool = False  # --torch-logs: torch's log records stay on stderr
    #: its calls are seen (``calls.watch``): a frame compiled during one belongs to it
    watched: bool = False
    #: the running compile's progress (``core/trace/progress.py``), while one runs
    progress: LiveProgress | None = field(default=None, repr=False)

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

    def name_in(self, record: CompileRecord, failure: TargetError | None = None) -> None:
        """Write a module target's names into a compile of its own code: guards and
        graphs name the entry's argument ``self``, not the user's name (done once per
        compile, by the innermost module target that owns the frame). A failure's user
        stack loses torch's ``Module._call_impl`` frame the entry called (the stack of
        ``module.compile()`` starts at ``forward``)."""
        if failure is not None:
            while failure.stack and _is_call_impl(failure.stack[0].filename):
                failure.stack = failure.stack[1:]
        args = forward_arg_names(self.compiled_module)
        record.recompile_reason = module_text(record.recompile_reason, self.name, args)
        record.recompile_guard = module_text(record.recompile_guard, self.name, args)
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
                   and not getattr(self.options, "fullgraph", False))
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

    def compiled_status(self) -> str:
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


def is_candidate(name: str, value: Any, module_name: str) -> bool:
    """Whether a name bound by a cell is a compile target (see the design card)."""
    if name.startswith("_"):
        return False
    if isinstance(value, torch.nn.Module):
        return True
    if isinstance(value, types.FunctionType):
        # already compiled by the user (@torch.compile in the cell): recorded, not recompiled
        original = torch_compat.orig_callable(value)
        if getattr(original, "__module__", None) == module_name and not is_torch_file(
                getattr(getattr(original, "__code__", None), "co_filename", "")):
            return True
        # a decorated function (@torch.no_grad(), functools.wraps, torch's decorators)
        return any(f.__module__ == module_name for f in user_functions(original))
    return False


def is_generator_like(fn: Any) -> bool:
    """A generator, async generator or coroutine function: torch.compile does not
    compile its frames (calling it only creates the generator or coroutine)."""
    return (inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn)
            or inspect.iscoroutinefunction(fn))


def compile_function(name: str, fn: types.FunctionType, options: CompileOptions,
                     cell: CellRef) -> Target:
    user_compiled = torch_compat.orig_callable(fn, None)
    if isinstance(user_compiled, types.FunctionType):  # @torch.compile in the cell
        target = Target(name=name, kind="function", original=user_compiled, bound=fn,
                        options=options, cell=cell, spans=user_spans(user_compiled))
        target.notes.append(f"{name} was already compiled with torch.compile in the cell: "
                            "nbcompile records its compiles and leaves its own options "
                            "as they are (the %%compile flags do not apply to it).")
        target.watched = watch(fn, target)
        return target
    if is_generator_like(fn):  # Dynamo never compiles these frames: say so, bind fn as is
        target = Target(name=name, kind="function", original=fn, bound=fn, options=options,
                        cell=cell, spans=user_spans(fn))
        target.status = "not_compiled"
        return target
    compiled = torch.compile(fn, **options.torch_kwargs())
    target = Target(name=name, kind="function", original=fn, bound=compiled,
                    options=options, cell=cell, spans=user_spans(fn))
    target.watched = watch(compiled, target)
    if options.disable:
        target.status = "disabled"
    return target


def compile_module(name: str, obj: torch.nn.Module, options: CompileOptions,
                   cell: CellRef) -> Target:
    inner, wrapper = unwrap(obj)
    kwargs = options.torch_kwargs()
    inner.compile(**kwargs)  # PyTorch's in-place API; then give it a traceable entry
    entry = make_module_entry(name)
    compiled = None
    if not options.disable:
        # the module is the entry's first argument, not a global: Dynamo then guards on
        # it weakly (a dropped module is freed) and names it ``self`` in guards and graphs
        compiled = torch.compile(entry, **kwargs)
        torch_compat.set_compiled_call_impl(inner, ModuleCall(compiled, inner))
    spans = []
    forward = getattr(type(inner).forward, "__code__", None)
    if forward is not None and "/torch/" not in forward.co_filename.replace("\\", "/"):
        spans.append(Span.of(forward))
    target = Target(name=name, kind="module", original=obj, bound=obj, options=options,
                    cell=cell, compiled_module=inner, wrapper=wrapper, spans=spans,
                    entry_filename=entry.__code__.co_filename)
    target.watched = compiled is not None and watch(compiled, target)
    if wrapper:
        target.notes.append(_wrapper_note(name, wrapper, type(inner).__name__))
    if options.disable:
        target.status = "disabled"
    return target


def _wrapper_note(name: str, wrapper: str, inner: str) -> str:
    """Which wrapper was seen and what was compiled, in words."""
    chain = wrapper.split(" > ")
    note = (f"{name} is a {wrapper} wrapper: nbcompile compiled its inner module ({inner}) "
            "in place; the wrapper itself is not compiled.")
    if chain[0] == "_FabricModule":
        note += (" It was already set up by Lightning Fabric. Fabric's guide says to compile "
                 "before fabric.setup(); compiling the module inside the set-up one runs the "
                 "same compiled forward")
        note += (f" and, as PyTorch recommends, leaves {' > '.join(chain[1:])} itself "
                 "uncompiled." if len(chain) > 1 else ".")
    elif any(w in ("DistributedDataParallel", "FullyShardedDataParallel", "DataParallel")
             for w in chain):
        note += (" PyTorch recommends compiling the module inside DDP/FSDP so the wrapper's "
                 "communication (gradient buckets, sharding) keeps working around the "
                 "compiled graph.")
    return note


CUDAGRAPH_MODES = ("reduce-overhead", "max-autotune")


def compile_target(name: str, value: Any, options: CompileOptions, cell: CellRef) -> Target:
    if isinstance(value, torch.nn.Module):
        target = compile_module(name, value, options, cell)
    else:
        target = compile_function(name, value, options, cell)
    if options.mode in CUDAGRAPH_MODES and not torch.cuda.is_available():
        target.notes.append(
            f"--mode {options.mode} uses CUDA graphs to cut launch overhead; they need a GPU. "
            "On this CPU-only machine torch skips them and the rest of the mode applies."
        )
    return target


def submodule_ids(modules: Iterable[torch.nn.Module]) -> set[int]:
    """ids of every strict submodule of the given modules."""
    ids: set[int] = set()
    for m in modules:
        ids.update(id(sub) for sub in m.modules() if sub is not m)
    return ids
