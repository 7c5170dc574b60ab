"""Syntax highlighting of generated code (Pygments, inline styles: self-contained HTML)."""

from __future__ import annotations

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer, DiffLexer, PythonLexer

_LEXERS = {"cpp": CppLexer, "triton": PythonLexer, "python": PythonLexer, "diff": DiffLexer}


def highlight_code(source: str, language: str) -> str:
    """Highlighted HTML with inline styles (Pygments escapes); unknown languages as Python."""
    lexer = _LEXERS.get(language, PythonLexer)()
    return highlight(source, lexer, HtmlFormatter(noclasses=True, nowrap=False))
