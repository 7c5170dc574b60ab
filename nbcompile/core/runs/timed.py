"""Timed calls of a run on copies (the median of repeats within a deadline) and a failed
run's error told in one line."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from ..units import clip


def _no_sync() -> None:
    return None


def median_time(run: Callable[[], Any], repeats: int, deadline: float | None = None,
                sync: Callable[[], None] = _no_sync) -> float | None:
    """Median seconds of ``repeats`` calls of ``run`` (each between two ``sync()``, e.g.
    a CUDA synchronisation); stops early when the next call would end past ``deadline``
    (a ``time.perf_counter()`` value), after at least one. None when nothing was timed."""
    times: list[float] = []
    for _ in range(repeats):
        if deadline is not None and times and time.perf_counter() + times[-1] > deadline:
            break
        sync()
        start = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) if times else None


def first_line(text: str) -> str:
    """The first line of an error message, at most 300 characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return clip(line, 297, "...")
