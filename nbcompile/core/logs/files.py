"""Streaming reader of ``TORCH_TRACE`` log files (file-only concerns, no event parsing).

A log is glog-prefixed header lines, each with a JSON metadata object::

    V1122 07:34:03.362000 14222 torch/_dynamo/utils.py:1759] {"dynamo_start": {...}, ...}

followed, when the metadata has ``"has_payload": "<md5>"``, by the payload's lines, each
prefixed with a tab. ``TraceLog`` scans a file in large blocks (one regex search per block
finds the header lines; payload lines are never looked at one by one), decodes only the
headers (torch's own chromium headers are matched, not decoded: the index keeps only
where they are), and remembers where each payload lies (``PayloadRef``); payloads are read
on demand, at most ``_MAX_PAYLOAD`` of each, and checked against their md5. The
interned-string table (``str`` events) is kept per file.
What is wrong in a file (truncated last line, corrupt JSON, md5 mismatch, empty file,
lines that are not trace lines) is collected in ``problems`` as ``file:line: what``;
nothing here raises on bad content. Turning events into records is the parsers' job.

Logs are untrusted input: only regular files are opened (a FIFO would block forever, a
device never end), checked on the open descriptor; in a directory, a symlink is followed
only when it resolves inside that directory; an over-long line is skipped, not held.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Metadata keys that say where an event belongs, not what it is.
KEY_FIELDS = frozenset(
    {"rank", "frame_id", "frame_compile_id", "attempt", "has_payload", "compiled_autograd_id"}
)
# torch: dedicated_log_torch_trace_rank_0_<random>.log; tlparse's inputs: ..._rank_0.log
_RANK_NAME = re.compile(r"^dedicated_log_torch_trace_rank_(\d{1,9})(?:_.*)?\.log$")
_TRACE_NAME = re.compile(r"^dedicated_log_torch_trace_.*\.log$")
#: A newline, then a line that is not a payload line (one search per block finds them).
_HEADER_AT = re.compile(rb"\n[^\t\n]")
_GLOG = re.compile(rb"^[VIWEFD]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")
_ID = rb"(0|[1-9]\d{0,8})"  # a JSON integer below 10**9
#: A chromium event's header exactly as torch writes it (ids, an md5, a payload follows):
#: read without the JSON decoder (the match is the decoding).
_CHROMIUM = re.compile(
    rb'[VIWEFD]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]\n]*\] \{"chromium_event": \{\}, '
    rb'(?:"rank": ' + _ID + rb', )?"frame_id": ' + _ID + rb', "frame_compile_id": ' + _ID
    + rb', "attempt": ' + _ID + rb', "has_payload": "[0-9a-f]{32}"\}\n\t')
_CHUNK = 256 << 10  # blocks that stay in cache while scanned
#: A longer header line is skipped (torch's biggest, compilation_metrics, are ~40 kB; a
#: header's JSON can take ~25x its size in objects). Payload lines are never held.
_MAX_LINE = 4 << 20
#: A longer payload is read only this far (noted; its md5 not checked).
_MAX_PAYLOAD = 32 << 20
_MAX_PROBLEMS_PER_KIND = 10
_MAX_ID = 1 << 31  # frame ids, compile ids, attempts, ranks, string indexes
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


class NotRegularFile(OSError):
    """A path that is not a regular file (FIFO, device, socket, directory)."""


def open_regular(path: str | os.PathLike[str]):  # -> BinaryIO
    """Open ``path`` for reading in binary, only if it is a regular file.

    Checked on the descriptor (opened non-blocking, so a FIFO does not hang the open),
    then switched back to blocking reads. Raises ``NotRegularFile`` (an ``OSError``)
    otherwise.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) \
        | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{printable(path)}: not a regular file ({_file_type(mode)})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _mb(n: int) -> str:
    return f"{n / (1 << 20):g} MB" if n >= 1 << 20 else f"{n} bytes"


def printable(path: str | os.PathLike[str]) -> str:
    """A path as text that encodes as UTF-8 (bytes that are not UTF-8 escaped, ``\\xff``)."""
    return os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")


def _valid_id(value: Any) -> bool:
    return type(value) is int and 0 <= value < _MAX_ID  # bool is not int here


