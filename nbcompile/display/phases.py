"""Compile time by phase: one stacked bar per compile (``CompileRecord.phases``)."""

from __future__ import annotations

from typing import Any

from ..core.trace.phases import PHASES
from .text import PROSE_CELL, compile_words, escape
from .units import format_duration

#: One colour per phase, in ``PHASES`` order.
PHASE_COLOURS = ("#1565c0", "#6a1b9a", "#00838f", "#2e7d32", "#f9a825", "#e65100", "#757575")


def phases_html(record: Any) -> str:
    """Stacked bars (widths relative to the slowest compile) with a legend; "" if none."""
    compiles = [c for c in record.compiles if c.phases]
    if not compiles:
        return ""
    longest = max(sum(c.phases.values()) for c in compiles) or 1.0
    colours = dict(zip(PHASES, PHASE_COLOURS, strict=True))
    rows = []
    for c in compiles:
        segments = "".join(
            f"<span title='{escape(name)}: {format_duration(seconds)}' style='display:inline-block;"
            f"height:12px;width:{100 * seconds / longest:.2f}%;"
            f"background:{colours.get(name, '#999')}'></span>"
            for name, seconds in c.phases.items()
        )
        guard = (f", guards {format_duration(c.guard_latency_s)}/call"
                 if c.guard_latency_s is not None else "")
        rows.append(
            f"<tr><td {PROSE_CELL}>{escape(compile_words(c))}</td>"
            f"<td style='width:60%'><div style='white-space:nowrap'>{segments}</div></td>"
            f"<td>{format_duration(sum(c.phases.values()))}{guard}</td></tr>"
        )
    legend = " ".join(
        f"<span style='color:{colour}'>&#9632;</span> {escape(name)}"
        for name, colour in colours.items()
    )
    return (f"<div class='nbcompile-phases'><b>compile time by phase</b>"
            f"<table style='width:100%'>{''.join(rows)}</table>"
            f"<div style='font-size:smaller'>{legend}</div></div>")
