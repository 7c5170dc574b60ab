"""A whole ``TORCH_TRACE`` run: its compiles per rank, and where the ranks differ.

``read_trace(path)`` finds the logs (``files``), indexes each from its headers only
(``index``) and gathers their compiles into a ``TraceRecord`` (``records``); a compile's
graphs, guards, breaks and generated code are read from the files when first asked for
(``contents``), through the same ``CompileBuilder`` and parser table that serve live
capture. Divergences between ranks (``divergence``) are computed on first access.

Logs are untrusted input. Every event is read on its own: a malformed field is noted in
``problems`` (``file:line: what``) and the rest still read; no exception from one event
(indexing or building contents) escapes. Source lines come from the log itself
(``sources.LogLines``); local files are read only under an explicit ``source_root``.
Ctrl-C keeps the files read whole, marked ``interrupted`` (``TraceInterrupted``).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from ..steps import Interrupted, ctrl_c_delivered, ctrl_c_watched
from ..trace.payloads import SourceReader, logged_line, reading_sources
from ..units import format_bytes
from .divergence import Divergence
from .fields import show
from .files import TraceLog
from .finding import find_logs
from .index import index_compiles
from .paths import printable
from .record import TraceCompile, TraceRecord, TraceStatus
from .sources import LogLines, SourceRoot

# the records read_trace returns, importable from here too
__all__ = ["PROGRESS_INTERVAL_S", "Divergence", "TraceCompile", "TraceInterrupted",
           "TraceRecord", "TraceStatus", "read_trace"]


@ctrl_c_watched()
def read_trace(path: str | Path, source_root: str | os.PathLike[str] | None = None, *,
               progress: Callable[[int, int, int], None] | None = None) -> TraceRecord:
    """Read a TORCH_TRACE log file or directory into a ``TraceRecord``.

    Raises ``FileNotFoundError`` for a missing path (or a missing ``source_root``); every
    other problem (unreadable or non-trace files, FIFOs, symlinks out of the directory,
    corrupt lines or fields, truncated logs) is listed in ``.problems`` and the rest is
    still read. Source lines of breaks and stacks are the ones the log printed; with
    ``source_root``, lines the log did not print are read from regular files under that
    directory (never outside it).

    ``progress``: called with ``(files_done, files_total, bytes_read)`` while the logs are
    indexed, at most every ``PROGRESS_INTERVAL_S`` seconds, and once at the end.

    Ctrl-C stops the reading within a block (``_CHUNK`` bytes) and raises
    ``TraceInterrupted`` whose ``partial`` holds the files read whole and their compiles,
    marked ``interrupted``, the first problem naming the files not read.
    """
    roots = SourceRoot(source_root) if source_root is not None else None
    logs, problems = find_logs(path)
    meter = _Progress(progress, len(logs)) if progress is not None else None
    report = TraceRecord(path=printable(path), problems=problems)
    reader: SourceReader = roots or LogLines(
        lambda note: report.problems.append(f"{report.path}: {note}"))
    unknown: Counter[str] = Counter()
    read: list[TraceLog] = []  # the files read whole (or noted unreadable)
    scanned = [0]  # bytes of the current file scanned so far

    def file_read(n: int) -> None:
        scanned[0] = n
        if meter is not None:
            meter.file_read(n)

    try:
        for log in logs:
            scanned[0] = 0
            file_unknown: Counter[str] = Counter()  # counted once the file is read
            failed = ""
            try:
                with reading_sources(logged_line):  # nothing read from disk while indexing
                    compiles = index_compiles(log, file_unknown, reader, file_read)
            except OSError as e:
                failed = f"{printable(log.path)}: cannot read ({e.strerror or e})"
            finally:
                if meter is not None:
                    meter.file_done()
            report.files.append(printable(log.path))
            unknown.update(file_unknown)
            report.problems.extend(log.problems)
            read.append(log)
            if failed:
                report.problems.append(failed)
                continue
            report.compiles.extend(compiles)
            log.sink = report.problems  # problems found later, building contents
            report.events += log.events_read
            report.bytes_read += log.size
    except KeyboardInterrupt:
        ctrl_c_delivered()
        report.interrupted = True
        unread = logs[len(read):]
        report.problems.insert(0, _interrupted_note(len(read), len(logs),
                                                    report.bytes_read + scanned[0], unread))
    report.ranks = sorted({log.rank for log in read if log.rank is not None})
    report.unknown_events = dict(unknown)
    seen: Counter[int] = Counter(log.rank for log in read if log.rank is not None)
    for rank, n in seen.items():
        if n > 1:
            report.problems.append(f"{report.path}: {n} logs claim rank {rank} (several "
                                   "runs in one directory?); their compiles are all listed")
    if report.interrupted:
        raise TraceInterrupted(report)
    if meter is not None:
        meter.finish()
    return report


class TraceInterrupted(Interrupted):
    """Ctrl-C during ``read_trace``: ``partial`` holds the files read whole and their
    compiles (``interrupted``; ``problems[0]`` names the files not read)."""

    def __init__(self, partial: TraceRecord) -> None:
        super().__init__("open_trace", partial)


#: Files not read named in the interrupted note (the rest counted).
_UNREAD_NAMED = 5


def _interrupted_note(done: int, total: int, scanned: int, unread: list[TraceLog]) -> str:
    """``interrupted (Ctrl-C) after 2 of 8 files, 57.5 MiB read: files not read: ...``
    (the first few named, the rest counted)."""
    names = [show(printable(log.path.name), 80) for log in unread[:_UNREAD_NAMED]]
    if names and scanned:
        names[0] += " (partly read)"
    more = f" (and {len(unread) - _UNREAD_NAMED} more)" if len(unread) > _UNREAD_NAMED else ""
    return (f"interrupted (Ctrl-C) after {done} of {total} files, {format_bytes(scanned)} "
            f"read: files not read: {', '.join(names) or 'none'}{more}; the compiles of the "
            f"{done} file(s) read whole are listed.")


#: Seconds between two calls of ``read_trace``'s ``progress``.
PROGRESS_INTERVAL_S = 0.25


class _Progress:
    """``read_trace``'s progress callback, throttled by time."""

    def __init__(self, callback: Callable[[int, int, int], None], total: int) -> None:
        self.callback, self.total = callback, total
        self.done = self.before = self.current = 0
        self.last = time.monotonic()

    def file_read(self, n: int) -> None:
        """``n`` bytes of the current file read so far."""
        self.current = n
        now = time.monotonic()
        if now - self.last >= PROGRESS_INTERVAL_S:
            self.last = now
            self.callback(self.done, self.total, self.before + n)

    def file_done(self) -> None:
        self.done += 1
        self.before += self.current
        self.current = 0

    def finish(self) -> None:
        self.callback(self.done, self.total, self.before)
