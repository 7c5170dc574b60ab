"""Detailed HTML for one ``CompileReport``: breaks, recompiles, graphs, highlighted code."""

from __future__ import annotations

import html

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer, PythonLexer

from ..core.records import TargetRecord
from .bundle import KERNEL_CAP, _cap, summary_html

_LEXERS = {"cpp": CppLexer, "triton": PythonLexer, "python": PythonLexer}


def highlight_code(source: str, language: str) -> str:
    """Syntax-highlighted HTML with inline styles (self-contained; Pygments escapes)."""
    lexer = _LEXERS.get(language, PythonLexer)()
    return highlight(source, lexer, HtmlFormatter(noclasses=True, nowrap=False))


def report_html(record: TargetRecord) -> str:
    e = html.escape
    parts = [summary_html([record])]
    if record.kernels:
        parts.append("<details><summary>generated code "
                     f"({len(record.kernels)} pieces)</summary>")
        for k in record.kernels:
            source, _ = _cap(k.source, KERNEL_CAP, record.name)
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
