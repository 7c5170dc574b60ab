"""Rendering of a ``Diagnosis`` (the ``diagnosis`` record): the verdict, the ladder, the
culprit's line, the float64 reference and the workarounds.

The bundle carries the JSON record under nbcompile's MIME type (within the output budget:
long texts are cut from the published copy only, ``truncated`` set), escaped
``text/html`` and ``text/plain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.notebook.cells.cell_names import names_in, place
from ..core.records import MIME_TYPE
from .budget import Room, fallback_budget, json_size, more_note, output_budget, record_budget
from .text import PROSE_CELL, cap_texts, clip, escape
from .units import format_duration

if TYPE_CHECKING:
    from ..core.diagnosis.record import Diagnosis, Rung, Workaround

_OUTCOME_COLOURS = {"ok": "#2e7d32", "accuracy": "#ef6c00", "crash": "#c62828",
                    "not run": "#9e9e9e"}
_STATUS_COLOURS = {"verified": "#2e7d32", "tried, did not help": "#c62828",
                   "not tried": "#9e9e9e"}
_LAYERS = {"dynamo": "Dynamo", "aot_autograd": "AOTAutograd", "inductor": "Inductor"}
#: Longest text of any field in the published record, then in a tight budget.
TEXT_CAP = 4000
TIGHT_TEXT_CAP = 500


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _out_of(mismatched: int | None, numel: int) -> str:
    return "-" if mismatched is None else f"{mismatched} of {numel}"


def _rung_cells(r: Rung) -> list[str]:
    return [r.backend, _LAYERS.get(r.layer, r.layer), r.outcome, _number(r.max_abs_diff),
            _out_of(r.mismatched, r.numel), format_duration(r.first_call_s),
            format_duration(r.time_s), r.error or r.note]


RUNG_HEADERS = ["backend", "adds", "outcome", "max |diff| vs eager", "out of tolerance",
                "1st call", "per call", "error / note"]


def _workaround_cells(w: Workaround) -> list[str]:
    return [w.change, w.status, w.outcome, _number(w.max_abs_diff),
            _out_of(w.mismatched, w.numel), _number(w.reference_error),
            format_duration(w.time_s), w.cost, w.error or w.note]


WORKAROUND_HEADERS = ["change", "status", "outcome", "max |diff| vs eager",
                      "out of tolerance", "max |diff| vs float64", "per call", "cost", "note"]


def _where(d: Diagnosis) -> str:
    """The culprit's line, its cell named as the summary names it (``cell [2], line 5``)."""
    if d.lineno is None:
        return ""
    return f"{place(d.filename, d.lineno)}: {d.line}"


def _reference_text(d: Diagnosis) -> str:
    ref = d.reference
    if ref is None:
        return ""
    if ref.eager_error is None or ref.compiled_error is None:
        return ref.note
    return (f"against {ref.dtype}: eager's error {_number(ref.eager_error)} (mean "
            f"{_number(ref.eager_mean_error)}), compiled's {_number(ref.compiled_error)} "
            f"(mean {_number(ref.compiled_mean_error)}): closer is {ref.closer}")


#: Bytes a budgeted fallback keeps for its closing parts.
_TAIL = 512
_FULL = "d.{attr} (d: the Diagnosis that nbcompile.diagnose or %diagnose returned)"


def _more(count: int, attr: str) -> str:
    return more_note(count, attr, _FULL.format(attr=attr))


