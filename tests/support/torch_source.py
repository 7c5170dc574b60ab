"""What the installed torch records, read from its own source: a test branches on torch's
record (a message torch writes or not), never on a version number."""

from __future__ import annotations

import functools
import inspect

import torch


@functools.cache
def refusal_names_guards() -> bool:
    """Whether torch's ``fail_on_recompile`` error lists the guards that failed (2.11's and
    later do; 2.9's names the function and line only)."""
    import torch._dynamo.eval_frame as eval_frame

    return "guard failure(s)" in inspect.getsource(eval_frame)


def release() -> str:
    """``2.9`` of the installed ``2.9.1+cu128``."""
    return ".".join(torch.__version__.split(".")[:2])


def no_guard_words() -> tuple[str, str]:
    """What nbcompile says of a refusal where torch names no guard (its two lines)."""
    return (f"Guard that failed: not given by torch (its refusal names no guard on torch "
            f"{release()})", "Changed by: not known (torch named no guard to look up)")


@functools.cache
def logs_resume_bytecode() -> bool:
    """Whether torch's TORCH_TRACE holds a resume function's transformed code (the
    ``<co_name>_MODIFIED_BYTECODE`` artifact: 2.13's and 2.15's do, 2.9's logs none)."""
    import torch._dynamo.convert_frame as convert_frame

    return "_MODIFIED_BYTECODE" in inspect.getsource(convert_frame)
