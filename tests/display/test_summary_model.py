"""The summary model (plain data from a real record) and its text and HTML renderers."""

from __future__ import annotations

from nbcompile.display.bundle import render_html, render_text
from nbcompile.display.summary_model import summarize
from nbcompile.display.text import escape


def test_empty_cell_summary():
    summary = summarize([])
    assert render_text(summary) == summary.empty_text
    assert escape(summary.empty_text) in render_html(summary)


def test_a_target_that_compiled_nothing_shows_no_compile_time():
    from nbcompile.core.records import TargetRecord

    waiting = TargetRecord(id="t1", name="f", kind="function", status="pending")
    summary = summarize([waiting])
    text = render_text(summary)
    assert "waiting for first call" in text and "s compile" not in text
    assert "<td>&mdash;</td>" in render_html(summary)
    assert "0.0s" not in render_html(summary)
