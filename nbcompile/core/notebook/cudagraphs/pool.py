"""The CUDA-graph trees' private memory pool: its id and the bytes its segments reserve,
read from torch (the tree manager's ``cuda_graphs_thread_pool``, the segments of
``torch.cuda.memory_snapshot()``). One reading for every figure of the pool: per call
(``per_call.py``) and per ``%compare`` row (``core/perf/memory/pool.py``).
``pool_segments`` is pure; the readers run on CUDA only."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from . import trees


def _of_pool(segments: Iterable[Mapping[str, Any]], pool: tuple[int, int],
             device_index: int) -> Iterator[Mapping[str, Any]]:
    """The segments of ``torch.cuda.memory_snapshot()`` on a device whose
    ``segment_pool_id`` is ``pool``."""
    for seg in segments:
        if (seg.get("device", device_index) == device_index
                and tuple(seg.get("segment_pool_id") or ()) == tuple(pool)):
            yield seg


def pool_segments(segments: Iterable[Mapping[str, Any]], pool: tuple[int, int],
                  device_index: int) -> int:
    """Bytes of ``pool``'s segments on a device: their ``total_size`` summed."""
    return sum(int(seg.get("total_size", 0)) for seg in _of_pool(segments, pool, device_index))


def pool_free(segments: Iterable[Mapping[str, Any]], pool: tuple[int, int],
              device_index: int) -> int:
    """Bytes of ``pool``'s segments on a device that no tensor holds now (``total_size``
    less ``active_size``): room a new recording can take without the pool growing (CUDA-
    graph trees share one pool across a device's graphs by design)."""
    return sum(max(0, int(seg.get("total_size", 0)) - int(seg.get("active_size", 0)))
               for seg in _of_pool(segments, pool, device_index))


def pool_id(device_index: int) -> tuple[int, int] | None:
    """The device's CUDA-graph pool id: the tree manager's ``cuda_graphs_thread_pool``
    (a ``torch.cuda.graph_pool_handle()``), None without a manager."""
    return trees.pool_handle(device_index)


def pool_bytes(device_index: int) -> int | None:
    """Bytes the device's CUDA-graph pool reserves now: 0 without a pool (no graph
    recorded yet), None when torch's snapshot cannot be read."""
    pool = pool_id(device_index)
    if pool is None:
        return 0
    try:
        import torch

        return pool_segments(torch.cuda.memory_snapshot(), pool, device_index)
    except Exception:  # noqa: BLE001 - a torch whose snapshot differs
        return None
