"""Byte sizes in words, for core's own messages and every renderer (no torch)."""

from __future__ import annotations


def format_bytes(n: int | None) -> str:
    """``1.5 MiB``, ``-16.0 MiB``; ``not measured`` for None."""
    if n is None:
        return "not measured"
    value = float(n)
    sign = "-" if value < 0 else ""
    value = abs(value)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{sign}{value:.0f} {unit}" if unit == "B" else f"{sign}{value:.1f} {unit}"
        value /= 1024
    return f"{sign}{value:.1f} GiB"
