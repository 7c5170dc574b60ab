"""A ``%%compile`` cell's summary as a MIME bundle: the versioned JSON record plus two
small renderers (text/plain, text/html) of one ``Summary`` model.

Everything published inline goes through here or ``report_html``. Long texts are capped
(``payload``); the kernel keeps them whole: ``nbcompile.report(obj)`` returns the full record.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from ..core.records import MIME_TYPE, TargetRecord
from .annotate import annotations_html, annotations_text
from .budget import Room, fallback_budget, how_to_get, more_note, record_budget
from .payload import published_record, summary_payload
from .summary_model import Summary, SummaryItem, TargetSummary, summarize
from .text import ITEM_TEXT_CAP, clip, escape, notes_row
from .units import format_seconds, plural

__all__ = ["published_record", "summary_bundle", "summary_html", "summary_payload",
           "summary_text"]

#: How each kind of item is introduced (text, html); "" for none.
_TEXT_LABELS = {"note": "note", "cache": "", "graph_break": "graph break",
                "recompile": "recompile", "error": "error", "torch_logs": "",
                "progress": "compiling", "hazard": "warning"}
_HTML_LABELS = {"note": "", "cache": "", "graph_break": "graph break",
                "recompile": "recompile", "error": "<b>error</b>", "torch_logs": "",
                "progress": "compiling", "hazard": "<b>warning</b>"}
#: A CUDA-graph hazard's text is kept whole up to this (its names, why, and the fix).
HAZARD_TEXT_CAP = 2000
_COLUMNS = ("target", "kind", "status", "graphs", "breaks", "recompiles", "kernels", "compile")


def _head(label: str, item: SummaryItem, esc: Any) -> str:
    head = label
    if item.compile_id is not None:
        head += f" {esc(item.compile_id)}"
    if item.location:
        head += f" at {esc(clip(item.location.where))}"
    return head


# -- text/plain ------------------------------------------------------------------------

def _target_line(t: TargetSummary) -> str:
    c = t.counts
    # No compile time where nothing was compiled (waiting for its first call, or calls
    # that ran code compiled before).
    counts = ", ".join([plural(c.graphs, "graph"), plural(c.breaks, "break"),
                        plural(c.recompiles, "recompile"), plural(c.kernels, "kernel"),
                        *([f"{format_seconds(c.compile_s)} compile"] if c.compile_s > 0
                          else [])])
    return f"{t.name} ({t.kind}): {t.status}; {counts}"


def _item_lines(item: SummaryItem) -> str:
    head = _head(_TEXT_LABELS[item.kind], item, str)
    text = clip(item.text, HAZARD_TEXT_CAP if item.kind == "hazard" else ITEM_TEXT_CAP)
    body = text if item.code is None else f"{clip(item.code)}  -- {text}"
    if item.link:
        body += f" [{item.link_label or 'docs'}: {item.link}]"
    body = body.replace("\n", "\n    ")  # a hazard's later lines under its first
    lines = [f"  {head}: {body}" if head else f"  {body}"]
    if item.location and item.location.via:
        lines.append(f"    {clip(item.location.via)}")
    return "\n".join(lines)


#: What a capped list of a target's items calls them, and the report attribute that has
#: them all.
_ITEM_WORDS = {"graph_break": ("graph breaks", "graph_breaks"),
               "recompile": ("recompiles", "recompiles"), "note": ("notes", "notes"),
               "cache": ("notes", "compiles"), "error": ("errors", "error"),
               "torch_logs": ("torch log notes", "torch_logs")}
#: Bytes a budgeted summary keeps for its closing parts.
_TAIL = 512


def _more_items(t: TargetSummary, count: int) -> str:
    """The note ending a target's capped items: how many of which kind, and where."""
    kinds = Counter(i.kind for i in t.items[len(t.items) - count:])
    words = {k: _ITEM_WORDS.get(k, ("notes", "notes")) for k in kinds}
    what, attr = words[kinds.most_common(1)[0][0]]
    if len(kinds) > 1:
        what = "items (" + ", ".join(f"{n:,} {words[k][0]}" for k, n in
                                     kinds.most_common()) + ")"
    return more_note(count, what, how_to_get(t.name, attr))


def _more_targets(count: int) -> str:
    return more_note(count, "targets", "nbcompile.report(obj) of each")


def render_text(summary: Summary, budget: int | None = None) -> str:
    """One line per target, then one (or two) indented lines per item; with a
    ``budget`` (bytes), the items that fit (most relevant first), the rest counted."""
    if not summary.targets:
        return summary.empty_text
    room = Room(None if budget is None else budget - _TAIL)
    targets = summary.targets
    heads = room.take((_target_line(t) for t in targets), len(targets), _more_targets, 0.5)
    shown = room.shown
    lines = []
    for i, (t, head) in enumerate(zip(targets[:shown], heads, strict=False)):
        lines.append(head)
        share = 1 / (shown - i)
        lines += room.take((_item_lines(item) for item in t.items), len(t.items),
                           lambda n, t=t: "  " + _more_items(t, n), share)
    lines += heads[shown:]
    return "\n".join(lines)


