"""The user's code in a diagnosis: their files, the line an error or a graph node points
at (``Site``), the culprit in words and its line (``Found``), a crash's text, and the
function that holds a line.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .. import sources
from ..frames import Span, is_cell_file, is_entry_file, is_torch_file
from ..notebook.cells.cell_names import name_cells
from ..runs.wrappers import eager_callable
from ..units import clip
from .isolate import shown_error

_NBCOMPILE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_FORWARD_CALL = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)\n'
                           r"(?P<code>[^\n]*)")
#: ATen's, torch's and Inductor's own op namespaces: not custom ops.
ERROR_DETAIL_CHARS = 4000

@dataclass
class Site:
    """A line of user code and how it was found."""

    filename: str | None = None
    lineno: int | None = None
    line: str = ""
    how: str = ""


@dataclass
class Found:
    """The culprit in words and its line."""

    culprit: str = ""
    site: Site | None = None
    note: str = ""


def own_files(fn: Any) -> set[str]:
    """The files of the user's function (or module's forward): frames there are theirs."""
    func = eager_callable(fn)
    if isinstance(fn, torch.nn.Module):
        func = type(fn).forward
    func = getattr(func, "__func__", func)
    code = getattr(func, "__code__", None)
    return {code.co_filename} if code is not None else set()


def is_user_file(filename: str | None, own: set[str]) -> bool:
    if not filename:
        return False
    if filename in own or is_cell_file(filename):
        return True
    return not (is_torch_file(filename) or is_entry_file(filename)
                or os.path.abspath(filename).startswith(_NBCOMPILE_DIR + os.sep)
                or filename.startswith("<") or "site-packages" in filename
                or filename.startswith(sys.prefix) or filename.startswith(sys.base_prefix))


def make_site(filename: str, lineno: int | None, line: str | None, how: str) -> Site:
    text = (line or "").strip()
    if not text and lineno:
        text = sources.line(filename, lineno)
    return Site(filename, lineno, text, how)


def error_site(exc: BaseException, caught: list[str], own: set[str]) -> Site | None:
    """The user line an error points at: the forward call whose backward formula failed
    (autograd's anomaly mode names it in a warning), Dynamo's user stack, or the
    innermost user frame of the traceback."""
    for message in caught:
        if "Traceback of forward call that caused the error" in message:
            frames = [m for m in _FORWARD_CALL.finditer(message) if is_user_file(m["file"], own)]
            if frames:
                m = frames[-1]
                return make_site(m["file"], int(m["line"]), m["code"],
                             "the forward call whose backward formula failed (autograd)")
    for error in _chain(exc):
        stack = getattr(error, "real_stack", None) or []
        user = [f for f in stack if is_user_file(getattr(f, "filename", None), own)]
        if user:
            return make_site(user[-1].filename, user[-1].lineno, user[-1].line,
                         "Dynamo's user stack at the error")
    for error in _chain(exc):
        tb = error.__traceback__
        frames = []
        while tb is not None:
            frames.append(tb.tb_frame)
            tb = tb.tb_next
        user = [f for f in frames if is_user_file(f.f_code.co_filename, own)
                and f.f_code.co_name != "<module>"]
        if user:
            frame = user[-1]
            return make_site(frame.f_code.co_filename, frame.f_lineno, None,
                         "the innermost user frame of the traceback")
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop(0)
        if e is None or any(e is s for s in seen) or len(seen) > 10:
            continue
        seen.append(e)
        todo += [getattr(e, "inner_exception", None), e.__cause__, e.__context__]
    return seen


def error_text(exc: BaseException) -> tuple[str, str]:
    """``(type: first line, the message capped)`` of a crash. The telling part goes into
    the first line: the error Dynamo's fake tensors hit (``got RuntimeError('...')``), or
    a compiler's own ``error:`` line (paths cut to the file name)."""
    name, message = shown_error(exc)
    message = name_cells(message.strip())  # a cell named as the summary names it
    lines = message.splitlines()
    first = lines[0] if lines else ""
    short = f"{name}: {first}" if first else name
    key = [_short_paths(ln.strip()) for ln in lines[1:] if re.search(r"\berror\b:", ln)][:6]
    got = re.search(r"got (\w+(?:Error|Exception))\((['\"])(.+?)\2\)", message, re.S)
    if got:
        short = f"{short}: {got[1]}: {got[3]}"
    elif key:
        short = f"{short}: {key[0]}"
    detail = "\n".join([*key, "", *lines]) if key else message
    if isinstance(getattr(exc, "inner_exception", None), BaseException):
        detail = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}\n{detail}"
    if len(detail) > ERROR_DETAIL_CHARS:
        detail = (detail[:ERROR_DETAIL_CHARS]
                  + f"\n... ({len(detail) - ERROR_DETAIL_CHARS} more characters)")
    return _cut(short, 400), detail


def _short_paths(text: str) -> str:
    """``/tmp/torchinductor_x/ab/abc.main.cpp:31:45: error`` -> ``abc.main.cpp:31:45: error``."""
    return re.sub(r"(?:/[^\s/:]+)+/([^\s/:]+:\d+)", r"\1", text)


def _cut(text: str, limit: int) -> str:
    return clip(text, limit, " ...", at_word=True)


def culprit_function(site: Site, fn: Any, own: set[str]) -> tuple[str, Callable[..., Any]] | None:
    """The user function whose code holds the culprit's line: ``fn`` itself (name
    ``""``) or a function ``fn``'s globals name (its name)."""
    if site.filename is None or site.lineno is None:
        return None
    func = eager_callable(fn)
    if isinstance(fn, torch.nn.Module):
        func = type(fn).forward
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is not None and _holds(code, site):
        return "", func
    for name, value in getattr(getattr(func, "__func__", func), "__globals__", {}).items():
        inner = getattr(value, "__code__", None)
        if callable(value) and inner is not None and _holds(inner, site):
            return name, value
    return None


def _holds(code: Any, site: Site) -> bool:
    return Span.of(code).contains(site.filename or "", site.lineno or 0)

