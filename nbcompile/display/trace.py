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

from ..core.logs.record import TraceCompile, TraceRecord
from ..core.records import MIME_TYPE, Omission, Record
from .budget import Room, fallback_budget, json_size, more_note, output_budget, record_budget
from .highlight import highlight_code
from .text import GRAPH_CAP, GUARDS_CAP, KERNEL_CAP, OUTPUT_CODE_CAP, PROSE_CELL, cap, clip, escape
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
    truncated |= t
    if isinstance(runs := data.get("runs_as"), dict):
        runs["dis"], t = _cap(runs.get("dis", ""), GRAPH_CAP)
        truncated |= t
    return _utf8(data), truncated


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
    # the files read and the problems noted while indexing: a tenth of the budget each
    noted = len(report.problems)
    for key, whole in (("files", report.files), ("problems", report.problems[:noted])):
        data[key], room = [], budget // 10
        for item in whole:
            room -= json_size(item) + 1
            if room < 0:
                break
            data[key].append(_utf8(item))
        if len(data[key]) < len(whole):
            data["omitted"].append(Omission(key, len(whole) - len(data[key]),
                                            f"{name}.{key}").to_dict())
    # Every choice below measures what it adds: each index entry is counted with its
    # ``contents_omitted`` flag (dropped when its contents go in), and room for the two
    # marks (at their largest counts) is kept from the start.
    marks = [Omission("compiles", len(report.compiles), f"{name}.compiles").to_dict(),
             Omission("compiles[].contents", len(report.compiles),
                      f"{name}.compile(compile_id, rank)").to_dict()]
    size = json_size({**data, "omitted": data["omitted"] + marks, "truncated": True})
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
    for problem in report.problems[noted:]:
        grown = json_size(problem) + 1
        if size + grown > budget:
            break
        data["problems"].append(problem)
        size += grown
    data["truncated"] = truncated or bool(data["omitted"])
    return _utf8(data)


#: Where a trace's full lists are, named where a fallback leaves some out.
_FULL = "nbcompile.open_trace(path).{attr} / python -m nbcompile open DIR --json FILE"
#: Bytes a budgeted fallback keeps for its closing parts (tags, the last notes).
_TAIL = 1024
#: Compile ids the grid shows at most (columns); ranks (rows) as the room allows.
GRID_COLUMNS = 40
#: Ranks (rows) the grid leaves room for before it shows fewer compile ids.
GRID_MIN_ROWS = 8
#: Ranks named in a heading before the rest are counted.
_RANKS_NAMED = 20


def _full(attr: str) -> str:
    return _FULL.format(attr=attr)


def _ranges(ranks: list[int]) -> str:
    """``0-6,8,10-299``: runs of consecutive ranks collapsed."""
    runs: list[list[int]] = []
    for r in ranks:
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _ranks_text(report: TraceRecord, none: str) -> str:
    ranks = report.ranks
    if len(ranks) <= _RANKS_NAMED:
        return ", ".join(map(str, ranks)) or none
    return f"{clip(_ranges(ranks), 200)} ({len(ranks):,} ranks)"


def _order(report: TraceRecord, ranked: bool) -> list[int]:
    """Compile indices: most relevant first (``_content_order``) or in log order."""
    count = len(report.compiles)
    return _content_order(report, count) if ranked else list(range(count))


