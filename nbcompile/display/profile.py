"""Rendering of a ``Profile``: the source painted by measured time, and the kernel table.

Like ``%%cython --annotate``: each line of the target is shaded by its compiled time
(share of the hottest line), with its compiled and eager time per call and the kernels
it fed; below, the kernel table and the per-call budget. With ``Profile.memory``: the
peak and allocated bytes of one call (compiled and eager), bytes per line (shaded blue by
the line's share of the largest) and per kernel, and the timeline of bytes in use across
one call as a chart. Escaped, self-contained HTML (no scripts); a plain-text fallback;
the JSON record under the nbcompile MIME type.
"""

from __future__ import annotations

import base64
import io
from dataclasses import replace
from typing import Any

from ..core.notebook.cells.cell_names import names_in, place
from ..core.records import MIME_TYPE, Omission
from .budget import Room, fallback_budget, json_size, output_budget, record_budget
from .text import PROSE_CELL, clip, escape
from .units import format_bytes, format_duration

#: Rows each list keeps before the other is cut further (kernels slowest first, lines hottest).
_KEEP = 10


def _fmt(seconds: float | None) -> str:
    return format_duration(seconds) if seconds else "-"


def _measured(line: Any) -> bool:
    """Whether a profiled source line has compiled or eager time (or allocated bytes)."""
    return bool(line.compiled_s or line.eager_s or line.compiled_allocated_bytes
                or line.eager_allocated_bytes)


def _bytes(n: int | None) -> str:
    return format_bytes(n) if n else "-"


def memory_summary(m: Any) -> str:
    """One line: peaks, allocations and saved bytes of one call, compiled vs eager."""
    def pair(compiled: int | None, eager: int | None) -> str:
        text = f"{format_bytes(compiled)} compiled vs {format_bytes(eager)} eager"
        if compiled is not None and eager:
            text += f" ({compiled / eager:.2f}x)"
        return text

    parts = [f"peak {pair(m.peak_bytes, m.eager_peak_bytes)}",
             f"allocated {pair(m.allocated_bytes, m.eager_allocated_bytes)}"]
    if m.saved_bytes is not None or m.eager_saved_bytes is not None:
        parts.append(f"saved for backward {pair(m.saved_bytes, m.eager_saved_bytes)}")
    if m.across_breaks_bytes:
        parts.append(f"{format_bytes(m.across_breaks_bytes)} in use between graphs")
    return "memory per call: " + "; ".join(parts)


def _peak_point(points: list[Any]) -> str:
    if not points:
        return ""
    top = max(points, key=lambda pt: pt.bytes)
    return f"{format_bytes(top.bytes)} at {format_duration(top.t_s) if top.t_s else '0 s'}" \
           + (f" ({top.what})" if top.what else "")


def _budget(p: Any) -> list[tuple[str, float]]:
    return [("kernels", p.kernel_s), ("overhead", p.overhead_s),
            ("outside graphs", p.outside_graphs_s), ("unaccounted", p.unaccounted_s)]


def _source_head(p: Any) -> str:
    """The source column's head: the lines' file, a cell named as the summary names it
    (``source (cell [2])``)."""
    where = place(p.filename, None)
    return f"source ({where})" if where else "source"


