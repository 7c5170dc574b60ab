"""Eager line tracing: time per source line, or a profiler range per executed line.

Both tracers are limited to one code object (like line_profiler): other frames run
untraced, and a line's time is inclusive of what it calls.
"""

from __future__ import annotations

import sys
import time
import types
from collections.abc import Callable
from typing import Any


def line_times(call: Callable[[], Any], code: types.CodeType | None, repeat: int,
               sync: Callable[[], None] | None = None) -> tuple[dict[int, float], float]:
    """Inclusive seconds per line of ``code`` over ``repeat`` runs of ``call`` (one eager
    call, synchronised), and the total traced time. ``sync`` (a GPU's synchronize) runs
    before each clock reading: a line's time then holds the device work it launched, not
    only the launch (kernels run asynchronously)."""
    totals: dict[int, float] = {}
    if code is None:
        return totals, 0.0
    state: dict[str, Any] = {"line": None, "t": 0.0}

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if sync is not None:
            sync()
        now = time.perf_counter()
        if state["line"] is not None:
            totals[state["line"]] = totals.get(state["line"], 0.0) + now - state["t"]
        state["line"] = frame.f_lineno if event == "line" else None
        state["t"] = now
        return local

    def global_trace(frame: types.FrameType, event: str, arg: Any) -> Any:
        if frame.f_code is code and event == "call":
            return local
        return None

    saved = sys.gettrace()
    t0 = time.perf_counter()
    sys.settrace(global_trace)
    try:
        for _ in range(repeat):
            state["line"] = None
            call()
    finally:
        sys.settrace(saved)
    return totals, time.perf_counter() - t0


class LineRanges:
    """While entered, each executed line of ``code`` runs inside a ``record_function``
    range named ``<prefix><line number>`` (what ``torch.profiler`` ties allocations to)."""

    def __init__(self, code: types.CodeType | None, prefix: str) -> None:
        from torch.profiler import record_function

        self.record_function = record_function
        self.code = code
        self.prefix = prefix
        self.open_ranges: dict[int, Any] = {}  # frame id -> the range of its current line
        self.saved_trace: Any = None

    def _close(self, frame: types.FrameType) -> None:
        rng = self.open_ranges.pop(id(frame), None)
        if rng is not None:
            rng.__exit__(None, None, None)

    def _local(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if event in ("line", "return"):
            self._close(frame)
        if event == "line":
            rng = self.record_function(f"{self.prefix}{frame.f_lineno}")
            rng.__enter__()
            self.open_ranges[id(frame)] = rng
        return self._local

    def _global(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if self.code is not None and frame.f_code is self.code and event == "call":
            return self._local
        return None

    def __enter__(self) -> LineRanges:
        self.saved_trace = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.settrace(self.saved_trace)
        for rng in self.open_ranges.values():
            rng.__exit__(None, None, None)
        self.open_ranges.clear()
