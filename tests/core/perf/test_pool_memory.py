"""A CUDA-graph row's memory (``core/perf/memory/pool.py``): the arithmetic on what torch's
functions return, on a CPU. The segment dicts have the keys ``torch.cuda.memory_snapshot()``
gives each segment (``device``, ``total_size``, ``allocated_size``, ``segment_pool_id``:
``(0, 0)`` for the default pool, a ``torch.cuda.graph_pool_handle()`` for a private one);
their values are constructed here, not a GPU recording (``tests/gpu/test_commands_gpu.py``
checks the readers against torch on a GPU)."""

from __future__ import annotations

import torch

from nbcompile.core.notebook.cudagraphs.pool import pool_free, pool_segments
from nbcompile.core.perf.comparison import TimingRow
from nbcompile.core.perf.interleaved import Candidate
from nbcompile.core.perf.memory import pool as pool_memory
from nbcompile.core.perf.memory import rows as row_memory
from nbcompile.core.perf.memory.pool import PoolMemory, PoolState, grown
from nbcompile.core.perf.modes import resolve_modes

MiB = 1 << 20
POOL = (0, 3)  # a private pool's id, as graph_pool_handle() returns one


def _segment(size: int, pool: tuple[int, int], device: int = 0, allocated: int = 0) -> dict:
    return {"device": device, "address": 0x7F0000000000, "total_size": size,
            "allocated_size": allocated, "active_size": allocated, "requested_size": allocated,
            "stream": 0, "segment_type": "large", "segment_pool_id": pool,
            "is_expandable": False, "blocks": []}


def test_pool_segments_count_only_that_pools_segments_on_that_device():
    segments = [_segment(20 * MiB, POOL), _segment(2 * MiB, POOL, allocated=MiB),
                _segment(20 * MiB, (0, 0)),  # the default pool
                _segment(20 * MiB, (0, 4)),  # another private pool
                _segment(20 * MiB, POOL, device=1)]
    assert pool_segments(segments, POOL, 0) == 22 * MiB
    assert pool_segments(segments, POOL, 1) == 20 * MiB
    assert pool_segments([], POOL, 0) == 0
    # the room no tensor holds: total less active, that pool's segments on that device
    assert pool_free(segments, POOL, 0) == 20 * MiB + MiB
    assert pool_free(segments, POOL, 1) == 20 * MiB


def test_grown_is_the_pools_growth_and_none_without_a_pool():
    before = PoolState(reserved=40 * MiB, allocated=8 * MiB, pool=POOL, pool_bytes=20 * MiB)
    after = PoolState(reserved=62 * MiB, allocated=8 * MiB, pool=POOL, pool_bytes=42 * MiB)
    assert grown(before, after) == 22 * MiB
    # a new pool (the manager was made by this row's compile): all of it
    fresh = PoolState(reserved=40 * MiB, allocated=8 * MiB, pool=None, pool_bytes=0)
    assert grown(fresh, after) == 42 * MiB
    # no manager after the warm-up: torch recorded no graph, there is no pool to read
    assert grown(fresh, fresh) is None


def test_only_modes_that_ask_for_cuda_graphs_are_watched():
    specs = {s.label: s for s in resolve_modes(
        ["default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs",
         "aot_eager"])}
    assert [label for label, s in specs.items() if s.cudagraphs] == \
        ["reduce-overhead", "max-autotune"]
    # on a CPU nothing is read, whatever the mode asked for
    assert pool_memory.watch(torch.device("cpu"), True) is None


def test_a_pool_rows_held_bytes_and_words_say_where_the_bytes_are():
    (spec,) = [s for s in resolve_modes(["reduce-overhead"]) if s.cudagraphs]
    cand = Candidate(spec, TimingRow(mode=spec.label, kind=spec.kind))
    cand.pool = PoolMemory(held_bytes=20 * MiB, recorded_peak_bytes=8 * MiB,
                           pool_bytes=20 * MiB, reserved_growth=20 * MiB)
    row_memory.held_memory(cand, 100, 100)  # allocated unchanged: the pool's blocks are free
    assert cand.row.held_bytes == 20 * MiB
    assert any("CUDA-graph trees' private memory pool" in n for n in cand.row.notes)
    assert cand.pool.where().startswith("in the CUDA-graph pool: 20.0 MiB held")
    assert "reserved bytes grew by 20.0 MiB meanwhile" in cand.pool.where()
    # torch released cached blocks during the row (an old pool, empty_cache): its words
    shrank = PoolMemory(20 * MiB, 8 * MiB, 20 * MiB, reserved_growth=-94 * MiB)
    assert "reserved bytes shrank by 94.0 MiB meanwhile" in shrank.where()
    assert any("freed with the last of them, not with this one" in n for n in cand.row.notes)
    # a pool that had room grew by 0 B: the row's own bytes in it are not known, not 0 B
    roomy = Candidate(spec, TimingRow(mode=spec.label, kind=spec.kind))
    roomy.pool = PoolMemory(held_bytes=0, recorded_peak_bytes=8 * MiB, pool_bytes=62 * MiB,
                            reserved_growth=0, free_before=8 * MiB)
    row_memory.held_memory(roomy, 100, 100)
    assert roomy.row.held_bytes is None
    assert any(n.startswith("held between calls: not separable") for n in roomy.row.notes)
    assert "held between calls not known (the pool, 62.0 MiB shared" in roomy.pool.where()
    assert "0 B held" not in roomy.pool.where()
    # a pool with free room that grew a little: the growth is a floor, said as one
    partly = Candidate(spec, TimingRow(mode=spec.label, kind=spec.kind))
    partly.pool = PoolMemory(held_bytes=2 * MiB, recorded_peak_bytes=8 * MiB,
                             pool_bytes=64 * MiB, reserved_growth=2 * MiB, free_before=6 * MiB)
    row_memory.held_memory(partly, 100, 100)
    assert partly.row.held_bytes == 2 * MiB
    (note,) = partly.row.notes
    assert "(at least: the pool had 6.0 MiB free before this row" in note
    assert partly.pool.where().startswith("in the CUDA-graph pool: at least 2.0 MiB held")
    # without a pool: the allocated bytes, as for any row
    plain = Candidate(spec, TimingRow(mode=spec.label, kind=spec.kind))
    row_memory.held_memory(plain, 100, 164)
    assert plain.row.held_bytes == 64 and not plain.row.notes
