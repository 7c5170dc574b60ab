"""Streaming reader of ``TORCH_TRACE`` log files (file-only concerns, no event parsing).

A log is glog-prefixed header lines, each with a JSON metadata object::

    V1122 07:34:03.362000 14222 torch/_dynamo/utils.py:1759] {"dynamo_start": {...}, ...}

followed, when the metadata has ``"has_payload": "<md5>"``, by the payload's lines, each
prefixed with a tab. ``TraceLog`` scans a file in large chunks, decodes only the headers,
and remembers where each payload lies (``PayloadRef``); payloads are read on demand and
checked against their md5. The interned-string table (``str`` events) is kept per file.
What is wrong in a file (truncated last line, corrupt JSON, md5 mismatch, empty file,
lines that are not trace lines) is collected in ``problems`` as ``file:line: what``;
nothing here raises on bad content. Turning events into records is the parsers' job.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Metadata keys that say where an event belongs, not what it is.
KEY_FIELDS = frozenset(
    {"rank", "frame_id", "frame_compile_id", "attempt", "has_payload", "compiled_autograd_id"}
)
_RANK_NAME = re.compile(r"^dedicated_log_torch_trace_rank_(\d+)_.*\.log$")
_TRACE_NAME = re.compile(r"^dedicated_log_torch_trace_.*\.log$")
_HEADER_START = re.compile(rb"^[^\t\n][^\n]*", re.M)  # every line that is not a payload line
_GLOG = re.compile(rb"^[VIWEFD]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")
_CHUNK = 8 << 20
_MAX_PROBLEMS_PER_KIND = 10


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
        """``(frame_id, frame_compile_id, attempt)`` or None for events outside a compile."""
        md = self.metadata
        if not isinstance(md.get("frame_id"), int):
            return None
        return md["frame_id"], md.get("frame_compile_id") or 0, md.get("attempt") or 0

    @property
    def artifact_name(self) -> str:
        data = self.metadata.get(self.kind)
        return str(data.get("name", "")) if self.kind == "artifact" and isinstance(data, dict) \
            else ""


def rank_from_name(path: str | os.PathLike[str]) -> int | None:
    """The rank torch wrote into the file name (``dedicated_log_torch_trace_rank_<N>_*``)."""
    m = _RANK_NAME.match(Path(path).name)
    return int(m.group(1)) if m else None


def is_trace_name(path: str | os.PathLike[str]) -> bool:
    """Whether torch would have named this file (``dedicated_log_torch_trace_*.log``)."""
    return bool(_TRACE_NAME.match(Path(path).name))


def event_kind(metadata: dict[str, Any]) -> str:
    """The event's kind: the first metadata key that is not a locating field."""
    return next((k for k in metadata if k not in KEY_FIELDS), "")


