"""The annotated source (``%%compile --annotate``, ``report(obj).annotate()``) and code
diffs, as escaped, self-contained HTML and as plain text.

Each line is coloured by what became of it; a line with generated code expands (a
``<details>`` element, no script) to show that code, highlighted by Pygments.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..core.records import MIME_TYPE, SCHEMA_VERSION, CodeDiff, LineAnnotation, TargetRecord
from .budget import Room, fallback_budget, how_to_get, more_note, record_budget
from .highlight import highlight_code
from .payload import summary_payload
from .text import KERNEL_CAP, cap, clip, escape

COLOURS = {
    "error": "#f8c4c4",
    "graph_break": "#ffd8a8",
    "kernel": "#c9f0d0",
    "extern": "#cfe2ff",
    "traced": "#eef7ee",
    "python": "#fff3bf",
    "pending": "#f1f3f5",
    "outside": "transparent",
    "blank": "transparent",
}
LEGEND = (
    ("kernel", "fused into a generated kernel"),
    ("extern", "extern library call (e.g. addmm)"),
    ("graph_break", "graph break: runs in Python"),
    ("python", "not in any graph (Python / Dynamo)"),
    ("traced", "in the graph, no code of its own"),
    ("error", "compile failed here"),
    ("pending", "not compiled yet"),
)
_MONO = "font-family:monospace;white-space:pre;"


def _marker(a: LineAnnotation) -> str:
    if a.category == "kernel":
        return "-> " + ", ".join(a.kernels + a.externs)
    if a.category == "extern":
        return "-> " + ", ".join(a.externs + a.kernels)
    if a.category in ("graph_break", "error"):
        return f"!! {a.category.replace('_', ' ')}: {a.reason}"
    if a.category in ("python", "traced", "pending"):
        return f".. {a.category}"
    return ""


#: Bytes a budgeted annotated source keeps for its closing parts.
_TAIL = 256


def _by_file(annotations: list[LineAnnotation]) -> Iterator[tuple[str | None, LineAnnotation]]:
    """Each annotation with its file name where the file changes (else ``None``)."""
    current = None
    for a in annotations:
        yield (a.filename if a.filename != current else None), a
        current = a.filename


def _more_lines(record: TargetRecord, count: int) -> str:
    return more_note(count, "source lines", how_to_get(record.name, "annotate().lines"))


def annotated_text(record: TargetRecord, budget: int | None = None) -> str:
    """Plain-text annotated source: ``line | code   -> kernel``; with a ``budget``
    (bytes), the first lines that fit, the rest counted."""
    if not record.annotations:
        return f"{record.name}: no source to annotate (nothing compiled yet?)"
    room = Room(None if budget is None else budget - _TAIL)
    title = room.spend(f"annotated source of {record.name}"
                       + (f"  [{record.preview} preview]" if record.preview else ""))
    width = min(max((len(a.line) for a in record.annotations), default=0), 60)

    def rows() -> Iterator[str]:
        for head, a in _by_file(record.annotations):
            yield ((f"--- {clip(head)}\n" if head is not None else "")
                   + f"{a.lineno:4} | {clip(a.line):<{width}}  {clip(_marker(a))}".rstrip())

    lines = room.take(rows(), len(record.annotations), lambda n: _more_lines(record, n))
    return "\n".join([title, *lines])


def _kernel_code(record: TargetRecord, refs: Iterable[int], limit: int = KERNEL_CAP) -> str:
    e = escape
    parts = []
    for i in refs:
        if not 0 <= i < len(record.kernels):
            continue
        k = record.kernels[i]
        source, _ = cap(k.source, min(KERNEL_CAP, limit), record.name)
        ops = f" &middot; fuses {e(clip(', '.join(k.ops)))}" if k.ops else ""
        stage = f" &middot; {e(k.stage)}" if k.stage else ""
        parts.append(
            f"<div style='margin:4px 0 4px 24px'><div><code>{e(k.name)}</code> &middot; "
            f"{e(k.language)} {e(k.kind)}{stage} &middot; compile {e(k.compile_id)}{ops}"
            f"</div>{highlight_code(source, k.language)}</div>"
        )
    return "".join(parts)


def _row_html(record: TargetRecord, a: LineAnnotation, limit: int) -> str:
    e = escape
    colour = COLOURS.get(a.category, "transparent")
    mark = clip(_marker(a))
    head = (
        f"<span style='color:#868e96'>{a.lineno:4} </span>{e(clip(a.line))}"
        + (f"<span style='color:#495057'>   {e(mark)}</span>" if mark else "")
    )
    title_attr = f" title='{e(clip(a.reason))}'" if a.reason else ""
    style = f"background:{colour};{_MONO}"
    code = _kernel_code(record, a.kernel_refs, limit) if a.kernel_refs else ""
    if code or a.category in ("graph_break", "error"):
        reason = (f"<div style='margin:2px 0 2px 24px;white-space:normal'>{e(clip(a.reason))}"
                  "</div>" if a.category in ("graph_break", "error") else "")
        return (f"<details class='nbcompile-line nbcompile-{e(a.category)}'{title_attr}>"
                f"<summary style='{style};cursor:pointer'>{head}</summary>"
                f"{reason}{code}</details>")
    return (f"<div class='nbcompile-line nbcompile-{e(a.category)}'"
            f"{title_attr} style='{style}'>{head}</div>")


def annotated_html(record: TargetRecord, budget: int | None = None) -> str:
    """The annotated source as escaped, self-contained HTML; with a ``budget`` (bytes),
    the first lines that fit (each kernel's code capped shorter), the rest counted."""
    e = escape
    title = f"annotated source of <code>{e(record.name)}</code>"
    if record.preview:
        title += f" <b>({e(record.preview)} preview)</b>"
    if not record.annotations:
        return (f"<div class='nbcompile-annotate'>{title}: no source to annotate "
                f"(status: {e(record.status)}).</div>")
    room = Room(None if budget is None else budget - _TAIL)
    legend = " ".join(
        f"<span style='background:{COLOURS[c]};padding:0 4px;border:1px solid #ddd'>"
        f"{e(text)}</span>" for c, text in LEGEND
    )
    top = room.spend(f"<div class='nbcompile-annotate'><div>{title}</div>"
                     f"<div style='margin:4px 0;font-size:90%'>{legend}</div><div>")
    limit = KERNEL_CAP if room.left is None else max(room.left // 8, 200)

    def rows() -> Iterator[str]:
        for head, a in _by_file(record.annotations):
            yield ((f"<div style='color:#868e96;{_MONO}'># {e(clip(head))}</div>"
                    if head is not None else "") + _row_html(record, a, limit))

    kept = room.take(rows(), len(record.annotations), lambda n: (
        f"<div class='nbcompile-omitted'>{e(_more_lines(record, n))}</div>"))
    return f"{top}{''.join(kept)}</div></div>"


def annotations_html(records: list[TargetRecord], budget: int) -> str:
    """The annotated source of each compiled target (``%%compile --annotate``), sharing
    ``budget`` bytes; a placeholder until the first call compiles."""
    compiled = [r for r in records if r.compiles]
    if not compiled:
        return ("<div class='nbcompile-annotate'>annotated source: "
                "shown here once the first call compiles.</div>")
    return "".join(annotated_html(r, budget // len(compiled)) for r in compiled)


def annotations_text(records: list[TargetRecord], budget: int) -> str:
    """The annotated source of each compiled target as text, sharing ``budget`` bytes."""
    compiled = [r for r in records if r.compiles]
    return "".join("\n\n" + annotated_text(r, budget // len(compiled) - 2) for r in compiled)


def diff_text(diffs: list[CodeDiff]) -> str:
    out = []
    for d in diffs:
        why = f" ({d.cause})" if d.cause else ""
        out.append(f"{d.kernel}: {d.change} in compile {d.compile_id} vs "
                   f"{d.previous_compile_id}{why}, +{d.added} -{d.removed}")
    return "\n".join(out)


def diffs_html(record: TargetRecord) -> str:
    """Per-kernel unified diffs against the previous compile (``record.code_diffs``)."""
    if not record.code_diffs:
        return ""
    e = escape
    parts = [f"<details><summary>generated code changed since the previous compile "
             f"({len(record.code_diffs)} kernel(s))</summary>"]
    for d in record.code_diffs:
        text, _ = cap(d.diff, KERNEL_CAP, record.name)
        why = f" &mdash; {e(d.cause)}" if d.cause else ""
        stage = f" ({e(d.stage)})" if d.stage else ""
        parts.append(
            f"<details><summary><code>{e(d.kernel)}</code>{stage}: {e(d.change)} in compile "
            f"{e(d.compile_id)} vs {e(d.previous_compile_id)}, +{d.added} &minus;{d.removed}"
            f"{why}</summary>{highlight_code(text, 'diff')}"
            "</details>"
        )
    parts.append("</details>")
    return "".join(parts)


class AnnotatedSource:
    """What ``nbcompile.report(obj).annotate()`` returns: rich reprs plus ``.lines``."""

    def __init__(self, record: TargetRecord):
        self.record = record
        self.lines: list[LineAnnotation] = list(record.annotations)

    def by_category(self, category: str) -> list[LineAnnotation]:
        return [a for a in self.lines if a.category == category]

    def line(self, lineno: int, filename: str | None = None) -> LineAnnotation:
        for a in self.lines:
            if a.lineno == lineno and (filename is None or a.filename == filename):
                return a
        raise KeyError(lineno)

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "record": "annotations",
                "target": self.record.name, "preview": self.record.preview,
                "lines": [a.to_dict() for a in self.lines]}

    def _repr_html_(self) -> str:
        return annotated_html(self.record)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        html = annotated_html(self.record, fallback_budget())
        text = annotated_text(self.record, fallback_budget())
        return {
            MIME_TYPE: summary_payload([self.record], budget=record_budget(html, text)),
            "text/html": html,
            "text/plain": text,
        }

    def __repr__(self) -> str:
        return annotated_text(self.record)
