"""A whole ``TORCH_TRACE`` run: its compiles per rank, and where the ranks differ.

``read_trace(path)`` indexes the logs from their headers only (compile ids, frames,
status, times, cache hits come from event metadata); a compile's graphs, guards, breaks
and generated code are read from the files when first asked for and fed to the same
``CompileBuilder`` and parser table (``parsers``) that serve live capture. Divergences
between ranks (``divergence``) are computed on first access. File concerns (offsets,
ranks, problems) stay in ``files``.

Logs are untrusted input. Every event is read on its own: a malformed field is noted in
``problems`` (``file:line: what``) and the rest still read; no exception from one event
(indexing or building contents) escapes. Source lines come from the log itself
(``sources.LogLines``); local files are read only under an explicit ``source_root``.
Ctrl-C keeps the files read whole, marked ``interrupted`` (``TraceInterrupted``).
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..frames import is_torch_file
from ..records import (
    SCHEMA_VERSION,
    CompileRecord,
    GraphBreak,
    Kernel,
    Omission,
    Record,
    SourceLine,
)
from ..steps import Interrupted, ctrl_c_delivered, ctrl_c_watched
from ..trace.builder import CompileBuilder
from ..trace.listener import StringTable, TraceEvent
from ..trace.parsers import PARSERS, PROVENANCE_ARTIFACT, Metrics, explain_reasons, parse
from ..trace.payloads import (
    SourceReader,
    logged_line,
    parse_dynamo_message,
    reading_sources,
    source_line,
)
from ..units import format_bytes
from .divergence import Divergence, find_divergences
from .files import LogEvent, TraceLog, find_logs, printable
from .sources import LogLines, SourceRoot

TraceStatus = Literal["compiled", "failed", "restarted", "cache_hit"]

#: Events whose payload feeds a compile's contents (read on demand).
_CONTENT_KINDS = frozenset({"dynamo_output_graph", "dynamo_cpp_guards_str", "inductor_output_code",
                            "inductor_post_grad_graph"})
#: (every artifact the parser table reads: torch 2.9's ``after_post_grad_graph`` too)
_CONTENT_ARTIFACTS = frozenset(key.removeprefix("artifact:") for key in PARSERS
                               if key.startswith("artifact:"))
#: Every event kind torch 2.x writes that nbcompile knows (used or deliberately skipped).
KNOWN_KINDS = frozenset({
    "dynamo_start", "dynamo_output_graph", "dynamo_cpp_guards_str", "dynamo_guards",
    "inductor_output_code", "inductor_post_grad_graph", "inductor_pre_grad_graph",
    "inductor_input_graph", "compilation_metrics", "bwd_compilation_metrics", "artifact",
    "chromium_event", "str", "describe_tensor", "describe_storage", "describe_source",
    "create_symbol", "create_unbacked_symbol", "expression_created", "guard_added",
    "guard_added_fast", "guard_on_data_dependent_error", "symbolic_shape_specialization",
    "propagate_real_tensors", "propagate_real_tensors_provenance", "aot_inference_graph",
    "aot_joint_graph", "aot_forward_graph", "aot_backward_graph", "compiled_autograd_graph",
    "optimize_ddp_split_graph", "optimize_ddp_split_child", "missing_fake_kernel",
    "mismatched_fake_kernel", "dump_file", "graph_dump", "link", "export",
    "exported_program", "stack",
})
#: Chromium (``dynamo_timed``) events summed into phases, when present.
_CHROMIUM_PHASES = frozenset({
    "bytecode_tracing", "build_guards", "backend_compile", "aot_collect_metadata",
    "create_aot_dispatcher_function", "inductor_compile", "fx_codegen_and_compile",
    "code_gen", "compile_file", "async_compile.wait", "entire_frame_compile",
})


@dataclass
class TraceCompile(Record):
    """One Dynamo compile attempt read from a trace (``compile_id`` like ``0/0``, ``0/0_1``).

    Index fields come from event metadata; ``graph_breaks``, ``guards``, ``graphs``,
    ``kernels``, ``output_code`` and ``recompile_reason`` are read from the log on first
    access.
    """

    rank: int | None  # the rank whose log holds it (null when no rank is known)
    compile_id: str  # as Dynamo writes it, without brackets: "0/0", "1/2", "0/0_1"
    frame: str  # "fn file:line" of the frame being compiled
    function: str = ""  # the frame's function name
    filename: str = ""  # the frame's file
    lineno: int = 0  # the frame's first line
    status: TraceStatus = "compiled"
    fail_reason: str = ""  # why the compile failed or restarted ("" when it compiled)
    compile_time_s: float = 0.0  # from compilation_metrics
    metric_phases: dict[str, float] = field(default_factory=dict)  # compilation_metrics
    cache: dict[str, int] = field(default_factory=dict)  # hits and misses per cache layer
    stack: list[SourceLine] = field(default_factory=list)  # user stack, outermost first
    log: str = ""  # file:line of the compile's first event
    _source: TraceLog | None = field(default=None, repr=False, compare=False)
    _events: list[LogEvent] = field(default_factory=list, repr=False, compare=False)
    _start: LogEvent | None = field(default=None, repr=False, compare=False)
    _metrics: LogEvent | None = field(default=None, repr=False, compare=False)
    _shared_events: list[LogEvent] = field(default_factory=list, repr=False, compare=False)
    _record: CompileRecord | None = field(default=None, repr=False, compare=False)
    _graph_hashes: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _chromium: array[int] = field(default_factory=lambda: array("q"), repr=False,
                                  compare=False)
    _phases: dict[str, float] | None = field(default=None, repr=False, compare=False)
    _reader: SourceReader | None = field(default=None, repr=False, compare=False)

    COMPUTED = {
        "phases": (dict[str, float], "seconds per compile phase (metrics and chromium events)"),
        "graph_breaks": (list[GraphBreak], "the compile's graph breaks"),
        "recompile_reason": (str, "why this compile recompiled an earlier one (or \"\")"),
        "recompile_guard": (str, "the guard that failed, when known (or \"\")"),
        "guards": (str, "the guards Dynamo installed"),
        "graphs": (list[str], "the FX graphs, as readable code"),
        "kernels": (list[Kernel], "every piece of generated code"),
        "output_code": (str, "the generated module(s)"),
        "contents_omitted": (bool, "published without its contents (breaks, guards, graphs, "
                                   "code) to keep the output within its byte budget"),
    }
    OPTIONAL_KEYS = frozenset({"contents_omitted"})

    @property
    def phases(self) -> dict[str, float]:
        """Seconds per compile phase: ``compilation_metrics``' phase times, plus the
        durations of Dynamo's timed regions from the chromium events (read on demand)."""
        if self._phases is None:
            self._phases = dict(self.metric_phases)
            if self._source is not None:
                with reading_sources(self._reader or logged_line):
                    chromium = _chromium_phases(self._source, self._chromium)
                for name, seconds in chromium.items():
                    self._phases.setdefault(name, seconds)
        return self._phases

    # --- contents, read on demand ---
    def content(self) -> CompileRecord:
        """The compile's full contents (built once from its events' payloads)."""
        if self._record is None:
            self._record = _build_record(self)
        return self._record

    @property
    def graph_breaks(self) -> list[GraphBreak]:
        return self.content().graph_breaks

    @property
    def recompile_reason(self) -> str:
        return self.content().recompile_reason

    @property
    def recompile_guard(self) -> str:
        return self.content().recompile_guard

    @property
    def guards(self) -> str:
        return self.content().guards

    @property
    def graphs(self) -> list[str]:
        return self.content().graphs

    @property
    def kernels(self) -> list[Kernel]:
        return self.content().kernels

    @property
    def output_code(self) -> str:
        return self.content().output_code

    def to_dict(self, contents: bool = True) -> dict[str, Any]:
        """The compile as a record; with ``contents=False`` its index only (the contents'
        fields empty, nothing read from the logs but its chromium events)."""
        data = super().to_dict()
        if not contents:
            data.update(phases=self.phases, graph_breaks=[], recompile_reason="",
                        recompile_guard="", guards="", graphs=[], kernels=[], output_code="")
            return data
        record = self.content()
        data.update(
            phases=self.phases,
            graph_breaks=[b.to_dict() for b in record.graph_breaks],
            recompile_reason=record.recompile_reason,
            recompile_guard=record.recompile_guard,
            guards=record.guards,
            graphs=list(record.graphs),
            kernels=[k.to_dict() for k in record.kernels],
            output_code=record.output_code,
        )
        return data