def _compile_lines(c: TraceCompile, detailed: bool = True) -> str:
    """One compile in the text view: its line, then its breaks and recompile reason."""
    rank = "" if c.rank is None else f" rank {c.rank}"
    head = (f"  [{clip(c.compile_id)}]{rank} {clip(c.function)} "
            f"({clip(_short(c.filename))}:{c.lineno}): {c.status}")
    if not detailed:
        return terminal_safe(f"{head}, {c.compile_time_s:.2f}s")
    extra = f" -- {clip(c.fail_reason)}" if c.fail_reason else ""
    lines = [f"{head}, {len(c.graphs)} graph(s), {len(c.graph_breaks)} break(s), "
             f"{c.compile_time_s:.2f}s{extra}"]
    for gb in c.graph_breaks:
        lines.append(f"    graph break at {clip(_short(gb.filename or ''))}:{gb.lineno}: "
                     f"{clip(gb.line)}  -- {clip(gb.reason)}")
    if c.recompile_reason:
        lines.append(f"    recompile: {clip(c.recompile_reason)}")
    runs = c.runs_as
    if runs is not None and runs.dis:
        lines.append(f"    what torch runs: {clip(runs.walk or '(no graph)')}  -- "
                     f"{clip(runs.problem)}")
    return "\n".join(terminal_safe(line) for line in lines)


def trace_text(report: TraceRecord, budget: int | None = None) -> str:
    """The terminal / ``text/plain`` summary: every compile in log order with its breaks
    and recompile reason; with a ``budget`` (bytes), compiles most relevant first (failed,
    then where the ranks differ) while they fit, the rest counted in a last line."""
    room = Room(None if budget is None else budget - _TAIL)
    lines = [room.spend(terminal_safe(
        f"nbcompile trace {clip(report.path)}: "
        + ("INTERRUPTED, partial: " if report.interrupted else "")
        + f"{len(report.compiles)} compile(s), "
        f"ranks: {_ranks_text(report, 'unknown (single process)')}, "
        f"{format_bytes(report.bytes_read)} in {len(report.files)} file(s)"))]
    divergences = report.divergences
    lines += room.take(
        (terminal_safe(f"DIVERGENCE {d.kind} (rank groups {clip(_groups(d))}): "
                       f"{clip(d.detail)}") for d in divergences),
        len(divergences), lambda n: more_note(n, "divergences", _full("divergences")), 0.25)
    order = _order(report, budget is not None)
    lines += room.take((_compile_lines(report.compiles[i]) for i in order), len(order),
                       lambda n: more_note(n, "compiles", _full("compiles")), 0.8)
    unlogged = [c.runs_as.problem for c in report.compiles
                if c.runs_as is not None and not c.runs_as.dis and c.runs_as.problem]
    if unlogged:
        lines.append(room.spend(terminal_safe(
            f"what torch runs in place of {len(unlogged)} compile(s): {clip(unlogged[0])}")))
    if report.unknown_events:
        counts = ", ".join(f"{k} x{n}" for k, n in sorted(report.unknown_events.items()))
        lines.append(room.spend(terminal_safe(
            f"events nbcompile does not know (skipped): {clip(counts)}")))
    lines += room.take((terminal_safe(f"problem: {clip(p)}") for p in report.problems),
                       len(report.problems),
                       lambda n: more_note(n, "problems", _full("problems")))
    return "\n".join(lines)


def _groups(d: Any) -> str:
    return " | ".join(_ranges(sorted(g)) if len(g) > _RANKS_NAMED else ",".join(map(str, g))
                      for g in d.groups)


