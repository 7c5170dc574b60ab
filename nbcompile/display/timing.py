"""Rendering of a ``Comparison`` (the ``timing`` record): table, chart, MIME bundle.

The bundle carries the JSON record (``application/vnd.nbcompile.v1+json``), an escaped,
self-contained ``text/html`` table with the chart inlined as a data URI (frontends show
only the richest type, and HTML outranks PNG), the chart again as ``image/png`` and a
``text/plain`` table.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from ..core.records import MIME_TYPE
from .text import escape
from .units import format_bytes, format_duration, format_seconds

if TYPE_CHECKING:
    from ..core.perf.timing import Comparison, TimingRow

_VERDICT_COLOURS = {
    "faster": "#2e7d32",
    "slower": "#c62828",
    "no significant difference": "#9e9e9e",
    "inconclusive on this machine now": "#f9a825",
    "failed": "#000000",
}


def _speedup_text(row: TimingRow) -> str:
    if row.kind == "eager":
        return "1.00x (baseline)"
    if row.status == "failed":
        return "failed"
    if row.speedup is None:
        return "-"
    spread = ""
    if row.speedup_q1 is not None and row.speedup_q3 is not None:
        spread = f" [{row.speedup_q1:.2f}-{row.speedup_q3:.2f}]"
    return f"{row.speedup:.2f}x{spread} {row.verdict or 'no significant difference'}"


def _numerics_text(row: TimingRow) -> str:
    if row.status == "failed" or row.max_abs_diff is None and row.numerics_ok is None:
        return "-"
    if row.kind == "eager":
        return "reference"
    diff = "inf" if row.max_abs_diff is None else f"{row.max_abs_diff:.2g}"
    return f"{diff} ok" if row.numerics_ok else f"{diff} DIFFERS"


def _run_text(row: TimingRow) -> str:
    if row.median_s is None:
        return "-"
    return f"{format_duration(row.median_s)} ± {format_duration((row.iqr_s or 0.0) / 2)}"


def _row_cells(row: TimingRow) -> list[str]:
    return [
        row.mode,
        "-" if row.compile_s is None else format_seconds(row.compile_s, 2, sep=" "),
        _run_text(row),
        _speedup_text(row),
        _numerics_text(row),
        format_bytes(row.peak_memory_bytes),
    ]


HEADERS = ["mode", "compile (1st call)", "run: median ± IQR/2", "speedup vs eager",
           "max |diff| vs eager", "peak memory"]


def _row_notes(row: TimingRow) -> list[str]:
    notes = [f"why not faster ({x.kind}): {x.message}" for x in row.explanations]
    notes += row.notes
    if row.error:
        notes.insert(0, row.error)
    if row.cache:
        notes.append("cache: " + ", ".join(f"{k}={v}" for k, v in sorted(row.cache.items())))
    return notes


def _footer(comparison: Comparison) -> str:
    return (
        f"{comparison.rows[0].repeats if comparison.rows else 0} interleaved repeats, "
        f"{comparison.num_threads} thread(s), {comparison.device}, "
        f"budget {comparison.budget_s:g} s, took {comparison.elapsed_s:.1f} s"
    )


def timing_text(comparison: Comparison) -> str:
    rows = [HEADERS] + [_row_cells(r) for r in comparison.rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    lines = [f"nbcompile.compare({comparison.name}): " + ", ".join(comparison.inputs)]
    for i, cells in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    for r in comparison.rows:
        for note in _row_notes(r):
            lines.append(f"  {r.mode}: {note}")
    for note in comparison.notes:
        lines.append(f"  note: {note}")
    best = comparison.best
    lines.append(f"best: {best.mode} ({best.speedup:.2f}x)" if best is not None
                 else "best: none significantly faster than eager")
    lines.append(_footer(comparison))
    return "\n".join(lines)


def timing_html(comparison: Comparison, png: bytes | None = None) -> str:
    """An escaped, self-contained table (no scripts, no external resources)."""
    e = escape
    head = "".join(f"<th>{e(h)}</th>" for h in HEADERS)
    body = []
    for r in comparison.rows:
        colour = _VERDICT_COLOURS.get(r.verdict, "inherit")
        cells = _row_cells(r)
        tds = [f"<td><code>{e(cells[0])}</code></td>"]
        tds += [f"<td>{e(c)}</td>" for c in cells[1:3]]
        tds.append(f"<td style='color:{colour}'>{e(cells[3])}</td>")
        numerics_colour = "#c62828" if r.numerics_ok is False else "inherit"
        tds.append(f"<td style='color:{numerics_colour}'>{e(cells[4])}</td>")
        tds.append(f"<td>{e(cells[5])}</td>")
        body.append(f"<tr>{''.join(tds)}</tr>")
        notes = _row_notes(r)
        if notes:
            items = "".join(f"<li>{e(n)}</li>" for n in notes)
            body.append(f"<tr><td colspan='{len(HEADERS)}'><ul style='margin:0'>{items}"
                        "</ul></td></tr>")
    best = comparison.best
    verdict = (f"best: <code>{e(best.mode)}</code> ({best.speedup:.2f}x)" if best is not None
               else "no mode is significantly faster than eager")
    notes = "".join(f"<li>{e(n)}</li>" for n in comparison.notes)
    img = ""
    if png:
        data = base64.b64encode(png).decode("ascii")
        img = (f"<div><img alt='speedup vs eager by mode' "
               f"src='data:image/png;base64,{data}'/></div>")
    return (
        "<div class='nbcompile-timing'>"
        f"<b>nbcompile.compare</b>(<code>{e(comparison.name)}</code>): "
        f"{e(', '.join(comparison.inputs))}"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        f"<div>{verdict}; {e(_footer(comparison))}</div>"
        + (f"<ul style='margin:0'>{notes}</ul>" if notes else "")
        + img
        + "</div>"
    )


def timing_chart_png(comparison: Comparison) -> bytes | None:
    """Speedup bars (median) with the interquartile spread as error bars; None if empty."""
    rows = [r for r in comparison.rows if r.kind != "eager" and r.speedup is not None]
    if not rows:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 0.6 + 0.45 * len(rows)), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    labels = [r.mode for r in rows]
    values = [r.speedup for r in rows]
    low = [max(0.0, r.speedup - (r.speedup_q1 or r.speedup)) for r in rows]
    high = [max(0.0, (r.speedup_q3 or r.speedup) - r.speedup) for r in rows]
    colours = [_VERDICT_COLOURS.get(r.verdict, "#9e9e9e") for r in rows]
    positions = list(range(len(rows)))
    ax.barh(positions, values, xerr=[low, high], color=colours, capsize=3, height=0.6)
    ax.axvline(1.0, color="black", linewidth=1, linestyle="--")
    ax.set_yticks(positions)
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlabel("speedup vs eager (median, bars: interquartile range); grey: no "
                  "significant difference", fontsize=8)
    for pos, r in zip(positions, rows, strict=True):
        mark = "" if r.numerics_ok is not False else "  numerics differ!"
        ax.annotate(f" {r.speedup:.2f}x{mark}", (r.speedup, pos), va="center", fontsize=8)
    ax.set_xlim(0, max(max(values) * 1.35, 1.3))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def timing_bundle(comparison: Comparison) -> dict[str, Any]:
    """The MIME bundle of a ``Comparison``."""
    try:
        png = timing_chart_png(comparison)
    except Exception:  # a chart failure must not hide the table
        png = None
    bundle: dict[str, Any] = {
        MIME_TYPE: comparison.to_dict(),
        "text/html": timing_html(comparison, png),
        "text/plain": timing_text(comparison),
    }
    if png:
        bundle["image/png"] = base64.b64encode(png).decode("ascii")
    return bundle
