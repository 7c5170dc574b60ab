"""A clear message for ``fullgraph=True`` failures of nbcompile targets, and a
``%%compile`` cell's syntax error shown as IPython shows a plain cell's.

Installed with IPython's ``set_custom_exc`` while the extension is loaded; the
previous handler is restored on unload. The message names the target, the cell line
and the reason; the exception itself follows in one line (``%xmode`` still applies
to other errors).
"""

from __future__ import annotations

from typing import Any

from ..core.notebook.capture.session import get_session
from ..core.notebook.cells import cell_names
from ..core.notebook.cells.stance import Refusal, explain_refusal, parse_refusal
from ..core.torch_compat import torch_release, unsupported_error_types
from ..core.trace.payloads import parse_dynamo_message, source_line
from ..core.trace.stacks import cell_frame, stack_of_frames
from .hazard import explanation as hazard_explanation

_saved: dict[int, tuple[tuple[type, ...], Any]] = {}


class CellSyntaxError(SyntaxError):
    """A syntax error in a ``%%compile`` cell body: displayed like a plain cell's (no
    frames of nbcompile or of the parser), before anything in the cell ran."""

    @classmethod
    def of(cls, error: SyntaxError) -> CellSyntaxError:
        return cls(error.msg, (error.filename, error.lineno, error.offset, error.text,
                               error.end_lineno, error.end_offset))


def _unsupported_types() -> tuple[type, ...]:
    return unsupported_error_types()


def describe_unsupported(shell: Any, value: BaseException) -> str:
    frame = getattr(value, "innermost_user_frame_summary", None)
    filename = getattr(frame, "filename", None)
    lineno = getattr(frame, "lineno", None)
    stack = stack_of_frames(getattr(value, "real_stack", None) or [])
    frames = ([{"filename": f.filename, "line": f.lineno} for f in stack]
              or [{"filename": filename, "line": lineno or 0}])
    # the target that failed is the one whose frame Dynamo was compiling: the outermost
    # a target owns (inner frames were being inlined, e.g. a library method wrapped by a
    # decorator another target's code also uses)
    session = get_session()
    target = next((found for frame in frames
                   if (found := session.target_for_stack([frame])) is not None),
                  None) if filename else None
    via = cell_frame(stack)
    who = f"`{target.name}`" if target else "this function"
    message = parse_dynamo_message(getattr(value, "msg", None) or str(value))
    lines = [f"nbcompile: {who} cannot be compiled as one graph (fullgraph=True)."]
    if filename:
        text = source_line(filename, lineno)
        lines.append(f"Graph break at {cell_names.place(filename, lineno)}: {text}")
        if via is not None and (via.filename, via.lineno) != (filename, lineno):
            lines.append(f"  reached from your code at {cell_names.place(via.filename, via.lineno)}"
                         f": {via.line}")
    lines.append(f"Reason: {message.summary}")
    lines.extend(f"Hint: {hint}" for hint in message.hints)
    lines.append("Fix that line, or drop --fullgraph to let torch.compile split the graph there.")
    return "\n".join(lines)


def describe_refusal(shell: Any, refusal: Refusal) -> str:
    """A call ``fail_on_recompile`` refused, in words: the target, the guard that failed,
    the cells that changed what it reads, and how to let it recompile."""
    session = get_session()
    target = session.target_for_stack([{"filename": refusal.filename,
                                        "line": refusal.lineno}])
    explain_refusal(refusal, target, session.eager.refused)
    who = f"`{target.name}`" if target else f"`{refusal.function}`"
    call = f"the call in cell [{refusal.cell}]" if refusal.cell is not None else "this call"
    given = refusal.reason or refusal.guard
    lines = [f"nbcompile: {call} would recompile {who}, and the stance is fail_on_recompile, "
             "so torch refused it.",
             "Guard that failed: " + (given or f"not given by torch (its refusal names no "
                                               f"guard on torch {torch_release()})")]
    lines.append("Changed by: " + ("; ".join(refusal.changes) if refusal.changes else
                                   "not known (no cell set a global it reads or that was "
                                   "passed as the argument, nor a module's mode)" if given
                                   else "not known (torch named no guard to look up)"))
    lines.append("To let it recompile, run the call under the default stance (outside "
                 "%%stance fail_on_recompile, or after torch.compiler.set_stance('default')); "
                 "%%stance eager_on_recompile runs it eagerly.")
    return "\n".join(lines)


def _handler(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> Any:
    """IPython discards what a custom handler returns: it must display the error itself."""
    if isinstance(value, CellSyntaxError):
        stb = shell.SyntaxTB.structured_traceback(SyntaxError, value, [])
        shell._showtraceback(SyntaxError, value, stb)
        return stb
    explained = hazard_explanation(shell, value) if type(value) is RuntimeError else None
    if explained is not None:  # a CUDA-graph output read after a later call overwrote it
        stb = [explained, "", *shell.InteractiveTB.structured_traceback(
            etype, value, tb, tb_offset=tb_offset)]
        shell._showtraceback(etype, value, stb)
        return stb
    refusal = parse_refusal(str(value)) if type(value) is RuntimeError else None
    if refusal is not None:
        text = str(value).strip()
        stb = [describe_refusal(shell, refusal), "",
               f"{etype.__name__}: {text.splitlines()[0] if text else ''}"]
        shell._showtraceback(etype, value, stb)
        return stb
    if getattr(value, "innermost_user_frame_summary", None) is None:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
        return None
    text = str(value).strip()
    first_line = text.splitlines()[0] if text else ""
    stb = [describe_unsupported(shell, value), "", f"{etype.__name__}: {first_line}"]
    shell._showtraceback(etype, value, stb)
    return stb


def install_error_display(shell: Any) -> None:
    # RuntimeError: refusals, and overwritten CUDA-graph outputs read
    types = (CellSyntaxError, RuntimeError, *_unsupported_types())
    if id(shell) in _saved:
        return
    _saved[id(shell)] = (tuple(shell.custom_exceptions), shell.CustomTB)
    shell.set_custom_exc(types, _handler)


def uninstall_error_display(shell: Any) -> None:
    saved = _saved.pop(id(shell), None)
    if saved is None:
        return
    shell.custom_exceptions, shell.CustomTB = saved
