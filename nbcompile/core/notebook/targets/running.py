"""Which targets' calls are running: what attributes a frame compile to its targets.

Every frame Dynamo compiles while a target's call runs belongs to that target: its own
frames, the resume functions after a graph break, and the frames of the functions it
calls that Dynamo compiles on their own (after a break, or under ``skip_frame()``). The
code of those functions can live anywhere, so code spans cannot tell; the call can.

A call of a ``torch.compile``'d function runs inside torch's wrapper (``compile_wrapper``
in ``torch/_dynamo/eval_frame.py``), whose frame holds its ``torch.compile`` context
(``self``) and the list of cleanups torch runs when the call returns or raises
(``cleanups``, in a ``finally``). ``watch(compiled, target)`` notes which context is the
target's. When a frame compile starts, ``running()`` walks the Python stack for those
wrapper frames (outermost first) and, for each target found, adds a cleanup to that call
(once): at the end of the call it notes the exception the call raised, if any, and tells
the ``on_end`` listeners (the capture session). Nothing runs on calls that compile
nothing: no per-call cost. On a torch whose wrapper differs, nothing is found and the
session attributes compiles by code span, as before. ``each_call`` and ``on_calls_of`` are
the exceptions: an enter hook on every watched target's calls while an ``each_call``
listener is on (the stance counter under a stance that may run calls eagerly, heard when
torch sets it: ``CallTap``), and on one target's own calls while an ``on_calls_of``
listener of it is on (the CUDA-graph channel, until that target's calls only replay).
Otherwise a compiled call runs no nbcompile code.

Every call is numbered without nbcompile code on the call path: ``watch`` puts one builtin
on the context's enter hooks, the ``__next__`` of an ``itertools.repeat`` of ``tuple``
(torch calls it as the call starts and calls what it returns, ``tuple()``, as the call
ends: two C calls, about 30 ns, no Python frame); the calls so far are what that iterator
has handed out (``call_count``).
"""

from __future__ import annotations

import itertools
import operator
import sys
import weakref
from collections.abc import Callable
from typing import Any

Key = tuple[int, int]

#: torch's wrapper of a compiled function: its file, and the locals nbcompile reads.
_WRAPPER_FILE = "_dynamo/eval_frame.py"
_CONTEXT, _CLEANUPS = "self", "cleanups"


class Call:
    """One running (then finished) call of a target's compiled function."""

    __slots__ = ("compiles", "number", "raised", "target")

    def __init__(self, target: Any, number: int = 0) -> None:
        self.target = target  # the ``Target``
        self.number = number  # its place among the target's calls (``call_count``; 0: not known)
        self.compiles: list[Key] = []  # frame compiles started during it
        self.raised: BaseException | None = None  # what the call raised, once it ended

    def done(self) -> None:
        """torch's wrapper calls this when the call is over (in a ``finally``: the
        exception being handled, if any, is what the call raised)."""
        self.raised = sys.exc_info()[1]
        for listener in list(_on_end):
            try:
                listener(self)
            except Exception:  # a capture bug must never break the user's call
                pass


_on_end: list[Callable[[Call], None]] = []
_contexts: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()  # -> target
#: per context, the iterator its enter hook draws from once per call (``call_count``)
_counters: weakref.WeakKeyDictionary[Any, itertools.repeat[type[tuple[()]]]] = (
    weakref.WeakKeyDictionary())
_UNDRAWN = sys.maxsize


def on_end(listener: Callable[[Call], None]) -> Callable[[], None]:
    """Hear every call that compiled something; returns the unsubscribe."""
    _on_end.append(listener)
    return lambda: _on_end.remove(listener) if listener in _on_end else None


