"""torch's structured trace of what runs next, written from the live kernel into a
directory in torch's own ``TORCH_TRACE`` format (``%nbcompile trace DIR``,
``nbcompile.trace(DIR)``).

``TORCH_TRACE`` is read from the environment when torch is imported, too late for a
running kernel. This puts torch's own handler (``LazyTraceHandler``: a fresh
``dedicated_log_torch_trace_*.log`` made with ``mkstemp``, never an existing file) with
torch's own formatter (``TorchLogsFormatter(trace=True)``) as a sink of nbcompile's one
handler on ``torch.__trace`` (``trace/log_taps.py``: put back if anything takes it off),
beside any handler the user's ``TORCH_TRACE`` made (left as it is). Nothing runs per call.
The strings torch interned before the trace started are written first, so the file reads
alone (tlparse, ``open_trace``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from .. import torch_compat
from ..trace import log_taps
from ..trace.listener import TRACE_LOGGER


class TraceDirError(ValueError):
    """Why a trace cannot be written where asked (in words)."""


@dataclass
class TraceDir:
    """A trace being written to ``path`` (``stop()`` ends it; also a context manager)."""

    path: str
    _handler: Any = field(default=None, repr=False)
    _file: str | None = field(default=None, repr=False)  # torch's file, once opened
    _unhear: Callable[[], None] | None = field(default=None, repr=False)

    @property
    def active(self) -> bool:
        return self._handler is not None

    @property
    def files(self) -> list[str]:
        """The trace file this wrote (torch opens it on the first record)."""
        if self._handler is not None:
            self._file = getattr(self._handler, "_stream_path", None) or self._file
        return [self._file] if self._file else []

    @property
    def note(self) -> str:
        """What was written, in words, with how to read it."""
        state = "is being written" if self.active else "was written"
        files = self.files
        if not files:
            return (f"torch's structured trace {state} to {self.path} (no file yet: torch "
                    "opens one at the first compile)")
        return (f"torch's structured trace {state} to {files[0]}; read it with "
                f"%nbcompile open {self.path}, python -m nbcompile open {self.path} or "
                f"tlparse {files[0]}")

    def stop(self) -> TraceDir:
        """Stop writing: torch's handler no longer hears ``torch.__trace``, and closed."""
        global _current
        self.files  # noqa: B018 - keeps torch's file name before the handler forgets it
        handler, self._handler = self._handler, None
        if self._unhear is not None:
            self._unhear()
            self._unhear = None
        if handler is not None:
            handler.close()
        if _current is self:
            _current = None
        return self

    def __enter__(self) -> TraceDir:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<nbcompile trace: {self.note}>"


_current: TraceDir | None = None


def current() -> TraceDir | None:
    """The trace being written now, if any."""
    return _current


def start(directory: str | os.PathLike[str]) -> TraceDir:
    """Write torch's structured trace of what follows into ``directory`` (made if
    missing) until ``stop()``. One trace at a time."""
    global _current
    if _current is not None:
        raise TraceDirError(f"a trace is already being written to {_current.path}; "
                            "stop it first (%nbcompile trace off, or .stop())")
    text = os.fspath(directory)
    if not text.strip():
        raise TraceDirError("give a directory to write the trace into")
    path = Path(text).expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise TraceDirError(f"{path} exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as e:
        raise TraceDirError(f"cannot make {path}: {e.strerror or e}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise TraceDirError(f"{path} is not writable")
    try:
        handler = torch_compat.trace_file_handler(str(path))
    except RuntimeError as e:
        raise TraceDirError(str(e)) from None
    trace = TraceDir(str(path), handler)
    _interned(handler, logging.getLogger(TRACE_LOGGER))
    trace._unhear = log_taps.hear(TRACE_LOGGER, handler)
    _current = trace
    return trace


def stop() -> TraceDir | None:
    """Stop the trace being written, if any; returns it."""
    return _current.stop() if _current is not None else None


def _interned(handler: logging.Handler, logger: logging.Logger) -> None:
    """torch's interned strings so far (``{"str": [text, index]}`` records, as torch
    writes them), to this handler only: the user's own ``TORCH_TRACE`` has them already."""
    source = getattr(torch_compat.lookup("torch._logging.structured"), "__file__", "") or ""
    for text, index in sorted(torch_compat.intern_table().items(), key=lambda item: item[1]):
        record = logger.makeRecord(logger.name, logging.DEBUG, source, 0, "", (), None,
                                   extra={"metadata": {"str": [text, index]},
                                          "payload": None})
        handler.handle(record)