@dataclass
class TraceRecord(Record):
    """A TORCH_TRACE run (one log file or a directory of per-rank logs).

    ``nbcompile.TraceReport`` adds the rich reprs (rendering lives outside ``core``).
    """

    path: str  # the log file or directory opened
    ranks: list[int] = field(default_factory=list)  # sorted; empty when no rank is known
    compiles: list[TraceCompile] = field(default_factory=list)  # log order, every rank
    problems: list[str] = field(default_factory=list)  # "file:line: what was wrong"
    files: list[str] = field(default_factory=list)  # the trace files read
    unknown_events: dict[str, int] = field(default_factory=dict)  # event kind -> count
    events: int = 0  # trace lines read
    bytes_read: int = 0  # bytes of log indexed
    # Ctrl-C stopped it: only the files read whole are in (problems[0] names the rest)
    interrupted: bool = False
    _divergences: list[Divergence] | None = field(default=None, repr=False)
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["trace"] = "trace"

    OPTIONAL_KEYS = frozenset({"bytes_read", "truncated", "omitted", "interrupted"})
    COMPUTED = {
        "divergences": (list[Divergence], "where the ranks compiled differently"),
        "truncated": (bool, "set when published inline and some text was capped"),
        "omitted": (list[Omission], "parts left out of a published output to keep it within "
                                    "its byte budget (`how` gets them)"),
    }

    @property
    def divergences(self) -> list[Divergence]:
        """Where the ranks compiled differently (empty with fewer than two ranks)."""
        if self._divergences is None:
            try:
                self._divergences = find_divergences(self.compiles)
            except Exception as e:  # a hostile log must not take the report down
                self._divergences = []
                self.problems.append(f"{self.path}: where the ranks differ could not be "
                                     f"worked out ({type(e).__name__}: {str(e)[:120]})")
        return self._divergences

    def compile(self, compile_id: str, rank: int | None = None) -> TraceCompile:
        """The compile ``compile_id`` (``"0/1"``, ``"[0/1]"`` or ``"0/1_1"``) of ``rank``
        (the lowest rank that has it when ``rank`` is None)."""
        cid = compile_id.strip().strip("[]")
        found = [c for c in self.compiles if c.compile_id == cid
                 and (rank is None or c.rank == rank)]
        if not found:
            where = f" on rank {rank}" if rank is not None else ""
            known = sorted({c.compile_id for c in self.compiles if rank is None or c.rank == rank})
            raise KeyError(f"no compile {cid!r}{where} in {self.path}; compile ids: "
                           f"{', '.join(known) or 'none'}")
        return min(found, key=lambda c: -1 if c.rank is None else c.rank)

    def by_rank(self) -> dict[int | None, list[TraceCompile]]:
        """Compiles grouped by rank, each in log order."""
        out: dict[int | None, list[TraceCompile]] = {}
        for c in self.compiles:
            out.setdefault(c.rank, []).append(c)
        return out

    def to_dict(self) -> dict[str, Any]:
        compiles = [c.to_dict() for c in self.compiles]  # first: reading them may note
        divergences = [d.to_dict() for d in self.divergences]  # problems
        data = super().to_dict()
        data["compiles"] = compiles
        data["divergences"] = divergences
        return data

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.path}: {len(self.compiles)} compile(s), "
                f"ranks {self.ranks or 'unknown'}, {len(self.divergences)} divergence(s), "
                f"{len(self.problems)} problem(s)>")


