"""Rendering of ``Suggestions`` (the ``suggestions`` record): one row per suggestion.

Each row shows the problem (reason, cell line), the change as a copyable snippet, and
the baseline and the trial on a copy side by side (graphs, breaks, recompiles, time, same
result). The bundle carries the JSON record under nbcompile's MIME type, escaped
``text/html`` and ``text/plain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.notebook.cells.cell_names import names_in, place
from ..core.records import MIME_TYPE
from .budget import Room, fallback_budget, fit_list, more_note, output_budget, record_budget
from .text import PROSE_CELL, clip, escape
from .units import format_duration

if TYPE_CHECKING:
    from ..core.fixes.record import Measured, Suggestion, Suggestions

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
    """The problem and its line, a cell named as the summary names it (``cell [2], line 4``)."""
    p = item.problem
    where = f" ({place(p.filename, p.lineno)}: {p.line})" if p.lineno else ""
    lib = " [inside library code]" if p.in_library else ""
    return f"{p.reason.splitlines()[0] if p.reason else p.kind}{where}{lib}"


def _same(item: Suggestion) -> str:
    s = item.same_result
    if item.after is None or s.ok is None:
        return "-"
    diff = f"max abs diff {s.max_abs_diff:.3g}" if s.max_abs_diff is not None else ""
    return f"{'same' if s.ok else 'DIFFERENT'} ({diff})"


#: Where the full list is, named where a fallback leaves suggestions out.
_FULL = "s.items (s: the Suggestions that nbcompile.suggest or %suggest returned)"
#: Bytes a budgeted fallback keeps for its closing parts.
_TAIL = 512


def _more(count: int, what: str = "suggestions") -> str:
    return more_note(count, what, _FULL if what == "suggestions" else
                     _FULL.replace("s.items", f"s.{what}"))


def suggestions_text(result: Suggestions, budget: int | None = None) -> str:
    """Plain-text fallback: baseline, then one block per suggestion; with a ``budget``
    (bytes), the first that fit, the rest counted."""
    room = Room(None if budget is None else budget - _TAIL)
    lines = [room.spend(f"suggest {result.name}: "
                        + ("INTERRUPTED, partial: " if result.interrupted else "")
                        + f"baseline {_counts(result.baseline)}")]

    def block(i: int, item: Suggestion) -> str:
        return "\n".join([
            f"{i}. [{item.status}] {item.kind}: {clip(_where(item))}",
            *("     " + c for c in clip(item.change, _CHANGE_CAP).splitlines()),
            f"   after: {clip(_counts(item.after))}; result: {_same(item)}",
            f"   note: {clip(item.note)}",
        ])

    lines += room.take((block(i, item) for i, item in enumerate(result.items, 1)),
                       len(result.items), _more, 0.8)
    lines += room.take((f"note: {clip(n)}" for n in result.notes), len(result.notes),
                       lambda n: _more(n, "notes"))
    return "\n".join(lines)


#: Characters of one suggested change shown in a fallback (the record has it whole).
_CHANGE_CAP = 2000


def suggestions_html(result: Suggestions, budget: int | None = None) -> str:
    """The table: problem, change (copyable), before, after, result, status and note;
    with a ``budget`` (bytes), the first rows that fit, the rest counted."""
    room = Room(None if budget is None else budget - _TAIL)
    top = room.spend(
        f"<div class='nbcompile-suggestions'><b>suggest {escape(result.name)}</b> "
        + ("<b>interrupted, partial</b> " if result.interrupted else "") +
        f"({result.calls} call(s), {result.elapsed_s:.1f} s of a {result.budget_s:g} s budget)"
        "<table><thead><tr><th>problem</th><th>change</th><th>before</th><th>after (copy)"
        "</th><th>result</th><th>status</th><th>note</th></tr></thead><tbody>")
    before = escape(clip(_counts(result.baseline)))

    def row(item: Suggestion) -> str:
        colour = _STATUS_COLOURS.get(item.status, "#000")
        return ("<tr>"
                f"<td>{escape(clip(_where(item)))}</td>"
                f"<td><pre style='user-select:all;margin:0'><code>"
                f"{escape(clip(item.change, _CHANGE_CAP))}</code></pre>"
                f"<small>{escape(clip(item.kind))}</small></td>"
                f"<td>{before}</td>"
                f"<td>{escape(clip(_counts(item.after)))}</td>"
                f"<td>{escape(_same(item))}</td>"
                f"<td style='color:{colour};font-weight:bold'>{escape(clip(item.status))}</td>"
                f"<td>{escape(clip(item.note))}</td>"
                "</tr>")

    rows = room.take((row(item) for item in result.items), len(result.items),
                     lambda n: f"<tr><td colspan='7' class='nbcompile-omitted' {PROSE_CELL}>"
                     f"{escape(_more(n))}</td></tr>", 0.8)
    notes = room.take((f"<p>{escape(clip(n))}</p>" for n in result.notes), len(result.notes),
                      lambda n: f"<p class='nbcompile-omitted'>{escape(_more(n, 'notes'))}</p>")
    return f"{top}{''.join(rows)}</tbody></table>{''.join(notes)}</div>"


def suggestions_bundle(result: Suggestions, budget: int | None = None) -> dict[str, Any]:
    """The MIME bundle of ``Suggestions`` within ``budget`` bytes (the output budget by
    default): the fallbacks within theirs (``budget.fallback_budget``), the record in
    what they leave: items beyond it are left out, a note says how many."""
    budget = output_budget() if budget is None else budget
    html = suggestions_html(result, fallback_budget(budget))
    text = suggestions_text(result, fallback_budget(budget))
    data = result.to_dict()
    if names := names_in(data):  # the inspector names cells as the notebook does
        data["cell_names"] = names
    data = fit_list(data, "items", record_budget(html, text, budget=budget),
                    "nbcompile.suggest(...).items")
    return {MIME_TYPE: data, "text/html": html, "text/plain": text}