# -- text/html -------------------------------------------------------------------------

def _item_html(item: SummaryItem, detail_cap: int | None = None) -> str:
    if item.detail:  # folded: a <details> that works without JavaScript
        detail = item.detail if detail_cap is None else clip(item.detail, detail_cap)
        return (f"<li><details><summary>{escape(clip(item.text))}</summary>"
                f"<pre style='white-space:pre-wrap;margin:0'>{escape(detail)}</pre>"
                "</details></li>")
    head = _head(_HTML_LABELS[item.kind], item, escape)
    text = escape(clip(item.text))
    if item.kind == "hazard":  # several lines: what happened, why, the fix
        text = escape(clip(item.text, HAZARD_TEXT_CAP)).replace("\n", "<br>")
    body = (text if item.code is None
            else f"<code>{escape(clip(item.code))}</code> &mdash; {text}")
    if item.link.startswith("https://"):
        body += (f" (<a href='{escape(item.link)}' target='_blank' rel='noopener'>"
                 f"{escape(item.link_label or 'docs')}</a>)")
    via = (f"<br>{escape(clip(item.location.via))}"
           if item.location and item.location.via else "")
    return f"<li>{head}: {body}{via}</li>" if head else f"<li>{body}{via}</li>"


def _target_row(t: TargetSummary) -> str:
    c = t.counts
    cells = [f"<code>{escape(clip(t.name))}</code>", escape(t.kind), escape(clip(t.status)),
             str(c.graphs), str(c.breaks), str(c.recompiles), str(c.kernels),
             format_seconds(c.compile_s) if c.compile_s > 0 else "&mdash;"]
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def _omitted_li(text: str) -> str:
    return f"<li class='nbcompile-omitted'>{escape(text)}</li>"


def render_html(summary: Summary, budget: int | None = None) -> str:
    """A compact, escaped, self-contained HTML table (no scripts, no external CSS); with
    a ``budget`` (bytes), the items that fit (most relevant first), the rest counted."""
    if not summary.targets:
        return f"<div class='nbcompile-summary'>{escape(summary.empty_text)}</div>"
    room = Room(None if budget is None else budget - _TAIL)
    head = "".join(f"<th>{h}</th>" for h in _COLUMNS)
    top = room.spend("<div class='nbcompile-summary'><b>nbcompile</b>"
                     f"<table><thead><tr>{head}</tr></thead><tbody>")
    targets = summary.targets
    rows = room.take((_target_row(t) for t in targets), len(targets),
                     lambda n: notes_row(len(_COLUMNS)) +
                     f"{_omitted_li(_more_targets(n))}</ul></td></tr>", 0.5)
    shown = room.shown
    parts = [top]
    for i, (t, row) in enumerate(zip(targets[:shown], rows, strict=False)):
        parts.append(row)
        if not t.items:
            continue
        cap_ = None if room.left is None else max(room.left // (4 * (shown - i)), 200)
        items = room.take((_item_html(item, cap_) for item in t.items), len(t.items),
                          lambda n, t=t: _omitted_li(_more_items(t, n)), 1 / (shown - i))
        parts.append(room.spend(notes_row(len(_COLUMNS)))
                     + "".join(items) + "</ul></td></tr>")
    parts += rows[shown:]
    return "".join(parts) + "</tbody></table></div>"


# -- records -> bundle -----------------------------------------------------------------

def item_bundle(item: SummaryItem) -> dict[str, str]:
    """One item on its own (a cell's CUDA-graph warning), styled as in the summary."""
    return {"text/plain": _item_lines(item).strip(),
            "text/html": ("<div class='nbcompile-summary'><ul style='margin:0'>"
                          f"{_item_html(item)}</ul></div>")}


def summary_text(records: list[TargetRecord], budget: int | None = None) -> str:
    return render_text(summarize(records), budget)


def summary_html(records: list[TargetRecord], budget: int | None = None) -> str:
    return render_html(summarize(records), budget)


def summary_bundle(
    records: list[TargetRecord], cell: dict[str, Any] | None = None, annotate: bool = False,
    empty_text: str | None = None,
) -> dict[str, Any]:
    """The MIME bundle of a ``%%compile`` cell's summary (``annotate``: the annotated
    source of each compiled target follows it, within the same fallback budget;
    ``empty_text``: what a cell with no target says, when not the usual words)."""
    summary = summarize(records)
    if empty_text:
        summary = dataclasses.replace(summary, empty_text=empty_text)
    budget = fallback_budget()
    if not annotate:
        html, text = render_html(summary, budget), render_text(summary, budget)
    else:
        html, text = render_html(summary, budget // 2), render_text(summary, budget // 2)
        html += annotations_html(records, budget - len(html.encode()))
        text += annotations_text(records, budget - len(text.encode()))
    return {
        MIME_TYPE: summary_payload(records, cell, record_budget(html, text)),
        "text/html": html,
        "text/plain": text,
    }