def _grid(report: TraceRecord, room: Room, ranked: bool) -> str:
    """Ranks x compile ids, coloured by status; cells of a divergent compile id marked.
    ``ranked`` (a budgeted view): at most ``GRID_COLUMNS`` compile ids and the ranks that
    fit, those with a failed compile or at a divergent compile id first."""
    e = escape
    marked = {d.compile_id for d in report.divergences}
    failed_ids = {c.compile_id for c in report.compiles if c.status == "failed"}
    failed_ranks = {c.rank for c in report.compiles
                    if c.status == "failed" or c.compile_id in marked}
    ids = list(dict.fromkeys(c.compile_id for c in report.compiles))
    ranks = sorted({c.rank for c in report.compiles}, key=lambda r: -1 if r is None else r)
    cell = {(c.rank, c.compile_id): c for c in report.compiles}

    def row(r: int | None, shown_ids: list[str]) -> str:
        tds = []
        for i in shown_ids:
            c = cell.get((r, i))
            if c is None:
                tds.append("<td style='background:#eee'>&mdash;</td>")
                continue
            colour = _STATUS_COLOURS.get(c.status, "#555")
            border = "border:2px solid #c62828;" if i in marked else ""
            title = f" title='{e(clip(c.fail_reason, 200))}'" if c.fail_reason else ""
            tds.append(f"<td style='color:#fff;background:{colour};{border}'{title}>"
                       f"{e(c.status)}</td>")
        return f"<tr><th>rank {e(_rank(r))}</th>{''.join(tds)}</tr>"

    shown_ids = ids
    if ranked:
        first = sorted(range(len(ids)), key=lambda i: (ids[i] not in marked,
                                                       ids[i] not in failed_ids, i))
        ranks = sorted(ranks, key=lambda r: r not in failed_ranks)  # stable: rank order
        # as many compile ids as leave room for GRID_MIN_ROWS ranks
        shown_ids = [ids[i] for i in first[:GRID_COLUMNS]]
        per_cell = (len(row(ranks[0], shown_ids).encode()) / max(len(shown_ids), 1)
                    if ranks else 1)
        columns = int((room.left or 0) * 0.5 / GRID_MIN_ROWS / per_cell)
        shown_ids = [ids[i] for i in sorted(first[:max(min(columns, GRID_COLUMNS), 1)])]
    head = "".join(f"<th>{e(clip(i, 40))}{' &#9888;' if i in marked else ''}</th>"
                   for i in shown_ids)
    top = room.spend(f"<table class='nbcompile-trace-grid'><thead><tr><th></th>{head}</tr>"
                     "</thead><tbody>")
    rows = room.take((row(r, shown_ids) for r in ranks), len(ranks), lambda n: _note_row(
        more_note(n, "ranks", _full("by_rank()")), len(shown_ids)), 0.5)
    cols = ""
    if len(shown_ids) < len(ids):
        cols = room.spend(_note_html(more_note(len(ids) - len(shown_ids), "compile ids",
                                               _full("compiles"))))
    return f"{top}{''.join(rows)}</tbody></table>{cols}"


def _note_row(text: str, columns: int) -> str:
    return (f"<tr><td colspan='{columns + 1}' class='nbcompile-omitted' {PROSE_CELL}>{escape(text)}"
            "</td></tr>")


def _note_html(text: str) -> str:
    return f"<p class='nbcompile-omitted'>{escape(text)}</p>"


def _compile_html(c: TraceCompile, limit: int | None = None) -> str:
    """One compile's contents, folded; each text capped (at ``limit`` characters too)."""
    e = escape

    def capped(text: str, cap_: int) -> str:
        return _cap(text, cap_ if limit is None else min(cap_, limit))[0]

    items = []
    if c.fail_reason:
        items.append(f"<li><b>{e(c.status)}</b>: {e(clip(c.fail_reason))}</li>")
    for gb in c.graph_breaks:
        items.append(f"<li>graph break at {e(clip(_short(gb.filename or '')))}:{gb.lineno}: "
                     f"<code>{e(clip(gb.line))}</code> &mdash; {e(clip(gb.reason))}</li>")
    if c.recompile_reason:
        items.append(f"<li>recompile: {e(clip(c.recompile_reason))}</li>")
    if c.phases:
        phases = ", ".join(f"{k} {v:.3f}s" for k, v in c.phases.items())
        items.append(f"<li>phases: {e(clip(phases))}</li>")
    if c.cache:
        items.append(f"<li>cache: {e(clip(', '.join(f'{k} x{n}' for k, n in c.cache.items())))}"
                     "</li>")
    body = [f"<ul>{''.join(items)}</ul>" if items else ""]
    for i, graph in enumerate(c.graphs):
        body.append(f"<details><summary>FX graph {i}</summary>"
                    f"<pre>{e(capped(graph, GRAPH_CAP))}</pre></details>")
    if c.guards:
        body.append(f"<details><summary>guards</summary>"
                    f"<pre>{e(capped(c.guards, GUARDS_CAP))}</pre></details>")
    runs = c.runs_as
    if runs is not None and runs.dis:
        body.append(f"<details><summary>what torch runs</summary><p>{e(clip(runs.walk))}</p>"
                    f"<p>{e(clip(runs.problem))}</p><pre>{e(capped(runs.dis, GRAPH_CAP))}</pre>"
                    "</details>")
    elif runs is not None and runs.problem:
        body.append(f"<p>what torch runs: {e(clip(runs.problem))}</p>")
    for k in c.kernels:
        source = capped(k.source, KERNEL_CAP)
        body.append(f"<details><summary><code>{e(clip(k.name))}</code> &middot; "
                    f"{e(clip(k.language))} &middot; {e(clip(k.kind))}</summary>"
                    f"{highlight_code(source, k.language)}</details>")
    return (f"<details><summary>[{e(clip(c.compile_id))}] rank {e(_rank(c.rank))} "
            f"<code>{e(clip(c.function))}</code> {e(clip(_short(c.filename)))}:{c.lineno} "
            f"&middot; {e(c.status)} &middot; {c.compile_time_s:.2f}s</summary>{''.join(body)}"
            "</details>")


