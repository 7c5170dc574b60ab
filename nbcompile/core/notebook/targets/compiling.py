"""Targets: the functions and modules a cell defined, and compiling them the way PyTorch advises.

* functions are rebound to ``torch.compile(fn, ...)`` (the original stays reachable as
  ``compiled._torchdynamo_orig_callable``);
* modules are compiled in place with ``module.compile(...)``: same object, same
  ``state_dict`` keys;
* a DDP/FSDP/DataParallel wrapper has its inner module compiled.

``module.compile()`` compiles ``module._call_impl``, a torch-internal frame that Dynamo
skips: the module's ``forward`` is then the first frame Dynamo compiles. nbcompile compiles
exactly that (so frames, guards and compile ids are torch's own). For torch.nn's own modules
(``nn.Sequential`` ...) ``forward`` is torch's code too and nothing would compile at all;
those get torch's own traceable wrapper (``torch._dynamo.external_utils.wrap_inline``)
around ``_call_impl``, one copy of its code per target (its own Dynamo cache). No frame
is nbcompile's: the capture engine attributes compiles by the target's calls and spans.
"""

from __future__ import annotations

import functools
import inspect
import types
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import torch

from ... import torch_compat
from ...frames import Span, is_torch_file
from ...records import CellRef
from ...runs.wrappers import unwrap
from .options import CompileOptions
from .running import watch
from .target_state import Target, user_functions, user_spans


def module_entry(module: torch.nn.Module) -> Callable[..., Any]:
    """What to compile for ``module``, called as ``entry(module, *args, **kwargs)``.

    A module whose ``forward`` is user code: the unbound ``_call_impl``, the very function
    ``module.compile()`` compiles (bound there). torch.nn's own modules: a copy of torch's
    ``wrap_inline`` around it with its own code object (Dynamo caches per code object, so
    two targets never share compiled versions or the recompile limit). The module comes
    in as an argument so that nothing compiled holds it strongly.
    """
    call_impl = getattr(type(module), torch_compat.CALL_IMPL.attr)
    if _user_forward(module) is not None:
        return call_impl
    inner = torch_compat.wrap_inline()(call_impl)
    inner.__code__ = inner.__code__.replace()  # a new, equal code object: its own cache
    return inner


def _user_forward(module: torch.nn.Module) -> types.CodeType | None:
    """``forward``'s code when it is the user's (not torch's own file)."""
    forward = getattr(type(module).forward, "__code__", None)
    if forward is None or is_torch_file(forward.co_filename):
        return None
    return forward


class ModuleCall:
    """What a module target's ``_compiled_call_impl`` holds: ``compiled(module, ...)``
    with the module held weakly. ``module.compile()`` (and a ``functools.partial``) store
    a callable that holds the module on the module itself: a reference cycle, so a
    replaced module (a re-run cell) waited for Python's collector to be freed."""

    __slots__ = ("__weakref__", "compiled", "first_done", "module")

    def __init__(self, compiled: Callable[..., Any], module: torch.nn.Module) -> None:
        self.compiled = compiled
        self.module = weakref.ref(module)
        #: told once, after the first call that returned (the capture session checks
        #: whether the call compiled anything or ran code compiled for another target)
        self.first_done: Callable[[], None] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        out = self.compiled(self.module(), *args, **kwargs)
        done, self.first_done = self.first_done, None
        if done is not None:
            done()
        return out


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
    if isinstance(value, functools.partial):  # compiled like a function when it wraps one
        return is_candidate(name, partial_function(value), module_name)
    return False


def partial_function(value: functools.partial[Any]) -> Any:
    """The callable a (possibly nested) ``functools.partial`` finally calls."""
    func: Any = value
    while isinstance(func, functools.partial):
        func = func.func
    return func


def is_generator_like(fn: Any) -> bool:
    """A generator, async generator or coroutine function: torch.compile does not
    compile its frames (calling it only creates the generator or coroutine)."""
    return (inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn)
            or inspect.iscoroutinefunction(fn))


def compile_partial(name: str, fn: functools.partial[Any], options: CompileOptions,
                    cell: CellRef) -> Target:
    """A ``functools.partial`` of a user function, rebound to ``torch.compile(partial)``.
    torch compiles it through its own ``wrap_inline`` frame (a partial has no code of its
    own) and traces the wrapped function inside; its compiles are this target's calls."""
    return _function_target(name, fn, partial_function(fn), options, cell)


