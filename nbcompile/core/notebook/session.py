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
import weakref
from collections.abc import Callable
from typing import Any

from .. import torch_compat
from ..records import CompileRecord
from ..trace.builder import CompileBuilder, Fed
from ..trace.compile_id import CompileId
from ..trace.listener import TraceEvent, TraceListener
from ..trace.parsed import Phase
from ..trace.parsers import PROVENANCE_ARTIFACT
from ..trace.progress import ProgressTracker
from . import calls, cudagraph_log, cudagraphs
from .cell_history import get_history
from .stance import EagerCounter
from .targets import Target
from .usernames import scrub_exception

__all__ = ["PROVENANCE_ARTIFACT", "CaptureSession", "get_session"]

#: Hears a target's change: ``settled`` is False while a call of the target is still
#: running (more compiles may follow within it), True when what is shown now stays.
Listener = Callable[[Target, bool], None]


class CaptureSession:
    """Targets of one kernel and the capture that fills their records."""

    def __init__(self) -> None:
        self.targets: list[Target] = []  # one per name: what the user's names hold
        self.replaced: list[Target] = []  # redefined, still alive (weakly held) elsewhere
        # each listener with the targets it is about (empty: all, for good)
        self._listeners: list[tuple[Listener, tuple[Target, ...], object]] = []
        # frame compile -> its targets, outermost call first (held weakly: a re-run
        # cell's replaced targets are freed with their records)
        self._owners: dict[tuple[int, int], list[weakref.ref[Target]]] = {}
        self._in_call: set[tuple[int, int]] = set()  # frame compiles inside a target's call
        self._stop_calls: Callable[[], None] | None = None
        self._lock = threading.RLock()
        self.listener = TraceListener(self._on_event)
        self.builder = CompileBuilder(self.listener.strings)
        # where each running compile is (the live summary's phase, kernels, frame)
        self.progress = ProgressTracker(filename=self.listener.filename)
        self._saved_provenance: int | None = None
        # cache key -> the compile that stored it (a miss): (target id, name, compile id)
        self._stored: dict[str, tuple[str, str, str]] = {}
        # torch's CUDA-graph messages of compiles still running, and torch's skip count
        # when each started (a skip counted with no message is said as such)
        self.cudagraph_log = cudagraph_log.CudagraphLog(self._on_cudagraph_message)
        self._cudagraphs: dict[tuple[int, int], list[str]] = {}
        self._skips_at: dict[tuple[int, int], int] = {}
        # calls that run eagerly under a stance, counted while one is in force
        self.eager = EagerCounter(self._on_eager)
        self._eager_unshown: list[Target] = []

    # --- lifecycle ---
    def start(self) -> None:
        """Listen to the trace; turn on Inductor's kernel provenance tracking.

        Provenance tracking (``trace.provenance_tracking_level``, not part of the FX
        graph cache key) makes Inductor name the source lines of every kernel, which
        ties C++ kernels to cell lines exactly. The previous value comes back on stop. On a
        torch without it this is a no-op (kernels are tied to lines by matching instead).
        """
        self.listener.install()
        self.cudagraph_log.install()
        if self._stop_calls is None:
            self._stop_calls = calls.on_end(self._on_call_end)
        level = torch_compat.provenance_tracking_level()
        if self._saved_provenance is None and level == 0:
            self._saved_provenance = level
            torch_compat.set_provenance_tracking_level(1)

    def stop(self) -> None:
        self.listener.uninstall()
        self.cudagraph_log.uninstall()
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
            module_call = target.module_call() if target.module_call is not None else None
            if module_call is not None:
                module_call.first_done = self._first_call_hook(target)
            # a listener about targets none of which is registered any more (its cell
            # was re-run) is dropped: it would hold the replaced targets for good
            self._listeners = [entry for entry in self._listeners
                               if not entry[1] or any(self._registered(t) for t in entry[1])]

    def _first_call_hook(self, target: Target) -> Callable[[], None]:
        """What a module target's first call tells: holds the target weakly (the module
        holds the hook; the target holds the module)."""
        ref = weakref.ref(target)

        def first_done() -> None:
            found = ref()
            if found is not None:
                self._shared_compile(found)
        return first_done

    def _shared_compile(self, target: Target) -> None:
        """A module target's first call compiled nothing: when it ran code compiled for
        another target (two modules of one class: one ``forward`` code, and torch's guards
        passed for this one too, as with two ``module.compile()`` calls), that compile is
        this target's too, said as such."""
        module = target.compiled_module
        forward = getattr(getattr(type(module), "forward", None), "__code__", None)
        with self._lock:
            if target.compiles or forward is None or not self._registered(target):
                return
            for other in reversed([*self.targets, *self.replaced]):
                if other is target:
                    continue
                shared = [c for c in other.compiles if c.status != "failed"
                          and c.filename == forward.co_filename
                          and c.firstlineno == forward.co_firstlineno]
                if not shared:
                    continue
                for record in shared:
                    target.finish_compile(record)
                ids = ", ".join(c.compile_id for c in shared)
                target.notes.append(
                    f"Its first call reused compile {ids}, made for `{other.name}`: the same "
                    f"{type(module).__name__}.forward code, and torch's "
                    "guards passed for this module too, so torch compiled nothing new.")
                self._notify(target)
                return

    def _registered(self, target: Target) -> bool:
        return any(target is t for t in (*self.targets, *self.replaced))

    def find(self, obj: Any) -> Target | None:
        with self._lock:
            for target in (*reversed(self.targets), *reversed(self.replaced)):
                if target.matches(obj):
                    return target
        return None

    def subscribe(self, listener: Listener, about: tuple[Target, ...] = ()
                  ) -> Callable[[], None]:
        """Hear every change of a target; ``about``: the targets ``listener`` shows,
        after whose replacement (a re-run cell) it is dropped. Returns the unsubscribe."""
        token = object()  # the unsubscribe holds this, not the listener: no cycle through
        self._listeners.append((listener, tuple(about), token))  # a listener's own object

        def unsubscribe() -> None:
            self._listeners = [e for e in self._listeners if e[2] is not token]
        return unsubscribe

    def _notify(self, target: Target, settled: bool = True) -> None:
        for listener, _, _ in list(self._listeners):
            try:
                listener(target, settled)
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
            self._in_call.add(key)  # the call's end tells the settled state
            return owners
        found = self.target_for_stack(stack, watched=False)
        return [found] if found is not None else []

    # --- events ---
    def _on_event(self, event: TraceEvent) -> None:
        with self._lock:
            self._handle(event)

    def _handle(self, event: TraceEvent) -> None:
        """Attribute a compile to its targets at ``dynamo_start``; the builder does the rest
        and the progress tracker reads what the builder parsed (one decode each)."""
        key = event.frame
        if key is None:
            self.progress.feed(event)  # e.g. a worker's compile_file: the builder skips it
            return
        if event.kind == "dynamo_start":
            stack = event.data.get("stack", []) if isinstance(event.data, dict) else []
            self._owners[key] = [weakref.ref(t) for t in self._owners_now(key, stack)]
            self._skips_at[key] = cudagraph_log.skips()
            self._cudagraphs.setdefault(key, [])
        fed = self.builder.feed(event)
        if fed.finished is not None:
            self._close_cudagraphs(key, fed.finished)
        self.progress.feed(event, fed)
        owners = self._alive(self._owners.get(key))
        if not owners:
            return
        if event.kind == "dynamo_start":
            for target in owners:
                target.start_compile(self.progress.get(key))
                self._notify(target, settled=False)
        elif (finished := fed.finished) is not None:
            failure = fed.failure
            namer = next((t for t in reversed(owners) if t.kind == "module" and t.watched
                          and t.owns_frame(finished.filename, finished.firstlineno)), None)
            if namer is not None:
                namer.name_in(finished, failure)
            reused = self._reused(fed, owners, finished.compile_id)
            for target in owners:
                target.finish_compile(finished, failure)
            self._place(finished, owners[-1])
            settled = key not in self._in_call
            self._in_call.discard(key)
            for target in owners:
                for note in reused.get(target.id, ()):
                    if note not in target.notes:
                        target.notes.append(note)
                self._notify(target, settled)
        elif fed.updated is not None:  # e.g. the backward's code, compiled later
            for target in owners:
                self._notify(target)

    # --- torch's CUDA-graph messages ---
    def _close_cudagraphs(self, key: tuple[int, int], record: CompileRecord) -> None:
        """A finished compile's CUDA-graph outcome, from torch's messages and its skip
        count during the compile (``cudagraphs.of_compile``)."""
        messages = self._cudagraphs.pop(key, [])
        started = self._skips_at.pop(key, None)
        counted = started is not None and cudagraph_log.skips() > started
        record.cudagraphs = cudagraphs.of_compile(record, messages, counted,
                                                  self._alive(self._owners.get(key)))

    def _on_cudagraph_message(self, message: str, key: tuple[int, int] | None) -> None:
        """One message torch logged about CUDA graphs: kept for the compile running (its
        compile id), else for the latest compile of the innermost target whose call is
        running (torch decides some skips at a graph's first run, outside any compile)."""
        with self._lock:
            if key is not None and key in self._cudagraphs:
                if message not in self._cudagraphs[key]:
                    self._cudagraphs[key].append(message)
                return
            targets: list[Target] = []
            if key is not None:
                targets = self._alive(self._owners.get(key))
            if not targets:
                targets = [c.target for c in calls.running()[-1:]]
            for target in targets:
                record = next((c for c in reversed(target.compiles)
                               if key is None or _key_of(c.compile_id) == key), None)
                if record is not None and cudagraphs.is_new(record.cudagraphs, message):
                    record.cudagraphs = cudagraphs.with_message(
                        record.cudagraphs, message, cudagraphs.cells_of([target]))
                    self._notify(target)

    @staticmethod
    def _place(record: CompileRecord, target: Target) -> None:
        """The cell run that made the call, and for a recompile the cell runs since the
        frame's previous compile that changed what its failed guard reads."""
        if record._run >= 0:
            return  # placed already
        history = get_history()
        record.cell, record._run = history.current(), history.run
        if not (record.recompile_reason or record.recompile_guard):
            return
        frame = record.compile_id.split("/", 1)[0]
        previous = [c for c in target.compiles if c is not record
                    and c.compile_id.split("/", 1)[0] == frame]
        since = previous[-1]._run if previous else -1
        changes = history.changes_for(record.recompile_guard, record.recompile_reason, since)
        record.changed_by = sorted({c.cell for c in changes if c.cell is not None})
        record.changes = list(dict.fromkeys(c.words() for c in changes))

    def _on_eager(self, target: Target, stance: str, cell: int | None) -> None:
        """A target's call runs eagerly under ``stance``: counted; shown at once when it is
        the first of its stance or cell, else at ``flush_eager``."""
        with self._lock:
            if not self._registered(target):
                return
            if target.ran_eagerly(stance, cell):
                self._notify(target)
            elif all(t is not target for t in self._eager_unshown):
                self._eager_unshown.append(target)

    def flush_eager(self) -> None:
        """Show the eager calls counted since they were last shown (at a cell's end)."""
        with self._lock:
            unshown, self._eager_unshown = self._eager_unshown, []
            for target in unshown:
                self._notify(target)

    def _reused(self, fed: Fed, owners: list[Target],
                compile_id: str) -> dict[str, list[str]]:
        """Which earlier compile of this session a finished compile reused (an FX graph
        or AOTAutograd cache hit on the key another compile stored), in words per owner
        target id; the compile's misses are remembered for the compiles after it."""
        hits: dict[tuple[str, str, str], list[str]] = {}  # origin -> caches that hit
        for artifact, cache_key in fed.cache_keys:
            cache, _, outcome = artifact.rpartition("_cache_")
            if outcome == "miss" and owners:
                self._stored.setdefault(cache_key, (owners[-1].id, owners[-1].name,
                                                    compile_id))
            elif outcome == "hit" and (origin := self._stored.get(cache_key)):
                what = _CACHES.get(cache, cache)
                if what not in hits.setdefault(origin, []):
                    hits[origin].append(what)
        notes: dict[str, list[str]] = {}
        for (origin_id, origin_name, origin_compile), caches in hits.items():
            for target in owners:
                if origin_id == target.id and origin_compile == compile_id:
                    continue
                whose = (f"an earlier {origin_name}'s" if origin_name == target.name
                         and origin_id != target.id else f"{origin_name}'s")
                notes.setdefault(target.id, []).append(
                    f"Compile {compile_id} reused {whose} compile {origin_compile} "
                    f"({' and '.join(caches)} cache hit{'s' if len(caches) > 1 else ''}: "
                    "the same graph, compiled once in this kernel).")
        return notes

    def _on_call_end(self, call: calls.Call) -> None:
        """A target's call ended: its status from what torch did (raised or not)."""
        scrub_exception(call.raised)  # torch's "from user code:" without nbcompile's entry
        with self._lock:
            target = call.target
            if not self._registered(target):
                return
            compiles = [(built.record, built.failure) for key in call.compiles
                        if (built := self.builder.built(key)) is not None]
            target.end_call(call.raised, compiles)
            note = self._reached(target, call.compiles, [r for r, _ in compiles])
            if note is not None and note not in target.notes:
                target.notes.append(note)
            # always: the frame compiles inside the call were told as not settled yet
            self._notify(target)

    def _reached(self, target: Target, keys: list[tuple[int, int]],
                 records: list[CompileRecord]) -> str | None:
        """A shared callee's frames this call reused, in words: one of the call's breaks
        is in a function whose frames were compiled during another target's call (the
        function is the compiled frame whose ``def`` is the nearest before the break's
        line), so torch ran those and compiled nothing for them now. A note: torch's
        record of this call has no such compiles, so they are not counted here."""
        places = {(gb.filename, gb.lineno) for record in records for gb in record.graph_breaks
                  if gb.filename and gb.lineno}
        if not places:
            return None
        mine = set(keys)
        known = [(key, built.record, owners) for key, refs in self._owners.items()
                 if (owners := self._alive(refs))
                 and (built := self.builder.built(key)) is not None]
        defs: dict[str, dict[int, str]] = {}  # file -> def line -> function (not resumes)
        for _, record, _ in known:
            if not record.frame.startswith(_RESUME):
                defs.setdefault(record.filename, {})[record.firstlineno] = record.frame
        own = {record.frame for record in records}
        callees = set()
        for filename, lineno in places:
            before = [n for n in defs.get(filename, {}) if n <= lineno]
            if before and (name := defs[filename][max(before)]) not in own:
                callees.add((filename, name))
        reused = [(record, owners[0]) for key, record, owners in known
                  if key not in mine and all(t is not target for t in owners)
                  and any(record.filename == f and (record.frame == n or record.frame
                          .startswith(f"{_RESUME}{n}_at_")) for f, n in callees)]
        if not reused:
            return None
        by = " and ".join(sorted({o.name for _, o in reused}))
        ids = ", ".join(r.compile_id for r, _ in reused)
        frames = ", ".join(dict.fromkeys(r.frame for r, _ in reused))
        return (f"{target.name}'s call also ran frames compiled during {by}'s call "
                f"({frames}: compile {ids}): torch reused them and compiled nothing for "
                f"them now, so they are counted in {by}'s report, not in {target.name}'s.")

    def owner_of(self, frame_id: int, frame_compile_id: int) -> Target | None:
        """The innermost target a frame compile was attributed to; for a compile not (yet)
        seen (e.g. one stopped by ``recompile_limit``), the target of that frame's others."""
        with self._lock:
            owners = self._owners.get((frame_id, frame_compile_id))
            if owners is not None:
                alive = self._alive(owners)
                return alive[-1] if alive else None
            for (frame, _), found in reversed(list(self._owners.items())):
                if frame == frame_id and (alive := self._alive(found)):
                    return alive[-1]
        return None

    @staticmethod
    def _alive(owners: list[weakref.ref[Target]] | None) -> list[Target]:
        return [t for ref in owners or () if (t := ref()) is not None]

    def phases_of(self, compile_id: str) -> list[Phase]:
        """Chrome-trace phase events of a compile (``"0/1"``), as captured."""
        cid = CompileId.parse(compile_id)
        return self.builder.phases(cid.key) if cid else []


#: The name Dynamo gives the code after a graph break: ``torch_dynamo_resume_in_<fn>_at_<n>``.
_RESUME = "torch_dynamo_resume_in_"

#: A cache's artifact prefix -> its name in words.
_CACHES = {"fx_graph": "FX graph", "aotautograd": "AOTAutograd"}

_session: CaptureSession | None = None


def _key_of(compile_id: str) -> tuple[int, int] | None:
    parsed = CompileId.parse(compile_id)
    return parsed.key if parsed is not None else None


def get_session() -> CaptureSession:
    """The process-wide capture session (created on first use, not started)."""
    global _session
    if _session is None:
        _session = CaptureSession()
    return _session