def _context_of(compiled: Any) -> Any:
    """The ``torch.compile`` context a compiled function closes over, or None (e.g.
    ``disable=True`` returns the function itself)."""
    for cell in getattr(compiled, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if hasattr(value, "enter_exit_hooks") and hasattr(value, "callback"):
            return value
    return None


def watch(compiled: Any, target: Any) -> bool:
    """Note ``compiled``'s calls as ``target``'s; False if ``compiled`` is not a
    ``torch.compile``'d function nbcompile can tell apart (then its compiles are
    attributed by code span)."""
    context = _context_of(compiled)
    if context is None:
        return False
    try:
        _contexts[context] = target
    except TypeError:  # not weakly referenceable
        return False
    _count_calls(context)
    if _needs_hook(context):
        _hook(context)
    return True


def _count_calls(context: Any) -> None:
    """Put the call counter on ``context``'s enter hooks (once; before any listener's)."""
    hooks = getattr(context, "enter_exit_hooks", None)
    if not isinstance(hooks, list) or context in _counters:
        return
    drawn = itertools.repeat(tuple, _UNDRAWN)
    _counters[context] = drawn
    hooks.insert(0, drawn.__next__)


def call_count(target: Any) -> int:
    """How many calls of ``target``'s compiled function have started (the running one
    included: its number); 0 when its calls are not counted (not ``watch``ed)."""
    for context, found in reversed(list(_contexts.items())):  # its latest compile's
        if found is target and (drawn := _counters.get(context)) is not None:
            return _UNDRAWN - operator.length_hint(drawn)
    return 0


def counts_by_name() -> dict[str, int]:
    """Calls started so far per target name (every context of a name, summed)."""
    found: dict[str, int] = {}
    for context, target in list(_contexts.items()):
        drawn = _counters.get(context)
        name = getattr(target, "name", None)
        if drawn is not None and isinstance(name, str):
            found[name] = found.get(name, 0) + _UNDRAWN - operator.length_hint(drawn)
    return found


def running() -> list[Call]:
    """The targets' calls running in this thread, outermost first (call it while a
    frame compile starts: each call found gets its end noted, once)."""
    if not _contexts:
        return []
    found: list[Call] = []
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.replace("\\", "/").endswith(_WRAPPER_FILE):
            call = _call_of(frame)
            if call is not None:
                found.append(call)
        frame = frame.f_back
    found.reverse()
    return found


def _call_of(frame: Any) -> Call | None:
    names = frame.f_code.co_freevars + frame.f_code.co_varnames
    if _CONTEXT not in names or _CLEANUPS not in names:
        return None
    local = frame.f_locals
    context, cleanups = local.get(_CONTEXT), local.get(_CLEANUPS)
    try:
        target = _contexts.get(context)
    except TypeError:
        return None
    if target is None or not isinstance(cleanups, list):
        return None
    for cleanup in cleanups:  # this call was seen before: the same Call
        call = getattr(cleanup, "__self__", None)
        if isinstance(call, Call):
            return call
    call = Call(target, call_count(target))
    cleanups.append(call.done)  # torch runs it when the call returns or raises
    return call


def interrupted_in_compile(error: BaseException | None) -> bool:
    """Whether ``error`` is a ``KeyboardInterrupt`` raised while Dynamo compiled a frame
    (its traceback passes through torch's frame compiler)."""
    if not isinstance(error, KeyboardInterrupt):
        return False
    tb = error.__traceback__
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if path.endswith("torch/_dynamo/convert_frame.py"):
            return True
        tb = tb.tb_next
    return False


#: a listener may return a callable, run when that call ends (returns or raises)
CallListener = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], "Callable[[], None] | None"]
#: ``each_call``'s listeners, each with its gate (heard only while the gate says so)
_call_listeners: list[tuple[CallListener, Callable[[], bool] | None]] = []
_hooked: weakref.WeakKeyDictionary[Any, Callable[[], Callable[[], None]]] = (
    weakref.WeakKeyDictionary())  # context -> its enter hook


def each_call(listener: CallListener, when: Callable[[], bool] | None = None
              ) -> Callable[[], None]:
    """Hear every call of every watched target from now on (targets watched later too),
    as it starts: ``listener(target, fn, args, kwargs)`` (``fn`` the function torch
    compiles first; what it returns, if callable, runs when the call ends), only when
    ``when()`` says so (checked first, on every call: keep it cheap). An enter hook on
    each target's ``torch.compile`` context while any listener is on. Returns the
    remover."""
    entry = (listener, when)
    _call_listeners.append(entry)
    for context in list(_contexts.keys()):
        _hook(context)

    def remove() -> None:
        if entry in _call_listeners:
            _call_listeners.remove(entry)
        _unhook_unneeded()
    return remove


