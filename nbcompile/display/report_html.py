"""One ``CompileReport`` displayed: the one-target summary plus details (what torch runs
in place of each frame, generated code, FX graphs, code diffs) in HTML, and its MIME
bundle."""

from __future__ import annotations

from typing import Any

from ..core.notebook.cells.cell_names import name_cells
from ..core.records import MIME_TYPE, CompileRecord, RunsAs, TargetRecord
from .annotate import diffs_html
from .budget import fallback_budget, how_to_get, record_budget
from .bundle import summary_html, summary_text
from .highlight import highlight_code
from .payload import summary_payload
from .phases import phases_html
from .text import GRAPH_CAP, KERNEL_CAP, cap, clip, compile_words, escape

__all__ = ["highlight_code", "report_bundle", "report_html"]


def _details(record: TargetRecord) -> list[tuple[str, str]]:
    """The report's details as (report attribute, folded HTML) pieces, in display order."""
    e = escape
    pieces = [("compiles[i].runs_as", _runs_as_html(record, c, c.runs_as))
              for c in record.compiles if c.runs_as is not None]
    for k in record.kernels:
        source, _ = cap(name_cells(k.source), KERNEL_CAP, record.name)
        pieces.append(("kernels", (
            f"<details><summary>generated code: <code>{e(k.name)}</code> &middot; "
            + (f"{e(k.compile_label)} &middot; " if k.compile_label else "")
            + f"{e(k.language)} &middot; {e(k.kind)} &middot; {k.size} chars</summary>"
            f"{highlight_code(source, k.language)}</details>")))
    for c in record.compiles:
        for i, graph in enumerate(c.graphs):
            pieces.append(("compiles[i].graphs", (
                f"<details><summary>FX graph {i} of {e(compile_words(c))}</summary>"
                f"<pre>{e(name_cells(graph))}</pre></details>")))
    return pieces


def _runs_as_html(record: TargetRecord, c: CompileRecord, runs: RunsAs) -> str:
    """What torch runs in place of compile ``c``'s frame, text only (the inspector's *Runs
    as*): the record's steps, why there is no source, then the transformed code as Python
    or its bytecode, capped as the published record caps it."""
    e = escape
    steps = "".join(f"<li>{e(clip(s.text))}</li>" for s in runs.steps)
    walk = f"<ol style='margin:0'>{steps}</ol>" if steps else ""
    problem = f"<p>{e(clip(runs.problem))}</p>" if runs.problem else ""
    code, _ = cap(runs.source or runs.dis, GRAPH_CAP, record.name)
    shown = ("Python (depyf)" if runs.source else "bytecode (dis)" if runs.dis
             else "no code")
    pre = f"<pre>{e(name_cells(code))}</pre>" if code else ""
    return (f"<details><summary>runs as: {e(compile_words(c))} &middot; "
            f"{shown}</summary>{walk}{problem}{pre}</details>")


def report_html(record: TargetRecord, budget: int | None = None) -> str:
    """The summary of ``record``, then what torch runs in place of each frame, its
    generated code and FX graphs, folded; with a
    ``budget`` (bytes), details that do not fit are left out and counted in a mark."""
    parts = [summary_html([record], None if budget is None else budget // 2)]
    used = len(parts[0].encode())
    # Room for the mark at its largest, so the mark does not take the HTML over budget.
    reserve = len(_omitted_html(record, {"compiles[i].runs_as": 10**9, "kernels": 10**9,
                                         "compiles[i].graphs": 10**9}).encode())
    left_out: dict[str, int] = {}
    for attr, piece in _details(record):
        size = len(piece.encode())
        if budget is not None and (left_out or used + size > budget - reserve):
            left_out[attr] = left_out.get(attr, 0) + 1
            continue
        parts.append(piece)
        used += size
    if left_out:
        parts.append(_omitted_html(record, left_out))
    return "".join(parts)


def _omitted_html(record: TargetRecord, left_out: dict[str, int]) -> str:
    marks = "; ".join(f"{n} more {attr.split('.')[-1]} &mdash; in the kernel: "
                      f"<code>{escape(how_to_get(record.name, attr))}</code>"
                      for attr, n in left_out.items())
    return f"<div class='nbcompile-omitted'>Not shown (output budget): {marks}</div>"


def report_bundle(record: TargetRecord) -> dict[str, Any]:
    """The MIME bundle of one ``CompileReport``: the JSON record and a summary with as
    many details as fit, within the output budget (``budget.fallback_budget``)."""
    html_budget = fallback_budget()
    html = report_html(record, html_budget)
    for extra in (phases_html(record), diffs_html(record)):
        if len(html.encode()) + len(extra.encode()) <= html_budget:
            html += extra
    text = summary_text([record], fallback_budget())
    return {
        MIME_TYPE: summary_payload([record], budget=record_budget(html, text)),
        "text/html": html,
        "text/plain": text,
    }