def profile_text(p: Any, omitted: list[Omission] | None = None,
                 budget: int | None = None) -> str:
    """The plain-text view: budget, lines with time, kernel table, notes, cut marks; with
    a ``budget`` (bytes), the hottest lines and slowest kernels that fit, the rest
    counted."""
    room = Room(None if budget is None else budget - _TAIL)
    out = [f"profile of {p.name}: " + ("INTERRUPTED, partial: " if p.interrupted else "")
           + f"{p.repeat} call(s); wall {_fmt(p.wall_s)} per call "
           f"compiled, {_fmt(p.eager_wall_s)} eager"]
    out.append("  " + ", ".join(f"{k} {_fmt(v)}" for k, v in _budget(p)))
    m = p.memory
    if m is not None:
        out.append("  " + memory_summary(m))
        for label, points in (("compiled", m.timeline), ("eager", m.eager_timeline)):
            if points:
                out.append(f"  memory timeline, {label}: {len(points)} point(s), peak "
                           f"{_peak_point(points)}")
    for line in out:
        room.spend(line)
    timed = [ln for ln in p.lines if _measured(ln)]
    if timed:
        mem = f"  {'alloc c':>10}  {'alloc e':>10}" if m is not None else ""
        out.append(room.spend(f"  {'line':>5}  {'compiled':>10}  {'eager':>10}{mem}  "
                              f"{_source_head(p)}"))

        def line_row(ln: Any) -> str:
            mem = (f"  {_bytes(ln.compiled_allocated_bytes):>10}  "
                   f"{_bytes(ln.eager_allocated_bytes):>10}" if m is not None else "")
            return (f"  {ln.lineno:>5}  {_fmt(ln.compiled_s):>10}  "
                    f"{_fmt(ln.eager_s):>10}{mem}  {clip(ln.line.strip())}")

        hottest = timed if budget is None else _hottest(timed)
        out += room.take((line_row(ln) for ln in hottest), len(timed),
                         lambda n: "  " + _mark_words(Omission("lines", n, _how("lines"))),
                         0.4)
    alloc = f" {'alloc':>10}" if m is not None else ""
    out.append(room.spend(f"  {'kernel':<40} {'calls':>6} {'total':>10} {'mean':>10} "
                          f"{'share':>6}{alloc}  lines"))

    def kernel_row(k: Any) -> str:
        lines = clip(",".join(str(n) for n in k.lines)) or "not tied to a line"
        alloc = f" {_bytes(k.allocated_bytes):>10}" if m is not None else ""
        return (f"  {k.name[:40]:<40} {k.calls:>6} {_fmt(k.total_s):>10} "
                f"{_fmt(k.mean_s):>10} {k.share:>6.0%}{alloc}  {lines}")

    out += room.take((kernel_row(k) for k in p.kernels), len(p.kernels),
                     lambda n: "  " + _mark_words(Omission("kernels", n, _how("kernels"))),
                     0.8)
    notes = [f"  note: {clip(n)}" for n in p.notes]
    if m is not None:
        notes += [f"  memory: {clip(n)}" for n in ([m.note] if m.note else []) + m.notes]
    notes += [f"  {_mark_words(o)}" for o in omitted or []]
    out += room.take(notes, len(notes),
                     lambda n: "  " + _mark_words(Omission("notes", n, _how("notes"))))
    return "\n".join(out)


#: Bytes a budgeted fallback keeps for its closing parts.
_TAIL = 1024


def _hottest(lines: list[Any]) -> list[Any]:
    return sorted(lines, key=lambda ln: -(ln.compiled_s or 0.0))


def _how(attr: str) -> str:
    return f"p.{attr} (p: the Profile that nbcompile.profile or %kprun returned)"


def _mark_words(o: Omission) -> str:
    return f"{o.count} more {o.field} left out of this output (output budget): {o.how}"


def _shade(value: float, top: float) -> str:
    if top <= 0 or value <= 0:
        return "transparent"
    alpha = 0.12 + 0.68 * min(value / top, 1.0)
    return f"rgba(230, 81, 0, {alpha:.2f})"


def _shade_bytes(value: int, top: int) -> str:
    if top <= 0 or value <= 0:
        return "transparent"
    return f"rgba(21, 101, 192, {0.10 + 0.55 * min(value / top, 1.0):.2f})"


