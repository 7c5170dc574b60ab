"""A log file's compiles indexed from event headers only (no payload is read).

Compile ids, frames, status, times and cache hits come from event metadata; the events
whose payloads make a compile's contents are only located (``CompileEvents``), to be read
on first access (``contents``). Every event is indexed on its own: one that cannot be
read is noted in the log's problems and the rest still read.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..records import SourceLine
from ..trace.parsed import Metrics
from ..trace.parsers import (
    COLLECTIVE_SCHEDULE_ARTIFACT,
    CONTENT_KINDS,
    KNOWN_KINDS,
    compilation_metrics,
    is_content_artifact,
)
from ..trace.payloads import SourceReader, parse_dynamo_message
from .contents import CompileEvents
from .events import LogEvent
from .fields import checked_metrics, checked_start, event_problem, number, whole
from .files import TraceLog
from .paths import printable
from .record import TraceCompile

Key = tuple[int, int, int]  # (frame id, frame compile id, attempt)


@dataclass
class _Attempt:
    """One compile attempt's headers, gathered while the log is indexed."""

    key: Key
    first_lineno: int
    start: LogEvent | None = None
    metrics: dict[str, Any] | None = None
    metrics_event: LogEvent | None = None
    bwd_metrics: dict[str, Any] | None = None
    events: list[LogEvent] = field(default_factory=list)
    cache: Counter[str] = field(default_factory=Counter)
    graph_hashes: list[str] = field(default_factory=list)
    collectives: list[LogEvent] = field(default_factory=list)  # collective schedules
    chromium: array[int] = field(default_factory=lambda: array("q"))  # header offsets


def index_compiles(log: TraceLog, unknown: Counter[str], reader: SourceReader | None = None,
                   progress: Callable[[int], None] | None = None) -> list[TraceCompile]:
    """The compiles of one log file, in log order, from its event headers. ``unknown``
    counts the event kinds nbcompile does not know; ``reader``: where the compiles'
    source lines come from when their contents are read; ``progress``: told the bytes
    read so far."""
    return _compiles(log, _index(log, unknown, progress), reader)


def _index(log: TraceLog, unknown: Counter[str],
           progress: Callable[[int], None] | None = None) -> dict[Key, _Attempt]:
    attempts: dict[Key, _Attempt] = {}
    chromium: dict[Key, tuple[int, array[int]]] = {}
    for event in log.events(chromium, progress):
        try:
            _index_event(log, event, attempts, unknown)
        except Exception as e:  # one malformed event never stops the file
            event_problem(log, event, e)
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
                 attempts: dict[Key, _Attempt], unknown: Counter[str]) -> None:
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
        event.metadata[kind] = checked_start(log, event)
        attempt.start = event
    elif kind == "compilation_metrics":
        attempt.metrics = event.metadata[kind] = checked_metrics(log, event)
        attempt.metrics_event = event
    elif kind == "bwd_compilation_metrics":
        attempt.bwd_metrics = event.metadata[kind] = checked_metrics(log, event)
    elif kind == "artifact":
        name = event.artifact_name
        if name.endswith(("_cache_hit", "_cache_miss", "_cache_bypass")):
            attempt.cache[name] += 1
        elif name == COLLECTIVE_SCHEDULE_ARTIFACT:
            attempt.collectives.append(event)
        elif is_content_artifact(name):
            attempt.events.append(event)
    elif kind in CONTENT_KINDS:
        attempt.events.append(event)
        if kind == "dynamo_output_graph" and event.payload is not None:
            attempt.graph_hashes.append(event.payload.md5)


def _compiles(log: TraceLog, attempts: dict[Key, _Attempt],
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
            event_problem(log, attempt.metrics_event or attempt.start, e)
    return out


def _compile(log: TraceLog, attempts: dict[Key, _Attempt],
             finals: dict[tuple[int, int], int], key: Key,
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
        _events=CompileEvents(
            log, start=start, events=attempt.events,
            # the recompile reason is logged once, before attempt 0: every attempt shares it
            shared=[e for e in base.events if e.artifact_name == "recompile_reasons"]
            if attempt is not base else [],
            metrics=attempt.metrics_event, chromium=attempt.chromium, reader=reader,
            collectives=attempt.collectives),
        _graph_hashes=tuple(attempt.graph_hashes),
    )
    try:
        _set_status(compile_, attempt, final)
    except Exception as e:
        event_problem(log, attempt.metrics_event or final.metrics_event, e)
        compile_.status = "failed"
        compile_.fail_reason = "unknown: its compilation_metrics could not be read"
    return compile_


def _set_status(c: TraceCompile, attempt: _Attempt, final: _Attempt) -> None:
    metrics = attempt.metrics
    if metrics is not None:
        parsed = compilation_metrics({"compilation_metrics": metrics}, "")
        total = parsed.times.get("total_s", 0.0)
        c.compile_time_s = float(total) if number(total) else 0.0
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
        c.compile_time_s = float(before) if number(before) else 0.0
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
    phases = {k: v for k, v in metrics.phases.items() if number(v)}
    if bwd and number(bwd.get("inductor_compile_time_s")):
        phases["backward Inductor"] = float(bwd["inductor_compile_time_s"])
    return phases


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
    return [SourceLine(log.filename(f.get("filename")), whole(f.get("line") or 0) or 0,
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