# --- indexing ---
@dataclass
class _Attempt:
    key: tuple[int, int, int]
    first_lineno: int
    start: LogEvent | None = None
    metrics: dict[str, Any] | None = None
    metrics_event: LogEvent | None = None
    bwd_metrics: dict[str, Any] | None = None
    events: list[LogEvent] = field(default_factory=list)
    cache: Counter[str] = field(default_factory=Counter)
    graph_hashes: list[str] = field(default_factory=list)
    chromium: array[int] = field(default_factory=lambda: array("q"))  # header offsets


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
                    attempts = _index(log, file_unknown, file_read)
                    compiles = _compiles(log, attempts, reader)
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
    names = [_show(printable(log.path.name), 80) for log in unread[:_UNREAD_NAMED]]
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


def _index(log: TraceLog, unknown: Counter[str],
           progress: Callable[[int], None] | None = None
           ) -> dict[tuple[int, int, int], _Attempt]:
    attempts: dict[tuple[int, int, int], _Attempt] = {}
    chromium: dict[tuple[int, int, int], tuple[int, array[int]]] = {}
    for event in log.events(chromium, progress):
        try:
            _index_event(log, event, attempts, unknown)
        except Exception as e:  # one malformed event never stops the file
            _event_problem(log, event, e)
    for key, (lineno, offsets) in chromium.items():  # indexed by the reader, unparsed
        attempt = attempts.get(key)
        if attempt is None:
            attempts[key] = _Attempt(key, lineno, chromium=offsets)
            continue
        attempt.first_lineno = min(attempt.first_lineno, lineno)
        attempt.chromium = array("q", sorted([*attempt.chromium, *offsets])) \
            if attempt.chromium else offsets
    return attempts


