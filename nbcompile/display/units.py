"""Human-readable units shared by every renderer: bytes, durations, seconds, counts."""

from __future__ import annotations

from ..core.units import format_bytes  # noqa: F401 - one rule for bytes, core and display


def format_duration(seconds: float | None) -> str:
    """Three significant digits in the largest fitting unit: ``1.23 ms``; ``-`` for None."""
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_seconds(seconds: float, digits: int = 1, sep: str = "") -> str:
    """Fixed-point seconds: ``3.8s`` (``sep=" "``: ``3.80 s``)."""
    return f"{seconds:.{digits}f}{sep}s"


def plural(n: int, noun: str) -> str:
    """``2 graph(s)``: the count with the noun, plural-agnostic."""
    return f"{n} {noun}(s)"
