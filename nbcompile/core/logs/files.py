"""One ``TORCH_TRACE`` log file streamed into events (file-only concerns, no event parsing).

``TraceLog`` scans a file in large blocks (one regex search per block finds the header
lines, ``headers.py``; payload lines are never looked at one by one), decodes only the
headers (torch's own chromium headers are matched, not decoded: the index keeps only
where they are), and remembers where each payload lies (``PayloadRef``); payloads are read
on demand, at most ``_MAX_PAYLOAD`` of each, and checked against their md5. The
interned-string table (``str`` events) is kept per file.
What is wrong in a file (truncated last line, corrupt JSON, md5 mismatch, empty file,
lines that are not trace lines) is collected in ``problems`` as ``file:line: what``;
nothing here raises on bad content. Turning events into records is the parsers' job.

Logs are untrusted input: only regular files are opened (``paths.open_regular``), a file
found in a directory only while it resolves inside it, and an over-long line is skipped,
not held.
"""

from __future__ import annotations

import hashlib
import json
import os
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from .events import LogEvent, PayloadRef, bad_ids, event_kind, valid_id
from .headers import CHROMIUM, GLOG, HEADER_AT, BadMetadata, decode_metadata, without_surrogates
from .paths import NotRegularFile, open_regular, printable, rank_from_name

_CHUNK = 256 << 10  # blocks that stay in cache while scanned
#: A longer header line is skipped (torch's biggest, compilation_metrics, are ~40 kB; a
#: header's JSON can take ~25x its size in objects). Payload lines are never held.
_MAX_LINE = 4 << 20
#: A longer payload is read only this far (noted; its md5 not checked).
_MAX_PAYLOAD = 32 << 20
_MAX_PROBLEMS_PER_KIND = 10
#: Chromium events located, not decoded: compile key -> (lineno of the first, header offsets).
Located = dict[tuple[int, int, int], tuple[int, "array[int]"]]


def _mb(n: int) -> str:
    return f"{n / (1 << 20):g} MB" if n >= 1 << 20 else f"{n} bytes"


def _untab(raw: bytes) -> bytes:
    """Payload lines as written (each line's tab prefix removed)."""
    data = raw.replace(b"\n\t", b"\n")
    return data[1:] if data.startswith(b"\t") else data


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

    def open(self) -> BinaryIO:
        """The file, opened for reading (only a regular file; see ``open_regular``)."""
        if self.root is None:
            return open_regular(self.path)
        real = self.path.resolve(strict=True)
        if not real.is_relative_to(self.root):
            raise NotRegularFile(f"{printable(self.path)}: now a symlink out of the "
                                 "directory; not followed")
        return open_regular(real)

    # --- reading ---
    def events(self, chromium: Located | None = None,
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

    def _events(self, f: BinaryIO, chromium: Located | None,
                progress: Callable[[int], None] | None) -> Iterator[LogEvent]:
        """The scan: big blocks, header lines found by one regex search per block, payload
        lines never looked at one by one (their bytes are counted, not split), line numbers
        counted with ``bytes.count``. A line longer than ``_MAX_LINE`` is skipped (only
        searched for its end), never held whole."""
        chunk, max_line = _CHUNK, _MAX_LINE
        headers = HEADER_AT.finditer
        # with ``chromium``, torch's own chromium headers are matched, not decoded
        fast = CHROMIUM.match if chromium is not None else None
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
        m = GLOG.match(line)
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
                    and valid_id(entry[1]):
                self.strings[entry[1]] = entry[0]
            else:
                self.problem(lineno, "json", "malformed interned-string (str) event: expected "
                                             '["text", index]')
            return None
        bad = bad_ids(metadata)
        if bad:
            ids = ("frame_id", "frame_compile_id", "attempt")
            placed = not any(k in ids for k in bad)
            self.problem(lineno, "ids", f"{kind or 'event'} event with malformed "
                         f"{', '.join(bad)} (not a small non-negative integer)"
                         + ("" if placed else ": not placed in a compile"))
            for key in (*bad, *(() if placed else ids)):
                metadata.pop(key, None)
        if self.rank is None and valid_id(rank := metadata.get("rank")):
            self.rank = rank
        md5 = metadata.get("has_payload")
        if md5 is not None and not isinstance(md5, str):
            self.problem(lineno, "json", f"{kind} event: has_payload is not a string; its "
                                         "payload is ignored")
        payload = PayloadRef(0, 0, md5, lineno) if isinstance(md5, str) else None
        return LogEvent(kind, metadata, lineno, payload, offset)

    def _metadata(self, lineno: int, raw: bytes, complete: bool = True, column: int = 0
                  ) -> dict[str, Any] | None:
        """The header's JSON object (which starts at ``column``), or None (noted) when it
        is not one (on a line cut short, only a decoded value that is not an object is
        noted: the cut explains the rest)."""
        metadata = decode_metadata(raw, column)
        if isinstance(metadata, BadMetadata):
            if complete or metadata.decoded:
                self.problem(lineno, "json", metadata.what)
            return None
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
                m = GLOG.match(header)
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
        metadata = without_surrogates(metadata, header)
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
