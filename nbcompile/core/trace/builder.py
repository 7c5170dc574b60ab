"""Events of one Dynamo frame compile -> one ``CompileRecord``.

``CompileBuilder`` knows nothing of targets, sessions or IPython: the live capture
session and a ``TORCH_TRACE`` log reader feed it the same ``TraceEvent`` values::

    builder = CompileBuilder()
    for event in events:
        fed = builder.feed(event)   # what this event did: a ``Fed``
        if fed.finished is not None: ...

A compile is keyed by ``(frame_id, frame_compile_id)``; it opens at ``dynamo_start``
(events seen earlier wait for it, parsed) and closes at ``compilation_metrics``. Events
that arrive after that (e.g. the backward graph's code, compiled at the first backward
call) still update the finished record: ``Fed.updated`` names it. Each event is parsed
once, as it arrives, into its typed value (``parsed``); ``Fed.parsed`` hands it on (the
live progress tracker reads it rather than decoding the payload again).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..records import CompileRecord, FailedVersion, TargetError
from .building import Building, time_kernels
from .compile_id import CompileId
from .listener import StringTable, TraceEvent
from .parsed import ChromiumEvent, DynamoStart, Metrics, Parsed, Phase
from .parsers import explain_reasons, parse

Key = tuple[int, int]


@dataclass(frozen=True)
class Fed:
    """What one event did to the compiles being built (``CompileBuilder.feed``)."""

    key: Key | None  # the frame compile it belongs to (None: outside one, not parsed)
    parsed: Parsed | None = None  # its parser's value (None: not parsed, or nothing read)
    finished: CompileRecord | None = None  # the compile it closed (compilation_metrics)
    failure: TargetError | None = None  # with ``finished``: why that compile failed
    # with ``finished``: its cache lookups, ``(artifact name, cache key)``
    cache_keys: tuple[tuple[str, str], ...] = ()
    updated: CompileRecord | None = None  # a finished compile it changed (a late event)


@dataclass(frozen=True)
class Built:
    """A frame compile as built so far: its record, and why it failed once finished."""

    record: CompileRecord
    failure: TargetError | None = None


class CompileBuilder:
    """Accumulate trace events into ``CompileRecord`` values, one per frame compile."""

    def __init__(self, strings: StringTable | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.strings = strings if strings is not None else StringTable()
        self._clock = clock
        self._open: dict[Key, Building] = {}
        self._done: dict[Key, Building] = {}
        self._early: dict[Key, list[Parsed]] = {}  # parsed events waiting for their start

    def feed(self, event: TraceEvent) -> Fed:
        """Take one event; say what it did (``finished`` at ``compilation_metrics``).
        Events outside a compile (no compile id) are not parsed."""
        key = event.frame
        if key is None:
            return Fed(None)
        parsed = parse(event.kind, event.metadata, event.payload)
        if isinstance(parsed, DynamoStart):
            self._begin(key, event, parsed)
            return Fed(key, parsed)
        if parsed is None:
            return Fed(key)
        current = self._open.get(key)
        if current is not None:
            finished = self._apply(key, current, parsed)
            if finished is None:
                return Fed(key, parsed)
            return Fed(key, parsed, finished=finished, failure=current.failure,
                       cache_keys=tuple(current.cache_keys))
        if isinstance(parsed, Metrics):
            # a compile that ended before it started (refused: the recompile limit): what
            # it logged is its own, never a later compile's under the same id (after a reset)
            self._early.pop(key, None)
            return Fed(key, parsed)
        done = self._done.get(key)
        if done is not None and not _starts_a_compile(parsed):
            return Fed(key, parsed, updated=done.record if parsed.late(done) else None)
        # Before its start (a frame compile's first phases come before ``dynamo_start``),
        # also under the key of a finished compile: ``torch._dynamo.reset()`` restarts
        # torch's frame counter, so a new compile can have an earlier one's id.
        self._early.setdefault(key, []).append(parsed)
        return Fed(key, parsed)

    def built(self, key: Key) -> Built | None:
        """An open or finished compile (``failure`` is set once it finished)."""
        found = self._open.get(key) or self._done.get(key)
        return Built(found.record, found.failure) if found else None

    def record(self, key: Key) -> CompileRecord | None:
        """The record of an open or finished compile."""
        found = self._open.get(key) or self._done.get(key)
        return found.record if found else None

    def failure(self, key: Key) -> TargetError | None:
        """Why a finished compile failed (with the user stack at the failure)."""
        done = self._done.get(key)
        return done.failure if done else None

    def phases(self, key: Key) -> list[Phase]:
        """The Chrome-trace phase events seen for a compile."""
        found = self._open.get(key) or self._done.get(key)
        return list(found.phases) if found else []

    def _begin(self, key: Key, event: TraceEvent, start: DynamoStart) -> None:
        innermost = start.innermost
        cid = event.compile_id or CompileId(*key)
        current = Building(CompileRecord(
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

    def _apply(self, key: Key, current: Building, parsed: Parsed) -> CompileRecord | None:
        """Apply one parsed event to an open compile; the record when it closed it."""
        if isinstance(parsed, Metrics):
            return self._finish(key, current, parsed)
        parsed.apply(current)
        return None

    def _finish(self, key: Key, current: Building, metrics: Metrics) -> CompileRecord:
        del self._open[key]
        self._done[key] = current
        record = current.record
        record.frame = metrics.frame or record.frame
        record.filename = metrics.filename or record.filename
        record.firstlineno = metrics.firstlineno or record.firstlineno
        record.graph_op_count = metrics.graph_op_count
        record.recompile_limit = metrics.recompile_limit
        if current.recompile_reasons:  # torch's artifact: every version it tried
            versions = current.recompile_versions
            record.recompile_reason = explain_reasons(
                current.recompile_reasons, current.recompile_newest,
                versions=len(versions) or None)
            record.recompile_guard = "; ".join(current.recompile_reasons)
            record.failed_versions = [FailedVersion(cid, guard) for cid, guard in versions]
        else:  # compilation_metrics names the newest version's guard only
            earlier = _earlier_compiles(record.compile_id)
            record.recompile_reason = explain_reasons(
                metrics.recompile_reasons, metrics.recompile_newest,
                unnamed=earlier if earlier > 1 and metrics.recompile_reasons else 0)
            record.recompile_guard = "; ".join(metrics.recompile_reasons)
        record.times = dict(metrics.times)
        record.times.setdefault("total_s", round(self._clock() - record.started_at, 4))
        record.phases, record.guard_latency_s = dict(metrics.phases), metrics.guard_latency_s
        record.restart_s = metrics.restart_s
        current.kernel_compile_s = metrics.kernel_compile_s
        time_kernels(record, metrics.kernel_compile_s)
        if metrics.error:
            record.status = "failed"
            record.error = metrics.error
        if metrics.failure is not None:  # the parsed value stays as parsed: a new one
            current.failure = replace(metrics.failure, stack=list(current.error_stack))
        return record


#: The phases a frame compile opens before its ``dynamo_start`` (and never after it).
_FIRST_PHASES = frozenset({"dynamo", "entire_frame_compile"})


def _starts_a_compile(parsed: Parsed) -> bool:
    return (isinstance(parsed, ChromiumEvent) and parsed.phase.ph == "B"
            and parsed.phase.name in _FIRST_PHASES)


def _earlier_compiles(compile_id: str) -> int:
    """How many compiles of its frame torch counted before ``compile_id`` (``"0/4"``: 4)."""
    _, _, version = compile_id.partition("/")
    number = version.split("_", 1)[0]
    return int(number) if number.isdigit() else 0
