"""Each row's memory in ``compare``: one more call of a warm mode measured by
``memory.measure_call`` from the sandbox's starting state (as ``profile`` measures), and
its peak said against eager's beside the time verdict. A CUDA-graph row's bytes are in
CUDA-graph trees' private pool, read after its warm-up (``pool.py``): a replay
allocates nothing, so its peak is the recording's and its held bytes the pool's."""

from __future__ import annotations

import torch

from ...runs.sandbox import Sandbox
from ...runs.timed import first_line
from ...units import format_bytes
from ..comparison import Comparison
from ..interleaved import Candidate
from .call import measure_call, memory_verdict, peak_ratio


def measure_memory(cand: Candidate, box: Sandbox, device: torch.device,
                   held: set[int]) -> None:
    """One more call of a warm candidate, on the sandbox's copies, from the sandbox's
    starting state (every row, and ``profile``, from the same one): its peak, allocated
    and saved-for-backward bytes (``core/perf/memory.py``)."""
    row = cand.row
    assert cand.call is not None
    try:
        measured = measure_call(cand.call, box.args, box.kwargs, device, held,
                                reset=box.reset)
    except Exception as e:  # memory must never cost the user the timing
        row.memory_note = f"not measured: {type(e).__name__}: {first_line(str(e))}"
        return
    row.peak_memory_bytes = measured.peak_bytes
    row.allocated_bytes = measured.allocated_bytes
    row.saved_bytes = measured.saved_bytes
    row.memory_note = measured.note
    if cand.pool is not None:  # the replay's buffers were allocated at its recording
        row.peak_memory_bytes = max(measured.peak_bytes or 0, cand.pool.recorded_peak_bytes)
        row.memory_note = (f"{cand.pool.where()} (one replay measured: peak "
                           f"{format_bytes(measured.peak_bytes or 0)}, "
                           f"{format_bytes(measured.allocated_bytes or 0)} allocated)")


def held_memory(cand: Candidate, before: int | None, after: int | None) -> None:
    """What a row keeps between calls after its compile and warm-up: a CUDA-graph row's
    pool growth (``cand.pool``), else the allocated bytes ``after`` minus ``before``
    (``memory.allocated_now``; None off CUDA)."""
    row = cand.row
    if cand.pool is not None:
        row.held_bytes = cand.pool.held_bytes if cand.pool.separable else None
        free = cand.pool.free_before
        if row.held_bytes:
            floor = (f" (at least: the pool had {format_bytes(free)} free before this row, "
                     "which its graphs may take too)" if free else "")
            row.notes.append(
                f"keeps {format_bytes(row.held_bytes)} in CUDA-graph trees' private memory "
                "pool between calls (the recorded graphs' static inputs, outputs and "
                "intermediates; the pool's own segments): the pool's growth over this "
                f"row's compile and warm-up{floor}. The pool is shared by every function "
                "compiled with CUDA graphs on the device and freed with the last of them, "
                "not with this one")
        elif not cand.pool.separable:
            row.notes.append(
                "held between calls: not separable: CUDA-graph trees' private pool "
                f"({format_bytes(cand.pool.pool_bytes)}, shared by every function compiled "
                f"with CUDA graphs on the device) had {format_bytes(free)} free before this "
                "row, which its graphs may take, and did not grow over its compile and "
                "warm-up, so this row's own bytes in it are not known")
        return
    if before is not None and after is not None:
        row.held_bytes = max(0, after - before)

def memory_verdicts(result: Comparison) -> None:
    """Each row's peak against eager's, said beside the time verdict."""
    if not result.memory_measured or not result.rows:
        return
    eager = result.rows[0]
    for row in result.rows:
        if row.status != "ok" or row.peak_memory_bytes is None:
            continue
        if row.kind == "eager":
            row.memory_verdict = "baseline"
            row.peak_memory_ratio = 1.0 if row.peak_memory_bytes else None
            continue
        row.peak_memory_ratio = peak_ratio(row.peak_memory_bytes, eager.peak_memory_bytes)
        row.memory_verdict = memory_verdict(row.peak_memory_bytes, eager.peak_memory_bytes)
        if row.held_bytes:
            row.memory_verdict += f", plus {format_bytes(row.held_bytes)} held between calls"