def _index_event(log: TraceLog, event: LogEvent,
                 attempts: dict[tuple[int, int, int], _Attempt], unknown: Counter[str]) -> None:
    kind = event.kind
    if kind not in KNOWN_KINDS:
        unknown[kind or "(no kind)"] += 1
    key = event.compile_key
    if key is None or kind in ("describe_tensor", "describe_storage", "describe_source"):
        return
    attempt = attempts.get(key)
    if attempt is None:
        attempt = attempts[key] = _Attempt(key, event.lineno)
    if kind == "chromium_event":
        attempt.chromium.append(event.offset)
    elif kind == "dynamo_start":
        event.metadata[kind] = _checked_start(log, event)
        attempt.start = event
    elif kind == "compilation_metrics":
        attempt.metrics = event.metadata[kind] = _checked_metrics(log, event)
        attempt.metrics_event = event
    elif kind == "bwd_compilation_metrics":
        attempt.bwd_metrics = event.metadata[kind] = _checked_metrics(log, event)
    elif kind == "artifact":
        name = event.artifact_name
        if name.endswith(("_cache_hit", "_cache_miss", "_cache_bypass")):
            attempt.cache[name] += 1
        elif name in _CONTENT_ARTIFACTS:
            attempt.events.append(event)
    elif kind in _CONTENT_KINDS:
        attempt.events.append(event)
        if kind == "dynamo_output_graph" and event.payload is not None:
            attempt.graph_hashes.append(event.payload.md5)


def _event_problem(log: TraceLog, event: LogEvent | None, error: BaseException) -> None:
    kind = (event.kind if event is not None else "") or "event"
    log.problem(event.lineno if event is not None else None, "event",
                f"{_show(kind, 40)} event could not be read ({type(error).__name__}: "
                f"{_show(str(error), 120)}); skipped")


# --- fields checked once, at indexing (the parsers then see well-typed values) ---
def _show(value: Any, limit: int = 40) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _bad(log: TraceLog, event: LogEvent, name: str, value: Any, expected: str) -> None:
    log.problem(event.lineno, "field", f"{event.kind}: {name} is not {expected} "
                                       f"({_show(repr(value))}); ignored")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) and abs(value) < 1e18


