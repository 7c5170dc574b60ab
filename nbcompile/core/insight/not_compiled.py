"""Targets Dynamo produced no graph for, and graph breaks placed at nbcompile's entry.

A module Dynamo does not trace (``torch.nn.LSTM``/``GRU``/``RNN``), or a frame it skipped
or gave up on, finishes its compile without a graph: nothing runs compiled. Such a
target gets the status ``"not_compiled"`` and a note saying why, with the setting or
rewrite that would help. A break Dynamo places at a wrapper frame (nbcompile's entry
function ``<nbcompile-entry-N:name>``, or torch's ``wrap_inline`` a torch.nn module is
compiled through) is at the call of the target itself: the place is left empty and the
reason says it was internal.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from typing import Any

from ..frames import ENTRY_PREFIX
from ..records import CompileRecord, GraphBreak
from ..torch_compat import allow_rnn, module_call_lines

INTERNAL_PLACE = ("at the call of the target itself (the place Dynamo names is an internal "
                  "wrapper function, not a line of yours)")
#: torch's ``wrap_inline`` (torch.nn's own modules are compiled through it): its one line
#: calls the module, like nbcompile's entry functions.
_WRAP_INLINE_FILE = "torch/_dynamo/external_utils.py"
_RNN = "RNN, GRU, or LSTM"
_RAISED = "Observed exception"  # Dynamo's words for an exception raised while tracing


def _nested_functions(function: Any) -> list[str]:
    """Names of the functions ``function`` defines in its body (a factory or decorator)."""
    code = getattr(function, "__code__", None)
    if code is None:
        return []
    return [c.co_name for c in code.co_consts
            if inspect.iscode(c) and not c.co_name.startswith("<")]


def is_internal(filename: str | None) -> bool:
    """A wrapper frame's file: nbcompile's entry function or torch's ``wrap_inline``."""
    text = str(filename or "").replace("\\", "/")
    return text.startswith(ENTRY_PREFIX) or text.endswith(_WRAP_INLINE_FILE)


def code_name(target: str, frame: str, filename: str | None) -> str:
    """The code a frame compile ran, as the user wrote it: a wrapper frame (torch's
    ``wrap_inline``, ``inner``, or nbcompile's entry function) is the target's own call,
    named by the target; any other frame by torch's name for it."""
    return target if is_internal(filename) else frame


def in_module_call(filename: str | None, lineno: int | None) -> bool:
    """Whether a place is a line of torch's ``Module._call_impl``: a break Dynamo places
    there (torch 2.15 delays an RNN's refusal to the hooks check of the module's call) is
    at the call of the target itself."""
    found = module_call_lines()
    return (found is not None and filename is not None and lineno is not None
            and filename == found[0] and lineno in found[1])


def without_internal_place(gb: GraphBreak) -> GraphBreak:
    """``gb`` with nbcompile's entry function removed as a place (kept as is otherwise):
    a break placed there, or in torch's ``Module._call_impl``, has no place, and its
    reason says it was internal."""
    at_call = is_internal(gb.filename) or in_module_call(gb.filename, gb.lineno)
    if not at_call and not any(is_internal(s.filename) for s in gb.stack):
        return gb
    stack = [s for s in gb.stack if not is_internal(s.filename)]
    if not at_call:
        return dataclasses.replace(gb, stack=stack)
    return dataclasses.replace(gb, filename=None, lineno=None, line="", stack=stack,
                               reason=f"{gb.reason} ({INTERNAL_PLACE})")


def _is_rnn_module(obj: Any) -> bool:
    import torch

    return isinstance(obj, (torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM))


def _rnn_refused(compiles: Sequence[CompileRecord], breaks: Sequence[GraphBreak],
                 obj: Any) -> bool:
    """Whether Dynamo refused to trace an RNN module. Its words are in a break's reason
    (torch 2.13), or only in the failed compile's ``fail_reason`` (2.9, no break record),
    or in a break's explanation. torch 2.15 delays the refusal, so the break names a later
    step (``Unsupported python_type() call``): there the evidence is torch's own rule, an
    RNN/GRU/LSTM target while ``allow_rnn`` is off."""
    words = [gb.reason for gb in breaks] + [gb.explanation for gb in breaks]
    words += [c.error for c in compiles]
    if any(_RNN in w for w in words):
        return True
    return bool(breaks or compiles) and _is_rnn_module(obj) and allow_rnn() is False


def why_not_compiled(name: str, compiles: Sequence[CompileRecord],
                     breaks: Sequence[GraphBreak], function: Any = None) -> str:
    """The note of a target Dynamo produced no graph for: why, and what would help."""
    if function is not None and (inspect.isgeneratorfunction(function)
                                 or inspect.isasyncgenfunction(function)
                                 or inspect.iscoroutinefunction(function)):
        what = "a coroutine" if inspect.iscoroutinefunction(function) else "a generator"
        return (f"{name} is {what} function: torch.compile does not compile it (calling it "
                f"only creates the {what.split()[-1]}), so it runs eagerly. Fix: put the "
                "tensor work of one step in a plain function, %%compile that, and call it "
                f"from {name}.")
    inner = _nested_functions(function)
    if inner and compiles and not breaks:
        names = ", ".join(inner)
        return (f"{name} ran without producing a graph: it builds and returns a function "
                f"({names}), and the function it returns runs uncompiled (compiling a factory "
                "or decorator does not compile what it returns). Fix: compile the returned "
                f"function, e.g. g = torch.compile({name}(...)), or return "
                f"torch.compile({inner[0]}) from {name}.")
    reasons = " ".join(gb.reason for gb in breaks)
    if _rnn_refused(compiles, breaks, function):
        return (f"{name} was not compiled: Dynamo does not trace RNN modules "
                "(torch.nn.LSTM, GRU, RNN) by default, so it ran eagerly with 0 graphs. "
                "Fix: set torch._dynamo.config.allow_rnn = True before the first call "
                "(experimental), or compile the code around the RNN and leave the RNN "
                "eager.")
    # in a break's reason (torch 2.13), or only in the compile's error (2.9)
    if _RAISED in reasons or any(_RAISED in c.error for c in compiles):
        return (f"{name}'s first call raised an exception inside the compiled code (the line "
                "below), so torch.compile gave up on it: it now runs uncompiled for good, and "
                "later calls do not compile it again, even with inputs that do not raise. "
                "To compile it again, fix the error (or make the first call one that does "
                "not raise) and re-run this %%compile cell.")
    if breaks:
        return (f"{name} was not compiled: Dynamo gave up on every frame (see the graph "
                "break below) and produced no graph, so it ran eagerly. Fix: rewrite the "
                "line the break names, or compile a smaller function that avoids it.")
    return (f"{name} was not compiled: Dynamo skipped its frames and produced no graph "
            "(e.g. code it cannot step through, such as some `with` blocks), so it ran "
            "eagerly. Fix: compile the function called inside that code instead; "
            "TORCH_LOGS=\"+dynamo\" shows why each frame was skipped.")
