"""Rendering of a ``Diagnosis`` (the ``diagnosis`` record): the verdict, the ladder, the
culprit's line, the float64 reference and the workarounds.

The bundle carries the JSON record under nbcompile's MIME type (within the output budget:
long texts are cut from the published copy only, ``truncated`` set), escaped
``text/html`` and ``text/plain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.records import MIME_TYPE
from .budget import json_size, output_budget
from .text import escape
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
            _out_of(w.mismatched, w.numel), format_duration(w.time_s), w.cost,
            w.error or w.note]


WORKAROUND_HEADERS = ["change", "status", "outcome", "max |diff| vs eager",
                      "out of tolerance", "per call", "cost", "note"]


def _where(d: Diagnosis) -> str:
    if d.lineno is None:
        return ""
    return f"line {d.lineno} of {d.filename}: {d.line}"


def _reference_text(d: Diagnosis) -> str:
    ref = d.reference
    if ref is None:
        return ""
    if ref.eager_error is None or ref.compiled_error is None:
        return ref.note
    return (f"against {ref.dtype}: eager's error {_number(ref.eager_error)} (mean "
            f"{_number(ref.eager_mean_error)}), compiled's {_number(ref.compiled_error)} "
            f"(mean {_number(ref.compiled_mean_error)}): closer is {ref.closer}")


def diagnosis_text(d: Diagnosis) -> str:
    """Plain-text fallback: verdict, ladder, culprit, reference, workarounds."""
    lines = [f"nbcompile.diagnose({d.name}): {', '.join(d.inputs)}",
             f"{d.kind}: {d.summary}", f"options: {d.options}",
             f"tolerance: {d.tolerance}", "ladder:"]
    for r in d.rungs:
        cells = _rung_cells(r)
        lines.append(f"  {cells[0]:<28} {cells[1]:<12} {cells[2]:<9} diff {cells[3]:<9} "
                     f"out {cells[4]:<14} 1st {cells[5]:<9} call {cells[6]:<9} {cells[7]}"
                     .rstrip())
    if d.culprit:
        lines.append(f"culprit: {d.culprit}")
    if d.lineno is not None:
        lines.append(f"  at {_where(d)}")
    if d.bisection is not None:
        b = d.bisection
        lines.append(f"bisection: backend {b.backend or '-'}, subsystem {b.subsystem or '-'}, "
                     f"number {b.bisect_number}, {b.debug_info or '-'} ({b.steps} compiles, "
                     f"{b.elapsed_s:.1f} s){'; ' + b.note if b.note else ''}")
    if d.reference is not None:
        lines.append(f"reference: {_reference_text(d)}")
    if d.workarounds:
        lines.append("workarounds:")
    for w in d.workarounds:
        cells = _workaround_cells(w)
        change = cells[0].replace("\n", "\n" + " " * (len(w.status) + 5))
        lines.append(f"  [{w.status}] {change}")
        if w.status != "not tried":
            lines.append(f"      outcome {cells[2]}, diff {cells[3]}, out {cells[4]}, "
                         f"per call {cells[5]}{', ' + cells[6] if cells[6] else ''}")
        if cells[7]:
            lines.append(f"      {cells[7]}")
    lines += [f"skipped: {s}" for s in d.skipped]
    lines += [f"note: {n}" for n in d.notes]
    lines.append(f"took {d.elapsed_s:.1f} s of a {d.budget_s:g} s budget")
    return "\n".join(lines)


def _table(headers: list[str], rows: list[list[str]], colour_col: int,
           colours: dict[str, str]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for cells in rows:
        tds = []
        for i, cell in enumerate(cells):
            style = (f" style='color:{colours.get(cell, 'inherit')};font-weight:bold'"
                     if i == colour_col else "")
            content = (f"<code style='white-space:pre-wrap'>{escape(cell)}</code>" if i == 0
                       else escape(cell))
            tds.append(f"<td{style}>{content}</td>")
        body.append(f"<tr>{''.join(tds)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def diagnosis_html(d: Diagnosis) -> str:
    """Escaped, self-contained HTML (no scripts, no external resources)."""
    e = escape
    colour = _OUTCOME_COLOURS.get(d.kind, "inherit")
    parts = [
        "<div class='nbcompile-diagnosis'>",
        f"<b>nbcompile.diagnose</b>(<code>{e(d.name)}</code>): {e(', '.join(d.inputs))}",
        f"<p><b style='color:{colour}'>{e(d.kind)}</b> {e(d.summary)}</p>",
        f"<div><small>options: {e(d.options)}; tolerance: {e(d.tolerance)}</small></div>",
        "<h4 style='margin:4px 0'>ladder</h4>",
        _table(RUNG_HEADERS, [_rung_cells(r) for r in d.rungs], 2, _OUTCOME_COLOURS),
    ]
    if d.culprit or d.lineno is not None:
        parts.append(f"<p><b>culprit</b>: {e(d.culprit)}")
        if d.lineno is not None:
            parts.append(f"<br/>line {d.lineno} of <code>{e(d.filename or '')}</code>: "
                         f"<code>{e(d.line)}</code>")
        parts.append("</p>")
    if d.reference is not None:
        parts.append(f"<p><b>float64 reference</b>: {e(_reference_text(d))}</p>")
    if d.workarounds:
        parts += ["<h4 style='margin:4px 0'>workarounds (tried on copies)</h4>",
                  _table(WORKAROUND_HEADERS, [_workaround_cells(w) for w in d.workarounds],
                         1, _STATUS_COLOURS)]
    if d.error_detail:
        parts.append(f"<details><summary>error</summary><pre>{e(d.error_detail)}</pre></details>")
    items = [f"<li>skipped: {e(s)}</li>" for s in d.skipped] + [
        f"<li>{e(n)}</li>" for n in d.notes]
    if items:
        parts.append(f"<ul style='margin:0'>{''.join(items)}</ul>")
    parts.append(f"<div><small>took {d.elapsed_s:.1f} s of a {d.budget_s:g} s budget"
                 "</small></div></div>")
    return "".join(parts)


def published_diagnosis(d: Diagnosis, budget: int | None = None) -> dict[str, Any]:
    """The record as published: within ``budget`` bytes of JSON (default: the output
    budget), long texts cut (the kernel's ``Diagnosis`` keeps them whole)."""
    data = d.to_dict()
    budget = output_budget() if budget is None else budget
    for cap in (TEXT_CAP, TIGHT_TEXT_CAP, 100):
        if json_size(data) <= budget:
            break
        data["truncated"] = _cap_texts(data, cap) or data["truncated"]
    if json_size(data) > budget:  # notes and skipped are the only lists that can grow
        for key in ("notes", "skipped"):
            if data[key]:
                data[key] = data[key][:3] + [f"... {len(data[key]) - 3} more in the kernel"]
                data["truncated"] = True
    return data


def _cap_texts(value: Any, cap: int) -> bool:
    cut = False
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in list(items):
        if isinstance(item, str) and len(item) > cap:
            value[key] = item[:cap] + f" ... [{len(item) - cap} more characters in the kernel]"
            cut = True
        elif isinstance(item, (dict, list)):
            cut = _cap_texts(item, cap) or cut
    return cut


def diagnosis_bundle(d: Diagnosis) -> dict[str, Any]:
    """The MIME bundle of a ``Diagnosis``."""
    return {
        MIME_TYPE: published_diagnosis(d),
        "text/html": diagnosis_html(d),
        "text/plain": diagnosis_text(d),
    }
