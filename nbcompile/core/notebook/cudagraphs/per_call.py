"""The side channel of CUDA-graph trees per call (``--mode reduce-overhead`` on a GPU):
what torch's tree manager did in each call of a target (warm-up, recording, replay,
re-record, fall back to eager), the sizes it recorded, and its private pool's memory
before and after, onto ``Target.cudagraph_calls`` / ``cudagraph_shapes``
(``events.py`` turns what is read here into those values).

Read from torch's own state (``torch/_inductor/cudagraph_trees.py``):

* the tree's log lines (``cudagraph_trees.log``, artifact ``cudagraphs``): warm-up,
  recording and re-record lines are DEBUG, a new size INFO. Once a compile that asks for
  CUDA graphs starts on a CUDA machine, that logger is set to DEBUG with a filter
  (``log.DebugLines``) that hands each line here and lets through to handlers
  only what they got before (the level the logger had), or everything when the user
  turned the artifact on (``TORCH_LOGS=cudagraphs``): nothing new on stderr. A
  re-record's reason is then worked out by torch at once (``_run``: ``status_logger()``
  when DEBUG is on; only on a re-record);
* replays: while a call is watched, the manager's ``execute_node`` (the replay of a
  recorded graph) is counted through an instance attribute removed at the call's end;
* the pool: ``cudagraph_pool.pool_bytes`` (the segments of the manager's
  ``cuda_graphs_thread_pool`` in ``torch.cuda.memory_snapshot()``).

Every device with a tree manager is read (torch keeps one per graph device,
``get_container(device_index)``), not only the current device: a model moved to
``cuda:1`` without ``set_device`` runs its graphs on device 1's trees.

Per-call cost: a target's calls are watched (``calls.on_calls_of``: that target's own
calls only; every other target's calls run nothing) from its compile until a call only
replays (then again after the tree records for it anew, heard in its log); a target no
longer alive (its ``%%compile`` cell re-run, its function dropped) is watched no more.
Once no live target waits the hook is gone and a replay runs nothing of nbcompile's. Each
call's number is the target's count of calls (``calls.call_count``: a builtin counter on
torch's enter hooks, no nbcompile frame), so a call heard after unwatched ones has its true
number. On a CPU, or when no target asks for CUDA graphs, nothing is installed.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import torch_compat
from ...insight.advice import size_recompile
from ..capture.attribution import Attribution, Key
from ..capture.channels import Notes, SideChannel
from ..capture.registry import TargetRegistry
from ..cells.cell_history import get_history
from ..targets import running as calls
from ..targets.target_state import Target
from . import events as cudagraph_events
from . import hazard, trees
from . import log as cudagraph_log
from . import pool as cudagraph_pool
from .outcome import asked_for, trees_on

#: The tree manager's logger (``cudagraph_trees.log``).
TREES_LOGGER = "torch._inductor.cudagraph_trees.__cudagraphs"
POOL_SOURCE = ("torch.cuda.memory_snapshot(): bytes reserved by segments of the CUDA-graph "
               "trees' private pool (tree manager's cuda_graphs_thread_pool)")


def cuda_available() -> bool:
    try:
        import torch
        return bool(torch.cuda.is_available())
    except Exception:  # a broken CUDA install reads as none
        return False


# --- the reader of torch's live state (GPU only) ---
def pool_now() -> int | None:
    """Bytes the CUDA-graph pools of the graphs' devices reserve (``cudagraph_pool``):
    each device with a tree manager, else the current device."""
    found = [cudagraph_pool.pool_bytes(i) for i in trees.graph_devices()]
    known = [b for b in found if b is not None]
    return sum(known) if known else None


def warn_limit() -> tuple[int | None, str]:
    """torch's warning limit on distinct sizes and the config's name (``config.triton``)."""
    triton = torch_compat.inductor_triton_config()
    for name in cudagraph_events.WARN_LIMIT_CONFIGS:
        if triton is not None and hasattr(triton, name):
            value = getattr(triton, name)
            return (int(value) if value else None), name
    return None, ""


def graph_partition() -> bool | None:
    """Inductor's ``graph_partition`` in force (None: this torch has no such setting)."""
    value = getattr(torch_compat.INDUCTOR_CONFIG.get(), "graph_partition", None)
    return value if isinstance(value, bool) else None


# --- the channel ---
@dataclass
class _Open:
    """A call being watched: its events so far."""

    number: int
    cell: int | None
    pool_before: int | None
    replays: trees.Counters | None = None
    events: list[cudagraph_events.TreeEvent] = field(default_factory=list)
    # the outputs the tree's current path held when the call began (which it overwrote)
    held: list[weakref.ref[Any]] = field(default_factory=list)


