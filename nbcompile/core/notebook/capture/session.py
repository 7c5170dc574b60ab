"""The capture session: the hub that wires one kernel's capture together.

Compiles happen lazily, at a target's first call, often cells later. The session hears
torch's structured trace (``TraceListener``) and hands each event on, once, in order:

1. at a frame compile's ``dynamo_start``: ``attribution`` decides its targets, and every
   side channel hears that it started;
2. the ``builder`` collects the compile's events into a ``CompileRecord``, closed by
   ``compilation_metrics`` (the last); the progress tracker reads what it parsed;
3. at its end: the side channels (``channels``) complete the record and answer with notes,
   each owner takes the compile, ``placement`` puts it in its cell, the listeners hear it;
4. at a target call's end (``calls``): the target's status from what torch did, and the
   side channels' notes about the call.

Each job is a module of its own: ``registry`` (the targets), ``listeners``, ``attribution``,
``placement``, ``eager_calls`` and the side channels (``channels.SideChannel``:
``cudagraph_channel``, ``cudagraph_calls``, ``cache_reuse``, ``shared_compiles``). A new
side channel is a new module added to ``self.channels`` in ``CaptureSession.__init__``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ... import torch_compat
from ...records import CompileRecord
from ...trace.builder import CompileBuilder
from ...trace.compile_id import CompileId
from ...trace.listener import TraceEvent, TraceListener
from ...trace.parsed import Phase
from ...trace.parsers import PROVENANCE_ARTIFACT
from ...trace.progress import ProgressTracker
from ..cells.eager_calls import EagerCalls
from ..cells.stance import EagerCounter
from ..cudagraphs.channel import CudagraphChannel
from ..cudagraphs.per_call import CudagraphCalls
from ..targets import running as calls
from ..targets.target_state import Target
from ..targets.usernames import scrub_exception
from . import placement
from .attribution import Attribution
from .cache_reuse import CacheReuse
from .channels import Notes, SideChannel
from .listeners import Listener, Listeners
from .registry import TargetRegistry
from .shared_compiles import SharedCompiles
from .transformed_code import TransformedCode

__all__ = ["PROVENANCE_ARTIFACT", "CaptureSession", "Listener", "get_session"]


class CaptureSession:
    """Targets of one kernel and the capture that fills their records."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.registry = TargetRegistry()
        self.listeners = Listeners()
        self.listener = TraceListener(self.on_event)
        self.builder = CompileBuilder(self.listener.strings)
        # where each running compile is (the live summary's phase, kernels, frame)
        self.progress = ProgressTracker(filename=self.listener.filename)
        self.attribution = Attribution(self.registry, self.listener.filename)
        self.shared = SharedCompiles(self.registry, self.attribution, self.builder,
                                     self.listeners.notify, self._lock)
        self.channels: tuple[SideChannel, ...] = (
            CudagraphChannel(self.attribution, self.listeners.notify, self._lock),
            CudagraphCalls(self.registry, self.attribution, self.listeners.notify, self._lock),
            CacheReuse(),
            TransformedCode(),
            self.shared,
        )
        # calls that run eagerly under torch's stance, counted per target
        self.eager_calls = EagerCalls(self.registry, self.listeners.notify, self._lock)
        self._stop_calls: Callable[[], None] | None = None
        self._saved_provenance: int | None = None

    # --- lifecycle ---
    def start(self) -> None:
        """Listen to the trace; turn on Inductor's kernel provenance tracking.

        Provenance tracking (``trace.provenance_tracking_level``, not part of the FX
        graph cache key) makes Inductor name the source lines of every kernel, which
        ties C++ kernels to cell lines exactly. The previous value comes back on stop. On a
        torch without it this is a no-op (kernels are tied to lines by matching instead).
        """
        self.listener.install()
        for channel in self.channels:
            channel.start()
        if self._stop_calls is None:
            self._stop_calls = calls.on_end(self._on_call_end)
        level = torch_compat.provenance_tracking_level()
        if self._saved_provenance is None and level == 0:
            self._saved_provenance = level
            torch_compat.set_provenance_tracking_level(1)

    def stop(self) -> None:
        self.listener.uninstall()
        for channel in self.channels:
            channel.stop()
        if self._stop_calls is not None:
            self._stop_calls()
            self._stop_calls = None
        if self._saved_provenance is not None:
            torch_compat.set_provenance_tracking_level(self._saved_provenance)
            self._saved_provenance = None

    # --- targets ---
    @property
    def targets(self) -> list[Target]:
        return self.registry.targets

    @property
    def replaced(self) -> list[Target]:
        return self.registry.replaced

    @property
    def eager(self) -> EagerCounter:
        """The counter of calls that run eagerly under torch's stance."""
        return self.eager_calls.counter

    def register(self, target: Target) -> None:
        with self._lock:
            self.registry.register(target)
            module_call = target.module_call() if target.module_call is not None else None
            if module_call is not None:
                module_call.first_done = self.shared.first_call_hook(target)
            self.listeners.prune(self.registry.registered)

    def find(self, obj: Any) -> Target | None:
        with self._lock:
            return self.registry.find(obj)

    def subscribe(self, listener: Listener, about: tuple[Target, ...] = ()
                  ) -> Callable[[], None]:
        """Hear every change of a target (``Listeners.subscribe``)."""
        return self.listeners.subscribe(listener, about)

    def flush_eager(self) -> None:
        """Show the eager calls counted since they were last shown (at a cell's end)."""
        self.eager_calls.flush()

    def target_for_stack(self, stack: list[dict[str, Any]], *,
                         watched: bool = True) -> Target | None:
        with self._lock:
            return self.attribution.target_for_stack(stack, watched=watched)

    def owner_of(self, frame_id: int, frame_compile_id: int) -> Target | None:
        with self._lock:
            return self.attribution.owner_of(frame_id, frame_compile_id)

    def phases_of(self, compile_id: str) -> list[Phase]:
        """Chrome-trace phase events of a compile (``"0/1"``), as captured."""
        cid = CompileId.parse(compile_id)
        return self.builder.phases(cid.key) if cid else []

    # --- events ---
    def on_event(self, event: TraceEvent) -> None:
        """One structured-trace event, handed on in order (the module docstring)."""
        with self._lock:
            self._handle(event)

    def _handle(self, event: TraceEvent) -> None:
        key = event.frame
        if key is None:
            self.progress.feed(event)  # e.g. a worker's compile_file: the builder skips it
            return
        if event.kind == "dynamo_start":
            stack = event.data.get("stack", []) if isinstance(event.data, dict) else []
            owners = self.attribution.claim(key, stack)
            for channel in self.channels:
                channel.compile_started(key, owners)
        else:
            owners = self.attribution.owners(key)
        fed = self.builder.feed(event)
        notes: Notes = {}
        if (finished := fed.finished) is not None:
            for channel in self.channels:
                _merge(notes, channel.compile_finished(key, fed, finished, owners))
        self.progress.feed(event, fed)
        if not owners:
            return
        if event.kind == "dynamo_start":
            for target in owners:
                target.start_compile(self.progress.get(key))
                self.listeners.notify(target, settled=False)
        elif finished is not None:
            namer = next((t for t in reversed(owners) if t.kind == "module" and t.watched
                          and t.owns_frame(finished.filename, finished.firstlineno)), None)
            if namer is not None:
                namer.name_in(finished, fed.failure)
            for target in owners:
                target.finish_compile(finished, fed.failure)
            placement.place(finished, owners[-1])
            settled = self.attribution.settle(key)
            for target in owners:
                _add_notes(target, notes)
                self.listeners.notify(target, settled)
        elif fed.updated is not None:  # e.g. the backward's code, compiled later
            for target in owners:
                self.listeners.notify(target)

    def _on_call_end(self, call: calls.Call) -> None:
        """A target's call ended: its status from what torch did (raised or not)."""
        scrub_exception(call.raised)  # torch's "from user code:" without nbcompile's entry
        with self._lock:
            target = call.target
            if not self.registry.registered(target):
                return
            built = [b for key in call.compiles if (b := self.builder.built(key)) is not None]
            target.end_call(call.raised, [(b.record, b.failure) for b in built])
            records: list[CompileRecord] = [b.record for b in built]
            notes: Notes = {}
            for channel in self.channels:
                _merge(notes, channel.call_ended(call, records))
            _add_notes(target, notes)
            # always: the frame compiles inside the call were told as not settled yet
            self.listeners.notify(target)


def _merge(into: Notes, more: Notes) -> None:
    for target_id, sentences in more.items():
        into.setdefault(target_id, []).extend(sentences)


def _add_notes(target: Target, notes: Notes) -> None:
    for note in notes.get(target.id, ()):
        if note not in target.notes:
            target.notes.append(note)


_session: CaptureSession | None = None


def get_session() -> CaptureSession:
    """The process-wide capture session (created on first use, not started)."""
    global _session
    if _session is None:
        _session = CaptureSession()
    return _session
