"""Interval arithmetic on profiler times (microseconds): union, length, clip, difference."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Interval = tuple[float, float]


def union(intervals: Iterable[Interval]) -> list[Interval]:
    """The intervals merged: sorted, none overlapping."""
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def length(intervals: Iterable[Interval]) -> float:
    return sum(end - start for start, end in intervals)


def clip(intervals: Iterable[Interval], lo: float, hi: float) -> list[Interval]:
    """The parts of the intervals within ``[lo, hi]``."""
    return [(max(s, lo), min(e, hi)) for s, e in intervals if min(e, hi) > max(s, lo)]


def minus(a: list[Interval], b: list[Interval]) -> list[Interval]:
    """Parts of the merged intervals ``a`` not covered by the merged intervals ``b``."""
    out: list[Interval] = []
    for start, end in a:
        cursor = start
        for bs, be in b:
            if be <= cursor or bs >= end:
                continue
            if bs > cursor:
                out.append((cursor, bs))
            cursor = max(cursor, be)
        if cursor < end:
            out.append((cursor, end))
    return out


def span(event: Any) -> Interval:
    """The start and end of a profiler event (anything with a ``time_range``)."""
    return (float(event.time_range.start), float(event.time_range.end))
