"""Events of one Dynamo frame compile -> one ``CompileRecord``.

``CompileBuilder`` knows nothing of targets, sessions or IPython: the live capture
session and a ``TORCH_TRACE`` log reader feed it the same ``TraceEvent`` values::

    builder = CompileBuilder()
    for event in events:
        record = builder.feed(event)   # the finished CompileRecord, or None
        if record is not None: ...

A compile is keyed by ``(frame_id, frame_compile_id)``; it opens at ``dynamo_start``
(events seen earlier wait for it, parsed) and closes at ``compilation_metrics``. Events
that arrive after that (e.g. the backward graph's code, compiled at the first backward
call) still update the finished record: ``updated`` names it after such a ``feed``.
Each event is parsed once, as it arrives; ``fields`` holds what the last ``feed`` parsed
(the live progress tracker reads it rather than decoding the payload again).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..records import CompileRecord, SourceLine, TargetError
from .compile_id import CompileId
from .kernel_lines import apply_provenance
from .listener import StringTable, TraceEvent
from .output_code import split_kernels
from .parsers import Fields, Metrics, Phase, explain_reasons, parse

Key = tuple[int, int]


@dataclass
class _Compile:
    """One frame compile being built (or finished, still open to late events)."""

    record: CompileRecord
    recompile_reasons: list[str] = field(default_factory=list)
    recompile_newest: list[str] = field(default_factory=list)
    error_stack: list[SourceLine] = field(default_factory=list)
    phases: list[Phase] = field(default_factory=list)
    failure: TargetError | None = None
    cache_keys: list[tuple[str, str]] = field(default_factory=list)  # (artifact, key)


class CompileBuilder:
    """Accumulate trace events into ``CompileRecord`` values, one per frame compile."""

    def __init__(self, strings: StringTable | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.strings = strings if strings is not None else StringTable()
        self._clock = clock
        self._open: dict[Key, _Compile] = {}
        self._done: dict[Key, _Compile] = {}
        self._early: dict[Key, list[Fields]] = {}  # parsed events waiting for their start
        self.updated: CompileRecord | None = None  # finished record the last feed changed
        self.fields: Fields | None = None  # what the last feed parsed (None: not parsed)

    def feed(self, event: TraceEvent) -> CompileRecord | None:
        """Take one event; return the compile it finished (at ``compilation_metrics``).
        Events outside a compile (no compile id) are not parsed (``fields`` is None)."""
        self.updated = None
        self.fields = None
        key = event.frame
        if key is None:
            return None
        fields = self.fields = parse(event.kind, event.metadata, event.payload)
        if event.kind == "dynamo_start":
            self._begin(key, event, fields)
            return None
        current = self._open.get(key)
        if current is not None:
            return self._apply(key, current, fields)
        done = self._done.get(key)
        if done is not None:
            if self._late(done, fields):
                self.updated = done.record
        else:
            self._early.setdefault(key, []).append(fields)
        return None

    def record(self, key: Key) -> CompileRecord | None:
        """The record of an open or finished compile."""
        found = self._open.get(key) or self._done.get(key)
        return found.record if found else None

    def failure(self, key: Key) -> TargetError | None:
        """Why a finished compile failed (with the user stack at the failure)."""
        done = self._done.get(key)
        return done.failure if done else None

    def cache_keys(self, key: Key) -> list[tuple[str, str]]:
        """The compile's cache lookups: ``(artifact name, cache key)``, e.g.
        ``("fx_graph_cache_hit", "fwdez7...")``."""
        found = self._open.get(key) or self._done.get(key)
        return list(found.cache_keys) if found else []

    def phases(self, key: Key) -> list[Phase]:
        """The Chrome-trace phase events seen for a compile."""
        found = self._open.get(key) or self._done.get(key)
        return list(found.phases) if found else []

    def _begin(self, key: Key, event: TraceEvent, fields: Fields) -> None:
        stack = fields.get("stack", [])
        innermost: dict[str, Any] = stack[-1] if stack else {}
        cid = event.compile_id or CompileId(*key)
        current = _Compile(CompileRecord(
            compile_id=str(cid.frame_compile),
            frame=innermost.get("name", ""),
            filename=self.strings.filename(innermost.get("filename")),
            firstlineno=innermost.get("line", 0),
            started_at=self._clock(),
        ))
        self._open[key] = current
        self._done.pop(key, None)
        for early in self._early.pop(key, []):
            self._apply(key, current, early)

    def _apply(self, key: Key, current: _Compile, fields: Fields) -> CompileRecord | None:
        record = current.record
        record.graphs.extend(fields.get("graphs", ()))
        record.post_grad_graphs.extend(fields.get("post_grad_graphs", ()))
        record.graph_breaks.extend(fields.get("graph_breaks", ()))
        current.recompile_reasons.extend(fields.get("recompile_reasons", ()))
        current.recompile_newest.extend(fields.get("recompile_newest", ()))
        current.phases.extend(fields.get("phases", ()))
        record.chromium_events.extend(fields.get("chromium_events", ()))
        if "error_stack" in fields:
            current.error_stack = fields["error_stack"]
        if "guards" in fields:
            record.guards = fields["guards"]
        for name, count in fields.get("cache", {}).items():
            record.cache[name] = record.cache.get(name, 0) + count
        current.cache_keys.extend(fields.get("cache_keys", ()))
        if "output_code" in fields:
            _add_output_code(record, fields)
        if "provenance" in fields:
            apply_provenance(record.kernels, fields["provenance"], _traced_files(record))
        if "metrics" in fields:
            return self._finish(key, current, fields["metrics"])
        return None

    def _late(self, done: _Compile, fields: Fields) -> bool:
        """Apply what may still change after the compile closed; True if it did."""
        record = done.record
        record.post_grad_graphs.extend(fields.get("post_grad_graphs", ()))  # the backward's
        done.phases.extend(fields.get("phases", ()))
        record.chromium_events.extend(fields.get("chromium_events", ()))
        if "output_code" in fields:
            _add_output_code(record, fields)
            return True
        if "provenance" in fields:
            apply_provenance(record.kernels, fields["provenance"], _traced_files(record))
            return True
        return False

    def _finish(self, key: Key, current: _Compile, metrics: Metrics) -> CompileRecord:
        del self._open[key]
        self._done[key] = current
        record = current.record
        record.frame = metrics.frame or record.frame
        record.filename = metrics.filename or record.filename
        record.firstlineno = metrics.firstlineno or record.firstlineno
        record.graph_op_count = metrics.graph_op_count
        record.recompile_limit = metrics.recompile_limit
        reasons, newest = ((current.recompile_reasons, current.recompile_newest)
                           if current.recompile_reasons
                           else (metrics.recompile_reasons, metrics.recompile_newest))
        record.recompile_reason = explain_reasons(reasons, newest)
        record.recompile_guard = "; ".join(reasons)
        record.times = dict(metrics.times)
        record.times.setdefault("total_s", round(self._clock() - record.started_at, 4))
        record.phases, record.guard_latency_s = dict(metrics.phases), metrics.guard_latency_s
        if metrics.error:
            record.status = "failed"
            record.error = metrics.error
        if metrics.failure is not None:
            metrics.failure.stack = current.error_stack
            current.failure = metrics.failure
        return record


def _add_output_code(record: CompileRecord, fields: Fields) -> None:
    code = fields["output_code"]
    record.output_code += ("\n\n" if record.output_code else "") + code
    record.output_code_path = fields.get("output_code_path", "")
    post_grad = record.post_grad_graphs[-1] if record.post_grad_graphs else None
    record.kernels.extend(split_kernels(code, record.graphs,
                                                compile_id=record.compile_id,
                                                post_grad_graph=post_grad))


_GRAPH_FILE = re.compile(r"# File: (.+?):\d+ in ")


def _traced_files(record: CompileRecord) -> set[str]:
    """The source files this compile traced: its frame's and those its FX graphs name."""
    files = {record.filename}
    for graph in record.graphs:
        files.update(_GRAPH_FILE.findall(graph))
    return files
