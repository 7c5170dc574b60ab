"""Memory of a CUDA-graph row (``reduce-overhead``, ``max-autotune``): where its bytes are.

A CUDA graph's replay allocates nothing: its buffers (the inputs copied in, the
intermediates, the output) were allocated once, while CUDA-graph trees recorded it, in
the tree manager's private memory pool. So the caching allocator's per-call statistics
read 0 B for a replay, and after the caller dropped the output the pool's blocks are
free (not ``allocated``) yet reserved for the graphs: ``memory_allocated`` misses them.
Measured here instead, around the row's compile, first call and warm-up (its recording):

* ``held_bytes``: the pool's growth, the ``total_size`` of the segments whose
  ``segment_pool_id`` is the tree manager's ``cuda_graphs_thread_pool``
  (``torch.cuda.memory_snapshot()``); the allocator's ``reserved_bytes.all.current``
  growth (``torch.cuda.memory_stats``) is kept beside it. No manager after the warm-up
  (torch skipped CUDA graphs for every graph): no pool, the row is measured as any other;
* ``recorded_peak_bytes``: the peak of allocated bytes over the warm-up (the recording),
  above the bytes allocated before it (``max_memory_allocated`` when the warm-up set a new
  high; the user's peak statistics are never reset, so when the peak so far is above what
  is allocated, torch.profiler's memory events over the warm-up say it; 0 when neither
  can): the pool's blocks the graph works in, which each replay reuses.

The readers run on CUDA only, for rows that asked for CUDA graphs; the arithmetic on what
torch's functions return (``grown``; the pool's reading: ``core/notebook/cudagraphs/pool.py``)
is pure and tested on a CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from ...notebook.cudagraphs.pool import pool_free, pool_id, pool_segments
from ...units import format_bytes
from .call import QuietProfile, memory_events, peak_of

#: ``torch.cuda.memory_stats`` key of the bytes the allocator reserved from CUDA.
RESERVED = "reserved_bytes.all.current"
#: ``torch.cuda.memory_stats`` key of the bytes allocated to tensors now.
ALLOCATED = "allocated_bytes.all.current"


@dataclass(frozen=True)
class PoolState:
    """The allocator and the CUDA-graph pool at one moment (plain data)."""

    reserved: int  # ``memory_stats()[RESERVED]``
    allocated: int  # ``memory_stats()[ALLOCATED]``
    pool: tuple[int, int] | None  # the tree manager's pool id (None: no manager)
    pool_bytes: int  # that pool's segments, ``total_size`` summed (0 without one)
    pool_free: int = 0  # of those, the bytes no tensor holds (``pool.pool_free``)


@dataclass(frozen=True)
class PoolMemory:
    """What a CUDA-graph row holds, read after its compile and warm-up."""

    held_bytes: int  # the pool's growth over the row's compile and warm-up
    recorded_peak_bytes: int  # allocated during the warm-up (recording), above before it
    pool_bytes: int  # the whole pool now (shared with other CUDA-graph functions)
    reserved_growth: int  # ``reserved_bytes.all.current`` after minus before
    # bytes of the same pool no tensor held before the row (0: a new pool)
    free_before: int = 0

    @property
    def separable(self) -> bool:
        """Whether ``held_bytes`` says something of this row: the pool grew over its
        compile and warm-up, or holds nothing. A pool with free room may give the row's
        graphs that room: the growth is then a floor (``free_before`` more at most), and
        no growth says nothing."""
        return self.held_bytes > 0 or self.pool_bytes == 0

    def where(self) -> str:
        """The row's words for where its bytes are."""
        change = (f"grew by {format_bytes(self.reserved_growth)}" if self.reserved_growth >= 0
                  else f"shrank by {format_bytes(-self.reserved_growth)}")
        room = (f"{format_bytes(self.free_before)} free before this row, which its graphs "
                "may take")
        if not self.separable:
            held = (f"held between calls not known (the pool, {format_bytes(self.pool_bytes)}"
                    " shared by every function compiled with CUDA graphs on the device, had "
                    f"{room}, and did not grow)")
        elif self.free_before:
            held = (f"at least {format_bytes(self.held_bytes)} held between calls (the pool "
                    f"had {room} too)")
        else:
            held = f"{format_bytes(self.held_bytes)} held between calls"
        return (f"in the CUDA-graph pool: {held} "
                "(the segments of CUDA-graph trees' private pool, torch.cuda.memory_snapshot; "
                f"the allocator's reserved bytes {change} meanwhile, torch.cuda.memory_stats); "
                "peak = the bytes its recording allocated in the pool (max_memory_allocated "
                "over the warm-up), which every replay reuses; a replay allocates nothing")


