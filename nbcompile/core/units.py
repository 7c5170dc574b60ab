"""Byte sizes in words, for core's own messages and every renderer, and the one way a long
text is cut (``clip``: every cap on a text shown or kept cuts through it, each with its own
limit and mark). No torch; imports nothing from nbcompile."""

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


#: The mark of a cut, unless a caller says otherwise.
ELLIPSIS = "\u2026"


def clip(text: str, limit: int, mark: str = ELLIPSIS, *, at_word: bool = False) -> str:
    """``text`` when it has at most ``limit`` characters, else its first ``limit`` (back
    to the last space when ``at_word``) followed by ``mark``."""
    if len(text) <= limit:
        return text
    kept = text[:limit]
    if at_word and " " in kept:
        kept = kept.rsplit(" ", 1)[0]
    return kept + mark
