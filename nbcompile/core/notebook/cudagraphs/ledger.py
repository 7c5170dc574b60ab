"""Which user names hold which tensors, and the cell that bound each (weakly).

The CUDA-graph hazard watch (``hazard.py``) reads the user's namespace after each cell as
``tensor_leaves`` (a name's tensor, or one level into a list, tuple or dict) and notes in
the ``Ledger`` the cell that first bound each name to the tensor it holds, what was
reported about it, and the trees' generation when it was first seen holding a graph
output. Nothing here keeps a tensor alive or reads torch's state.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

#: Containers looked into, one level, and at most this many items each (``outs[0]``).
MAX_ITEMS = 64


def tensor_leaves(namespace: Mapping[str, Any]) -> Iterator[tuple[str, torch.Tensor]]:
    """The tensors the user's names hold: each name's value, and one level into a list,
    tuple or dict (at most ``MAX_ITEMS`` items each), labelled as the user writes them."""
    for name, value in list(namespace.items()):
        if isinstance(value, torch.Tensor):
            yield name, value
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value[:MAX_ITEMS]):
                if isinstance(item, torch.Tensor):
                    yield f"{name}[{i}]", item
        elif isinstance(value, dict):
            for i, (key, item) in enumerate(value.items()):
                if i >= MAX_ITEMS:
                    break
                if isinstance(item, torch.Tensor) and isinstance(key, (str, int)):
                    yield f"{name}[{key!r}]", item


@dataclass
class Binding:
    """One name's tensor (weakly), the cell that bound it, and what was said of it."""

    ref: weakref.ref[torch.Tensor]
    cell: int | None
    reported: bool = False
    overwritten_in: int | None = None
    calls: tuple[str, ...] = ()
    # the trees' generation (``current_gen``: torch's count of compiled invocations) when
    # the name was first seen holding a graph output; None: not a graph output then
    generation: int | None = None
    written: bool = False  # said to hold an output a later replay wrote (``written_names``)
    # the replays watched calls had counted of the output's recorded graph when the name
    # was first seen holding it (``trees.counted_runs``)
    runs: int = 0


class Ledger:
    """Which cell bound each name to the tensor it holds (weakly: nothing is kept alive,
    the outputs' liveness, which CUDA-graph trees read, is left as the user made it)."""

    def __init__(self) -> None:
        self._bound: dict[str, Binding] = {}

    def binding(self, name: str, value: torch.Tensor) -> Binding | None:
        found = self._bound.get(name)
        return found if found is not None and found.ref() is value else None

    def note(self, name: str, value: torch.Tensor, cell: int | None) -> Binding:
        """``name`` holds ``value`` after ``cell``: a new binding unless it held it before."""
        found = self.binding(name, value)
        if found is None:
            found = self._bound[name] = Binding(weakref.ref(value), cell)
        return found

    def keep_only(self, names: set[str]) -> None:
        """Forget the names no longer bound."""
        for name in [n for n in self._bound if n not in names]:
            del self._bound[name]