def profile_html(p: Any, omitted: list[Omission] | None = None, chart: bool = True,
                 budget: int | None = None) -> str:
    """The source coloured by compiled time per line, then the kernels and the budget;
    with memory, bytes per line and kernel and (``chart``) the timeline of one call. With
    a ``budget`` (bytes): the hottest lines (in source order) and slowest kernels that
    fit, the rest counted, and the chart only if it fits too."""
    e = escape
    room = Room(None if budget is None else budget - _TAIL)
    m = p.memory
    top = max((ln.compiled_s for ln in p.lines), default=0.0)
    top_bytes = max((max(ln.compiled_allocated_bytes, ln.eager_allocated_bytes)
                     for ln in p.lines), default=0)

    def line_row(ln: Any) -> str:
        speedup = f"{ln.speedup:.2f}x" if ln.speedup is not None else ""
        mem = "".join(
            f"<td style='text-align:right;background:{_shade_bytes(v, top_bytes)}'>"
            f"{_bytes(v)}</td>"
            for v in (ln.compiled_allocated_bytes, ln.eager_allocated_bytes)) if m else ""
        return (
            f"<tr style='background:{_shade(ln.compiled_s, top)}'>"
            f"<td style='text-align:right;color:#777'>{ln.lineno}</td>"
            f"<td style='text-align:right'>{_fmt(ln.compiled_s)}</td>"
            f"<td style='text-align:right'>{_fmt(ln.eager_s)}</td>"
            f"<td style='text-align:right'>{speedup}</td>{mem}"
            f"<td><pre style='margin:0'>{e(clip(ln.line))}</pre></td>"
            f"<td style='font-size:smaller'>{e(clip(', '.join(ln.kernels)))}</td></tr>"
        )

    budget_text = ", ".join(f"{k} {_fmt(v)}" for k, v in _budget(p))
    head = room.spend(
        f"<div class='nbcompile-profile'><b>nbcompile profile</b> of <code>{e(p.name)}</code>: "
        + ("<b>interrupted, partial</b>: " if p.interrupted else "") +
        f"{p.repeat} call(s), wall {_fmt(p.wall_s)} per call compiled, "
        f"{_fmt(p.eager_wall_s)} eager<br>per call: {e(budget_text)}"
        + (f"<br>{e(memory_summary(m))}" if m is not None else ""))
    # the hottest lines that fit (untimed ones last), shown in source order
    ranked = p.lines if budget is None else sorted(
        p.lines, key=lambda ln: (not _measured(ln), -(ln.compiled_s or 0.0)))
    rows = room.take((line_row(ln) for ln in ranked), len(ranked), lambda n: (
        f"<tr><td colspan='8' class='nbcompile-omitted' {PROSE_CELL}>"
        f"{e(_mark_words(Omission('lines', n, _how('lines'))))}</td></tr>"), 0.4)
    kept = sorted(range(room.shown), key=lambda i: ranked[i].lineno)
    rows = [rows[i] for i in kept] + rows[room.shown:]
    mem_head = ("<th>allocated compiled</th><th>allocated eager</th>" if m else "")
    source = room.spend(
        "<table class='nbcompile-profile-source' style='border-collapse:collapse'>"
        "<thead><tr><th>line</th><th>compiled</th><th>eager</th><th>speedup</th>"
        f"{mem_head}<th style='text-align:left'>{e(_source_head(p))}</th><th>kernels</th>"
        "</tr></thead>"
        "<tbody></tbody></table>") if rows else room.spend("<p>(no source lines)</p>")
    source = source.replace("<tbody></tbody>", f"<tbody>{''.join(rows)}</tbody>")

    def kernel_row(k: Any) -> str:
        return (f"<tr><td><code>{e(clip(k.name))}</code></td><td>{e(clip(k.kind))}</td>"
                f"<td>{k.calls}</td><td>{_fmt(k.total_s)}</td><td>{_fmt(k.mean_s)}</td>"
                f"<td>{k.share:.0%}</td>"
                + (f"<td>{_bytes(k.allocated_bytes)}</td>" if m else "")
                + f"<td>{e(clip(', '.join(map(str, k.lines))) or 'not tied to a line')}"
                "</td></tr>")

    krows = room.take((kernel_row(k) for k in p.kernels), len(p.kernels), lambda n: (
        f"<tr><td colspan='8' class='nbcompile-omitted' {PROSE_CELL}>"
        f"{e(_mark_words(Omission('kernels', n, _how('kernels'))))}</td></tr>"), 0.8)
    kernels = room.spend(
        "<table class='nbcompile-profile-kernels'><thead><tr><th>kernel</th><th>kind</th>"
        "<th>calls</th><th>total</th><th>mean</th><th>share</th>"
        + ("<th>allocated/call</th>" if m else "")
        + "<th>lines</th></tr></thead><tbody></tbody></table>"
    ).replace("<tbody></tbody>", f"<tbody>{''.join(krows)}</tbody>")
    notes = [f"<li>{e(clip(n))}</li>" for n in p.notes]
    if m is not None:
        notes += [f"<li>memory: {e(clip(n))}</li>" for n in ([m.note] if m.note else [])
                  + m.notes]
    notes += [f"<li class='nbcompile-omitted'>{e(_mark_words(o))}</li>" for o in omitted or []]
    notes = room.take(notes, len(notes), lambda n: (
        f"<li class='nbcompile-omitted'>{e(_mark_words(Omission('notes', n, _how('notes'))))}"
        "</li>"))
    memory = ""
    png = memory_chart_png(m) if m is not None and chart else None
    if png:
        data = base64.b64encode(png).decode("ascii")
        memory = (f"<div><img alt='bytes in use across one call, compiled and eager' "
                  f"src='data:image/png;base64,{data}'/></div>")
        if room.left is not None and len(memory) > room.left:
            memory = ("<div class='nbcompile-omitted'>The memory chart is left out of this "
                      f"output (output budget): {e(_how('memory.timeline'))}</div>")
    return (f"{head}{memory}{source}{kernels}"
            f"{'<ul>' + ''.join(notes) + '</ul>' if notes else ''}</div>")


