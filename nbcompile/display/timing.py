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

from ..core.perf.verdict import interval_text
from ..core.records import MIME_TYPE
from .budget import Room, fallback_budget, fit_list, more_note, output_budget, record_budget
from .text import clip, escape, notes_row
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
    # the interval the verdict rests on, labelled (not the quartiles: the verdict does
    # not use them)
    interval = interval_text(row.speedup_ci_low, row.speedup_ci_high)
    return (f"{row.speedup:.2f}x {row.verdict or 'no significant difference'}"
            + (f" [{interval}]" if interval else ""))


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


def _peak_text(row: TimingRow) -> str:
    if row.status == "failed":
        return "-"
    if row.peak_memory_bytes is None:
        return "not measured"
    text = format_bytes(row.peak_memory_bytes)
    if row.memory_verdict and row.kind != "eager":
        text += f" ({row.memory_verdict})"
    return text


def _row_cells(row: TimingRow, saved: bool = False) -> list[str]:
    cells = [
        row.mode,
        "-" if row.compile_s is None else format_seconds(row.compile_s, 2, sep=" "),
        _run_text(row),
        _speedup_text(row),
        _numerics_text(row),
        _peak_text(row),
        "-" if row.allocated_bytes is None else format_bytes(row.allocated_bytes),
    ]
    if saved:
        cells.append("-" if row.saved_bytes is None else format_bytes(row.saved_bytes))
    return cells


HEADERS = ["mode", "compile (1st call)", "run: median ± IQR/2", "speedup vs eager",
           "max |diff| vs eager", "peak memory/call", "allocated/call"]
#: The extra column of a call that saves tensors for backward (a training step).
SAVED_HEADER = "saved for backward"


def _headers(comparison: Comparison) -> list[str]:
    return HEADERS + ([SAVED_HEADER] if _has_saved(comparison) else [])


def _has_saved(comparison: Comparison) -> bool:
    return any(r.saved_bytes is not None for r in comparison.rows)


def _row_notes(row: TimingRow) -> list[str]:
    notes = [f"why not faster ({x.kind}): {x.message}" for x in row.explanations]
    notes += [f"why more memory ({x.kind}): {x.message}" for x in row.memory_explanations]
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


def time_spent(comparison: Comparison) -> str:
    """What the whole command took and what came on top of the budget, said up front."""
    phases = comparison.phases_s
    if not phases:
        return f"took {comparison.elapsed_s:.1f} s (the budget {comparison.budget_s:g} s " \
               "bounds the timed calls; compiles come on top)"
    timed = phases.get("timed calls", 0.0)
    on_top = [(k, v) for k, v in phases.items() if k != "timed calls" and v >= 0.05]
    extra = ", ".join(f"{k} {v:.1f} s" for k, v in on_top)
    budget = comparison.budget_s
    if timed <= budget * 1.1:
        bound = f"within the budget of {budget:g} s"
    else:
        repeats = comparison.rows[0].repeats if comparison.rows else 0
        bound = (f"over the budget of {budget:g} s: calibrating and the {repeats} "
                 "interleaved repeats every row needs took longer on this machine now")
    return (f"took {comparison.elapsed_s:.1f} s: timed calls {timed:.1f} s ({bound})"
            + (f"; on top of the budget: {extra}" if extra else ""))


def _memory_line(comparison: Comparison) -> str:
    eager = comparison.rows[0] if comparison.rows else None
    if not comparison.memory_measured or eager is None:
        return "memory: not measured (memory=False)"
    how = ("torch.profiler's CPU allocation events" if not comparison.device.startswith("cuda")
           else "the CUDA caching allocator's statistics")
    return (f"memory: one call per row, peak above the bytes in use before it and bytes "
            f"allocated, from {how}")


#: Where a comparison's full rows and notes are, named where a fallback leaves some out.
_FULL = "c.{attr} (c: the Comparison that nbcompile.compare or %compare returned)"
#: Bytes a budgeted fallback keeps for its closing parts (verdict, footer).
_TAIL = 1024