def _whole(value: Any) -> int | None:
    """A line number or count from a JSON value (int, integral float, digits), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 1 << 62 else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if abs(value) < 1 << 62 else None
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,15}\s*", value):
        return int(value)
    return None


#: compilation_metrics fields the parsers read, by the type they must have.
_METRIC_TEXT = frozenset({"co_name", "co_filename", "fail_type", "fail_reason",
                          "fail_user_frame_filename", "dynamo_config"})
_METRIC_WHOLE = frozenset({"co_firstlineno", "graph_op_count", "fail_user_frame_lineno"})
#: Config snapshots no parser reads (~30 kB a compile): not kept in the index.
_METRIC_UNREAD = frozenset({"inductor_config", "functorch_config", "compiler_config"})


def _checked_metrics(log: TraceLog, event: LogEvent) -> dict[str, Any]:
    """``compilation_metrics`` with every malformed field it is read for dropped (noted)."""
    data = event.metadata.get(event.kind)
    if not isinstance(data, dict):
        if data is not None:
            _bad(log, event, event.kind, data, "an object")
        return {}
    out: dict[str, Any] = {}
    for k, v in data.items():
        if v is None:
            out[k] = v
        elif k in _METRIC_UNREAD:
            continue
        elif k in _METRIC_TEXT:
            if isinstance(v, str):
                out[k] = v
            else:
                _bad(log, event, k, v, "text")
        elif k in _METRIC_WHOLE or k.endswith("_count"):
            n = _whole(v)
            if n is None:
                _bad(log, event, k, v, "a whole number")
            else:
                out[k] = n
        elif k.endswith(("_us", "_s", "_ms", "_ns")):
            if _number(v):
                out[k] = v
            else:
                _bad(log, event, k, v, "a finite number")
        elif k in ("recompile_reason", "restart_reasons"):
            if isinstance(v, str) or (isinstance(v, list)
                                       and all(isinstance(i, str) for i in v)):
                out[k] = v
            else:
                _bad(log, event, k, v, "text or a list of texts")
        else:
            out[k] = v
    return out


def _checked_start(log: TraceLog, event: LogEvent) -> dict[str, Any]:
    """``dynamo_start`` with its stack's frames well-typed (malformed parts noted)."""
    data = event.metadata.get(event.kind)
    if not isinstance(data, dict):
        if data is not None:
            _bad(log, event, event.kind, data, "an object")
        return {"stack": []}
    stack = data.get("stack")
    if stack is None:
        return {**data, "stack": []}
    if not isinstance(stack, list):
        _bad(log, event, "stack", stack, "a list of frames")
        return {**data, "stack": []}
    frames: list[dict[str, Any]] = []
    for frame in stack:
        if not isinstance(frame, dict):
            _bad(log, event, "a stack frame", frame, "an object")
            continue
        checked = dict(frame)
        line = _whole(frame.get("line", 0) or 0)
        if line is None:
            _bad(log, event, "a stack frame's line", frame.get("line"), "a whole number")
        checked["line"] = line or 0
        for name in ("name", "loc"):
            if name in frame and not isinstance(frame[name], str):
                _bad(log, event, f"a stack frame's {name}", frame[name], "text")
                checked[name] = ""
        filename = frame.get("filename")
        if filename is not None and (isinstance(filename, bool)
                                     or not isinstance(filename, (int, str))):
            _bad(log, event, "a stack frame's filename", filename, "text or a string index")
            checked["filename"] = ""
        frames.append(checked)
    return {**data, "stack": frames}


def _compiles(log: TraceLog, attempts: dict[tuple[int, int, int], _Attempt],
              reader: SourceReader | None = None) -> list[TraceCompile]:
    finals: dict[tuple[int, int], int] = {}  # (frame, frame compile) -> last attempt seen
    for (frame, fcid, attempt) in attempts:
        finals[(frame, fcid)] = max(attempt, finals.get((frame, fcid), 0))
    out: list[TraceCompile] = []
    for key, attempt in sorted(attempts.items(), key=lambda kv: kv[1].first_lineno):
        if attempt.start is None and attempt.metrics is None and not attempt.events:
            continue  # only timing or unknown events under this id: not a compile
        try:
            out.append(_compile(log, attempts, finals, key, attempt, reader))
        except Exception as e:  # never one compile's fault to lose the others
            _event_problem(log, attempt.metrics_event or attempt.start, e)
    return out


