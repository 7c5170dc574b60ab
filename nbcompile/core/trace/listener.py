"""The one capture channel: a handler on torch's structured-trace logger.

Every compile reports through ``logging.getLogger("torch.__trace")`` (the stream that
``TORCH_TRACE`` and tlparse read). ``TraceListener`` decodes its records into
``TraceEvent`` values and passes them on. Installing makes it a sink of nbcompile's one
handler on that logger (``log_taps.hear``); uninstalling takes it off.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..torch_compat import intern_table
from . import log_taps
from .compile_id import CompileId

TRACE_LOGGER = "torch.__trace"
_log = logging.getLogger("nbcompile.capture")
_suppressed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "nbcompile_capture_suppressed", default=False
)
_KEY_FIELDS = ("frame_id", "frame_compile_id", "attempt", "has_payload")


@contextlib.contextmanager
def suppressed() -> Iterator[None]:
    """Ignore compile events inside this block (e.g. compiles made to time other modes)."""
    token = _suppressed.set(True)
    try:
        yield
    finally:
        _suppressed.reset(token)


class StringTable:
    """Torch interns filenames in the trace (``{"str": [text, index]}`` records); this
    keeps them, for the live handler and for log-file readers alike."""

    def __init__(self) -> None:
        self._strings: dict[int, str] = {}

    def add(self, metadata: dict[str, Any]) -> bool:
        """Record an interned string if ``metadata`` is one; True if it was."""
        entry = metadata.get("str")
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            return False
        text, index = entry
        self._strings[index] = text
        return True

    def filename(self, index: Any) -> str:
        """Resolve an interned filename index (from a ``dynamo_start`` stack)."""
        if isinstance(index, int):
            return self._strings.get(index) or _torch_interned(index)
        return str(index)


def _torch_interned(index: int) -> str:
    """A string torch interned before this table listened (torch's own intern table)."""
    # a torch without the table: an empty one, the string stays unknown
    return next((text for text, i in list(intern_table().items()) if i == index), "")


@dataclass
class TraceEvent:
    """One structured-trace record: its kind, compile id, metadata and payload."""

    kind: str
    frame: tuple[int, int] | None
    data: Any
    payload: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    compile_id: CompileId | None = None

    @property
    def artifact_name(self) -> str:
        return self.data.get("name", "") if self.kind == "artifact" else ""

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any], payload: str = "") -> TraceEvent | None:
        """The event one trace record describes: the metadata dict and payload string that
        the logging handler sees and a ``TORCH_TRACE`` log line holds (header JSON, then
        the tab-indented payload lines joined). ``None`` for records without an event kind
        (e.g. interned strings, which a ``StringTable`` keeps)."""
        kinds = [k for k in metadata if k not in _KEY_FIELDS]
        if not kinds or kinds[0] == "str":
            return None
        cid = CompileId.from_metadata(metadata)
        return cls(kinds[0], cid.key if cid else None, metadata[kinds[0]], payload or "",
                   metadata, cid)


class TraceListener(logging.Handler):
    """Decode structured-trace records and hand them to ``sink``; never raise into torch.
    A sink of ``log_taps``' handler on the trace logger, never a handler there itself."""

    def __init__(self, sink: Callable[[TraceEvent], None], *,
                 private: bool = False) -> None:
        """``private``: also hear compiles made under ``suppressed()`` (a trial's own
        capture, e.g. ``nbcompile.suggest``), which the session must not see."""
        super().__init__(level=logging.DEBUG)
        self._sink = sink
        self._private = private
        self.strings = StringTable()
        self._logger = logging.getLogger(TRACE_LOGGER)
        self._unhear: Callable[[], None] | None = None  # out of ``log_taps.hear``

    def install(self) -> None:
        self._unhear = log_taps.hear(TRACE_LOGGER, self)

    def uninstall(self) -> None:
        if self._unhear is not None:
            self._unhear()
            self._unhear = None

    @property
    def installed(self) -> bool:
        return log_taps.hearing(TRACE_LOGGER, self)

    @contextlib.contextmanager
    def listening(self) -> Iterator[TraceListener]:
        """Installed, with the trace logger at DEBUG, for the block only; both put back
        after (an already installed listener stays installed)."""
        installed_before = self.installed
        level = self._logger.level
        self.install()
        self._logger.setLevel(logging.DEBUG)
        try:
            yield self
        finally:
            self._logger.setLevel(level)
            if not installed_before:
                self.uninstall()

    def filename(self, index: Any) -> str:
        """Resolve an interned filename index from a ``dynamo_start`` stack."""
        return self.strings.filename(index)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            metadata = getattr(record, "metadata", None)
            if not isinstance(metadata, dict):
                return
            if self.strings.add(metadata) or (_suppressed.get() and not self._private):
                return
            event = TraceEvent.from_metadata(metadata, getattr(record, "payload", None) or "")
            if event is not None:
                self._sink(event)
        except Exception:  # a capture bug must never break the user's compile
            _log.debug("nbcompile could not process a trace record", exc_info=True)
