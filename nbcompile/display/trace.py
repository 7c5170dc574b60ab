"""A trace (``TraceReport``) as text, HTML and the versioned JSON record (``"trace"``).

The same view serves the notebook (``_repr_mimebundle_``, ``%nbcompile open``) and the
terminal (``python -m nbcompile open`` prints ``trace_text``, ``--html`` writes
``trace_page``). Long texts are capped in what is published inline.
"""

from __future__ import annotations

from typing import Any

from ..core.records import MIME_TYPE
from ..core.tracereport import TraceCompile, TraceRecord
from .highlight import highlight_code
from .text import GRAPH_CAP, GUARDS_CAP, KERNEL_CAP, OUTPUT_CODE_CAP, escape
from .units import format_bytes

_STATUS_COLOURS = {"compiled": "#2e7d32", "cache_hit": "#1565c0", "restarted": "#ef6c00",
                   "failed": "#c62828"}


def cap(text: str, limit: int, _name: str = "") -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters with a note saying where the rest is."""
    if len(text) <= limit:
        return text, False
    return (text[:limit] + f"\n... [truncated by nbcompile: {len(text) - limit} more "
            "characters; nbcompile.open_trace(path) has the full text]\n"), True


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def _short(filename: str) -> str:
    return "/".join(filename.replace("\\", "/").split("/")[-2:])


def published_trace(report: TraceRecord) -> dict[str, Any]:
    """The trace record with long texts capped, ready to publish."""
    data = report.to_dict()
    name = "open_trace(path)"
    truncated = False
    for c in data["compiles"]:
        c["output_code"], t = cap(c.get("output_code", ""), OUTPUT_CODE_CAP, name)
        truncated |= t
        for k in c.get("kernels", []):
            k["source"], t = cap(k.get("source", ""), KERNEL_CAP, name)
            truncated |= t
        c["graphs"] = [cap(g, GRAPH_CAP, name)[0] for g in c.get("graphs", [])]
        c["guards"], t = cap(c.get("guards", ""), GUARDS_CAP, name)
        truncated |= t
    data["truncated"] = truncated
    return data


def _compile_line(c: TraceCompile) -> str:
    extra = f" -- {c.fail_reason}" if c.fail_reason else ""
    rank = "" if c.rank is None else f" rank {c.rank}"
    return (f"  [{c.compile_id}]{rank} {c.function} "
            f"({_short(c.filename)}:{c.lineno}): {c.status}, {len(c.graphs)} graph(s), "
            f"{len(c.graph_breaks)} break(s), {c.compile_time_s:.2f}s{extra}")


def trace_text(report: TraceRecord) -> str:
    """The terminal / ``text/plain`` summary."""
    ranks = ", ".join(map(str, report.ranks)) or "unknown (single process)"
    lines = [f"nbcompile trace {report.path}: {len(report.compiles)} compile(s), "
             f"ranks: {ranks}, {format_bytes(report.bytes_read)} in {len(report.files)} file(s)"]
    for d in report.divergences:
        groups = " | ".join(",".join(map(str, g)) for g in d.groups)
        lines.append(f"DIVERGENCE {d.kind} (rank groups {groups}): {d.detail}")
    for c in report.compiles:
        lines.append(_compile_line(c))
        for gb in c.graph_breaks:
            lines.append(f"    graph break at {_short(gb.filename or '')}:{gb.lineno}: "
                         f"{gb.line}  -- {gb.reason}")
        if c.recompile_reason:
            lines.append(f"    recompile: {c.recompile_reason}")
    if report.unknown_events:
        counts = ", ".join(f"{k} x{n}" for k, n in sorted(report.unknown_events.items()))
        lines.append(f"events nbcompile does not know (skipped): {counts}")
    for p in report.problems:
        lines.append(f"problem: {p}")
    return "\n".join(lines)


def _grid(report: TraceRecord) -> str:
    """Ranks x compile ids, coloured by status; cells of a divergent compile id marked."""
    e = escape
    ranks = sorted({c.rank for c in report.compiles}, key=lambda r: -1 if r is None else r)
    ids: list[str] = []
    for c in report.compiles:
        if c.compile_id not in ids:
            ids.append(c.compile_id)
    marked = {d.compile_id for d in report.divergences}
    cell = {(c.rank, c.compile_id): c for c in report.compiles}
    head = "".join(f"<th>{e(i)}{' &#9888;' if i in marked else ''}</th>" for i in ids)
    rows = []
    for r in ranks:
        tds = []
        for i in ids:
            c = cell.get((r, i))
            if c is None:
                tds.append("<td style='background:#eee'>&mdash;</td>")
                continue
            colour = _STATUS_COLOURS.get(c.status, "#555")
            border = "border:2px solid #c62828;" if i in marked else ""
            tds.append(f"<td style='color:#fff;background:{colour};{border}' "
                       f"title='{e(c.fail_reason or c.status)}'>{e(c.status)}</td>")
        rows.append(f"<tr><th>rank {e(_rank(r))}</th>{''.join(tds)}</tr>")
    return (f"<table class='nbcompile-trace-grid'><thead><tr><th></th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _compile_html(c: TraceCompile) -> str:
    e = escape
    items = []
    if c.fail_reason:
        items.append(f"<li><b>{e(c.status)}</b>: {e(c.fail_reason)}</li>")
    for gb in c.graph_breaks:
        items.append(f"<li>graph break at {e(_short(gb.filename or ''))}:{gb.lineno}: "
                     f"<code>{e(gb.line)}</code> &mdash; {e(gb.reason)}</li>")
    if c.recompile_reason:
        items.append(f"<li>recompile: {e(c.recompile_reason)}</li>")
    if c.phases:
        phases = ", ".join(f"{k} {v:.3f}s" for k, v in c.phases.items())
        items.append(f"<li>phases: {e(phases)}</li>")
    if c.cache:
        items.append(f"<li>cache: {e(', '.join(f'{k} x{n}' for k, n in c.cache.items()))}</li>")
    body = [f"<ul>{''.join(items)}</ul>" if items else ""]
    for i, graph in enumerate(c.graphs):
        body.append(f"<details><summary>FX graph {i}</summary>"
                    f"<pre>{e(cap(graph, GRAPH_CAP, 'open_trace(path)')[0])}</pre></details>")
    if c.guards:
        body.append(f"<details><summary>guards</summary>"
                    f"<pre>{e(cap(c.guards, GUARDS_CAP, 'open_trace(path)')[0])}</pre></details>")
    for k in c.kernels:
        source = cap(k.source, KERNEL_CAP, "open_trace(path)")[0]
        body.append(f"<details><summary><code>{e(k.name)}</code> &middot; {e(k.language)} "
                    f"&middot; {e(k.kind)}</summary>{highlight_code(source, k.language)}"
                    "</details>")
    return (f"<details><summary>[{e(c.compile_id)}] rank {e(_rank(c.rank))} "
            f"<code>{e(c.function)}</code> {e(_short(c.filename))}:{c.lineno} &middot; "
            f"{e(c.status)} &middot; {c.compile_time_s:.2f}s</summary>{''.join(body)}</details>")


def trace_html(report: TraceRecord) -> str:
    """Escaped, self-contained HTML (no scripts, no external CSS)."""
    e = escape
    parts = [f"<div class='nbcompile-trace'><b>nbcompile trace</b> <code>{e(report.path)}</code>"
             f" &middot; {len(report.compiles)} compile(s) &middot; ranks "
             f"{e(', '.join(map(str, report.ranks)) or 'unknown')}"]
    if report.divergences:
        items = "".join(
            f"<li><b>{e(d.kind)}</b> (groups: "
            f"{e(' | '.join(','.join(map(str, g)) for g in d.groups))}): {e(d.detail)}</li>"
            for d in report.divergences)
        parts.append(f"<p style='color:#c62828'>The ranks compiled differently:</p>"
                     f"<ul>{items}</ul>")
    parts.append(_grid(report))
    parts.extend(_compile_html(c) for c in report.compiles)
    if report.problems:
        parts.append("<details open><summary>problems</summary><ul>"
                     + "".join(f"<li>{e(p)}</li>" for p in report.problems) + "</ul></details>")
    if report.unknown_events:
        parts.append("<p>events nbcompile does not know (skipped): "
                     + e(", ".join(f"{k} x{n}" for k, n in report.unknown_events.items()))
                     + "</p>")
    parts.append("</div>")
    return "".join(parts)


def trace_page(report: TraceRecord) -> str:
    """One self-contained HTML page of the trace view (``--html FILE``)."""
    title = escape(f"nbcompile trace {report.path}")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>{title}</title><style>body{{font-family:sans-serif;margin:1em}}"
            "td,th{padding:2px 6px;font-size:90%}pre{background:#f6f6f6;overflow:auto}"
            f"</style></head><body>{trace_html(report)}</body></html>")


def trace_bundle(report: TraceRecord) -> dict[str, Any]:
    """The MIME bundle of a ``TraceReport`` (record, HTML and text fallbacks)."""
    return {
        MIME_TYPE: published_trace(report),
        "text/html": trace_html(report),
        "text/plain": trace_text(report),
    }
