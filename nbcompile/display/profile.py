"""Rendering of a ``Profile``: the source painted by measured time, and the kernel table.

Like ``%%cython --annotate``: each line of the target is shaded by its compiled time
(share of the hottest line), with its compiled and eager time per call and the kernels
it fed; below, the kernel table and the per-call budget. Escaped, self-contained HTML (no
scripts); a plain-text fallback; the JSON record under the nbcompile MIME type.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.records import MIME_TYPE, Omission
from .budget import json_size, output_budget
from .text import escape
from .units import format_duration

#: Rows each list keeps before the other is cut further (kernels slowest first, lines hottest).
_KEEP = 10


def _fmt(seconds: float | None) -> str:
    return format_duration(seconds) if seconds else "-"


def _measured(line: Any) -> bool:
    """Whether a profiled source line has compiled or eager time."""
    return bool(line.compiled_s or line.eager_s)


def _budget(p: Any) -> list[tuple[str, float]]:
    return [("kernels", p.kernel_s), ("overhead", p.overhead_s),
            ("outside graphs", p.outside_graphs_s), ("unaccounted", p.unaccounted_s)]


def profile_text(p: Any, omitted: list[Omission] | None = None) -> str:
    """The plain-text view: budget, lines with time, kernel table, notes, cut marks."""
    out = [f"profile of {p.name}: {p.repeat} call(s); wall {_fmt(p.wall_s)} per call "
           f"compiled, {_fmt(p.eager_wall_s)} eager"]
    out.append("  " + ", ".join(f"{k} {_fmt(v)}" for k, v in _budget(p)))
    timed = [ln for ln in p.lines if _measured(ln)]
    if timed:
        out.append(f"  {'line':>5}  {'compiled':>10}  {'eager':>10}  source")
        for ln in timed:
            out.append(f"  {ln.lineno:>5}  {_fmt(ln.compiled_s):>10}  "
                       f"{_fmt(ln.eager_s):>10}  {ln.line.strip()}")
    out.append(f"  {'kernel':<40} {'calls':>6} {'total':>10} {'mean':>10} {'share':>6}  lines")
    for k in p.kernels:
        lines = ",".join(str(n) for n in k.lines) or "not tied to a line"
        out.append(f"  {k.name[:40]:<40} {k.calls:>6} {_fmt(k.total_s):>10} "
                   f"{_fmt(k.mean_s):>10} {k.share:>6.0%}  {lines}")
    out += [f"  note: {n}" for n in p.notes]
    out += [f"  {_mark_words(o)}" for o in omitted or []]
    return "\n".join(out)


def _how(attr: str) -> str:
    return f"p.{attr} (p: the Profile that nbcompile.profile or %kprun returned)"


def _mark_words(o: Omission) -> str:
    return f"{o.count} more {o.field} left out of this output (output budget): {o.how}"


def _shade(value: float, top: float) -> str:
    if top <= 0 or value <= 0:
        return "transparent"
    alpha = 0.12 + 0.68 * min(value / top, 1.0)
    return f"rgba(230, 81, 0, {alpha:.2f})"


def profile_html(p: Any, omitted: list[Omission] | None = None) -> str:
    """The source coloured by compiled time per line, then the kernels and the budget."""
    e = escape
    top = max((ln.compiled_s for ln in p.lines), default=0.0)
    rows = []
    for ln in p.lines:
        speedup = f"{ln.speedup:.2f}x" if ln.speedup is not None else ""
        rows.append(
            f"<tr style='background:{_shade(ln.compiled_s, top)}'>"
            f"<td style='text-align:right;color:#777'>{ln.lineno}</td>"
            f"<td style='text-align:right'>{_fmt(ln.compiled_s)}</td>"
            f"<td style='text-align:right'>{_fmt(ln.eager_s)}</td>"
            f"<td style='text-align:right'>{speedup}</td>"
            f"<td><pre style='margin:0'>{e(ln.line)}</pre></td>"
            f"<td style='font-size:smaller'>{e(', '.join(ln.kernels))}</td></tr>"
        )
    source = (
        "<table class='nbcompile-profile-source' style='border-collapse:collapse'>"
        "<thead><tr><th>line</th><th>compiled</th><th>eager</th><th>speedup</th>"
        "<th style='text-align:left'>source</th><th>kernels</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    ) if rows else "<p>(no source lines)</p>"
    krows = "".join(
        f"<tr><td><code>{e(k.name)}</code></td><td>{e(k.kind)}</td><td>{k.calls}</td>"
        f"<td>{_fmt(k.total_s)}</td><td>{_fmt(k.mean_s)}</td>"
        f"<td>{k.share:.0%}</td>"
        f"<td>{e(', '.join(map(str, k.lines)) or 'not tied to a line')}</td></tr>"
        for k in p.kernels
    )
    kernels = (
        "<table class='nbcompile-profile-kernels'><thead><tr><th>kernel</th><th>kind</th>"
        "<th>calls</th><th>total</th><th>mean</th><th>share</th><th>lines</th></tr></thead>"
        f"<tbody>{krows}</tbody></table>"
    )
    budget = ", ".join(f"{k} {_fmt(v)}" for k, v in _budget(p))
    notes = "".join(f"<li>{e(n)}</li>" for n in p.notes)
    notes += "".join(f"<li class='nbcompile-omitted'>{e(_mark_words(o))}</li>"
                     for o in omitted or [])
    return (
        f"<div class='nbcompile-profile'><b>nbcompile profile</b> of <code>{e(p.name)}</code>: "
        f"{p.repeat} call(s), wall {_fmt(p.wall_s)} per call compiled, "
        f"{_fmt(p.eager_wall_s)} eager<br>per call: {e(budget)}"
        f"{source}{kernels}{'<ul>' + notes + '</ul>' if notes else ''}</div>"
    )


def profile_bundle(p: Any, budget: int | None = None) -> dict[str, Any]:
    """The MIME bundle of a ``Profile`` within ``budget`` bytes (the output budget by
    default) for its JSON, HTML and text together. Over it, the published copy leaves
    out, in turn: source lines with no measured time, kernels beyond the slowest ten,
    lines beyond the hottest ten, then the rest; each cut is marked (``omitted``) with
    how to get it from the ``Profile`` object, which stays whole."""
    budget = output_budget() if budget is None else budget
    kernels, lines = list(p.kernels), list(p.lines)
    while True:
        omitted = [Omission(attr, len(whole) - len(kept), _how(attr))
                   for attr, whole, kept in (("kernels", p.kernels, kernels),
                                             ("lines", p.lines, lines)) if len(kept) < len(whole)]
        shown = replace(p, kernels=kernels, lines=lines) if omitted else p
        data = shown.to_dict()
        if omitted:
            data["omitted"], data["truncated"] = [o.to_dict() for o in omitted], True
        bundle = {MIME_TYPE: data, "text/html": profile_html(shown, omitted),
                  "text/plain": profile_text(shown, omitted)}
        size = (json_size(data) + len(bundle["text/html"].encode())
                + len(bundle["text/plain"].encode()))
        if size <= budget or not (kernels or lines):
            return bundle
        kernels, lines = _cut(kernels, lines)


def _cut(kernels: list[Any], lines: list[Any]) -> tuple[list[Any], list[Any]]:
    """One step less: untimed lines, then kernels and lines halved down to ``_KEEP``
    (slowest kernels and hottest lines kept, lines in source order), then to none."""
    timed = [ln for ln in lines if _measured(ln)]
    if len(timed) < len(lines):
        return kernels, timed
    for floor in (_KEEP, 0):
        if len(kernels) > floor:
            return kernels[:max(len(kernels) // 2, floor)], lines
        if len(lines) > floor:
            keep = max(len(lines) // 2, floor)
            hottest = set(map(id, sorted(lines, key=lambda ln: -ln.compiled_s)[:keep]))
            return kernels, [ln for ln in lines if id(ln) in hottest]
    return kernels, lines
