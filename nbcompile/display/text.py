"""Shared text helpers for every renderer (a leaf: imports nothing from nbcompile).

What is published inline is capped (the kernel keeps the full texts: ``nbcompile.report``
returns them whole); user strings in HTML are escaped with ``escape``.
"""

from __future__ import annotations

import html
from typing import Protocol

from ..core.units import clip as core_clip

#: Caps on what is published inline (characters).
OUTPUT_CODE_CAP = 200_000
KERNEL_CAP = 60_000
GRAPH_CAP = 40_000
GUARDS_CAP = 20_000

TRUNCATION_NOTE = (
    "\n... [truncated by nbcompile: {omitted} more characters; "
    "{where} has the full text]\n"
)


def cap(text: str, limit: int, name: str, where: str = "") -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters plus a note saying where the rest is
    (``where``, by default ``nbcompile.report(name)``); and whether it was cut."""
    if len(text) <= limit:
        return text, False
    note = TRUNCATION_NOTE.format(omitted=len(text) - limit,
                                  where=where or f"nbcompile.report({name})")
    return text[:limit] + note, True


def cap_texts(value: dict | list, limit: int, where: str) -> bool:
    """Every string inside ``value`` (dicts and lists, changed in place) cut by ``cap`` to
    ``limit`` characters, its note naming ``where`` the whole text is; whether any was."""
    cut = False
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in list(items):
        if isinstance(item, str):
            value[key], was_cut = cap(item, limit, "", where)  # type: ignore[index]
            cut = was_cut or cut
        elif isinstance(item, (dict, list)):
            cut = cap_texts(item, limit, where) or cut
    return cut


#: The style of a table cell holding prose (notes, a list): left-aligned whatever the
#: page gives ``td`` (nbconvert's page and JupyterLab's rendered HTML right-align cells).
PROSE_CELL = "style='text-align:left'"


def notes_row(columns: int) -> str:
    """The opening of a table row whose one cell, ``columns`` wide, holds a list of notes
    (closed by ``</ul></td></tr>``)."""
    return f"<tr><td colspan='{columns}' {PROSE_CELL}><ul style='margin:0'>"

#: Characters of one item of a list shown in a fallback (a reason, a name, a problem).
ITEM_TEXT_CAP = 500


def clip(text: str, limit: int = ITEM_TEXT_CAP) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut (``core/units``)."""
    return core_clip(text, limit)


def escape(text: str) -> str:
    """HTML-escaped text, quotes included (safe in element text and attributes)."""
    return html.escape(text, quote=True)


class _Compile(Protocol):
    compile_id: str
    frame: str
    label: str


def compile_words(c: _Compile) -> str:
    """A compile as views head it: its record's ``label`` (``compile 0/0 (model)``), or, for
    a record saved before labels, its id and frame."""
    return c.label or f"compile {c.compile_id} ({c.frame})"