def timing_text(comparison: Comparison, budget: int | None = None) -> str:
    """The plain-text table, notes and verdict; with a ``budget`` (bytes), the rows and
    notes that fit (in order: eager first), the rest counted."""
    room = Room(None if budget is None else budget - _TAIL)
    headers = _headers(comparison)
    saved = _has_saved(comparison)
    cells = [headers] + [[clip(c) for c in _row_cells(r, saved)] for r in comparison.rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()

    lines = [room.spend(f"nbcompile.compare({comparison.name}): "
                        + ("INTERRUPTED, partial: " if comparison.interrupted else "")
                        + clip(", ".join(comparison.inputs))),
             room.spend(time_spent(comparison)), room.spend(line(cells[0])),
             room.spend("  ".join("-" * w for w in widths))]
    rows = comparison.rows
    lines += room.take((line(c) for c in cells[1:]), len(rows),
                       lambda n: more_note(n, "rows", _FULL.format(attr="rows")), 0.5)
    notes = [f"  {r.mode}: {clip(note)}" for r in rows[:room.shown] for note in _row_notes(r)]
    notes += [f"  note: {clip(note)}" for note in comparison.notes]
    lines += room.take(notes, len(notes),
                       lambda n: "  " + more_note(n, "notes", _FULL.format(attr="notes")))
    best = comparison.best
    lines.append(f"best: {best.mode} ({best.speedup:.2f}x)" if best is not None
                 else "best: none significantly faster than eager")
    lines.append(_memory_line(comparison))
    lines.append(_footer(comparison))
    return "\n".join(lines)


def timing_html(comparison: Comparison, png: bytes | None = None,
                budget: int | None = None) -> str:
    """An escaped, self-contained table (no scripts, no external resources); with a
    ``budget`` (bytes), the rows and notes that fit, the rest counted, and the chart
    only if it fits too."""
    e = escape
    room = Room(None if budget is None else budget - _TAIL)
    headers = _headers(comparison)
    saved = _has_saved(comparison)
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    top = room.spend(
        "<div class='nbcompile-timing'>"
        f"<b>nbcompile.compare</b>(<code>{e(comparison.name)}</code>): "
        + ("<b>interrupted, partial</b>: " if comparison.interrupted else "")
        + f"{e(clip(', '.join(comparison.inputs)))}"
        f"<div>{e(time_spent(comparison))}</div>"
        f"<table><thead><tr>{head}</tr></thead><tbody>")

    def row_html(r: TimingRow) -> str:
        colour = _VERDICT_COLOURS.get(r.verdict, "inherit")
        cells = [clip(c) for c in _row_cells(r, saved)]
        tds = [f"<td><code>{e(cells[0])}</code></td>"]
        tds += [f"<td>{e(c)}</td>" for c in cells[1:3]]
        tds.append(f"<td style='color:{colour}'>{e(cells[3])}</td>")
        numerics_colour = "#c62828" if r.numerics_ok is False else "inherit"
        tds.append(f"<td style='color:{numerics_colour}'>{e(cells[4])}</td>")
        tds += [f"<td>{e(c)}</td>" for c in cells[5:]]
        notes = _row_notes(r)
        items = "".join(f"<li>{e(clip(n))}</li>" for n in notes[:_ROW_NOTES])
        if len(notes) > _ROW_NOTES:
            items += _omitted_li(more_note(len(notes) - _ROW_NOTES, "notes",
                                           _FULL.format(attr=f"row({r.mode!r}).notes")))
        return f"<tr>{''.join(tds)}</tr>" + (
            notes_row(len(headers)) + f"{items}</ul></td></tr>"
            if items else "")

    rows = room.take((row_html(r) for r in comparison.rows), len(comparison.rows),
                     lambda n: notes_row(len(headers)) +
                     f"{_omitted_li(more_note(n, 'rows', _FULL.format(attr='rows')))}"
                     "</ul></td></tr>", 0.6)
    best = comparison.best
    verdict = (f"best: <code>{e(best.mode)}</code> ({best.speedup:.2f}x)" if best is not None
               else "no mode is significantly faster than eager")
    notes = room.take((f"<li>{e(clip(n))}</li>" for n in comparison.notes),
                      len(comparison.notes),
                      lambda n: _omitted_li(more_note(n, "notes", _FULL.format(attr="notes"))))
    img = ""
    if png:
        data = base64.b64encode(png).decode("ascii")
        img = (f"<div><img alt='speedup vs eager and peak memory by mode' "
               f"src='data:image/png;base64,{data}'/></div>")
        if room.left is not None and len(img) > room.left:
            img = (f"<div class='nbcompile-omitted'>The chart is left out of this output "
                   f"(output budget): {e(_FULL.format(attr='rows'))} has its numbers.</div>")
    return (
        top + "".join(rows) + "</tbody></table>"
        f"<div>{verdict}; {e(_memory_line(comparison))}; {e(_footer(comparison))}</div>"
        + (f"<ul style='margin:0'>{''.join(notes)}</ul>" if notes else "")
        + img
        + "</div>"
    )


#: Notes shown under one row of the HTML table.
_ROW_NOTES = 10
#: Rows the chart draws: a taller picture reads no better, and matplotlib lays out each
#: label (3,000 rows took 11 s); the table and the record hold every row.
CHART_ROWS = 24


def _omitted_li(text: str) -> str:
    return f"<li class='nbcompile-omitted'>{escape(text)}</li>"


def timing_chart_png(comparison: Comparison) -> bytes | None:
    """Speedup bars (median) with the 95 % interval the verdict rests on as error bars and,
    beside them, each row's peak memory per call (eager included); None if empty."""
    all_rows = [r for r in comparison.rows if r.kind != "eager" and r.speedup is not None]
    all_mem = [r for r in comparison.rows if r.peak_memory_bytes is not None]
    if not all_rows and not all_mem:
        return None
    rows, mem_rows = all_rows[:CHART_ROWS], all_mem[:CHART_ROWS]
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = int(bool(rows)) + int(bool(mem_rows))
    height = 0.9 + 0.45 * max(len(rows), len(mem_rows))
    fig = Figure(figsize=(6.0 if panels == 1 else 9.0, height), dpi=100)
    FigureCanvasAgg(fig)
    index = 1
    if rows:
        ax = fig.add_subplot(1, panels, index)
        index += 1
        labels = [r.mode for r in rows]
        values = [r.speedup or 0.0 for r in rows]  # rows with a speedup only (above)
        low = [max(0.0, v - (r.speedup_ci_low if r.speedup_ci_low is not None else v))
               for r, v in zip(rows, values, strict=True)]
        high = [max(0.0, (r.speedup_ci_high if r.speedup_ci_high is not None else v) - v)
                for r, v in zip(rows, values, strict=True)]
        colours = [_VERDICT_COLOURS.get(r.verdict, "#9e9e9e") for r in rows]
        positions = list(range(len(rows)))
        ax.barh(positions, values, xerr=[low, high], color=colours, capsize=3, height=0.6)
        ax.axvline(1.0, color="black", linewidth=1, linestyle="--")
        ax.set_yticks(positions)
        ax.set_yticklabels(labels)
        ax.invert_yaxis()
        ax.set_xlabel("speedup vs eager (median; bars: 95% confidence interval, what the "
                      "verdict rests on)", fontsize=8)
        for pos, r, v in zip(positions, rows, values, strict=True):
            mark = "" if r.numerics_ok is not False else "  numerics differ!"
            ax.annotate(f" {v:.2f}x{mark}", (v, pos), va="center", fontsize=8)
        top = max(max(values), max(r.speedup_ci_high or 0.0 for r in rows))
        ax.set_xlim(0, max(top * 1.35, 1.3))
    if mem_rows:
        ax = fig.add_subplot(1, panels, index)
        mib = [(r.peak_memory_bytes or 0) / 2**20 for r in mem_rows]
        positions = list(range(len(mem_rows)))
        ax.barh(positions, mib, color=["#757575" if r.kind == "eager" else "#1565c0"
                                      for r in mem_rows], height=0.6)
        ax.set_yticks(positions)
        ax.set_yticklabels([r.mode for r in mem_rows])
        ax.invert_yaxis()
        ax.set_xlabel("peak memory per call (MiB, above what was in use before it)",
                      fontsize=8)
        for pos, r, v in zip(positions, mem_rows, mib, strict=True):
            ratio = (f" ({r.peak_memory_ratio:.2f}x)" if r.kind != "eager"
                     and r.peak_memory_ratio is not None else "")
            ax.annotate(f" {format_bytes(r.peak_memory_bytes)}{ratio}", (v, pos),
                        va="center", fontsize=8)
        ax.set_xlim(0, max(max(mib) * 1.6, 1e-3))
    if len(all_rows) > len(rows) or len(all_mem) > len(mem_rows):
        fig.suptitle(f"the first {CHART_ROWS} rows of {max(len(all_rows), len(all_mem))} "
                     "(every row: the table)", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def timing_bundle(comparison: Comparison) -> dict[str, Any]:
    """The MIME bundle of a ``Comparison``: the fallbacks within theirs
    (``budget.fallback_budget``; the chart in both only if it fits the HTML's)."""
    try:
        png = timing_chart_png(comparison)
    except Exception:  # a chart failure must not hide the table
        png = None
    html = timing_html(comparison, png, fallback_budget())
    text = timing_text(comparison, fallback_budget())
    chart = base64.b64encode(png).decode("ascii") if png and "data:image/png" in html else ""
    budget = output_budget() - len(chart)
    bundle: dict[str, Any] = {
        MIME_TYPE: fit_list(comparison.to_dict(), "rows", record_budget(html, text,
                                                                        budget=budget),
                            _FULL.format(attr="rows")),
        "text/html": html,
        "text/plain": text,
    }
    if chart:
        bundle["image/png"] = chart
    return bundle
