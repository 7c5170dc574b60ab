"""One event of a log file as the reader hands it on: kind, metadata, where its payload lies.

Also what the metadata says about where an event belongs (``compile_key``, ``KEY_FIELDS``)
and which of its locating fields are malformed (``bad_ids``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

#: Metadata keys that say where an event belongs, not what it is.
KEY_FIELDS = frozenset(
    {"rank", "frame_id", "frame_compile_id", "attempt", "has_payload", "compiled_autograd_id"}
)
_MAX_ID = 1 << 31  # frame ids, compile ids, attempts, ranks, string indexes


@dataclass(frozen=True, slots=True)
class PayloadRef:
    """Where one event's payload lies in its file (bytes, tab prefixes included)."""

    offset: int
    length: int
    md5: str
    lineno: int  # of the event's header line


@dataclass(slots=True)
class LogEvent:
    """One header line: its kind, metadata and (unread) payload."""

    kind: str
    metadata: dict[str, Any]
    lineno: int
    payload: PayloadRef | None = None
    offset: int = 0  # of the header line, for ``TraceLog.event_at``

    @property
    def compile_key(self) -> tuple[int, int, int] | None:
        """``(frame_id, frame_compile_id, attempt)`` or None for events outside a compile
        (or whose ids are not small non-negative integers)."""
        return compile_key(self.metadata)

    @property
    def artifact_name(self) -> str:
        data = self.metadata.get(self.kind)
        return str(data.get("name", "")) if self.kind == "artifact" and isinstance(data, dict) \
            else ""


def valid_id(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a small non-negative ``int`` (an id, a rank, a string index)."""
    return type(value) is int and 0 <= value < _MAX_ID  # bool is not int here


def compile_key(md: dict[str, Any]) -> tuple[int, int, int] | None:
    """``(frame_id, frame_compile_id, attempt)`` of an event's metadata (absent or null
    parts count as 0), or None when it has no valid frame id or a part is malformed."""
    frame = md.get("frame_id")
    fcid = md.get("frame_compile_id") or 0
    attempt = md.get("attempt") or 0
    if valid_id(frame) and valid_id(fcid) and valid_id(attempt):
        return frame, fcid, attempt
    return None


def bad_ids(md: dict[str, Any]) -> list[str]:
    """The locating fields of ``md`` that are present (not null) but malformed."""
    return [k for k in ("frame_id", "frame_compile_id", "attempt", "rank")
            if md.get(k) is not None and not valid_id(md[k])]


def event_kind(metadata: dict[str, Any]) -> str:
    """The event's kind: the first metadata key that is not a locating field."""
    for k in metadata:
        if k not in KEY_FIELDS:
            return k
    return ""
