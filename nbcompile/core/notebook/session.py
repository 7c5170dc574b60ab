"""The capture session: registered targets, and trace events turned into their records.

Compiles happen lazily, at a target's first call, often cells later. Each Dynamo frame
compile is keyed by ``(frame_id, frame_compile_id)``; at its ``dynamo_start`` event it
belongs to every target whose call is running (``calls``: the target's own frames, the
resume functions after its breaks, the functions it calls that Dynamo compiles on their
own); a target whose calls nbcompile cannot see is found by code span in the user stack.
The events that follow are collected into a ``CompileRecord`` and closed by
``compilation_metrics``, which arrives last; the end of the call says whether it raised.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .. import torch_compat
from ..trace.builder import CompileBuilder
from ..trace.compile_id import CompileId
from ..trace.listener import TraceEvent, TraceListener
from ..trace.parsers import PROVENANCE_ARTIFACT, Phase
from . import calls
from .targets import Target
from .usernames import scrub_exception

__all__ = ["PROVENANCE_ARTIFACT", "CaptureSession", "get_session"]

Listener = Callable[[Target], None]


class CaptureSession:
    """Targets of one kernel and the capture that fills their records."""

    def __init__(self) -> None:
        self.targets: list[Target] = []  # one per name: what the user's names hold
        self.replaced: list[Target] = []  # redefined, still alive (weakly held) elsewhere
        self._listeners: list[Listener] = []
        # frame compile -> its targets, outermost call first
        self._owners: dict[tuple[int, int], list[Target]] = {}
        self._stop_calls: Callable[[], None] | None = None
        self._lock = threading.RLock()
        self.listener = TraceListener(self._on_event)
        self.builder = CompileBuilder(self.listener.strings)
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
        if self._stop_calls is None:
            self._stop_calls = calls.on_end(self._on_call_end)
        level = torch_compat.provenance_tracking_level()
        if self._saved_provenance is None and level == 0:
            self._saved_provenance = level
            torch_compat.set_provenance_tracking_level(1)

    def stop(self) -> None:
        self.listener.uninstall()
        if self._stop_calls is not None:
            self._stop_calls()
            self._stop_calls = None
        if self._saved_provenance is not None:
            torch_compat.set_provenance_tracking_level(self._saved_provenance)
            self._saved_provenance = None

    # --- targets ---
    def register(self, target: Target) -> None:
        with self._lock:
            replaced = [t for t in self.targets if t.name == target.name and t is not target]
            if replaced and not target.previous_compiles:  # code diffs across cell re-runs
                target.previous_compiles = list(replaced[-1].compiles
                                                or replaced[-1].previous_compiles)
            # A replaced target is kept aside while its object lives on under another name
            # (``f_v1 = f`` before ``f`` was redefined): ``report(f_v1)`` keeps its record
            # and its later compiles.
            self.replaced = [t for t in self.replaced if t.alive] + [
                t for t in replaced if t.alive]
            self.targets = [t for t in self.targets
                            if (t.name != target.name and t.alive) or t is target]
            self.targets.append(target)

    def find(self, obj: Any) -> Target | None:
        with self._lock:
            for target in (*reversed(self.targets), *reversed(self.replaced)):
                if target.matches(obj):
                    return target
        return None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _notify(self, target: Target) -> None:
        for listener in list(self._listeners):
            try:
                listener(target)
            except Exception:  # a broken display must not break compiles
                pass

    # --- attribution ---
    def target_for_stack(self, stack: list[dict[str, Any]], *,
                         watched: bool = True) -> Target | None:
        """The target owning the innermost frame of ``stack`` that any target owns
        (``watched=False``: only among targets whose calls nbcompile cannot see)."""
        known = [t for t in (*self.replaced, *self.targets) if watched or not t.watched]
        candidates: list[Target] | None = None
        for entry in reversed(stack):
            filename = self.listener.filename(entry.get("filename"))
            owners = [t for t in known if t.owns_frame(filename, entry.get("line", 0))]
            if candidates is not None:
                narrowed = [t for t in owners if t in candidates]
                if narrowed:
                    return narrowed[-1]
                continue
            if len(owners) == 1:
                return owners[0]
            if owners:
                candidates = owners  # e.g. one class forward shared by two module targets
        return candidates[-1] if candidates else None

    def _owners_now(self, key: tuple[int, int], stack: list[dict[str, Any]]) -> list[Target]:
        """The targets a frame compile starting now belongs to: every target whose call is
        running (outermost first), else the one its user stack names by code span."""
        owners: list[Target] = []
        for call in calls.running():
            call.compiles.append(key)
            if not any(call.target is t for t in owners):
                owners.append(call.target)
        if owners:
            return owners
        found = self.target_for_stack(stack, watched=False)
        return [found] if found is not None else []

    # --- events ---
    def _on_event(self, event: TraceEvent) -> None:
        with self._lock:
            self._handle(event)

    def _handle(self, event: TraceEvent) -> None:
        """Attribute a compile to its targets at ``dynamo_start``; the builder does the rest."""
        key = event.frame
        if key is None:
            return
        if event.kind == "dynamo_start":
            stack = event.data.get("stack", []) if isinstance(event.data, dict) else []
            self._owners[key] = self._owners_now(key, stack)
        finished = self.builder.feed(event)
        owners = self._owners.get(key) or []
        if not owners:
            return
        if event.kind == "dynamo_start":
            for target in owners:
                target.start_compile()
                self._notify(target)
        elif finished is not None:
            failure = self.builder.failure(key)
            namer = next((t for t in reversed(owners) if t.kind == "module" and t.watched
                          and t.owns_frame(finished.filename, finished.firstlineno)), None)
            if namer is not None:
                namer.name_in(finished, failure)
            for target in owners:
                target.finish_compile(finished, failure)
                self._notify(target)
        elif self.builder.updated is not None:  # e.g. the backward's code, compiled later
            for target in owners:
                self._notify(target)

    def _on_call_end(self, call: calls.Call) -> None:
        """A target's call ended: its status from what torch did (raised or not)."""
        scrub_exception(call.raised)  # torch's "from user code:" without nbcompile's entry
        with self._lock:
            target = call.target
            if not any(target is t for t in (*self.targets, *self.replaced)):
                return
            compiles = [(record, self.builder.failure(key)) for key in call.compiles
                        if (record := self.builder.record(key)) is not None]
            if target.end_call(call.raised, compiles):
                self._notify(target)

    def owner_of(self, frame_id: int, frame_compile_id: int) -> Target | None:
        """The innermost target a frame compile was attributed to; for a compile not (yet)
        seen (e.g. one stopped by ``recompile_limit``), the target of that frame's others."""
        with self._lock:
            owners = self._owners.get((frame_id, frame_compile_id))
            if owners is not None:
                return owners[-1] if owners else None
            for (frame, _), found in reversed(list(self._owners.items())):
                if frame == frame_id and found:
                    return found[-1]
        return None

    def phases_of(self, compile_id: str) -> list[Phase]:
        """Chrome-trace phase events of a compile (``"0/1"``), as captured."""
        cid = CompileId.parse(compile_id)
        return self.builder.phases(cid.key) if cid else []


_session: CaptureSession | None = None


def get_session() -> CaptureSession:
    """The process-wide capture session (created on first use, not started)."""
    global _session
    if _session is None:
        _session = CaptureSession()
    return _session