def trace_html(report: TraceRecord, budget: int | None = None) -> str:
    """Escaped, self-contained HTML (no scripts, no external CSS): the grid and every
    compile's contents; with a ``budget`` (bytes), the grid and the compiles most relevant
    first (failed, then where the ranks differ) as they fit, the rest counted."""
    e = escape
    room = Room(None if budget is None else budget - _TAIL)
    parts = [room.spend(
        f"<div class='nbcompile-trace'><b>nbcompile trace</b> <code>{e(clip(report.path))}"
        "</code> &middot; "
        + ("<b style='color:#c62828'>interrupted, partial</b> &middot; "
           if report.interrupted else "")
        + f"{len(report.compiles)} compile(s) &middot; ranks "
        f"{e(_ranks_text(report, 'unknown'))}")]
    divergences = report.divergences
    if divergences:
        items = room.take(
            (f"<li><b>{e(d.kind)}</b> (groups: {e(clip(_groups(d)))}): {e(clip(d.detail))}"
             "</li>" for d in divergences), len(divergences),
            lambda n: f"<li>{e(more_note(n, 'divergences', _full('divergences')))}</li>", 0.2)
        parts.append(room.spend("<p style='color:#c62828'>The ranks compiled differently:"
                                f"</p><ul>{''.join(items)}</ul>"))
    ranked = budget is not None
    parts.append(_grid(report, room, ranked))
    order = _order(report, ranked)
    limit = None if room.left is None else max(room.left // 8, 200)
    parts += room.take(
        (_compile_html(report.compiles[i], limit) for i in order), len(order),
        lambda n: _note_html(f"{n:,} more compile(s) in the grid above; each one's "
                             "contents: nbcompile.open_trace(path).compile(compile_id, rank)"),
        0.85)
    if report.problems:
        items = room.take((f"<li>{e(clip(p))}</li>" for p in report.problems),
                          len(report.problems),
                          lambda n: f"<li>{e(more_note(n, 'problems', _full('problems')))}</li>")
        parts.append(f"<details open><summary>problems</summary><ul>{''.join(items)}</ul>"
                     "</details>")
    if report.unknown_events:
        parts.append("<p>events nbcompile does not know (skipped): "
                     + e(clip(", ".join(f"{k} x{n}" for k, n in report.unknown_events.items())))
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
    """The MIME bundle of a ``TraceReport`` within the output budget: the text fallbacks
    within theirs (``fallback_budget``), the record in what they leave."""
    html = trace_html(report, fallback_budget())
    text = trace_text(report, fallback_budget())
    return {
        MIME_TYPE: published_trace(report, record_budget(html, text)),
        "text/html": html,
        "text/plain": text,
    }