def _compile(log: TraceLog, attempts: dict[tuple[int, int, int], _Attempt],
             finals: dict[tuple[int, int], int], key: tuple[int, int, int],
             attempt: _Attempt, reader: SourceReader | None) -> TraceCompile:
    frame, fcid, n = key
    base = attempts.get((frame, fcid, 0), attempt)
    final = attempts.get((frame, fcid, finals[(frame, fcid)]), attempt)
    start = attempt.start or base.start
    stack = _stack(log, start)
    metrics = attempt.metrics or {}
    final_metrics = final.metrics or {}
    function = str(metrics.get("co_name") or final_metrics.get("co_name")
                   or _innermost_name(start))
    filename = str(metrics.get("co_filename") or final_metrics.get("co_filename")
                   or (stack[-1].filename if stack else ""))
    lineno = int(metrics.get("co_firstlineno") or final_metrics.get("co_firstlineno")
                 or (stack[-1].lineno if stack else 0))
    compile_ = TraceCompile(
        rank=log.rank,
        compile_id=f"{frame}/{fcid}" + (f"_{n}" if n else ""),
        frame=f"{function} {filename}:{lineno}" if filename else function,
        function=function,
        filename=filename,
        lineno=lineno,
        cache=dict(attempt.cache) or _cache_counts(metrics),
        stack=stack,
        log=f"{printable(log.path)}:{attempt.first_lineno}",
        _source=log,
        _events=attempt.events,
        # the recompile reason is logged once, before attempt 0: every attempt shares it
        _shared_events=[e for e in base.events if e.artifact_name == "recompile_reasons"]
        if attempt is not base else [],
        _graph_hashes=tuple(attempt.graph_hashes),
        _chromium=attempt.chromium,
        _start=start,
        _metrics=attempt.metrics_event,
        _reader=reader,
    )
    try:
        _set_status(compile_, attempt, final)
    except Exception as e:
        _event_problem(log, attempt.metrics_event or final.metrics_event, e)
        compile_.status = "failed"
        compile_.fail_reason = "unknown: its compilation_metrics could not be read"
    return compile_


def _set_status(c: TraceCompile, attempt: _Attempt, final: _Attempt) -> None:
    metrics = attempt.metrics
    if metrics is not None:
        parsed: Metrics = parse("compilation_metrics", {"compilation_metrics": metrics},
                                "")["metrics"]
        total = parsed.times.get("total_s", 0.0)
        c.compile_time_s = float(total) if _number(total) else 0.0
        c.metric_phases = _phases(parsed, attempt.bwd_metrics)
        if parsed.error:
            c.status = "failed"
            fail_type, _, reason = parsed.error.partition(": ")
            c.fail_reason = f"{fail_type}: {_reason(reason)}".rstrip(": ")
        elif c.cache and all(k.endswith("_hit") for k in c.cache):
            c.status = "cache_hit"
        return
    if final is not attempt and final.metrics is not None:
        c.status = "restarted"
        reasons = final.metrics.get("restart_reasons") or []
        if isinstance(reasons, list) and reasons:
            c.fail_reason = _reason(reasons[0])
        before = final.metrics.get("dynamo_time_before_restart_s")
        c.compile_time_s = float(before) if _number(before) else 0.0
        return
    c.status = "failed"
    c.fail_reason = "the log ends before this compile finished (no compilation_metrics)"


def _reason(text: object) -> str:
    """A Dynamo message in one line: ``title: explanation``, else all its lines joined."""
    message = parse_dynamo_message(str(text or ""))
    if message.explanation:
        return message.summary
    return " ".join(ln.strip() for ln in str(text or "").splitlines() if ln.strip())


def _phases(metrics: Metrics, bwd: dict[str, Any] | None) -> dict[str, float]:
    """The exclusive compile phases live capture shows (``phases.compile_phases``), plus
    the backward graph's Inductor time when it was compiled."""
    phases = {k: v for k, v in metrics.phases.items() if _number(v)}
    if bwd and _number(bwd.get("inductor_compile_time_s")):
        phases["backward Inductor"] = float(bwd["inductor_compile_time_s"])
    return phases


