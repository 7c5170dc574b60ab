"""A trace (``TraceReport``) as text, HTML and the versioned JSON record (``"trace"``).

The same view serves the notebook (``_repr_mimebundle_``, ``%nbcompile open``) and the
terminal (``python -m nbcompile open`` prints ``trace_text``, ``--html`` writes
``trace_page``). Long texts are capped in what is published inline.

A log is untrusted: its strings reach a terminal (``trace_text`` shows control
characters and bidi overrides as visible escapes, ``terminal_safe``), HTML (escaped) and
JSON (lone surrogates made printable, so every output encodes as UTF-8).
"""

from __future__ import annotations

import re
from typing import Any

from ..core.logs.run import TraceCompile, TraceRecord
from ..core.records import MIME_TYPE, Omission, Record
from .budget import json_size, output_budget
from .highlight import highlight_code
from .text import GRAPH_CAP, GUARDS_CAP, KERNEL_CAP, OUTPUT_CODE_CAP, cap, escape
from .units import format_bytes

# C0 and C1 controls, DEL, bidi marks/embeddings/overrides/isolates, line and paragraph
# separators, and lone surrogates (a file name that is not UTF-8).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")


def _visible(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control character (newlines included), bidi control and lone
    surrogate written as a visible escape (``\\x1b``, ``\\u202e``): safe to print."""
    return _UNSAFE.sub(_visible, text)


def _utf8(value: Any) -> Any:
    """Strings (in lists and dicts) with lone surrogates escaped: encodable as UTF-8."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_utf8(v) for v in value]
    if isinstance(value, dict):
        return {_utf8(k): _utf8(v) for k, v in value.items()}
    return value


_STATUS_COLOURS = {"compiled": "#2e7d32", "cache_hit": "#1565c0", "restarted": "#ef6c00",
                   "failed": "#c62828"}


def _cap(text: str, limit: int) -> tuple[str, bool]:
    return cap(text, limit, "", where="nbcompile.open_trace(path)")


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def _short(filename: str) -> str:
    return "/".join(filename.replace("\\", "/").split("/")[-2:])


def _capped_contents(c: TraceCompile) -> tuple[dict[str, Any], bool]:
    """The compile's record with its long texts capped, and whether any was."""
    data = c.to_dict()
    data["output_code"], truncated = _cap(data.get("output_code", ""), OUTPUT_CODE_CAP)
    for k in data.get("kernels", []):
        k["source"], t = _cap(k.get("source", ""), KERNEL_CAP)
        truncated |= t
    data["graphs"] = [_cap(g, GRAPH_CAP)[0] for g in data.get("graphs", [])]
    data["guards"], t = _cap(data.get("guards", ""), GUARDS_CAP)
    return _utf8(data), truncated | t


def _content_order(report: TraceRecord, count: int) -> list[int]:
    """Which of the first ``count`` compiles get their contents first: failed ones, then
    those at a compile id where the ranks differ, then the rest in log order."""
    marked = {d.compile_id for d in report.divergences}
    return sorted(range(count), key=lambda i: (report.compiles[i].status != "failed",
                                               report.compiles[i].compile_id not in marked, i))


def published_trace(report: TraceRecord, budget: int | None = None) -> dict[str, Any]:
    """The trace record ready to publish, within ``budget`` bytes of JSON (the output
    budget by default): every compile's index while it fits in half the budget, then
    the compiles' contents (texts capped) as long as they fit, failed and divergent
    ones first; what was left out is marked in ``omitted`` and ``contents_omitted``.
    Contents are read from the logs only for the compiles published with them."""
    budget = output_budget() if budget is None else budget
    name = "nbcompile.open_trace(path)"
    data = _utf8(Record.to_dict(report))
    data["divergences"] = [d.to_dict() for d in report.divergences]
    data["compiles"], data["omitted"] = [], []
    # Every choice below measures what it adds: each index entry is counted with its
    # ``contents_omitted`` flag (dropped when its contents go in), and room for the two
    # marks (at their largest counts) is kept from the start.
    marks = [Omission("compiles", len(report.compiles), f"{name}.compiles").to_dict(),
             Omission("compiles[].contents", len(report.compiles),
                      f"{name}.compile(compile_id, rank)").to_dict()]
    size = json_size({**data, "omitted": marks, "truncated": True})
    for c in report.compiles:
        entry = {**_utf8(c.to_dict(contents=False)), "contents_omitted": True}
        entry_size = json_size(entry) + 1
        if data["compiles"] and size + entry_size > budget // 2:
            break
        data["compiles"].append(entry)
        size += entry_size
    cut = len(report.compiles) - len(data["compiles"])
    if cut:
        data["omitted"].append({**marks[0], "count": cut})
    truncated = False
    left_out = 0
    for i in _content_order(report, len(data["compiles"])):
        index = data["compiles"][i]
        full, capped = _capped_contents(report.compiles[i])
        grown = json_size(full) - json_size(index)
        if left_out or size + grown > budget:
            left_out += 1
            continue
        data["compiles"][i] = full
        size += grown
        truncated |= capped
    if left_out:
        data["omitted"].append({**marks[1], "count": left_out})
    # problems found while reading the contents above (malformed events), as they fit
    for problem in report.problems[len(data["problems"]):]:
        grown = json_size(problem) + 1
        if size + grown > budget:
            break
        data["problems"].append(problem)
        size += grown
    data["truncated"] = truncated or bool(data["omitted"])
    return _utf8(data)


def _index_line(c: TraceCompile) -> str:
    rank = "" if c.rank is None else f" rank {c.rank}"
    return (f"  [{c.compile_id}]{rank} {c.function} ({_short(c.filename)}:{c.lineno}): "
            f"{c.status}, {c.compile_time_s:.2f}s")


def _compile_line(c: TraceCompile) -> str:
    extra = f" -- {c.fail_reason}" if c.fail_reason else ""
    rank = "" if c.rank is None else f" rank {c.rank}"
    return (f"  [{c.compile_id}]{rank} {c.function} "
            f"({_short(c.filename)}:{c.lineno}): {c.status}, {len(c.graphs)} graph(s), "
            f"{len(c.graph_breaks)} break(s), {c.compile_time_s:.2f}s{extra}")


def trace_text(report: TraceRecord, detailed: list[TraceCompile] | None = None) -> str:
    """The terminal / ``text/plain`` summary; breaks and recompile reasons of the
    ``detailed`` compiles (all by default)."""
    shown = None if detailed is None else {id(c) for c in detailed}
    ranks = ", ".join(map(str, report.ranks)) or "unknown (single process)"
    lines = [f"nbcompile trace {report.path}: {len(report.compiles)} compile(s), "
             f"ranks: {ranks}, {format_bytes(report.bytes_read)} in {len(report.files)} file(s)"]
    for d in report.divergences:
        groups = " | ".join(",".join(map(str, g)) for g in d.groups)
        lines.append(f"DIVERGENCE {d.kind} (rank groups {groups}): {d.detail}")
    for c in report.compiles:
        if shown is not None and id(c) not in shown:
            lines.append(_index_line(c))
            continue
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
    return "\n".join(terminal_safe(line) for line in lines)


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
                    f"<pre>{e(_cap(graph, GRAPH_CAP)[0])}</pre></details>")
    if c.guards:
        body.append(f"<details><summary>guards</summary>"
                    f"<pre>{e(_cap(c.guards, GUARDS_CAP)[0])}</pre></details>")
    for k in c.kernels:
        source = _cap(k.source, KERNEL_CAP)[0]
        body.append(f"<details><summary><code>{e(k.name)}</code> &middot; {e(k.language)} "
                    f"&middot; {e(k.kind)}</summary>{highlight_code(source, k.language)}"
                    "</details>")
    return (f"<details><summary>[{e(c.compile_id)}] rank {e(_rank(c.rank))} "
            f"<code>{e(c.function)}</code> {e(_short(c.filename))}:{c.lineno} &middot; "
            f"{e(c.status)} &middot; {c.compile_time_s:.2f}s</summary>{''.join(body)}</details>")