def grown(before: PoolState, after: PoolState) -> int | None:
    """The pool's growth from ``before`` to ``after``: its segments after, less those
    before when it is the same pool (all of them when it is new); None without a pool
    after (no tree manager: no graph was recorded)."""
    if after.pool is None:
        return None
    start = before.pool_bytes if before.pool == after.pool else 0
    return max(0, after.pool_bytes - start)


# --- the readers (CUDA only) ------------------------------------------------------------------


def read_state(device: torch.device) -> PoolState:
    """The allocator's statistics and the CUDA-graph pool now (the device idle)."""
    torch.cuda.synchronize(device)
    stats = torch.cuda.memory_stats(device)
    index = device.index if device.index is not None else torch.cuda.current_device()
    pool = pool_id(index)
    segments = torch.cuda.memory_snapshot() if pool else []
    size = pool_segments(segments, pool, index) if pool else 0
    free = pool_free(segments, pool, index) if pool else 0
    return PoolState(int(stats.get(RESERVED, 0)), int(stats.get(ALLOCATED, 0)), pool, size,
                     free)


class PoolWatch:
    """A CUDA-graph row's pool, watched across its compile and warm-up: made before the
    compile, ``recording`` just before the warm-up calls, ``finish`` after them. A reading
    that fails gives no pool figure (memory must never cost the row its timing)."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.before = read_state(device)
        self.base: int | None = self.before.allocated
        self.peak_before = 0
        self._profile: QuietProfile | None = None  # the warm-up's, when stats cannot say
        self._prof: Any = None

    def recording(self) -> None:
        """The warm-up starts: its peak is measured from here (the user's peak statistics
        left as they were: no reset)."""
        try:
            torch.cuda.synchronize(self.device)
            self.peak_before = int(torch.cuda.max_memory_allocated(self.device))
            self.base = int(torch.cuda.memory_allocated(self.device))
            if self.peak_before > self.base:  # the warm-up may stay under the user's peak
                self._profile = QuietProfile(self.device)
                self._prof = self._profile.__enter__()
        except Exception:  # noqa: BLE001 - see the class
            self.base = None

    def finish(self) -> PoolMemory | None:
        """What the row holds in the pool; None when no pool exists (see ``grown``)."""
        events_peak = self.stop_profile()
        if self.base is None:
            return None
        try:
            high = int(torch.cuda.max_memory_allocated(self.device))
            # a new high is the warm-up's; under the peak so far, the profiler's events
            peak = (max(0, high - self.base) if high > self.peak_before
                    else events_peak or 0)
            after = read_state(self.device)
        except Exception:  # noqa: BLE001 - see the class
            return None
        held = grown(self.before, after)
        if held is None:
            return None
        free = self.before.pool_free if self.before.pool == after.pool else 0
        return PoolMemory(held, peak, after.pool_bytes, after.reserved - self.before.reserved,
                          free)


    def stop_profile(self) -> int | None:
        """The warm-up's profiler stopped (also when the warm-up failed); its peak from
        the profiler's memory events (None: none ran)."""
        if self._profile is None:
            return None
        try:
            self._profile.__exit__(None, None, None)
            events = memory_events(self._prof, self.device)
        except Exception:  # noqa: BLE001 - see the class
            return None
        finally:
            self._profile = None
        return peak_of(events)[0] if events is not None else None


def watch(device: torch.device, cudagraphs: bool) -> PoolWatch | None:
    """A watch for a row that asked for CUDA graphs on a CUDA device; None otherwise
    (nothing is read: on a CPU this costs nothing) or when the allocator cannot be read."""
    if not cudagraphs or device.type != "cuda":
        return None
    try:
        return PoolWatch(device)
    except Exception:  # noqa: BLE001 - memory must never cost the row its timing
        return None