@dataclass
class TraceLog:
    """One trace log file, read as a stream of ``LogEvent``s.

    ``rank`` comes from the file name, else from the first event carrying ``rank``.
    ``strings`` is the interned-string table (filled while ``events()`` runs).
    """

    path: Path
    rank: int | None = None
    strings: dict[int, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    size: int = 0
    events_read: int = 0
    _problem_counts: dict[str, int] = field(default_factory=dict)
    _truncated: bool = False

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if self.rank is None:
            self.rank = rank_from_name(self.path)

    # --- problems ---
    def problem(self, lineno: int | None, kind: str, what: str) -> None:
        """Note a problem (at most a few of each kind per file, then a count)."""
        n = self._problem_counts.get(kind, 0) + 1
        self._problem_counts[kind] = n
        where = f"{self.path}:{lineno}" if lineno else str(self.path)
        if n <= _MAX_PROBLEMS_PER_KIND:
            self.problems.append(f"{where}: {what}")

    def finish_problems(self) -> None:
        """Add ``(and N more ...)`` lines for kinds that were capped."""
        for kind, n in self._problem_counts.items():
            if n > _MAX_PROBLEMS_PER_KIND:
                self.problems.append(f"{self.path}: ({n - _MAX_PROBLEMS_PER_KIND} more "
                                     f"{kind} problem(s) not listed)")

    # --- reading ---
    def events(self) -> Iterator[LogEvent]:
        """Stream the file's events (``str`` events fill ``strings`` and are not yielded)."""
        self.size = self.path.stat().st_size
        if self.size == 0:
            self.problem(None, "empty", "empty file (no trace events)")
            return
        previous: LogEvent | None = None
        previous_end = 0  # offset just past the previous header's newline
        for lineno, start, line, complete in self._header_lines():
            if previous is not None and previous.payload is not None:
                self._close_payload(previous, previous_end, start)
            if previous is not None:
                yield previous
            previous = self._decode(lineno, line, complete, start)
            previous_end = start + len(line) + 1
        if previous is not None:
            if previous.payload is not None:
                end = self.size + (1 if self._truncated else 0)  # as if a newline followed
                self._close_payload(previous, previous_end, end)
            yield previous
        self.finish_problems()

    def _close_payload(self, event: LogEvent, begin: int, next_start: int) -> None:
        ref = event.payload
        assert ref is not None
        length = max(0, next_start - 1 - begin)  # without the newline ending the payload
        event.payload = PayloadRef(begin, length, ref.md5, ref.lineno)
        if length == 0:
            self.problem(event.lineno, "payload", f"{event.kind} event announces a payload "
                                                  "but none follows")

    def _header_lines(self) -> Iterator[tuple[int, int, bytes, bool]]:
        """``(lineno, offset, line, complete)`` of every line that is not a payload line."""
        base, lineno = 0, 1
        carry = b""
        with open(self.path, "rb") as f:
            while True:
                data = f.read(_CHUNK)
                if not data:
                    break
                buf = carry + data
                cut = buf.rfind(b"\n") + 1
                if cut == 0:
                    carry = buf
                    continue
                pos = 0
                for m in _HEADER_START.finditer(buf, 0, cut):
                    lineno += buf.count(b"\n", pos, m.start())
                    pos = m.start()
                    yield lineno, base + m.start(), m.group(), True
                lineno += buf.count(b"\n", pos, cut)
                base += cut
                carry = buf[cut:]
        if carry:
            self._truncated = True
            self.problem(lineno, "truncated", "the last line is cut short (no newline at the "
                                              "end: the job stopped mid-write?)")
            if not carry.startswith(b"\t"):
                yield lineno, base, carry, False

    def _decode(self, lineno: int, line: bytes, complete: bool, offset: int = 0
                ) -> LogEvent | None:
        m = _GLOG.match(line)
        if m is None:
            self.problem(lineno, "not-trace", "not a trace line: "
                         + line[:60].decode("utf-8", "replace"))
            return None
        try:
            metadata = json.loads(line[m.end():])
        except ValueError as e:
            if complete:
                self.problem(lineno, "json", f"corrupt JSON in the event metadata ({e.msg} "
                                             f"at column {m.end() + e.pos + 1})")
            return None
        if not isinstance(metadata, dict):
            self.problem(lineno, "json", "event metadata is not a JSON object")
            return None
        kind = event_kind(metadata)
        self.events_read += 1
        if kind == "str":
            try:
                text, index = metadata["str"]
                self.strings[int(index)] = str(text)
            except (TypeError, ValueError):
                self.problem(lineno, "json", "malformed interned-string (str) event")
            return None
        if self.rank is None and isinstance(metadata.get("rank"), int):
            self.rank = metadata["rank"]
        md5 = metadata.get("has_payload")
        payload = PayloadRef(0, 0, md5, lineno) if isinstance(md5, str) else None
        return LogEvent(kind, metadata, lineno, payload, offset)

    def read_payload(self, event: LogEvent) -> str:
        """The event's payload text (tab prefixes removed); checked against its md5.

        A mismatch (or an unreadable payload) is noted in ``problems``; what could be read
        is still returned.
        """
        ref = event.payload
        if ref is None or ref.length == 0:
            return ""
        with open(self.path, "rb") as f:
            f.seek(ref.offset)
            raw = f.read(ref.length)
        text = raw.decode("utf-8", "replace")
        lines = [ln[1:] if ln.startswith("\t") else ln for ln in text.split("\n")]
        payload = "\n".join(lines)
        digest = hashlib.md5(payload.encode("utf-8"), usedforsecurity=False).hexdigest()
        if digest != ref.md5:
            self.problem(ref.lineno, "md5", f"{event.kind} payload does not match its md5 "
                                            "(corrupted or cut short); shown as read")
        return payload

    def event_at(self, offset: int, lineno: int = 0) -> tuple[LogEvent | None, str]:
        """Re-read the event whose header starts at ``offset`` and its payload (checked).

        For events the index only kept the offset of (e.g. chromium events of a compile).
        """
        with open(self.path, "rb") as f:
            f.seek(offset)
            header = f.readline()
            m = _GLOG.match(header)
            try:
                metadata = json.loads(header[m.end():]) if m else None
            except ValueError:
                metadata = None
            if not isinstance(metadata, dict):
                return None, ""
            lines = []
            while (line := f.readline()).startswith(b"\t"):
                lines.append(line[1:].rstrip(b"\n"))
        payload = b"\n".join(lines).decode("utf-8", "replace")
        md5 = metadata.get("has_payload")
        event = LogEvent(event_kind(metadata), metadata, lineno, None, offset)
        if isinstance(md5, str) and \
                hashlib.md5(payload.encode(), usedforsecurity=False).hexdigest() != md5:
            self.problem(lineno or None, "md5", f"{event.kind} payload at byte {offset} does "
                                                "not match its md5; shown as read")
        return event, payload

    def filename(self, index: Any) -> str:
        """Resolve an interned filename index (as in ``dynamo_start`` stacks)."""
        if isinstance(index, int):
            return self.strings.get(index, "")
        return str(index) if index is not None else ""


def find_logs(path: str | os.PathLike[str]) -> tuple[list[TraceLog], list[str]]:
    """The trace logs at ``path`` (a file or a directory) and the problems found choosing.

    In a directory, files named like torch's (``dedicated_log_torch_trace_*.log``) are
    read, and so is any other ``*.log`` whose first line is a trace line; every other
    file is skipped and named. Raises ``FileNotFoundError`` for a missing path.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise FileNotFoundError(f"no such trace file or directory: {p}")
    if p.is_file():
        return [TraceLog(p)], []
    problems: list[str] = []
    logs: list[TraceLog] = []
    try:
        entries = sorted(e for e in p.iterdir())
    except OSError as e:
        return [], [f"{p}: cannot list the directory ({e.strerror})"]
    for entry in entries:
        if entry.is_dir():
            problems.append(f"{entry}: skipped (a directory; only files directly in {p} "
                            "are read)")
        elif is_trace_name(entry) or (entry.suffix == ".log" and _starts_like_trace(entry)):
            logs.append(TraceLog(entry))
        else:
            problems.append(f"{entry}: skipped (not a TORCH_TRACE log: expected "
                            "dedicated_log_torch_trace_*.log or a .log of trace lines)")
    if not logs:
        problems.append(f"{p}: no trace files in this directory (TORCH_TRACE writes "
                        "dedicated_log_torch_trace_*.log)")
    return logs, problems


def _starts_like_trace(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return bool(_GLOG.match(f.readline(4096)))
    except OSError:
        return False
