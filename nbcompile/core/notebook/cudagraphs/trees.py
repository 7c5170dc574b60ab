"""The one reader of CUDA-graph trees' live state (``torch/_inductor/cudagraph_trees.py``):
each graph device's tree manager (never created here: torch keeps one per device,
``get_container(device_index)``), its generation, its current path's functions and live
outputs, the outputs its recorded graphs hand back, and the replays of each recorded graph
that watched calls counted. Every other module of ``cudagraphs/`` reads torch's trees
through these; each returns an empty or None value on a torch whose trees differ (the
doctor then says the fact is not known)."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch

from ... import torch_compat

#: At most this many tree nodes read for their outputs (a tree grows per size and path).
MAX_NODES = 10_000


def current_device() -> int | None:
    """The current CUDA device's index; None without a CUDA context."""
    try:
        return torch.cuda.current_device()
    except Exception:  # noqa: BLE001 - no CUDA context: no manager
        return None


def devices() -> list[int]:
    """The CUDA devices that have a tree manager in this thread (a graph ran there),
    whichever device is current; [] without CUDA."""
    try:
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception:  # noqa: BLE001 - a broken CUDA install reads as none
        return []
    return [i for i in range(count) if torch_compat.cudagraph_manager(i) is not None]


def graph_devices() -> list[int]:
    """The devices to read: those with a tree manager, else the current device."""
    found = devices()
    if found:
        return found
    index = current_device()
    return [] if index is None else [index]


def manager(device_index: int | None = None) -> Any:
    """The device's ``CUDAGraphTreeManager`` (the current device's by default), None
    before the first CUDA graph there (none is created)."""
    index = current_device() if device_index is None else device_index
    return None if index is None else torch_compat.cudagraph_manager(index)


def last_run_generation(device_index: int) -> int | None:
    """The generation of the tree manager's latest graph run (``current_gen``: set by each
    warm-up, recording and replay); None before any."""
    value = getattr(manager(device_index), "current_gen", None)
    return value if isinstance(value, int) else None


def pool_handle(device_index: int) -> tuple[int, int] | None:
    """The device's CUDA-graph pool id: the tree manager's ``cuda_graphs_thread_pool`` (a
    ``torch.cuda.graph_pool_handle()``), None without a manager."""
    handle = getattr(manager(device_index), "cuda_graphs_thread_pool", None)
    if not isinstance(handle, tuple) or len(handle) != 2:
        return None
    return int(handle[0]), int(handle[1])


#: replays of each recorded graph (``CUDAGraphNode``) that watched calls counted
_runs: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def counted_runs(node: Any) -> int:
    """The replays of ``node`` watched calls counted (``ReplayCounter``)."""
    try:
        return _runs.get(node, 0)
    except TypeError:
        return 0


class ReplayCounter:
    """Counts a tree manager's replays (``execute_node``) while installed: one watched
    call, in all and per recorded graph (``counted_runs``); an instance attribute over
    torch's method, removed at the call's end (nothing stays on a steady call's path).
    None of it when another counter is on already."""

    def __init__(self, tree: Any) -> None:
        self.count = 0
        self.manager = tree
        self._wrapper: Any = None
        if tree is None or "execute_node" in vars(tree):
            return  # an outer watched call counts already
        original = tree.execute_node

        def execute_node(node: Any, new_inputs: Any) -> Any:
            self.count += 1
            try:
                _runs[node] = _runs.get(node, 0) + 1
            except TypeError:  # a node not weakly referenceable: counted in all only
                pass
            return original(node, new_inputs)
        self._wrapper = execute_node
        tree.execute_node = execute_node

    def remove(self) -> None:
        if self._wrapper is not None and vars(self.manager).get("execute_node") is self._wrapper:
            del self.manager.execute_node
        self._wrapper = None


def generation() -> int | None:
    """The trees' current generation as torch counts it (``get_curr_generation``)."""
    return torch_compat.cudagraph_generation()


def generation_stacks(device_index: int) -> list[list[str | None]]:
    """Per node of the tree manager's current path (root first: the call that started
    this generation), the stack traces torch kept for its function's outputs
    (``CUDAGraphTreeManager.current_node._path_from_root``, each node's
    ``wrapped_function.id`` in ``ids_to_stack_traces``); [] when not readable."""
    tree = manager(device_index)
    node = getattr(tree, "current_node", None)
    traces = getattr(tree, "ids_to_stack_traces", None)
    if node is None or not isinstance(traces, dict):
        return []
    try:
        path = list(node._path_from_root)
        return [list(traces.get(n.wrapped_function.id) or []) for n in path]
    except Exception:  # noqa: BLE001 - a torch whose nodes differ: no call named
        return []


