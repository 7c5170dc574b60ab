"""``open_trace(path)`` and its result, ``TraceReport``: reading TORCH_TRACE logs.

Kept apart from ``api`` so that reading logs imports no torch (``python -m nbcompile
open`` and ``nbcompile.open_trace`` run where torch is not installed); ``api`` re-exports
both. ``TraceInterrupted`` (Ctrl-C) carries the partial ``TraceReport``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .core.logs.record import TraceRecord
from .core.logs.run import (
    TraceInterrupted,  # noqa: F401 (re-exported for __main__)
    read_trace,
)
from .display.reprs import RichRecord


class TraceReport(RichRecord, TraceRecord):
    """A TORCH_TRACE run read by ``open_trace``: ``.path``, ``.ranks``, ``.compiles``
    (``TraceCompile``), ``.compile(id, rank)``, ``.divergences``, ``.problems``,
    ``.to_dict()``, and the rich reprs (record, HTML, text) of a trace."""


def open_trace(path: str | Path, source_root: str | Path | None = None, *,
               progress: Callable[[int, int, int], None] | None = None) -> TraceReport:
    """Read a ``TORCH_TRACE`` log file or directory (any number of ranks).

    Logs are streamed: compiles are indexed from event headers, and graphs, guards and
    generated code are read from the files when first asked for. A log is untrusted
    input: only regular files directly in the directory are read (symlinks only when they
    stay inside it), and the source lines of breaks and stacks are the ones the log
    printed; no other local file is opened. ``source_root``: a directory to read the lines
    the log did not print from (only regular files under it). Raises
    ``FileNotFoundError`` for a missing path or source root; everything else that is wrong
    (unreadable, truncated or foreign files, corrupt lines or fields, md5 mismatches) is
    listed in ``.problems`` and the rest is still read. ``progress``: called with
    ``(files_done, files_total, bytes_read)`` while the logs are read; without it, in a
    notebook or a terminal, reading that takes over a second shows one updating line.
    Ctrl-C stops the reading and raises ``TraceInterrupted`` (a ``KeyboardInterrupt``)
    whose ``partial`` is the ``TraceReport`` of the files read whole, marked
    ``interrupted`` (its first problem names the files not read).
    """
    if progress is not None:
        return TraceReport.from_call(read_trace, path, source_root=source_root,
                                     progress=progress)
    from .display.progress import ProgressLine, reading_text

    # in a notebook or a terminal, reading that takes over a second says how far it is
    with ProgressLine("open_trace", delay=1.0) as line:
        return TraceReport.from_call(
            read_trace, path, source_root=source_root,
            progress=lambda done, total, read: line(reading_text(done, total, read)))
