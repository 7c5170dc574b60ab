"""A ``CompileTime`` as text, HTML and a MIME bundle within the output budget."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..core.records import MIME_TYPE
from .budget import fallback_budget, json_size, output_budget, record_budget
from .text import cap_texts, clip, escape
from .units import format_duration

if TYPE_CHECKING:
    from ..core.compiletime.record import CompileTime, FrameTime, Remedy

#: The longest text kept in a published record (the kernel's record keeps it whole).
TEXT_CAP = 2000
_COLOURS = {"verified": "#1a7f37", "did not help": "#9a6700", "inconclusive": "#57606a",
            "does not apply": "#57606a", "failed": "#cf222e", "not reproducible": "#cf222e",
            "not tried": "#57606a"}


def _s(value: float | None) -> str:
    return "-" if value is None else format_duration(value)


def _same(r: Remedy) -> str:
    return {True: "same", False: "differs", None: "-"}[r.same_result]


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def frame_words(f: FrameTime) -> str:
    """Which compile of which frame, in words: ``forward, its first compile (torch's
    compile id 0/0)``; ``forward, recompile 2 (torch's compile id 0/2)``."""
    found = re.search(r"(\d+)/(\d+)", f.compile_id)
    if found is None:
        return f"{f.frame} (torch's compile id {f.compile_id})" if f.compile_id else f.frame
    n = int(found.group(2))
    which = "its first compile" if n == 0 else f"recompile {n}"
    return f"{f.frame}, {which} (torch's compile id {f.compile_id})"


def _headline(ct: CompileTime) -> str:
    parts = [f"compile time of {ct.name}: cold {_s(ct.cold_s)}",
             f"warm restart {_s(ct.warm_restart_s)}"]
    best = [r for r in ct.remedies if r.verified]
    if best:
        parts.append("verified: " + ", ".join(r.kind for r in best))
    unsure = [r for r in ct.remedies if r.status == "inconclusive"]
    if unsure:
        parts.append("inconclusive: " + ", ".join(r.kind for r in unsure))
    return ", ".join(parts) + (" (interrupted)" if ct.interrupted else "")


def _kernel_explained(ct: CompileTime) -> list[FrameTime]:
    """This kernel's compiles whose key was compared: with an earlier compile of the frame
    here, or in an earlier kernel of this notebook."""
    return [f for f in ct.kernel_compiles if f.key_changes or f.earlier is not None]


def compile_time_text(ct: CompileTime, budget: int | None = None) -> str:
    """Plain text: the headline, where the seconds went, one line per remedy."""
    budget = fallback_budget() if budget is None else budget
    lines = [_headline(ct)]
    w = ct.where
    if w.phases:
        top = sorted(w.phases.items(), key=lambda kv: -kv[1])[:4]
        lines.append(f"where ({_s(w.total_s)} in {len(w.frames)} frame compile(s)): "
                     + ", ".join(f"{k} {_s(v)}" for k, v in top))
    if w.recompile_s:
        lines.append(f"recompiles: {_s(w.recompile_s)}")
    for b in w.repeated:
        lines.append(f"repeated: {b.count} x {b.cls} in {b.path or 'the model'}, traced "
                     f"{b.traced_copies} times, {b.node_share:.0%} of the ops "
                     f"(~{_s(b.dynamo_s)} Dynamo, ~{_s(b.inductor_s)} Inductor)")
    if w.caches:
        lines.append("caches: " + ", ".join(f"{k} {v}" for k, v in sorted(w.caches.items())))
    explained = [f for f in w.frames
                 if f.key_changes or any(c.outcome == "bypass" for c in f.caches)]
    for f in explained[:10]:
        lines.append(f"  {frame_words(f)}: {clip(f.cache_note, 300)}")
    if len(explained) > 10:
        lines.append(f"  ... {len(explained) - 10} more in .where.frames")
    mine = _kernel_explained(ct)
    for f in mine[:5]:
        lines.append(f"  in this kernel, {frame_words(f)}: {clip(f.cache_note, 300)}")
    if len(mine) > 5:
        lines.append(f"  ... {len(mine) - 5} more in .kernel_compiles")
    for r in ct.remedies:
        numbers = (f"cold {_s(r.cold_s)}, restart {_s(r.restart_s)}, steady "
                   f"{_ratio(r.steady_ratio)}, outputs {_same(r)}")
        lines.append(f"- {r.kind}: {r.status} ({numbers}): {clip(r.note, 300)}")
    for note in ct.notes[:10]:
        lines.append(f"note: {clip(note, 300)}")
    if len(ct.notes) > 10:
        lines.append(f"... {len(ct.notes) - 10} more notes in .notes")
    lines.append(f"({len(ct.runs)} fresh processes, {_s(ct.elapsed_s)})")
    text = "\n".join(lines)
    if len(text) > budget:
        text = text[:max(0, budget - 60)] + "\n... (cut: the whole record is in the kernel)"
    return text


def compile_time_html(ct: CompileTime, budget: int | None = None) -> str:
    """HTML: the headline, the split, and the remedies table with each change's code."""
    budget = fallback_budget() if budget is None else budget
    e = escape
    parts = [f"<div class='nbcompile-compile-time'><b>{e(_headline(ct))}</b>"]
    w = ct.where
    if w.phases:
        cells = "".join(f"<tr><td>{e(k)}</td><td>{e(_s(v))}</td></tr>"
                        for k, v in sorted(w.phases.items(), key=lambda kv: -kv[1]))
        again = f", recompiles {e(_s(w.recompile_s))}" if w.recompile_s > 0 else ""
        parts.append(f"<details><summary>where {e(_s(w.total_s))} went ("
                     f"{len(w.frames)} frame compile(s){again})"
                     f"</summary><table>{cells}</table></details>")
    items = [f"<li>{b.count} &times; {e(b.cls)} in "
             f"{f'<code>{e(b.path)}</code>' if b.path else 'the model'}: traced "
             f"{b.traced_copies} times, {b.node_share:.0%} of the ops (~{e(_s(b.dynamo_s))} "
             f"Dynamo, ~{e(_s(b.inductor_s))} Inductor)</li>" for b in w.repeated]
    items += [f"<li>{e(frame_words(f))}: {e(clip(f.cache_note, 300))}</li>"
              for f in w.frames if f.cache_note]
    items += [f"<li>in this kernel, {e(frame_words(f))}: "
              f"{e(clip(f.cache_note, 300))}</li>" for f in _kernel_explained(ct)[:5]]
    if items:
        parts.append(f"<ul style='margin:0'>{''.join(items[:20])}</ul>")
    rows = []
    for r in ct.remedies:
        colour = _COLOURS.get(r.status, "#57606a")
        code = f"<pre style='margin:0'>{e(r.change)}</pre>" if r.change else ""
        rows.append(f"<tr><td>{e(r.kind)}</td><td style='color:{colour}'>{e(r.status)}</td>"
                    f"<td>{e(_s(r.cold_s))}</td><td>{e(_s(r.restart_s))}</td>"
                    f"<td>{e(_ratio(r.steady_ratio))}</td><td>{e(_same(r))}</td>"
                    f"<td>{code}<small>{e(clip(r.note, 400))}</small></td></tr>")
    if rows:
        parts.append("<table><tr><th>remedy</th><th>status</th><th>cold</th><th>restart</th>"
                     "<th>steady</th><th>outputs</th><th>change</th></tr>"
                     + "".join(rows) + "</table>")
    parts += [f"<div><small>{e(clip(n, 300))}</small></div>" for n in ct.notes[:5]]
    parts.append(f"<div><small>{len(ct.runs)} fresh processes, {e(_s(ct.elapsed_s))}"
                 "</small></div></div>")
    html = "".join(parts)
    if len(html) > budget:
        html = (f"<div class='nbcompile-compile-time'><b>{e(_headline(ct))}</b><div><small>"
                "(details cut to the output budget: the whole record is in the kernel)"
                "</small></div></div>")
    return html


def published_compile_time(ct: CompileTime, budget: int | None = None) -> dict[str, Any]:
    """The record as published, within ``budget`` bytes of JSON: long texts cut, then the
    frame lists shortened (the kernel's ``CompileTime`` keeps everything)."""
    data = ct.to_dict()
    budget = output_budget() if budget is None else budget
    for cap in (TEXT_CAP, 300, 80):
        if json_size(data) <= budget:
            break
        data["truncated"] = cap_texts(data, cap, "the kernel") or data["truncated"]
    frames, mine = data["where"]["frames"], data["kernel_compiles"]
    # measured once, then kept by what each cut removes (an item's bytes and its comma):
    # measuring the whole record again after each cut made 2,000 frames take seconds
    size = json_size(data)
    if size > budget and (frames or mine):
        data["truncated"] = True
        size = json_size(data)
    while size > budget and (frames or mine):
        cut = frames if len(frames) >= len(mine) else mine
        size -= json_size(cut.pop()) + (1 if cut else 0)
    return data


def compile_time_bundle(ct: CompileTime) -> dict[str, Any]:
    """The MIME bundle: fallbacks within theirs, the record in what they leave."""
    html = compile_time_html(ct, fallback_budget())
    text = compile_time_text(ct, fallback_budget())
    return {MIME_TYPE: published_compile_time(ct, record_budget(html, text)),
            "text/html": html, "text/plain": text}
