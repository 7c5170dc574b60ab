"""A ``%%compile`` cell's summary as a MIME bundle: the versioned JSON record plus two
small renderers (text/plain, text/html) of one ``Summary`` model.

Everything published inline goes through here or ``report_html``. Long texts are capped
(``payload``); the kernel keeps them whole: ``nbcompile.report(obj)`` returns the full record.
"""

from __future__ import annotations

from typing import Any

from ..core.records import MIME_TYPE, TargetRecord
from .payload import published_record, summary_payload
from .summary_model import Summary, SummaryItem, TargetSummary, summarize
from .text import escape
from .units import format_seconds, plural

__all__ = ["published_record", "summary_bundle", "summary_html", "summary_payload",
           "summary_text"]

#: How each kind of item is introduced (text, html); "" for none.
_TEXT_LABELS = {"note": "note", "cache": "", "graph_break": "graph break",
                "recompile": "recompile", "error": "error"}
_HTML_LABELS = {"note": "", "cache": "", "graph_break": "graph break",
                "recompile": "recompile", "error": "<b>error</b>"}
_COLUMNS = ("target", "kind", "status", "graphs", "breaks", "recompiles", "kernels", "compile")


def _head(label: str, item: SummaryItem, esc: Any) -> str:
    head = label
    if item.compile_id is not None:
        head += f" {esc(item.compile_id)}"
    if item.location:
        head += f" at {esc(item.location.where)}"
    return head


# -- text/plain ------------------------------------------------------------------------

def _target_line(t: TargetSummary) -> str:
    c = t.counts
    counts = ", ".join([plural(c.graphs, "graph"), plural(c.breaks, "break"),
                        plural(c.recompiles, "recompile"), plural(c.kernels, "kernel"),
                        f"{format_seconds(c.compile_s)} compile"])
    return f"{t.name} ({t.kind}): {t.status}; {counts}"


def _item_lines(item: SummaryItem) -> list[str]:
    head = _head(_TEXT_LABELS[item.kind], item, str)
    body = item.text if item.code is None else f"{item.code}  -- {item.text}"
    if item.link:
        body += f" [{item.link_label or 'docs'}: {item.link}]"
    lines = [f"  {head}: {body}" if head else f"  {body}"]
    if item.location and item.location.via:
        lines.append(f"    {item.location.via}")
    return lines


def render_text(summary: Summary) -> str:
    """One line per target, then one (or two) indented lines per item."""
    if not summary.targets:
        return summary.empty_text
    lines = []
    for t in summary.targets:
        lines.append(_target_line(t))
        for item in t.items:
            lines += _item_lines(item)
    return "\n".join(lines)


# -- text/html -------------------------------------------------------------------------

def _item_html(item: SummaryItem) -> str:
    head = _head(_HTML_LABELS[item.kind], item, escape)
    body = (escape(item.text) if item.code is None
            else f"<code>{escape(item.code)}</code> &mdash; {escape(item.text)}")
    if item.link.startswith("https://"):
        body += (f" (<a href='{escape(item.link)}' target='_blank' rel='noopener'>"
                 f"{escape(item.link_label or 'docs')}</a>)")
    via = f"<br>{escape(item.location.via)}" if item.location and item.location.via else ""
    return f"<li>{head}: {body}{via}</li>" if head else f"<li>{body}{via}</li>"


def _target_rows(t: TargetSummary) -> str:
    c = t.counts
    cells = [f"<code>{escape(t.name)}</code>", escape(t.kind), escape(t.status), str(c.graphs),
             str(c.breaks), str(c.recompiles), str(c.kernels), format_seconds(c.compile_s)]
    row = "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"
    if not t.items:
        return row
    items = "".join(_item_html(i) for i in t.items)
    return row + f"<tr><td colspan='{len(_COLUMNS)}'><ul style='margin:0'>{items}</ul></td></tr>"


def render_html(summary: Summary) -> str:
    """A compact, escaped, self-contained HTML table (no scripts, no external CSS)."""
    if not summary.targets:
        return f"<div class='nbcompile-summary'>{escape(summary.empty_text)}</div>"
    head = "".join(f"<th>{h}</th>" for h in _COLUMNS)
    rows = "".join(_target_rows(t) for t in summary.targets)
    return ("<div class='nbcompile-summary'><b>nbcompile</b>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>")


# -- records -> bundle -----------------------------------------------------------------

def summary_text(records: list[TargetRecord]) -> str:
    return render_text(summarize(records))


def summary_html(records: list[TargetRecord]) -> str:
    return render_html(summarize(records))


def summary_bundle(
    records: list[TargetRecord], cell: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The MIME bundle of a ``%%compile`` cell's summary."""
    summary = summarize(records)
    return {
        MIME_TYPE: summary_payload(records, cell),
        "text/html": render_html(summary),
        "text/plain": render_text(summary),
    }