def diagnosis_text(d: Diagnosis, budget: int | None = None) -> str:
    """Plain-text fallback: verdict, ladder, culprit, reference, workarounds; with a
    ``budget`` (bytes), long texts clipped and the lists' items that fit, the rest
    counted."""
    room = Room(None if budget is None else budget - _TAIL)
    c = (lambda t: t) if budget is None else clip
    lines = [room.spend(line) for line in (
        f"nbcompile.diagnose({d.name}): " + ("INTERRUPTED, partial: " if d.interrupted else "")
        + c(", ".join(d.inputs)),
        f"{d.kind}: {c(d.summary)}", f"options: {c(d.options)}",
        f"tolerance: {c(d.tolerance)}", "ladder:")]

    def rung(r: Rung) -> str:
        cells = [c(x) for x in _rung_cells(r)]
        return (f"  {cells[0]:<28} {cells[1]:<12} {cells[2]:<9} diff {cells[3]:<9} "
                f"out {cells[4]:<14} 1st {cells[5]:<9} call {cells[6]:<9} {cells[7]}"
                .rstrip())

    lines += room.take((rung(r) for r in d.rungs), len(d.rungs), lambda n: _more(n, "rungs"),
                       0.3)
    tail = []
    if d.culprit:
        tail.append(f"culprit: {c(d.culprit)}")
    if d.lineno is not None:
        tail.append(f"  at {c(_where(d))}")
    if d.bisection is not None:
        b = d.bisection
        tail.append(c(f"bisection: backend {b.backend or '-'}, subsystem {b.subsystem or '-'}, "
                      f"number {b.bisect_number}, {b.debug_info or '-'} ({b.steps} compiles, "
                      f"{b.elapsed_s:.1f} s){'; ' + b.note if b.note else ''}"))
    if d.reference is not None:
        tail.append(f"reference: {c(_reference_text(d))}")
    if d.workarounds:
        tail.append("workarounds:")
    lines += [room.spend(line) for line in tail]

    def workaround(w: Workaround) -> str:
        cells = [c(x) for x in _workaround_cells(w)]
        change = cells[0].replace("\n", "\n" + " " * (len(w.status) + 5))
        out = [f"  [{w.status}] {change}"]
        if w.status != "not tried":
            cost = f" ({cells[7]})" if cells[7] else ""
            out.append(f"      outcome {cells[2]}, diff {cells[3]}, out {cells[4]}, "
                       f"vs float64 {cells[5]}, per call {cells[6]}{cost}")
        if cells[8]:  # the copy's error, or what the change does and why not tried
            out.append(f"      {cells[8]}")
        return "\n".join(out)

    lines += room.take((workaround(w) for w in d.workarounds), len(d.workarounds),
                       lambda n: _more(n, "workarounds"), 0.5)
    lines += room.take((f"skipped: {c(s)}" for s in d.skipped), len(d.skipped),
                       lambda n: _more(n, "skipped"), 0.5)
    lines += room.take((f"note: {c(n)}" for n in d.notes), len(d.notes),
                       lambda n: _more(n, "notes"))
    lines.append(f"took {d.elapsed_s:.1f} s of a {d.budget_s:g} s budget")
    return "\n".join(lines)


def _table(headers: list[str], rows: list[list[str]], colour_col: int,
           colours: dict[str, str], room: Room, attr: str) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)

    def row(cells: list[str]) -> str:
        tds = []
        for i, cell in enumerate(cells):
            style = (f" style='color:{colours.get(cell, 'inherit')};font-weight:bold'"
                     if i == colour_col else "")
            content = (f"<code style='white-space:pre-wrap'>{escape(cell)}</code>" if i == 0
                       else escape(cell))
            tds.append(f"<td{style}>{content}</td>")
        return f"<tr>{''.join(tds)}</tr>"

    body = room.take((row(cells) for cells in rows), len(rows), lambda n: (
        f"<tr><td colspan='{len(headers)}' class='nbcompile-omitted' {PROSE_CELL}>"
        f"{escape(_more(n, attr))}</td></tr>"), 0.4)
    return room.spend(f"<table><thead><tr>{head}</tr></thead><tbody>") + "".join(body) \
        + "</tbody></table>"