def _chromium_phases(log: TraceLog, offsets: array[int]) -> dict[str, float]:
    """Durations (s) of the named ``dynamo_timed`` regions, pairing B and E events."""
    open_at: dict[str, list[float]] = {}
    out: dict[str, float] = {}
    for offset in offsets:
        event = None
        try:
            event, payload = log.event_at(offset)
            if event is None:
                continue
            phases = parse(event.kind, event.metadata, payload).get("phases", ())
        except Exception as e:  # a malformed chromium event: noted, the others still read
            _event_problem(log, event, e)
            continue
        for phase in phases:
            if phase.name not in _CHROMIUM_PHASES or not _number(phase.ts_us):
                continue
            if phase.ph == "B":
                open_at.setdefault(phase.name, []).append(phase.ts_us)
            elif phase.ph == "E" and open_at.get(phase.name):
                seconds = (phase.ts_us - open_at[phase.name].pop()) / 1e6
                if _number(seconds):
                    out[phase.name] = round(out.get(phase.name, 0.0) + seconds, 6)
    return out


def _cache_counts(metrics: dict[str, Any]) -> dict[str, int]:
    out = {}
    for layer in ("inductor_fx", "aotautograd"):
        for where in ("local", "remote"):
            for what in ("hit", "miss"):
                n = metrics.get(f"{layer}_{where}_cache_{what}_count")
                if isinstance(n, int) and n:
                    out[f"{layer}_{where}_cache_{what}"] = n
    return out


def _stack(log: TraceLog, start: LogEvent | None) -> list[SourceLine]:
    """The compile's user stack (``dynamo_start``, checked at indexing); each frame's
    text is the ``loc`` the log printed (no file is read)."""
    data = _dict(start.metadata.get("dynamo_start")) if start else {}
    frames = data.get("stack")
    if not isinstance(frames, list):
        return []
    return [SourceLine(log.filename(f.get("filename")), _whole(f.get("line") or 0) or 0,
                       str(f.get("loc") or f.get("name") or ""))
            for f in frames if isinstance(f, dict)]


