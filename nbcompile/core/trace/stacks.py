"""User stacks of graph breaks and compile errors: which cell line led into which library line.

Dynamo prints the frames it was tracing, outermost first, in two places of the structured
trace: graph-break artifacts (``User code traceback:``) and the ``dynamo_error`` artifact
of a failed compile (``from user code:``). A break deep inside a library (Hugging Face's
``generate``, say) is only actionable together with the user's own line that called it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..frames import ENTRY_PREFIX, is_cell_file, is_library_file
from ..records import SourceLine
from .payloads import FRAME_LINE, SourceReader, printed_lines, source_line

_HEADERS = ("User code traceback:", "from user code:")
_INTERNAL = (ENTRY_PREFIX, "/torch/_dynamo/", "/torch/utils/_contextlib.py")


def parse_user_stack(payload: str, reader: SourceReader | None = None) -> list[SourceLine]:
    """The user frames Dynamo printed in ``payload`` (outermost first), or ``[]``.

    Each frame's text comes from ``reader`` (the one in effect by default, see
    ``payloads.source_line``), given the code line the traceback printed under it.
    """
    start = -1
    for header in _HEADERS:
        start = payload.rfind(header)
        if start >= 0:
            start += len(header)
            break
    if start < 0:
        return []
    frames: list[SourceLine] = []
    text = payload[start:].split("\nTraceback (most recent call last)", 1)[0]
    printed = printed_lines(text)
    for raw in text.splitlines():
        if raw.startswith("Traceback (most recent call last)"):
            break  # Dynamo's own internal traceback follows
        m = FRAME_LINE.match(raw)
        if not m:
            continue
        filename, lineno = m.group("file"), int(m.group("line"))
        if any(part in filename.replace("\\", "/") for part in _INTERNAL):
            continue
        logged = printed.get((filename, lineno), "")
        frames.append(SourceLine(filename, lineno, source_line(filename, lineno, logged, reader)))
    return frames


def without_machinery(frames: list[SourceLine]) -> tuple[list[SourceLine], int]:
    """``frames`` from the first that is the user's: Dynamo prints the whole Python stack
    above the compiled frame (in a kernel: runpy, ipykernel, traitlets, tornado, asyncio,
    IPython) before it; those leading library frames are dropped (``is_library_file``),
    and how many. A stack with no user frame is kept whole."""
    first = next((i for i, f in enumerate(frames) if not is_library_file(f.filename)), None)
    if first is None:
        return frames, 0
    return frames[first:], first


def stack_of_frames(frames: Iterable[object]) -> list[SourceLine]:
    """``SourceLine`` values for ``traceback.FrameSummary``-like objects (e.g. ``real_stack``)."""
    out: list[SourceLine] = []
    for f in frames:
        filename = getattr(f, "filename", None)
        lineno = getattr(f, "lineno", None)
        if not filename or not lineno:
            continue
        if any(part in filename.replace("\\", "/") for part in _INTERNAL):
            continue
        out.append(SourceLine(filename, lineno, source_line(filename, lineno)))
    return out


def cell_frame(stack: list[SourceLine]) -> SourceLine | None:
    """The innermost frame of ``stack`` that is a notebook cell line."""
    for frame in reversed(stack):
        if is_cell_file(frame.filename):
            return frame
    return None
