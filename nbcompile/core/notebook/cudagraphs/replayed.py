"""Names holding a CUDA-graph output that a replay handed back or wrote, with no mark and no
error: the pure judgments of ``hazard.py`` (no torch state read here).

A recorded graph hands back the very tensor it returned before while the user holds it
(``CUDAGraphNode.reconstruct_outputs``) and writes the new values into it. Whether a name's
output was written is told per recorded graph (``trees.Replayed``: the latest run's graph,
or replays watched calls counted), never inferred from the trees' path, and torch's
generation is compared for equality only (``cudagraph_mark_step_begin`` counts it down).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch

from . import trees
from .cloning import Cloning
from .ledger import Binding, Ledger


@dataclass(frozen=True)
class Shared:
    """One user name holding a CUDA-graph output another name holds too."""

    name: str  # ``y1``, ``preds[0]``
    bound_in: int | None  # execution count of the cell that bound it (None: not known)


@dataclass(frozen=True)
class SharedReport:
    """Names that hold one tensor a recorded CUDA graph hands back at every replay
    (``CUDAGraphNode.reconstruct_outputs`` returns the same tensor object while one is
    alive, and the replay writes into it, with no mark and no error): each group, reported
    at the cell after which they were first seen together."""

    cell: int | None
    groups: tuple[tuple[Shared, ...], ...]
    producers: tuple[str, ...] = ()  # the functions whose outputs they are ("" not known)
    # names alone on such a tensor that a later replay wrote (``written_names``)
    written: tuple[Shared, ...] = ()
    # torch's own setting that keeps such outputs (its message offers it; None: none)
    cloning: Cloning | None = None


def shared_outputs(leaves: list[tuple[str, torch.Tensor]], outputs: set[int],
                   ledger: Ledger, reported: set[frozenset[str]],
                   handed_twice: set[int] | frozenset[int] = frozenset()
                   ) -> list[tuple[Shared, ...]]:
    """The groups of names (two or more) whose tensor is one and the same graph output
    (``outputs``: ids of the tensors the trees hand back), on evidence that a replay made
    them one: names first seen in different generations of the trees (``y2 = y1`` in a
    cell with no call between is the user's own alias), several items of one container
    (``[f(b) for b in batches]``), or a tensor the cell's calls handed back twice
    (``handed_twice``: ``y1 = f(x); y2 = f(x2)`` in one cell). Each group once
    (``reported``, updated), each name with the cell that bound it (the ledger noted the
    leaves first)."""
    by_tensor: dict[int, list[tuple[str, torch.Tensor]]] = {}
    for name, value in leaves:
        if id(value) in outputs:
            by_tensor.setdefault(id(value), []).append((name, value))
    groups: list[tuple[Shared, ...]] = []
    for members in by_tensor.values():
        key = frozenset(name for name, _ in members)
        if len(members) < 2 or key in reported:
            continue
        bindings = [ledger.binding(name, value) for name, value in members]
        generations = {b.generation for b in bindings if b is not None} - {None}
        containers = {name.split("[", 1)[0] for name, _ in members if "[" in name}
        one_container = len(containers) == 1 and all("[" in name for name, _ in members)
        if len(generations) < 2 and not one_container and id(members[0][1]) not in handed_twice:
            continue
        reported.add(key)
        groups.append(tuple(Shared(name, b.cell if b is not None else None)
                            for (name, _), b in zip(members, bindings, strict=True)))
    return groups


def ran_since(ran: trees.Replayed, binding: Binding) -> bool:
    """Whether the recorded graph of a name's output replayed after the name was first
    seen holding it: it is the graph of the manager's latest run and that run's generation
    is not the one the name was seen in (torch's generation counts up per compiled call,
    and down per ``cudagraph_mark_step_begin``: only equality is read), or watched calls
    counted replays of it since."""
    if binding.generation is None:
        return False
    latest = (ran.latest and ran.generation is not None
              and ran.generation != binding.generation)
    return latest or ran.runs > binding.runs


def written_names(leaves: list[tuple[str, torch.Tensor]],
                  replayed: Mapping[int, trees.Replayed], ledger: Ledger) -> list[Shared]:
    """The names, each alone on its tensor, whose tensor a replay wrote after the name was
    bound: an output of an inference or training-forward graph on the trees' current path
    (``replayed``, from ``trees.replayed_path``) whose graph replayed since the name was
    first seen holding it (``ran_since``). ``y1 = f(x)``, then ``loss = f(x2).sum()`` in a
    later cell: ``y1`` holds ``f(x2)`` now; the same after ``loss.backward()`` for a
    training forward's output. Each name once."""
    if not replayed:
        return []
    holders: dict[int, int] = {}
    for _, value in leaves:
        holders[id(value)] = holders.get(id(value), 0) + 1
    found: list[Shared] = []
    for name, value in leaves:
        ran = replayed.get(id(value))
        if ran is None or holders[id(value)] > 1:
            continue  # several names on one tensor: ``shared_outputs`` says it
        binding = ledger.binding(name, value)
        if binding is None or binding.written or not ran_since(ran, binding):
            continue
        binding.written = True
        found.append(Shared(name, binding.cell))
    return found