def diagnosis_html(d: Diagnosis, budget: int | None = None) -> str:
    """Escaped, self-contained HTML (no scripts, no external resources); with a
    ``budget`` (bytes), long texts clipped and the lists' items that fit, the rest
    counted."""
    e = escape
    room = Room(None if budget is None else budget - _TAIL)
    c = (lambda t: t) if budget is None else clip
    colour = _OUTCOME_COLOURS.get(d.kind, "inherit")
    parts = [room.spend(part) for part in (
        "<div class='nbcompile-diagnosis'>",
        f"<b>nbcompile.diagnose</b>(<code>{e(d.name)}</code>): "
        + ("<b>interrupted, partial</b>: " if d.interrupted else "")
        + e(c(", ".join(d.inputs))),
        f"<p><b style='color:{colour}'>{e(d.kind)}</b> {e(c(d.summary))}</p>",
        f"<div><small>options: {e(c(d.options))}; tolerance: {e(c(d.tolerance))}</small>"
        "</div>",
        "<h4 style='margin:4px 0'>ladder</h4>")]
    parts.append(_table(RUNG_HEADERS, [[c(x) for x in _rung_cells(r)] for r in d.rungs], 2,
                        _OUTCOME_COLOURS, room, "rungs"))
    if d.culprit or d.lineno is not None:
        parts.append(room.spend(f"<p><b>culprit</b>: {e(c(d.culprit))}"))
        if d.lineno is not None:
            parts.append(room.spend(f"<br/>{e(c(place(d.filename, d.lineno)))}: "
                                    f"<code>{e(c(d.line))}</code>"))
        parts.append("</p>")
    if d.reference is not None:
        parts.append(room.spend(f"<p><b>float64 reference</b>: {e(c(_reference_text(d)))}</p>"))
    if d.workarounds:
        parts += ["<h4 style='margin:4px 0'>workarounds (tried on copies)</h4>",
                  _table(WORKAROUND_HEADERS,
                         [[c(x) for x in _workaround_cells(w)] for w in d.workarounds],
                         1, _STATUS_COLOURS, room, "workarounds")]
    if d.error_detail:
        detail = d.error_detail if budget is None else clip(
            d.error_detail, max((room.left or 0) // 4, 200))
        parts.append(room.spend(f"<details><summary>error</summary><pre>{e(detail)}</pre>"
                                "</details>"))
    items = [f"<li>skipped: {e(c(s))}</li>" for s in d.skipped] + [
        f"<li>{e(c(n))}</li>" for n in d.notes]
    items = room.take(items, len(items), lambda n: (
        f"<li class='nbcompile-omitted'>{e(_more(n, 'notes'))}</li>"))
    if items:
        parts.append(f"<ul style='margin:0'>{''.join(items)}</ul>")
    parts.append(f"<div><small>took {d.elapsed_s:.1f} s of a {d.budget_s:g} s budget"
                 "</small></div></div>")
    return "".join(parts)


def published_diagnosis(d: Diagnosis, budget: int | None = None) -> dict[str, Any]:
    """The record as published: within ``budget`` bytes of JSON (default: the output
    budget), long texts cut (the kernel's ``Diagnosis`` keeps them whole)."""
    data = d.to_dict()
    if names := names_in(data):  # the inspector names cells as the notebook does
        data["cell_names"] = names
    budget = output_budget() if budget is None else budget
    for cap in (TEXT_CAP, TIGHT_TEXT_CAP, 100, 20):
        if json_size(data) <= budget:
            break
        data["truncated"] = cap_texts(data, cap, _WHOLE) or data["truncated"]
    if json_size(data) > budget:  # notes and skipped are the only lists that can grow
        for key in ("notes", "skipped"):
            if data[key]:
                data[key] = data[key][:3] + [f"... {len(data[key]) - 3} more in the kernel"]
                data["truncated"] = True
    return data


#: Where a cut text of a published diagnosis is whole.
_WHOLE = "the kernel"


def diagnosis_bundle(d: Diagnosis) -> dict[str, Any]:
    """The MIME bundle of a ``Diagnosis`` within the output budget: the fallbacks within
    theirs (``budget.fallback_budget``), the record in what they leave."""
    html = diagnosis_html(d, fallback_budget())
    text = diagnosis_text(d, fallback_budget())
    return {
        MIME_TYPE: published_diagnosis(d, record_budget(html, text)),
        "text/html": html,
        "text/plain": text,
    }
