"""One ``CompileReport`` displayed: the one-target summary plus details (generated code,
FX graphs, code diffs) in HTML, and its MIME bundle."""

from __future__ import annotations

from typing import Any

from ..core.records import MIME_TYPE, TargetRecord
from .annotate import diffs_html
from .bundle import summary_html, summary_text
from .highlight import highlight_code
from .payload import summary_payload
from .phases import phases_html
from .text import KERNEL_CAP, cap, escape

__all__ = ["highlight_code", "report_bundle", "report_html"]


def report_html(record: TargetRecord) -> str:
    """The summary of ``record``, then its generated code and FX graphs, folded."""
    e = escape
    parts = [summary_html([record])]
    if record.kernels:
        parts.append("<details><summary>generated code "
                     f"({len(record.kernels)} pieces)</summary>")
        for k in record.kernels:
            source, _ = cap(k.source, KERNEL_CAP, record.name)
            parts.append(
                f"<details><summary><code>{e(k.name)}</code> &middot; {e(k.language)} "
                f"&middot; {e(k.kind)} &middot; {k.size} chars</summary>"
                f"{highlight_code(source, k.language)}</details>"
            )
        parts.append("</details>")
    for c in record.compiles:
        for i, graph in enumerate(c.graphs):
            parts.append(
                f"<details><summary>FX graph {i} of compile {e(c.compile_id)} "
                f"({e(c.frame)})</summary><pre>{e(graph)}</pre></details>"
            )
    return "".join(parts)


def report_bundle(record: TargetRecord) -> dict[str, Any]:
    """The MIME bundle of one ``CompileReport`` (a one-target summary plus details)."""
    return {
        MIME_TYPE: summary_payload([record]),
        "text/html": report_html(record) + phases_html(record) + diffs_html(record),
        "text/plain": summary_text([record]),
    }