def compile_function(name: str, fn: types.FunctionType, options: CompileOptions,
                     cell: CellRef) -> Target:
    disabled = torch_compat.disabled_function(fn)
    if isinstance(disabled, types.FunctionType):  # @torch.compiler.disable in the cell
        return _disabled_target(name, fn, disabled, options, cell)
    user_compiled = torch_compat.orig_callable(fn, None)
    if isinstance(user_compiled, types.FunctionType):  # @torch.compile in the cell
        target = Target(name=name, kind="function", original=user_compiled, bound=fn,
                        options=options, cell=cell, spans=user_spans(user_compiled))
        target.notes.append(f"{name} was already compiled with torch.compile in the cell: "
                            "nbcompile records its compiles and leaves its own options "
                            "as they are (the %%compile flags do not apply to it).")
        target.watched = watch(fn, target)
        return target
    return _function_target(name, fn, fn, options, cell)


def _disabled_target(name: str, fn: types.FunctionType, original: types.FunctionType,
                     options: CompileOptions, cell: CellRef) -> Target:
    """A function the user marked ``torch.compiler.disable``: kept as it is (torch runs it
    eagerly and compiles nothing for it, on purpose), said with the decorator's line."""
    target = Target(name=name, kind="function", original=original, bound=fn,
                    options=options, cell=cell, spans=user_spans(original))
    target.status = "disabled"
    where = f"line {original.__code__.co_firstlineno}"  # a decorated def's first line
    if cell.execution_count is not None and original.__code__.co_filename == cell.filename:
        where = f"cell [{cell.execution_count}], {where}"
    target.notes.append(
        f"{name} is disabled by the user (torch.compiler.disable, {where}): torch runs it "
        "eagerly and compiles nothing for it, so no compile is expected; nbcompile left it "
        "as it is (the %%compile flags do not apply to it).")
    return target


def _function_target(name: str, fn: Any, code_of: types.FunctionType,
                     options: CompileOptions, cell: CellRef) -> Target:
    """``fn`` (a function, or a partial of ``code_of``) rebound to ``torch.compile(fn)``;
    a generator-like ``code_of`` is bound as is (Dynamo never compiles such frames)."""
    if is_generator_like(code_of):
        target = Target(name=name, kind="function", original=fn, bound=fn, options=options,
                        cell=cell, spans=user_spans(code_of))
        target.status = "not_compiled"
        return target
    compiled = torch.compile(fn, **options.torch_kwargs())
    target = Target(name=name, kind="function", original=fn, bound=compiled,
                    options=options, cell=cell, spans=user_spans(code_of))
    target.watched = watch(compiled, target)
    if options.disable:
        target.status = "disabled"
    return target


def compile_module(name: str, obj: torch.nn.Module, options: CompileOptions,
                   cell: CellRef) -> Target:
    inner, wrapper = unwrap(obj)
    kwargs = options.torch_kwargs()
    inner.compile(**kwargs)  # PyTorch's in-place API; then the same, holding inner weakly
    entry = module_entry(inner)
    compiled = None
    if not options.disable:
        # the module is the entry's first argument, not a global: Dynamo then guards on
        # it weakly (a dropped module is freed) and names it ``self`` in guards and graphs
        compiled = torch.compile(entry, **kwargs)
        module_call = ModuleCall(compiled, inner)
        torch_compat.set_compiled_call_impl(inner, module_call)
    forward = _user_forward(inner)
    spans = [Span.of(forward)] if forward is not None else []
    target = Target(name=name, kind="module", original=obj, bound=obj, options=options,
                    cell=cell, compiled_module=inner, wrapper=wrapper, spans=spans,
                    entry_code=None if forward is not None else entry.__code__)
    target.watched = compiled is not None and watch(compiled, target)
    if compiled is not None:
        target.module_call = weakref.ref(module_call)  # the module holds it
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


def compile_target(name: str, value: Any, options: CompileOptions, cell: CellRef) -> Target:
    if isinstance(value, torch.nn.Module):
        target = compile_module(name, value, options, cell)
    elif isinstance(value, functools.partial):
        target = compile_partial(name, value, options, cell)
    else:
        target = compile_function(name, value, options, cell)
    return target


def submodule_ids(modules: Iterable[torch.nn.Module]) -> set[int]:
    """ids of every strict submodule of the given modules."""
    ids: set[int] = set()
    for m in modules:
        ids.update(id(sub) for sub in m.modules() if sub is not m)
    return ids
