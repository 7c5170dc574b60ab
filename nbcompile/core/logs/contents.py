"""A compile's contents read from its log on demand: its events fed to the shared builder.

``read_trace`` indexes compiles from event headers only; a compile's graphs, guards,
breaks and generated code are read from the files when first asked for
(``build_record``) and fed to the same ``CompileBuilder`` and parser table that serve
live capture, its phases from its chromium events (``CompileEvents.phases``). Each event
on its own: one that cannot be read is noted in the log's problems and skipped; nothing
here raises on bad content. Source lines are the ones the log printed, or what the
compile's source reader allows.
"""

from __future__ import annotations

import json
import re
from array import array
from dataclasses import dataclass, field
from typing import Protocol

from ..frames import is_torch_file
from ..records import CompileRecord, Kernel, RunsAs, SourceLine
from ..trace.builder import CompileBuilder
from ..trace.listener import StringTable, TraceEvent
from ..trace.parsed import (
    ChromiumEvent,
    CollectiveSchedule,
    RecompileReasons,
    TransformedBytecode,
)
from ..trace.parsers import BYTECODE_SUFFIX, PROVENANCE_ARTIFACT, explain_reasons, parse
from ..trace.payloads import SourceReader, logged_line, reading_sources, source_line
from ..trace.runs_as import NOT_IN_LOG, RESUME_NOT_IN_LOG, logged_runs_as
from .events import LogEvent
from .fields import event_problem, number
from .files import TraceLog

#: Chromium (``dynamo_timed``) events summed into phases, when present.
_CHROMIUM_PHASES = frozenset({
    "bytecode_tracing", "build_guards", "backend_compile", "aot_collect_metadata",
    "create_aot_dispatcher_function", "inductor_compile", "fx_codegen_and_compile",
    "code_gen", "compile_file", "async_compile.wait", "entire_frame_compile",
})


