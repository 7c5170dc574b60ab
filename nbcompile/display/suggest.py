"""Rendering of ``Suggestions`` (the ``suggestions`` record): one row per suggestion.

Each row shows the problem (reason, cell line), the change as a copyable snippet, and
the baseline and the trial on a copy side by side (graphs, breaks, recompiles, time, same
result). The bundle carries the JSON record under nbcompile's MIME type, escaped
``text/html`` and ``text/plain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.records import MIME_TYPE
from .text import escape
from .units import format_duration

if TYPE_CHECKING:
    from ..core.fixes.suggest import Measured, Suggestion, Suggestions

_STATUS_COLOURS = {"verified": "#2e7d32", "tried, did not help": "#c62828",
                   "not tried": "#9e9e9e"}


def _counts(m: Measured | None) -> str:
    if m is None:
        return "-"
    if m.error:
        return f"failed: {m.error}"
    return (f"{m.graphs} graph(s), {m.breaks} break(s), {m.recompiles} recompile(s), "
            f"{format_duration(m.time_s)}")


def _where(item: Suggestion) -> str:
    p = item.problem
    where = f" (line {p.lineno}: {p.line})" if p.lineno else ""
    lib = " [inside library code]" if p.in_library else ""
    return f"{p.reason.splitlines()[0] if p.reason else p.kind}{where}{lib}"


def _same(item: Suggestion) -> str:
    s = item.same_result
    if item.after is None or s.ok is None:
        return "-"
    diff = f"max abs diff {s.max_abs_diff:.3g}" if s.max_abs_diff is not None else ""
    return f"{'same' if s.ok else 'DIFFERENT'} ({diff})"


def suggestions_text(result: Suggestions) -> str:
    """Plain-text fallback: baseline, then one block per suggestion."""
    lines = [f"suggest {result.name}: baseline {_counts(result.baseline)}"]
    for i, item in enumerate(result.items, 1):
        lines += [
            f"{i}. [{item.status}] {item.kind}: {_where(item)}",
            *("     " + c for c in item.change.splitlines()),
            f"   after: {_counts(item.after)}; result: {_same(item)}",
            f"   note: {item.note}",
        ]
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines)


def suggestions_html(result: Suggestions) -> str:
    """The table: problem, change (copyable), before, after, result, status and note."""
    rows = []
    for item in result.items:
        colour = _STATUS_COLOURS.get(item.status, "#000")
        rows.append(
            "<tr>"
            f"<td>{escape(_where(item))}</td>"
            f"<td><pre style='user-select:all;margin:0'><code>{escape(item.change)}</code></pre>"
            f"<small>{escape(item.kind)}</small></td>"
            f"<td>{escape(_counts(result.baseline))}</td>"
            f"<td>{escape(_counts(item.after))}</td>"
            f"<td>{escape(_same(item))}</td>"
            f"<td style='color:{colour};font-weight:bold'>{escape(item.status)}</td>"
            f"<td>{escape(item.note)}</td>"
            "</tr>")
    notes = "".join(f"<p>{escape(n)}</p>" for n in result.notes)
    return (
        f"<div class='nbcompile-suggestions'><b>suggest {escape(result.name)}</b> "
        f"({result.calls} call(s), {result.elapsed_s:.1f} s of a {result.budget_s:g} s budget)"
        "<table><thead><tr><th>problem</th><th>change</th><th>before</th><th>after (copy)"
        "</th><th>result</th><th>status</th><th>note</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>{notes}</div>")


def suggestions_bundle(result: Suggestions) -> dict[str, Any]:
    """The MIME bundle of ``Suggestions``."""
    return {
        MIME_TYPE: result.to_dict(),
        "text/html": suggestions_html(result),
        "text/plain": suggestions_text(result),
    }