def _clean(value: Any) -> Any:
    """``value`` with lone surrogates (``"\\ud800"`` in the JSON) made printable."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    return value


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


def _untab(raw: bytes) -> bytes:
    """Payload lines as written (each line's tab prefix removed)."""
    data = raw.replace(b"\n\t", b"\n")
    return data[1:] if data.startswith(b"\t") else data


def compile_key(md: dict[str, Any]) -> tuple[int, int, int] | None:
    """``(frame_id, frame_compile_id, attempt)`` of an event's metadata (absent or null
    parts count as 0), or None when it has no valid frame id or a part is malformed."""
    frame = md.get("frame_id")
    fcid = md.get("frame_compile_id") or 0
    attempt = md.get("attempt") or 0
    if not (_valid_id(frame) and _valid_id(fcid) and _valid_id(attempt)):
        return None
    return frame, fcid, attempt


_scan_json = json.scanner.make_scanner(json.JSONDecoder())  # (obj, end) at an index


def _bad_ids(md: dict[str, Any]) -> list[str]:
    """The locating fields of ``md`` that are present (not null) but malformed."""
    bad = []
    for k in ("frame_id", "frame_compile_id", "attempt", "rank"):
        v = md.get(k)
        if v is not None and not (type(v) is int and 0 <= v < _MAX_ID):
            bad.append(k)
    return bad


def rank_from_name(path: str | os.PathLike[str]) -> int | None:
    """The rank in a trace file's name: torch's ``dedicated_log_torch_trace_rank_<N>_*.log``
    or ``dedicated_log_torch_trace_rank_<N>.log`` (as in tlparse's test inputs)."""
    m = _RANK_NAME.match(Path(path).name)
    return int(m.group(1)) if m else None


def is_trace_name(path: str | os.PathLike[str]) -> bool:
    """Whether torch would have named this file (``dedicated_log_torch_trace_*.log``)."""
    return bool(_TRACE_NAME.match(Path(path).name))


def event_kind(metadata: dict[str, Any]) -> str:
    """The event's kind: the first metadata key that is not a locating field."""
    for k in metadata:
        if k not in KEY_FIELDS:
            return k
    return ""


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
    #: Also gets every problem noted from now on (the run's list, for problems found
    #: while contents are built on demand).
    sink: list[str] | None = field(default=None, repr=False)
    #: The directory the user opened (resolved): the file must still resolve inside it
    #: whenever it is opened (a symlink swapped after listing is not followed out).
    root: Path | None = field(default=None, repr=False)
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
        where = f"{printable(self.path)}:{lineno}" if lineno else printable(self.path)
        if n <= _MAX_PROBLEMS_PER_KIND:
            self._add(f"{where}: {what}")

    def _add(self, text: str) -> None:
        self.problems.append(text)
        if self.sink is not None:
            self.sink.append(text)

    def finish_problems(self) -> None:
        """Add ``(and N more ...)`` lines for kinds that were capped."""
        for kind, n in self._problem_counts.items():
            if n > _MAX_PROBLEMS_PER_KIND:
                self._add(f"{printable(self.path)}: ({n - _MAX_PROBLEMS_PER_KIND} more "
                          f"{kind} problem(s) not listed)")
                self._problem_counts[kind] = _MAX_PROBLEMS_PER_KIND  # listed once

    def open(self):  # -> BinaryIO
        """The file, opened for reading (only a regular file; see ``open_regular``)."""
        if self.root is None:
            return open_regular(self.path)
        real = self.path.resolve(strict=True)
        if not real.is_relative_to(self.root):
            raise NotRegularFile(f"{printable(self.path)}: now a symlink out of the "
                                 "directory; not followed")
        return open_regular(real)

    # --- reading ---
    def events(self, chromium: dict[tuple[int, int, int], tuple[int, array[int]]] | None = None,
               progress: Callable[[int], None] | None = None) -> Iterator[LogEvent]:
        """Stream the file's events (``str`` events fill ``strings`` and are not yielded).

        ``chromium``: when given, chromium events written the way torch writes them (ids,
        then an md5, then a payload) are not yielded but indexed here, by compile key:
        ``(lineno of the first, header offsets)`` (the index only needs where they are; the
        other chromium events are still yielded). ``progress`` is called after each block
        read with the bytes of this file read so far. Raises ``OSError``
        (``NotRegularFile`` included) when the file cannot be opened.
        """
        with self.open() as f:
            self.size = os.fstat(f.fileno()).st_size
            if self.size == 0:
                self.problem(None, "empty", "empty file (no trace events)")
                return
            yield from self._events(f, chromium, progress)

    def _events(self, f, chromium: dict[tuple[int, int, int], tuple[int, array[int]]] | None,
                progress: Callable[[int], None] | None) -> Iterator[LogEvent]:
        """The scan: big blocks, header lines found by one regex search per block, payload
        lines never looked at one by one (their bytes are counted, not split), line numbers
        counted with ``bytes.count``. A line longer than ``_MAX_LINE`` is skipped (only
        searched for its end), never held whole."""
        chunk, max_line = _CHUNK, _MAX_LINE
        headers = _HEADER_AT.finditer
        # with ``chromium``, torch's own chromium headers are matched, not decoded
        fast = _CHROMIUM.match if chromium is not None else None
        located: dict[tuple[bytes, ...], tuple[int, array[int]]] = {}  # by the ids' bytes
        pending: LogEvent | None = None  # the last event; its payload ends at the next header
        pending_end = 0  # offset just past its header's newline
        parts: list[bytes] = [b"\n"]  # a newline (file start: a virtual one), then the
        held = 1  # incomplete line after it, possibly in several reads
        at = -1  # file offset of parts[0][0]
        lineno = 1  # the number of the line after that newline
        read = 0
        skipping = False  # inside an over-long line, until its newline
        while data := f.read(chunk):
            pos = read
            read += len(data)
            if progress is not None:
                progress(read)
            if skipping:
                nl = data.find(b"\n")
                if nl < 0:
                    continue
                skipping = False
                data = data[nl:]
                at, lineno, parts, held = pos + nl, lineno + 1, [], 0
            nl = data.rfind(b"\n")
            parts.append(data)
            held += len(data)
            if nl < 0:
                if held > max_line + 1:  # the line after parts[0][0]: skip to its end
                    if (parts[0][1:2] or parts[1][:1]) != b"\t":
                        self.problem(lineno, "long-line", f"a line longer than "
                                     f"{_mb(max_line)} that is not a payload: skipped")
                        if pending is not None:
                            self._close_payload(pending, pending_end, at + 1)
                            yield pending
                            pending = None
                    parts, held, skipping = [], 0, True
                continue
            buf = b"".join(parts) if len(parts) > 1 else data
            cut = held - len(data) + nl  # the last newline in buf
            cursor = 0
            for m in headers(buf, 0, cut):
                p = m.start()
                start = at + p + 1
                if pending is not None:
                    self._close_payload(pending, pending_end, start)
                    yield pending
                    pending = None
                if fast is not None and (c := fast(buf, p + 1)) is not None:
                    where = located.get(ids := c.group(2, 3, 4))
                    if where is None:  # line numbers are counted only where needed
                        lineno += buf.count(b"\n", cursor, p)
                        cursor = p
                        located[ids] = where = (lineno, array("q"))
                    where[1].append(start)
                    if self.rank is None and c.group(1) is not None:
                        self.rank = int(c.group(1))
                    self.events_read += 1
                    continue
                lineno += buf.count(b"\n", cursor, p)
                cursor = p
                end = buf.find(b"\n", p + 1)
                if end - p - 1 > max_line:
                    self.problem(lineno, "long-line", f"a line longer than {_mb(max_line)} "
                                                      "that is not a payload: skipped")
                    continue
                pending = self._decode(lineno, buf[p + 1:end], True, start)
                pending_end = at + end + 1
            lineno += buf.count(b"\n", cursor, cut)
            at += cut
            parts = [buf[cut:]]
            held = len(parts[0])
        if held > 1 or skipping:
            self._truncated = True
            self.problem(lineno, "truncated", "the last line is cut short (no newline at the "
                                              "end: the job stopped mid-write?)")
            line = b"".join(parts)[1:]
            if not skipping and not line.startswith(b"\t"):
                if pending is not None:
                    self._close_payload(pending, pending_end, at + 1)
                    yield pending
                pending = self._decode(lineno, line, False, at + 1)
                pending_end = at + 1 + len(line) + 1
        if pending is not None:
            if pending.payload is not None:
                end = read + (1 if self._truncated else 0)  # as if a newline followed
                self._close_payload(pending, pending_end, end)
            yield pending
        if chromium is not None:
            for ids, (first, offsets) in located.items():
                chromium[(int(ids[0]), int(ids[1]), int(ids[2]))] = (first, offsets)
        self.finish_problems()

    def _close_payload(self, event: LogEvent, begin: int, next_start: int) -> None:
        ref = event.payload
        if ref is None:
            return
        length = max(0, next_start - 1 - begin)  # without the newline ending the payload
        event.payload = PayloadRef(begin, length, ref.md5, ref.lineno)
        if length == 0:
            self.problem(event.lineno, "payload", f"{event.kind} event announces a payload "
                                                  "but none follows")

    def _decode(self, lineno: int, line: bytes, complete: bool, offset: int = 0
                ) -> LogEvent | None:
        m = _GLOG.match(line)
        if m is None:
            self.problem(lineno, "not-trace", "not a trace line: "
                         + line[:60].decode("utf-8", "replace"))
            return None
        metadata = self._metadata(lineno, line[m.end():], complete, m.end())
        if metadata is None:
            return None
        kind = event_kind(metadata)
        self.events_read += 1
        if kind == "str":
            entry = metadata["str"]
            if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str) \
                    and _valid_id(entry[1]):
                self.strings[entry[1]] = entry[0]
            else:
                self.problem(lineno, "json", "malformed interned-string (str) event: expected "
                                             '["text", index]')
            return None
        bad = _bad_ids(metadata)
        if bad:
            ids = ("frame_id", "frame_compile_id", "attempt")
            placed = not any(k in ids for k in bad)
            self.problem(lineno, "ids", f"{kind or 'event'} event with malformed "
                         f"{', '.join(bad)} (not a small non-negative integer)"
                         + ("" if placed else ": not placed in a compile"))
            for key in (*bad, *(() if placed else ids)):
                metadata.pop(key, None)
        if self.rank is None and "rank" in metadata and _valid_id(metadata["rank"]):
            self.rank = metadata["rank"]
        md5 = metadata.get("has_payload")
        if md5 is not None and not isinstance(md5, str):
            self.problem(lineno, "json", f"{kind} event: has_payload is not a string; its "
                                         "payload is ignored")
        payload = PayloadRef(0, 0, md5, lineno) if isinstance(md5, str) else None
        return LogEvent(kind, metadata, lineno, payload, offset)

    def _metadata(self, lineno: int, raw: bytes, complete: bool = True, column: int = 0
                  ) -> dict[str, Any] | None:
        """The header's JSON object (which starts at ``column``), or None (noted) when it
        is not one."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            if complete:
                self.problem(lineno, "json", "event metadata is not valid UTF-8 (at byte "
                                             f"{column + e.start + 1}): skipped")
            return None
        try:
            try:  # the C scanner alone (no whitespace skipping, no trailing-data check)
                metadata, end = _scan_json(text, 0)
            except (ValueError, StopIteration):
                end = -1
            if end != len(text):  # spaces around it, extra data, an error: json.loads
                metadata = json.loads(text)  # reads it or says what is wrong
        except json.JSONDecodeError as e:
            if complete:
                self.problem(lineno, "json", f"corrupt JSON in the event metadata ({e.msg} "
                                             f"at column {column + e.pos + 1})")
            return None
        except (ValueError, RecursionError) as e:  # e.g. a number of 5000 digits, deep nesting
            if complete:
                self.problem(lineno, "json", "unreadable JSON in the event metadata "
                                             f"({type(e).__name__}: {str(e)[:80]})")
            return None
        if not isinstance(metadata, dict):
            self.problem(lineno, "json", "event metadata is not a JSON object")
            return None
        if b"\\u" in raw and _SURROGATE.search(raw):
            metadata = _clean(metadata)
        return metadata

    def read_payload(self, event: LogEvent) -> str:
        """The event's payload text (tab prefixes removed); checked against its md5.

        A mismatch (or an unreadable payload) is noted in ``problems``; what could be read
        is still returned. A payload longer than ``_MAX_PAYLOAD`` is read that far (to its
        last whole line) and noted, never whole.
        """
        ref = event.payload
        if ref is None or ref.length == 0:
            return ""
        capped = ref.length > _MAX_PAYLOAD
        try:
            with self.open() as f:
                f.seek(ref.offset)
                raw = f.read(min(ref.length, _MAX_PAYLOAD))
        except OSError as e:
            self.problem(ref.lineno, "read", f"{event.kind} payload unreadable "
                                             f"({e.strerror or e})")
            return ""
        if capped:
            raw = raw[:raw.rfind(b"\n")] if b"\n" in raw else raw
            self.problem(ref.lineno, "payload-size", f"{event.kind} payload of "
                         f"{_mb(ref.length)}: only its first {_mb(len(raw))} read (its md5 "
                         "not checked)")
        data = _untab(raw)
        del raw
        if not capped and hashlib.md5(data, usedforsecurity=False).hexdigest() != ref.md5:
            self.problem(ref.lineno, "md5", f"{event.kind} payload does not match its md5 "
                                            "(corrupted or cut short); shown as read")
        return data.decode("utf-8", "replace")

    def event_at(self, offset: int, lineno: int = 0) -> tuple[LogEvent | None, str]:
        """Re-read the event whose header starts at ``offset`` and its payload (checked;
        read at most ``_MAX_PAYLOAD`` far).

        For events the index only kept the offset of (e.g. chromium events of a compile).
        """
        try:
            with self.open() as f:
                f.seek(offset)
                header = f.readline(_MAX_LINE + 1)
                m = _GLOG.match(header)
                try:
                    metadata = json.loads(header[m.end():].decode("utf-8")) \
                        if m and header.endswith(b"\n") else None
                except (ValueError, RecursionError):
                    metadata = None
                if not isinstance(metadata, dict):
                    return None, ""
                lines: list[bytes] = []
                left = _MAX_PAYLOAD
                while left > 0 and (line := f.readline(left)).startswith(b"\t"):
                    left -= len(line)
                    lines.append(line[1:].rstrip(b"\n"))
        except OSError:
            return None, ""
        if _SURROGATE.search(header):
            metadata = _clean(metadata)
        data = b"\n".join(lines)
        md5 = metadata.get("has_payload")
        event = LogEvent(event_kind(metadata), metadata, lineno, None, offset)
        if left <= 0:
            self.problem(lineno or None, "payload-size", f"{event.kind} payload at byte "
                         f"{offset}: only its first {_mb(_MAX_PAYLOAD)} read")
        elif isinstance(md5, str) and \
                hashlib.md5(data, usedforsecurity=False).hexdigest() != md5:
            self.problem(lineno or None, "md5", f"{event.kind} payload at byte {offset} does "
                                                "not match its md5; shown as read")
        return event, data.decode("utf-8", "replace")

    def filename(self, index: Any) -> str:
        """Resolve an interned filename index (as in ``dynamo_start`` stacks)."""
        if isinstance(index, int) and not isinstance(index, bool):
            return self.strings.get(index, "")
        return index if isinstance(index, str) else ""


def find_logs(path: str | os.PathLike[str]) -> tuple[list[TraceLog], list[str]]:
    """The trace logs at ``path`` (a file or a directory) and the problems found choosing.

    In a directory, regular files named like torch's (``dedicated_log_torch_trace_*.log``)
    are read, and so is any other ``*.log`` whose first line is a trace line; every other
    entry is skipped and named: subdirectories, FIFOs, devices, sockets, and symlinks that
    resolve outside the directory. Raises ``FileNotFoundError`` for a missing path.
    """
    p = Path(path).expanduser()
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"no such trace file or directory: {p}") from None
    except (OSError, ValueError) as e:
        return [], [f"{printable(p)}: cannot read ({getattr(e, 'strerror', None) or e})"]
    if not stat.S_ISDIR(st.st_mode):
        if not stat.S_ISREG(st.st_mode):
            return [], [f"{printable(p)}: skipped ({_file_type(st.st_mode)}, not a trace "
                        "log file)"]
        return [TraceLog(p)], []
    problems: list[str] = []
    logs: list[TraceLog] = []
    try:
        root = p.resolve(strict=True)
        entries = sorted(p.iterdir())
    except OSError as e:
        return [], [f"{printable(p)}: cannot list the directory ({e.strerror})"]
    for entry in entries:
        why = _not_readable(entry, root)
        if why:
            problems.append(f"{printable(entry)}: skipped ({why})")
        elif is_trace_name(entry) or (entry.suffix == ".log" and _starts_like_trace(entry)):
            logs.append(TraceLog(entry, root=root))
        else:
            problems.append(f"{printable(entry)}: skipped (not a TORCH_TRACE log: expected "
                            "dedicated_log_torch_trace_*.log or a .log of trace lines)")
    if not logs:
        problems.append(f"{printable(p)}: no trace files in this directory (TORCH_TRACE writes "
                        "dedicated_log_torch_trace_*.log)")
    return logs, problems


def _not_readable(entry: Path, root: Path) -> str:
    """Why a directory entry is not read (``""``: a regular file, read it)."""
    try:
        st = entry.lstat()
        if stat.S_ISLNK(st.st_mode):
            target = entry.resolve(strict=True)
            if not target.is_relative_to(root):
                return "a symlink that leads outside the directory; not followed"
            st = target.stat()
    except (OSError, RuntimeError) as e:
        return f"cannot read: {getattr(e, 'strerror', None) or e}"
    if stat.S_ISDIR(st.st_mode):
        return f"a directory; only files directly in {printable(entry.parent)} are read"
    if not stat.S_ISREG(st.st_mode):
        return f"{_file_type(st.st_mode)}, not a regular file"
    return ""


def _starts_like_trace(path: Path) -> bool:
    try:
        with open_regular(path) as f:
            return bool(_GLOG.match(f.readline(4096)))
    except OSError:
        return False