def _innermost_name(start: LogEvent | None) -> str:
    frames = _dict(start.metadata.get("dynamo_start")).get("stack") if start else None
    if not isinstance(frames, list) or not frames or not isinstance(frames[-1], dict):
        return ""
    name = frames[-1].get("name", "")
    return name if isinstance(name, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# --- contents: the events fed through the shared parsers ---
def _synthetic_start(c: TraceCompile) -> LogEvent:
    """A ``dynamo_start`` for a compile whose own was unreadable (e.g. a corrupt line)."""
    frame, _, rest = c.compile_id.partition("/")
    fcid, _, attempt = rest.partition("_")
    stack = [{"line": c.lineno, "name": c.function, "filename": c.filename}]
    return LogEvent("dynamo_start", {"dynamo_start": {"stack": stack}, "frame_id": int(frame),
                                     "frame_compile_id": int(fcid),
                                     "attempt": int(attempt or 0)}, 0)


def _trace_event(log: TraceLog, event: LogEvent) -> TraceEvent | None:
    """The event as the live handler sees it (metadata + payload; its kind first, as
    torch writes it, whatever order the log's keys came in)."""
    metadata = event.metadata
    if event.kind and next(iter(metadata), None) != event.kind:
        metadata = {event.kind: metadata[event.kind], **metadata}
    return TraceEvent.from_metadata(metadata, log.read_payload(event))


def _build_record(c: TraceCompile) -> CompileRecord:
    """The compile's contents, read with its source reader; never raises (what cannot be
    read is noted in the log's problems)."""
    log = c._source
    empty = CompileRecord(compile_id=c.compile_id, frame=c.function, filename=c.filename,
                          firstlineno=c.lineno)
    if log is None:
        return empty
    try:
        with reading_sources(c._reader or logged_line):
            return _build(c, log)
    except Exception as e:  # a bug or a hostile log: the index is still shown
        _event_problem(log, c._start, e)
        return empty


def _build(c: TraceCompile, log: TraceLog) -> CompileRecord:
    """Feed the compile attempt's events to the shared ``CompileBuilder`` (the parsers
    live capture uses): its ``dynamo_start``, the recompile reasons logged before it, its
    own events and, when it finished, its ``compilation_metrics``. Each event on its own:
    one that cannot be read is noted and skipped. Inductor's provenance (kernels' source
    lines) is applied here with the lines the log printed (``_log_provenance``), not fed to
    the builder (whose live mapping reads the files it names)."""
    strings = StringTable()
    for index, text in log.strings.items():
        strings.add({"str": [text, index]})
    builder = CompileBuilder(strings, clock=lambda: 0.0)
    events = [c._start or _synthetic_start(c), *c._shared_events, *c._events]
    if c._metrics is not None:
        events.append(c._metrics)
    key = None
    reasons: list[str] = []  # closed into the record only by compilation_metrics
    newest: list[str] = []  # the newest compiled version's failed guards
    provenance: list[str] = []
    for log_event in events:
        try:
            if log_event.artifact_name == PROVENANCE_ARTIFACT:
                provenance.append(log.read_payload(log_event))
                continue
            event = _trace_event(log, log_event)
            if event is None:
                continue
            if event.artifact_name == "recompile_reasons":
                fields = parse(event.kind, event.metadata, event.payload)
                reasons.extend(fields.get("recompile_reasons", ()))
                newest.extend(fields.get("recompile_newest", ()))
            if event.kind == "dynamo_start" or log_event is c._start:
                key = event.frame
            if event.frame is not None and key is not None and event.frame != key:
                event.frame = key  # the start of attempt 0 opens this attempt's compile
            if log_event is c._metrics:  # its failure's source line is not shown here
                with reading_sources(logged_line):
                    builder.feed(event)
            else:
                builder.feed(event)
        except Exception as e:  # one malformed event: noted, the others still read
            _event_problem(log, log_event, e)
    record = (builder.record(key) if key is not None else None) or CompileRecord(
        compile_id=c.compile_id, frame=c.function)
    for payload in provenance:
        try:
            _log_provenance(record.kernels, payload)
        except Exception as e:
            _event_problem(log, None, e)
    record.compile_id = c.compile_id
    if c._metrics is None and reasons:  # a restarted attempt: the reasons it was made for
        record.recompile_reason = explain_reasons(reasons, newest)
        record.recompile_guard = "; ".join(reasons)
    for kernel in record.kernels:
        kernel.compile_id = c.compile_id
    record.status = "failed" if c.status == "failed" else "ok"
    record.error = c.fail_reason if c.status == "failed" else ""
    record.times = {"total_s": c.compile_time_s} if c.compile_time_s else {}
    return record


_TRACE_FRAME = re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d{1,9})(?:, in [^\n]*\n[ \t]*(?P<code>[^\n]*))?')


def _log_provenance(kernels: list[Kernel], payload: str) -> int:
    """Tie kernels to source lines with Inductor's provenance artifact, as
    ``kernel_lines.apply_provenance`` does live, but each line's text is the code line
    the trace printed (through the source reader in effect): no file named in the log is
    opened. Malformed entries are skipped. Returns how many kernels it mapped."""
    try:
        traces = json.loads(payload)
    except (ValueError, RecursionError):
        return 0
    if not isinstance(traces, dict):
        return 0
    mapped = 0
    for kernel in kernels:
        entries = traces.get(kernel.handle) if kernel.handle else None
        if not isinstance(entries, list):
            continue
        frames: list[SourceLine] = []
        for trace in entries:
            if not isinstance(trace, str):
                continue
            for m in _TRACE_FRAME.finditer(trace):
                filename, lineno = m.group("file"), int(m.group("line"))
                if all((f.filename, f.lineno) != (filename, lineno) for f in frames):
                    frames.append(SourceLine(filename, lineno,
                                             source_line(filename, lineno, m.group("code") or "")))
        user = [f for f in frames if not is_torch_file(f.filename)]
        if user:
            kernel.lines = sorted(user, key=lambda f: (f.filename, f.lineno))
            mapped += 1
    return mapped
