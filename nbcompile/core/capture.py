"""The one capture channel: a handler on torch's structured-trace logger.

Every compile reports through ``logging.getLogger("torch.__trace")`` (the stream that
``TORCH_TRACE`` and tlparse read). ``TraceListener`` decodes its records into
``TraceEvent`` values and passes them on; nothing else in nbcompile touches torch's
logging. Installing adds one handler; uninstalling removes it.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

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


@dataclass
class TraceEvent:
    """One structured-trace record: its kind, frame key, metadata and payload."""

    kind: str
    frame: tuple[int, int] | None
    data: Any
    payload: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def artifact_name(self) -> str:
        return self.data.get("name", "") if self.kind == "artifact" else ""


class TraceListener(logging.Handler):
    """Decode structured-trace records and hand them to ``sink``; never raise into torch."""

    def __init__(self, sink: Callable[[TraceEvent], None], *,
                 private: bool = False) -> None:
        """``private``: also hear compiles made under ``suppressed()`` (a trial's own
        capture, e.g. ``nbcompile.suggest``), which the session must not see."""
        super().__init__(level=logging.DEBUG)
        self._sink = sink
        self._private = private
        self._strings: dict[int, str] = {}
        self._logger = logging.getLogger(TRACE_LOGGER)

    def install(self) -> None:
        if self not in self._logger.handlers:
            self._logger.addHandler(self)

    def uninstall(self) -> None:
        self._logger.removeHandler(self)

    @property
    def installed(self) -> bool:
        return self in self._logger.handlers

    def filename(self, index: Any) -> str:
        """Resolve an interned filename index from a ``dynamo_start`` stack."""
        if isinstance(index, int):
            return self._strings.get(index, "")
        return str(index)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            metadata = getattr(record, "metadata", None)
            if not isinstance(metadata, dict):
                return
            if "str" in metadata:
                text, index = metadata["str"]
                self._strings[index] = text
                return
            if _suppressed.get() and not self._private:
                return
            kinds = [k for k in metadata if k not in _KEY_FIELDS]
            if not kinds or kinds[0] == "chromium_event":
                return
            frame = None
            if "frame_id" in metadata:
                frame = (metadata["frame_id"], metadata.get("frame_compile_id", 0))
            payload = getattr(record, "payload", None) or ""
            self._sink(TraceEvent(kinds[0], frame, metadata[kinds[0]], payload, metadata))
        except Exception:  # a capture bug must never break the user's compile
            _log.debug("nbcompile could not process a trace record", exc_info=True)