def trace_html(report: TraceRecord, detailed: list[TraceCompile] | None = None) -> str:
    """Escaped, self-contained HTML (no scripts, no external CSS); the ``detailed``
    compiles (all by default) with their contents."""
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
    detailed = report.compiles if detailed is None else detailed
    parts.extend(_compile_html(c) for c in detailed)
    if len(detailed) < len(report.compiles):
        parts.append(f"<p>{len(report.compiles) - len(detailed)} more compile(s) in the grid "
                     "above: <code>nbcompile.open_trace(path).compile(compile_id, rank)</code> "
                     "has each one's contents.</p>")
    if report.problems:
        parts.append("<details open><summary>problems</summary><ul>"
                     + "".join(f"<li>{e(p)}</li>" for p in report.problems) + "</ul></details>")
    if report.unknown_events:
        parts.append("<p>events nbcompile does not know (skipped): "
                     + e(", ".join(f"{k} x{n}" for k, n in report.unknown_events.items()))
                     + "</p>")
    parts.append("</div>")
    return _utf8("".join(parts))


def trace_page(report: TraceRecord) -> str:
    """One self-contained HTML page of the trace view (``--html FILE``)."""
    title = escape(f"nbcompile trace {report.path}")
    return _utf8("<!DOCTYPE html><html><head><meta charset='utf-8'>"
                 f"<title>{title}</title><style>body{{font-family:sans-serif;margin:1em}}"
                 "td,th{padding:2px 6px;font-size:90%}pre{background:#f6f6f6;overflow:auto}"
                 f"</style></head><body>{trace_html(report)}</body></html>")


def trace_bundle(report: TraceRecord) -> dict[str, Any]:
    """The MIME bundle of a ``TraceReport`` (record, HTML and text fallbacks); the
    fallbacks detail the compiles the record publishes with their contents."""
    record = published_trace(report)
    detailed = [c for c, data in zip(report.compiles, record["compiles"], strict=False)
                if not data.get("contents_omitted")]
    return {
        MIME_TYPE: record,
        "text/html": trace_html(report, detailed),
        "text/plain": trace_text(report, detailed),
    }