@dataclass
class _State:
    watching: bool = True  # watch its next call (not steady yet)
    open: _Open | None = None
    loose: dict[int, _Open] = field(default_factory=dict)  # by id(calls.Call)
    # the graph runs heard after the latest call ended, outside any call (a backward
    # pass), and their value's place in ``Target.cudagraph_calls``
    after: _Open | None = None
    after_at: int = -1
    # the most distinct sizes torch's warning past its limit counted for one of the
    # target's graphs (``maybe_warning_due_to_dynamic_shape``; 0: no warning heard)
    warned: int = 0


def _opened(state: _State, number: int, replays: trees.Counters | None = None) -> _Open:
    """The target's call ``number`` opened: its cell, the pool's bytes and the outputs
    the trees' current paths hold now (what the call may overwrite), on every graph
    device."""
    state.after = None
    return _Open(number, get_history().current(), pool_now(), replays,
                 held=[ref for i in trees.graph_devices() for ref in trees.path_outputs(i)])


class CudagraphCalls(SideChannel):
    """Per call of each target compiled with CUDA graphs: what the tree did."""

    def __init__(self, registry: TargetRegistry, attribution: Attribution,
                 notify: Callable[[Target], None], lock: threading.RLock) -> None:
        self._registry = registry
        self._attribution = attribution
        self._notify = notify
        self._lock = lock
        self._states: dict[str, _State] = {}  # by target id
        self._filter = cudagraph_log.DebugLines(TREES_LOGGER, self._on_line)
        self._utils_log = cudagraph_log.CudagraphLog(lambda m, _k: self._on_line(m))
        # per target id, the remover of the hook on its own calls (while not steady)
        self._taps: dict[str, Callable[[], None]] = {}
        self._cuda: bool | None = None

    @property
    def _watching(self) -> bool:
        """Whether a live target's next call is watched (the calls are heard only then)."""
        return bool(self.waiting())

    def waiting(self) -> list[Target]:
        """The live targets whose next call is watched."""
        return [t for t in self._registry.everyone()
                if t.alive and t.id in self._taps]

    def _sync(self) -> None:
        """Each live target whose calls are watched hears its own calls, no other's; a
        target no longer alive (re-run cell, dropped function) is forgotten."""
        live = {t.id: t for t in self._registry.everyone() if t.alive}
        for key in [k for k in self._states if k not in live]:
            del self._states[key]
        for key in [k for k in self._taps
                    if not (k in self._states and self._states[k].watching)]:
            self._taps.pop(key)()
        for key, state in self._states.items():
            if state.watching and key not in self._taps:
                self._taps[key] = calls.on_calls_of(live[key], self._on_call)

    def stop(self) -> None:
        self._filter.uninstall()
        self._utils_log.uninstall()
        for key in list(self._taps):
            self._taps.pop(key)()

    def compile_started(self, key: Key, owners: list[Target]) -> None:
        if self._states:  # targets gone since (a re-run cell): watched no more
            with self._lock:
                self._sync()
        # torch's non-tree path logs nothing per call: not watched (the channel says so)
        wanted = [t for t in owners if asked_for(t.options) and trees_on(t.options)]
        if not wanted:
            return
        if self._cuda is None:
            self._cuda = cuda_available()
        if not self._cuda:
            return  # CPU: torch says "not used" per compile (cudagraph_channel)
        self._filter.install()
        self._utils_log.install()
        with self._lock:
            for target in wanted:
                state = self._states.setdefault(target.id, _State())
                state.watching = True
                self._open_running(target, state)
            self._sync()

    def _open_running(self, target: Target, state: _State) -> None:
        """A call of ``target`` running while it compiles (its first call: the per-call
        hook was not on when it began) opened here, before its graphs run: what the tree's
        current path holds now is what this call may overwrite."""
        call = next((c for c in reversed(calls.running()) if c.target is target), None)
        if call is None or state.open is not None or id(call) in state.loose:
            return
        state.loose[id(call)] = _opened(state, call.number)

    # --- calls ---
    def _on_call(self, target: Any, fn: Any, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> Callable[[], None] | None:
        with self._lock:
            state = self._states.get(getattr(target, "id", ""))
            if state is None or not state.watching or state.open is not None:
                return None
            opened = state.open = _opened(state, calls.call_count(target),
                                          trees.Counters(trees.graph_devices()))
        return lambda: self._end(target, state, opened)

    def _end(self, target: Target, state: _State, opened: _Open) -> None:
        with self._lock:
            if opened.replays is not None:
                opened.replays.remove()
            state.open = None
            if opened.held:
                hazard.get_watch().call_marked(opened.held, target.name)
            self._close(target, state, opened, opened.replays.count if opened.replays else 0)

    def call_ended(self, call: calls.Call, records: list[Any]) -> Notes:
        state = self._states.get(getattr(call.target, "id", ""))
        if state is not None and (opened := state.loose.pop(id(call), None)) is not None:
            if opened.held:
                hazard.get_watch().call_marked(opened.held, call.target.name)
            self._close(call.target, state, opened, 0)
        return {}

    def _close(self, target: Target, state: _State, opened: _Open, replays: int) -> None:
        value = cudagraph_events.call_value(
            opened.number, opened.cell, opened.events, replays,
            (opened.pool_before, pool_now(), POOL_SOURCE))
        if opened.replays is None and not cudagraph_events.anything_done(value):
            # a call not watched whose lines were only failed checks of recorded graphs:
            # torch went on to replay another (its replays are not counted unwatched);
            # hearing those lines already set the next call to be watched
            return
        recorded_before = any(c.recordings for c in target.cudagraph_calls)
        value = cudagraph_events.rerecords_unknown(value, recorded_before,
                                                   torch_compat.torch_version())
        target.cudagraph_calls.append(value)
        state.warned = max([state.warned, *(e.sizes for e in opened.events
                                            if e.kind == "size_warning")])
        shapes = [*(target.cudagraph_shapes.shapes if target.cudagraph_shapes else []),
                  *value.new_shapes]
        if shapes:
            target.cudagraph_shapes = cudagraph_events.shapes_value(
                shapes, *warn_limit(), size_recompiles=sum(map(size_recompile, target.compiles)),
                partitioned=graph_partition(), torch_warned=state.warned)
        if value.recordings and recorded_before and any(
                trees.pending_backward(i) for i in trees.graph_devices()):
            note = cudagraph_events.PENDING_BACKWARD
            if note not in target.notes:
                target.notes.append(note)
        if cudagraph_events.replay_only(value) or not (opened.events or replays):
            state.watching = False  # steady (or nothing under the tree): stop watching
        self._sync()
        self._notify(target)

    # --- torch's lines ---
    def _on_line(self, message: str) -> None:
        event = cudagraph_events.parse(message)
        if event is None:
            return
        with self._lock:
            target = self._target_of(event)
            if target is None:
                self._unattributed(event)
                return
            state = self._states.setdefault(target.id, _State())
            if state.open is not None:
                state.open.events.append(event)
                return
            # a call not watched (steady, then a new size or a re-record): its end is
            # heard through the call itself (``calls.running``)
            call = next((c for c in reversed(calls.running()) if c.target is target), None)
            if call is None:
                self._outside_call(target, state, event)
                return
            opened = state.loose.get(id(call))
            if opened is None:
                state.after = None
                opened = state.loose[id(call)] = _Open(
                    call.number, get_history().current(), pool_now())
            opened.events.append(event)
            state.watching = True
            self._sync()

    def _outside_call(self, target: Target, state: _State,
                      event: cudagraph_events.TreeEvent) -> None:
        """A graph run torch made with no call of the target running: the backward pass
        of its latest call (``loss.backward()``), kept as one value after that call and
        updated as its lines come."""
        if event.kind in ("shape", "size_warning") or (event.mode and event.mode != "BACKWARD"):
            return  # a size's lines come with its run's; a forward run is inside a call
        if state.after is None:
            state.after = _Open(calls.call_count(target), get_history().current(), None)
            state.after_at = -1
        state.after.events.append(event)
        value = cudagraph_events.call_value(state.after.number, state.after.cell,
                                            state.after.events, 0, backward=True)
        runs = target.cudagraph_calls
        if 0 <= state.after_at < len(runs) and runs[state.after_at].backward:
            runs[state.after_at] = value
        else:
            runs.append(value)
            state.after_at = len(runs) - 1
        self._notify(target)

    def _unattributed(self, event: cudagraph_events.TreeEvent) -> None:
        """A graph run with no call running whose line names no compile (torch 2.9's
        lines name none: a backward pass, ``loss.backward()``): not counted, and each
        target under the tree says so once, instead of leaving it out unsaid."""
        if event.compile_id or event.kind in ("shape", "size_warning"):
            return
        note = cudagraph_events.UNATTRIBUTED
        for target in self._registry.targets:
            if target.id in self._states and note not in target.notes:
                target.notes.append(note)
                self._notify(target)

    def _target_of(self, event: cudagraph_events.TreeEvent) -> Target | None:
        """The target whose compile torch named, else the innermost watched call's, else
        the innermost running call's of a target that asked for CUDA graphs (torch 2.11
        names no compile on a new size's line, and a steady target's calls are not
        watched)."""
        if event.compile_id:
            for target in reversed(self._registry.targets):
                if any(cudagraph_events.same_compile(c.compile_id, event.compile_id)
                       for c in target.compiles):
                    return target
        for target in self._registry.targets:
            state = self._states.get(target.id)
            if state is not None and state.open is not None:
                return target
        return next((c.target for c in reversed(calls.running())
                     if getattr(c.target, "id", None) in self._states), None)

