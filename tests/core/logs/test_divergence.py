"""Divergences between ranks (``core/logs/divergence.py``) on guard text as each torch
writes it: a process's own addresses and object ids are never a divergence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nbcompile.core.logs.divergence import find_divergences

#: torch 2.11's ID_MATCH guard line (TORCH_TRACE ``dynamo_guards``), as two ranks wrote it.
LINE = ("| | | | +- ID_MATCH: ___check_obj_id(G['torch'].relu, {id}), type=<built-in method "
        "relu of type object at {address}>  # def f(x): return torch.relu(x) * 2  # f.py:2")


@dataclass
class Compile:
    rank: int | None
    guards: str
    compile_id: str = "0/0"
    function: str = "f"
    cache: dict[str, int] = field(default_factory=dict)
    _graph_hashes: Any = ()
    recompile_guard: str = ""
    graphs: list[str] = field(default_factory=list)
    collectives: list[str] = field(default_factory=list)


def test_addresses_and_object_ids_of_each_process_are_no_divergence():
    rank0 = Compile(0, LINE.format(id=140296152951088, address="0x7f98bcee9fa0"))
    rank1 = Compile(1, LINE.format(id=140114573260592, address="0x7fae616e9fa0"))
    assert find_divergences([rank0, rank1]) == []
    other = Compile(1, LINE.replace("relu", "sigmoid").format(id=1, address="0x7fae616e9fa0"))
    (found,) = find_divergences([rank0, other])
    assert found.kind == "guards" and found.groups == [[0], [1]]
