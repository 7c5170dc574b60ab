"""The summary model (plain data from a real record) and its text and HTML renderers."""

from __future__ import annotations

from nbcompile.display.bundle import render_html, render_text
from nbcompile.display.summary_model import summarize
from nbcompile.display.text import escape


def test_empty_cell_summary():
    summary = summarize([])
    assert render_text(summary) == summary.empty_text
    assert escape(summary.empty_text) in render_html(summary)
