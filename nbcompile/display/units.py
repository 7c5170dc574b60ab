"""Human-readable units shared by every renderer."""

from __future__ import annotations


def format_bytes(n: int | None) -> str:
    """``1.5 MiB``; ``not measured`` for None."""
    if n is None:
        return "not measured"
    value = float(n)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"