#: listeners of one target's calls only (``on_calls_of``), by ``id(target)``: the target
#: (its id is unique only while it lives) and its listeners
_target_listeners: dict[int, tuple[Any, list[CallListener]]] = {}


def on_calls_of(target: Any, listener: CallListener) -> Callable[[], None]:
    """Hear the calls of ``target`` alone (its later compiles' too), as ``each_call``
    does: an enter hook on that target's ``torch.compile`` contexts only, while the
    listener is on; every other target's calls run nothing of it. Returns the remover."""
    key = id(target)
    found = _target_listeners.get(key)
    if found is None or found[0] is not target:
        found = _target_listeners[key] = (target, [])
    found[1].append(listener)
    for context, owner in list(_contexts.items()):
        if owner is target:
            _hook(context)

    def remove() -> None:
        entry = _target_listeners.get(key)
        if entry is not None and entry[0] is target and listener in entry[1]:
            entry[1].remove(listener)
            if not entry[1]:
                del _target_listeners[key]
        _unhook_unneeded()
    return remove


def _own_listeners(target: Any) -> list[CallListener]:
    entry = _target_listeners.get(id(target))
    return entry[1] if entry is not None and entry[0] is target else []


def _needs_hook(context: Any) -> bool:
    """Whether ``context``'s calls must be heard: an ``each_call`` listener is on, or an
    ``on_calls_of`` listener of its target."""
    if _call_listeners:
        return True
    target = _contexts.get(context)
    return target is not None and bool(_own_listeners(target))


def _unhook_unneeded() -> None:
    """The enter hook taken off every context whose calls no listener needs now."""
    for context, hook in list(_hooked.items()):
        if _needs_hook(context):
            continue
        hooks = getattr(context, "enter_exit_hooks", None)
        if isinstance(hooks, list) and hook in hooks:
            hooks.remove(hook)
        _hooked.pop(context, None)


class CallTap:
    """One ``each_call`` listener, switched on and off as what it needs changes: while off,
    nothing of nbcompile's is on any target's call path."""

    __slots__ = ("_listener", "_remove")

    def __init__(self, listener: CallListener) -> None:
        self._listener = listener
        self._remove: Callable[[], None] | None = None

    @property
    def on(self) -> bool:
        return self._remove is not None

    def set(self, on: bool) -> None:
        if on and self._remove is None:
            self._remove = each_call(self._listener)
        elif not on and self._remove is not None:
            remove, self._remove = self._remove, None
            remove()


def _hook(context: Any) -> None:
    hooks = getattr(context, "enter_exit_hooks", None)
    if not isinstance(hooks, list) or context in _hooked:
        return
    hook = _entry_hook(weakref.ref(context))
    try:
        _hooked[context] = hook
    except TypeError:
        return
    hooks.append(hook)


def _nothing() -> None:
    return None


def _entry_hook(context_ref: weakref.ref[Any]) -> Callable[[], Callable[[], None]]:
    def enter() -> Callable[[], None]:
        try:
            heard = [listener for listener, when in _call_listeners
                     if when is None or when()]
            context = context_ref()
            target = _contexts.get(context) if context is not None else None
            if target is None:
                return _nothing
            heard += _own_listeners(target)
            if not heard:
                return _nothing
            frame = sys._getframe(1)  # torch's wrapper (through a comprehension's
            while frame is not None and "args" not in frame.f_code.co_varnames:
                frame = frame.f_back  # frame before Python 3.12): fn, args, kwargs
            if frame is not None and frame.f_code.co_filename.replace(
                    "\\", "/").endswith(_WRAPPER_FILE):
                local = frame.f_locals
                ends = [end for listener in heard
                        if (end := listener(target, local.get("fn"),
                                            tuple(local.get("args") or ()),
                                            dict(local.get("kwargs") or {}))) is not None]
                if ends:
                    return lambda: _run_all(ends)
        except Exception:  # a capture bug must never break the user's call
            pass
        return _nothing
    return enter


def _run_all(ends: list[Callable[[], None]]) -> None:
    for end in ends:
        try:
            end()
        except Exception:  # a capture bug must never break the user's call
            pass