def memory_chart_png(m: Any) -> bytes | None:
    """Bytes in use across one call, compiled and eager (steps), as a small PNG."""
    series = [(label, pts) for label, pts in (("eager", m.eager_timeline),
                                              ("compiled", m.timeline)) if len(pts) > 1]
    if not series:
        return None
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    fig = Figure(figsize=(6.0, 2.2), dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for label, pts in series:
        colour = "#757575" if label == "eager" else "#1565c0"
        ax.step([pt.t_s * 1e3 for pt in pts], [pt.bytes / 2**20 for pt in pts],
                where="post", label=label, color=colour)
    ax.set_xlabel("ms since the call started", fontsize=8)
    ax.set_ylabel("MiB in use", fontsize=8)
    ax.set_title("bytes in use across one call (above those in use before it)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def profile_bundle(p: Any, budget: int | None = None) -> dict[str, Any]:
    """The MIME bundle of a ``Profile`` within ``budget`` bytes (the output budget by
    default) for its JSON, HTML and text together: the fallbacks within theirs
    (``budget.fallback_budget``), the record in what they leave. Over it, the published
    record leaves out, in turn: source lines with no measured time, kernels beyond the
    slowest ten, lines beyond the hottest ten, then the rest; each cut is marked
    (``omitted``) with how to get it from the ``Profile`` object, which stays whole."""
    budget = output_budget() if budget is None else budget
    share = fallback_budget(budget)
    while True:
        html = profile_html(p, budget=share)
        text = profile_text(p, budget=share)
        data = _fit_record(p, record_budget(html, text, budget=budget))
        if json_size(data) + len(html.encode()) + len(text.encode()) <= budget or share < 64:
            return {MIME_TYPE: data, "text/html": html, "text/plain": text}
        share //= 2  # the record's floor is over its share: the fallbacks give way


def _fit_record(p: Any, budget: int) -> dict[str, Any]:
    """The profile's record within ``budget`` bytes of JSON, cut as ``profile_bundle``
    says."""
    kernels, lines = list(p.kernels), list(p.lines)
    m = p.memory
    timelines = m is not None and bool(m.timeline or m.eager_timeline)
    while True:
        omitted = [Omission(attr, len(whole) - len(kept), _how(attr))
                   for attr, whole, kept in (("kernels", p.kernels, kernels),
                                             ("lines", p.lines, lines)) if len(kept) < len(whole)]
        memory = m
        if m is not None and not timelines and (m.timeline or m.eager_timeline):
            omitted += [Omission(f"memory.{attr}", len(getattr(m, attr)), _how(f"memory.{attr}"))
                        for attr in ("timeline", "eager_timeline") if getattr(m, attr)]
            memory = replace(m, timeline=[], eager_timeline=[])
        shown = replace(p, kernels=kernels, lines=lines, memory=memory) if omitted else p
        data = shown.to_dict()
        if omitted:
            data["omitted"], data["truncated"] = [o.to_dict() for o in omitted], True
        if names := names_in(data):
            data["cell_names"] = names
        if json_size(data) <= budget or not (kernels or lines or timelines):
            return data
        if kernels or lines:  # the timelines' points go last
            kernels, lines = _cut(kernels, lines)
        else:
            timelines = False


def _cut(kernels: list[Any], lines: list[Any]) -> tuple[list[Any], list[Any]]:
    """One step less: untimed lines, then kernels and lines halved down to ``_KEEP``
    (slowest kernels and hottest lines kept, lines in source order), then to none."""
    timed = [ln for ln in lines if _measured(ln)]
    if len(timed) < len(lines):
        return kernels, timed
    for floor in (_KEEP, 0):
        if len(kernels) > floor:
            return kernels[:max(len(kernels) // 2, floor)], lines
        if len(lines) > floor:
            keep = max(len(lines) // 2, floor)
            hottest = set(map(id, sorted(lines, key=lambda ln: -ln.compiled_s)[:keep]))
            return kernels, [ln for ln in lines if id(ln) in hottest]
    return kernels, lines
