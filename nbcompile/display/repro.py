"""A ``Repro`` as text and HTML: the fact, the verdict of its fresh run, its notes, the
files."""

from __future__ import annotations

from typing import Any

from .text import escape


def verdict(r: Any) -> str:
    """The fresh run's verdict in words."""
    if r.problem:
        return f"not run: {r.problem}"
    if r.reproduced:
        return f"reproduced in a fresh process ({r.elapsed_s:.1f} s)"
    return "did NOT reproduce in a fresh process: " + "; ".join(r.differs)


def _files(r: Any) -> list[tuple[str, str]]:
    return [(label, path) for label, path in (("script", r.path), ("report", r.report_path),
                                              ("trace", r.trace_dir),
                                              *(("saved", p) for p in r.saved)) if path]


def repro_text(r: Any) -> str:
    lines = [f"repro of {r.name}: {r.fact}", f"  {verdict(r)}"]
    lines += [f"  note: {note}" for note in r.notes]
    lines += [f"  {label}: {path}" for label, path in _files(r)]
    if r.command:
        lines.append(f"  run it again: {r.command}")
    return "\n".join(lines)


def repro_html(r: Any) -> str:
    mark = "&#10003;" if r.reproduced else "&#10007;"
    rows = "".join(f"<tr><th style='text-align:left'>{escape(label)}</th>"
                   f"<td><code>{escape(path)}</code></td></tr>" for label, path in _files(r))
    command = f"<p>Run it again: <code>{escape(r.command)}</code></p>" if r.command else ""
    notes = ("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in r.notes) + "</ul>"
             if r.notes else "")
    return (f"<div class='nbcompile-repro'><p><b>repro of {escape(r.name)}</b>: "
            f"{escape(r.fact)}</p><p>{mark} {escape(verdict(r))}</p>{notes}"
            f"<table>{rows}</table>{command}</div>")