class IndexedCompile(Protocol):
    """What building a compile's contents reads of its index (``TraceCompile``)."""

    @property
    def compile_id(self) -> str: ...
    @property
    def function(self) -> str: ...
    @property
    def filename(self) -> str: ...
    @property
    def lineno(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def fail_reason(self) -> str: ...
    @property
    def compile_time_s(self) -> float: ...


@dataclass
class CompileEvents:
    """Where one compile attempt's events lie in its log: what its contents are read from."""

    log: TraceLog
    start: LogEvent | None = None  # its dynamo_start (attempt 0's for a restart)
    events: list[LogEvent] = field(default_factory=list)  # its content events
    # events logged once for every attempt of a frame compile (its recompile reasons)
    shared: list[LogEvent] = field(default_factory=list)
    metrics: LogEvent | None = None  # its compilation_metrics, when it finished
    chromium: array[int] = field(default_factory=lambda: array("q"))  # header offsets
    reader: SourceReader | None = None  # where source lines come from
    # its inductor_collective_schedule artifacts (one per Inductor graph, in log order)
    collectives: list[LogEvent] = field(default_factory=list)

    def phases(self) -> dict[str, float]:
        """Seconds of the named ``dynamo_timed`` regions, from the chromium events."""
        with reading_sources(self.reader or logged_line):
            return _chromium_phases(self.log, self.chromium)

    def collective_schedule(self) -> list[str]:
        """The collectives Inductor scheduled, its graphs' schedules in log order; a
        payload that is not a list of names is noted in the log's problems and skipped."""
        ops: list[str] = []
        for event in self.collectives:
            try:
                parsed = parse(event.kind, event.metadata, self.log.read_payload(event))
                if not isinstance(parsed, CollectiveSchedule):
                    raise ValueError("its payload is not a JSON list of collective names")
                ops.extend(parsed.ops)
            except Exception as e:  # one bad schedule: noted, the others still read
                event_problem(self.log, event, e)
        return ops


def build_record(c: IndexedCompile, events: CompileEvents | None) -> CompileRecord:
    """The compile's contents, read with its source reader; never raises (what cannot be
    read is noted in the log's problems)."""
    empty = CompileRecord(compile_id=c.compile_id, frame=c.function, filename=c.filename,
                          firstlineno=c.lineno)
    if events is None:
        return empty
    try:
        with reading_sources(events.reader or logged_line):
            return _build(c, events)
    except Exception as e:  # a bug or a hostile log: the index is still shown
        event_problem(events.log, events.start, e)
        return empty


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
            parsed = parse(event.kind, event.metadata, payload)
        except Exception as e:  # a malformed chromium event: noted, the others still read
            event_problem(log, event, e)
            continue
        if not isinstance(parsed, ChromiumEvent):
            continue
        phase = parsed.phase
        if phase.name not in _CHROMIUM_PHASES or not number(phase.ts_us):
            continue
        if phase.ph == "B":
            open_at.setdefault(phase.name, []).append(phase.ts_us)
        elif phase.ph == "E" and open_at.get(phase.name):
            seconds = (phase.ts_us - open_at[phase.name].pop()) / 1e6
            if number(seconds):
                out[phase.name] = round(out.get(phase.name, 0.0) + seconds, 6)
    return out


def _synthetic_start(c: IndexedCompile) -> LogEvent:
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


def _build(c: IndexedCompile, events: CompileEvents) -> CompileRecord:
    """Feed the compile attempt's events to the shared ``CompileBuilder`` (the parsers
    live capture uses): its ``dynamo_start``, the recompile reasons logged before it, its
    own events and, when it finished, its ``compilation_metrics``. Each event on its own:
    one that cannot be read is noted and skipped. Inductor's provenance (kernels' source
    lines) is applied here with the lines the log printed (``_log_provenance``), not fed to
    the builder (whose live mapping reads the files it names); a resume function's
    transformed code, where torch logged it, becomes the record's ``runs_as``."""
    log = events.log
    strings = StringTable()
    for index, text in log.strings.items():
        strings.add({"str": [text, index]})
    builder = CompileBuilder(strings, clock=lambda: 0.0)
    fed = [events.start or _synthetic_start(c), *events.shared, *events.events]
    if events.metrics is not None:
        fed.append(events.metrics)
    key = None
    reasons: list[str] = []  # closed into the record only by compilation_metrics
    newest: list[str] = []  # the newest compiled version's failed guards
    versions = 0  # how many compiled versions torch tried, as its record lists them
    provenance: list[str] = []
    bytecode: TransformedBytecode | None = None  # a resume function's code, as torch logs it
    for log_event in fed:
        try:
            if log_event.artifact_name == PROVENANCE_ARTIFACT:
                provenance.append(log.read_payload(log_event))
                continue
            if log_event.artifact_name.endswith(BYTECODE_SUFFIX):
                parsed = parse("artifact", log_event.metadata, log.read_payload(log_event))
                if isinstance(parsed, TransformedBytecode):
                    bytecode = parsed
                continue
            event = _trace_event(log, log_event)
            if event is None:
                continue
            if event.artifact_name == "recompile_reasons":
                parsed = parse(event.kind, event.metadata, event.payload)
                if isinstance(parsed, RecompileReasons):
                    reasons.extend(parsed.reasons)
                    newest.extend(parsed.newest)
                    versions += len(parsed.versions)
            if event.kind == "dynamo_start" or log_event is events.start:
                key = event.frame
            if event.frame is not None and key is not None and event.frame != key:
                event.frame = key  # the start of attempt 0 opens this attempt's compile
            if log_event is events.metrics:  # its failure's source line is not shown here
                with reading_sources(logged_line):
                    builder.feed(event)
            else:
                builder.feed(event)
        except Exception as e:  # one malformed event: noted, the others still read
            event_problem(log, log_event, e)
    record = (builder.record(key) if key is not None else None) or CompileRecord(
        compile_id=c.compile_id, frame=c.function)
    for payload in provenance:
        try:
            _log_provenance(record.kernels, payload)
        except Exception as e:
            event_problem(log, None, e)
    record.compile_id = c.compile_id
    if events.metrics is None and reasons:  # a restarted attempt: the reasons it was made for
        record.recompile_reason = explain_reasons(reasons, newest, versions=versions or None)
        record.recompile_guard = "; ".join(reasons)
    for kernel in record.kernels:
        kernel.compile_id = c.compile_id
    resume = c.function.startswith("torch_dynamo_resume_in_")
    record.runs_as = (logged_runs_as(bytecode.dis, record) if bytecode is not None
                      else RunsAs(problem=RESUME_NOT_IN_LOG if resume else NOT_IN_LOG))
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