def path_outputs(device_index: int) -> list[weakref.ref[torch.Tensor]]:
    """The live outputs of the tree manager's current path (each node's
    ``tensor_weakrefs``): what a new generation would mark as overwritten. Weak: their
    liveness is left as it is; [] when not readable."""
    node = getattr(manager(device_index), "current_node", None)
    found: list[weakref.ref[torch.Tensor]] = []
    if node is None:
        return found
    try:
        for path_node in node._path_from_root:
            for ref in path_node.tensor_weakrefs:
                value = ref() if ref is not None else None
                if isinstance(value, torch.Tensor):
                    found.append(weakref.ref(value))
    except Exception:  # noqa: BLE001 - a torch whose nodes differ: none known
        return []
    return found


def _recorded_nodes(tree: Any) -> Iterator[Any]:
    """Every recorded node of a tree manager (roots and children), at most ``MAX_NODES``;
    none when it has no ``roots``. A torch whose nodes differ raises while walked."""
    roots = getattr(tree, "roots", None)
    if not isinstance(roots, dict):
        return
    stack = [node for nodes in roots.values() for node in nodes]
    seen = 0
    while stack and seen < MAX_NODES:
        node = stack.pop()
        seen += 1
        yield node
        for children in (getattr(node, "children", None) or {}).values():
            stack.extend(children)


def graph_outputs(device_index: int) -> dict[int, list[str | None]]:
    """ids of the output tensors the device's CUDA-graph trees hand back at each replay
    (every recorded node's ``cached_tensor_outputs``, roots and children), each with the
    stack traces torch kept for the function that produced it (``ids_to_stack_traces``);
    empty when not readable. References only: the outputs' liveness is left as it is."""
    tree = manager(device_index)
    traces = getattr(tree, "ids_to_stack_traces", None)
    found: dict[int, list[str | None]] = {}
    try:
        for node in _recorded_nodes(tree):
            outputs = [t for t in getattr(node, "cached_tensor_outputs", None) or ()
                       if t is not None]
            if outputs:
                node_traces = (traces.get(node.wrapped_function.id)
                               if isinstance(traces, dict) else None)
                for t in outputs:
                    found[id(t)] = list(node_traces or [])
    except Exception:  # noqa: BLE001 - a torch whose nodes differ: none known
        return {}
    return found


class Counters:
    """Replay counters on several devices' tree managers (one watched call: its graphs'
    device is not known before they run)."""

    def __init__(self, indexes: list[int]) -> None:
        self.counters = [ReplayCounter(manager(i)) for i in indexes]

    @property
    def count(self) -> int:
        return sum(c.count for c in self.counters)

    def remove(self) -> None:
        for counter in self.counters:
            counter.remove()


@dataclass(frozen=True)
class Replayed:
    """An output the tree manager's current path hands back at each replay of its node."""

    node: int  # id of its recorded graph (``CUDAGraphNode``)
    runs: int  # the node's replays watched calls counted (``counted_runs``)
    latest: bool  # the node of the manager's latest run (``current_node``)
    generation: int | None  # the generation of that latest run (``current_gen``)


def node_runs(device_index: int) -> dict[int, int]:
    """ids of the output tensors the device's trees hand back, each with its node's
    replays watched calls counted (``counted_runs``); empty when not readable."""
    found: dict[int, int] = {}
    try:
        for node in _recorded_nodes(manager(device_index)):
            runs = counted_runs(node)
            for t in getattr(node, "cached_tensor_outputs", None) or ():
                if t is not None:
                    found[id(t)] = runs
    except Exception:  # noqa: BLE001 - a torch whose nodes differ: none known
        return {}
    return found


def replayed_path(device_index: int) -> dict[int, Replayed]:
    """The outputs the tree manager's current path hands back at each replay (the
    ``cached_tensor_outputs`` of each node whose function torch compiled for inference
    or as a training forward, ``id_to_mode``), by id. Whether a node ran after a name was
    bound is told per node, not by the path: torch extends the current path with a
    recorded child of its latest node without starting the path anew (``_run``), so a
    node on the path may not have run since (``Replayed.latest``, ``Replayed.runs``).
    Empty when not known."""
    tree = manager(device_index)
    node = getattr(tree, "current_node", None)
    modes = getattr(tree, "id_to_mode", None)
    generation = last_run_generation(device_index)
    if node is None or not isinstance(modes, dict):
        return {}
    found: dict[int, Replayed] = {}
    try:
        for path_node in node._path_from_root:
            mode = modes.get(path_node.wrapped_function.id)
            if getattr(mode, "name", None) not in ("INFERENCE", "FORWARD"):
                continue
            ran = Replayed(id(path_node), counted_runs(path_node), path_node is node,
                           generation)
            for t in getattr(path_node, "cached_tensor_outputs", None) or ():
                if isinstance(t, torch.Tensor):
                    found[id(t)] = ran
    except Exception:  # noqa: BLE001 - a torch whose nodes differ: none known
        return {}
    return found


def pending_backward(device_index: int) -> bool:
    """Whether forwards wait for their backward on the device's trees
    (``running_forwards_with_pending_backwards``: no new generation starts while they do),
    and torch warned that it cannot hit the fast path (``warned_functions``)."""
    tree = manager(device_index)
    return (getattr(tree, "running_forwards_with_pending_backwards", False) is True
            and bool(getattr(tree, "warned_functions", None)))
