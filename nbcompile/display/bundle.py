"""Records -> MIME bundles: the versioned JSON record plus text/html and text/plain.

Everything published inline goes through here. Long texts are capped (the kernel keeps
them whole: ``nbcompile.report(obj)`` returns the full record).
"""

from __future__ import annotations

import copy
import html
import time
from typing import Any

from ..core.cache import describe_cache
from ..core.frames import is_cell_file
from ..core.records import MIME_TYPE, SCHEMA_VERSION, SourceLine, TargetRecord
from ..core.userstack import cell_frame

#: Caps on what is published inline (characters).
OUTPUT_CODE_CAP = 200_000
KERNEL_CAP = 60_000
GRAPH_CAP = 40_000
GUARDS_CAP = 20_000

TRUNCATION_NOTE = (
    "\n... [truncated by nbcompile: {omitted} more characters; "
    "nbcompile.report({name}) has the full text]\n"
)


def _cap(text: str, limit: int, name: str) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return text[:limit] + TRUNCATION_NOTE.format(omitted=len(text) - limit, name=name), True


def published_record(record: TargetRecord | dict[str, Any]) -> dict[str, Any]:
    """A target record with long texts capped, ready to publish."""
    data = record.to_dict() if isinstance(record, TargetRecord) else copy.deepcopy(record)
    name = data.get("name", "obj")
    truncated = False
    data["output_code"], t = _cap(data.get("output_code", ""), OUTPUT_CODE_CAP, name)
    truncated |= t
    for kernel in data.get("kernels", []):
        kernel["source"], t = _cap(kernel.get("source", ""), KERNEL_CAP, name)
        truncated |= t
    for diff in data.get("code_diffs", []):
        diff["diff"], t = _cap(diff.get("diff", ""), KERNEL_CAP, name)
        truncated |= t
    for compile_ in data.get("compiles", []):
        compile_["output_code"] = ""  # published once, at target level
        compile_["kernels"] = []
        compile_["post_grad_graphs"] = []  # kernels carry their lines; graphs stay in the kernel
        compile_["graphs"] = [_cap(g, GRAPH_CAP, name)[0] for g in compile_.get("graphs", [])]
        compile_["guards"], t = _cap(compile_.get("guards", ""), GUARDS_CAP, name)
        truncated |= t
    data["truncated"] = truncated
    return data


def summary_payload(
    records: list[TargetRecord], cell: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON payload of a ``%%compile`` cell's live summary."""
    return {
        "schema_version": SCHEMA_VERSION,
        "record": "summary",
        "cell": cell or {},
        "updated_at": time.time(),
        "targets": [published_record(r) for r in records],
    }


def _status_text(r: TargetRecord, now: float) -> str:
    if r.status == "compiling" and r.compiling_since:
        return f"compiling... {now - r.compiling_since:.0f}s"
    if r.status == "pending":
        return "waiting for first call"
    return r.status


def _counts(r: TargetRecord) -> str:
    return (
        f"{r.graph_count} graph(s), {r.graph_break_count} break(s), "
        f"{r.recompile_count} recompile(s), {len([k for k in r.kernels if k.kind == 'kernel'])} "
        f"kernel(s), {r.compile_time_s:.1f}s compile"
    )


def _where(filename: str | None, lineno: int | None, stack: list[SourceLine]) -> tuple[str, str]:
    """``("line N", "")`` for cell code; for a library file its short path and line, plus
    the cell line that led there (from the user stack), e.g. a break inside ``generate()``."""
    if not filename or is_cell_file(filename) or filename.startswith("<"):
        return f"line {lineno}", ""
    parts = filename.replace("\\", "/").split("/")
    where = f"{'/'.join(parts[-3:])}:{lineno}"
    via = cell_frame(stack)
    return where, (f"reached from cell line {via.lineno}: {via.line}" if via else "")


def summary_text(records: list[TargetRecord]) -> str:
    now = time.time()
    if not records:
        return "nbcompile: nothing to compile in this cell (no new functions or nn.Modules)."
    lines = []
    for r in records:
        lines.append(f"{r.name} ({r.kind}): {_status_text(r, now)}; {_counts(r)}")
        for note in r.notes:
            lines.append(f"  note: {note}")
        if cache_note := describe_cache(c.cache for c in r.compiles):
            lines.append(f"  {cache_note}")
        for gb in r.graph_breaks:
            where, via = _where(gb.filename, gb.lineno, gb.stack)
            lines.append(f"  graph break at {where}: {gb.line}  -- {gb.reason}")
            if via:
                lines.append(f"    {via}")
        for rc in r.recompiles:
            lines.append(f"  recompile {rc.compile_id}: {rc.reason}")
        if r.error:
            where, via = _where(r.error.filename, r.error.lineno, r.error.stack)
            lines.append(f"  error at {where}: {r.error.line}  -- {r.error.message}")
            if via:
                lines.append(f"    {via}")
    return "\n".join(lines)


def summary_html(records: list[TargetRecord]) -> str:
    """A compact, escaped, self-contained HTML table (no scripts, no external CSS)."""
    e = html.escape
    now = time.time()
    if not records:
        return f"<div class='nbcompile-summary'>{e(summary_text(records))}</div>"
    rows = []
    for r in records:
        rows.append(
            "<tr>"
            f"<td><code>{e(r.name)}</code></td><td>{e(r.kind)}</td>"
            f"<td>{e(_status_text(r, now))}</td><td>{r.graph_count}</td>"
            f"<td>{r.graph_break_count}</td><td>{r.recompile_count}</td>"
            f"<td>{len([k for k in r.kernels if k.kind == 'kernel'])}</td>"
            f"<td>{r.compile_time_s:.1f}s</td></tr>"
        )
        details = []
        for note in r.notes:
            details.append(f"<li>{e(note)}</li>")
        if cache_note := describe_cache(c.cache for c in r.compiles):
            details.append(f"<li>{e(cache_note)}</li>")
        for gb in r.graph_breaks:
            where, via = _where(gb.filename, gb.lineno, gb.stack)
            details.append(
                f"<li>graph break at {e(where)}: <code>{e(gb.line)}</code> "
                f"&mdash; {e(gb.reason)}{'<br>' + e(via) if via else ''}</li>"
            )
        for rc in r.recompiles:
            details.append(f"<li>recompile {e(rc.compile_id)}: {e(rc.reason)}</li>")
        if r.error:
            where, via = _where(r.error.filename, r.error.lineno, r.error.stack)
            details.append(
                f"<li><b>error</b> at {e(where)}: <code>{e(r.error.line)}</code>"
                f" &mdash; {e(r.error.message)}{'<br>' + e(via) if via else ''}</li>"
            )
        if details:
            items = "".join(details)
            rows.append(f"<tr><td colspan='8'><ul style='margin:0'>{items}</ul></td></tr>")
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "target", "kind", "status", "graphs", "breaks", "recompiles", "kernels", "compile"
        )
    )
    return (
        "<div class='nbcompile-summary'><b>nbcompile</b>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def summary_bundle(
    records: list[TargetRecord], cell: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The MIME bundle of a ``%%compile`` cell's summary."""
    return {
        MIME_TYPE: summary_payload(records, cell),
        "text/html": summary_html(records),
        "text/plain": summary_text(records),
    }


def report_bundle(record: TargetRecord) -> dict[str, Any]:
    """The MIME bundle of one ``CompileReport`` (a one-target summary plus details)."""
    from .annotate import diffs_html
    from .report_html import report_html

    return {
        MIME_TYPE: summary_payload([record]),
        "text/html": report_html(record) + diffs_html(record),
        "text/plain": summary_text([record]),
    }
