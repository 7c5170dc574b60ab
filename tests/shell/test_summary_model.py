"""The summary model (plain data from a real record) and its text and HTML renderers."""

from __future__ import annotations

import dataclasses

import nbcompile
from nbcompile.display.bundle import render_html, render_text, summary_bundle
from nbcompile.display.summary_model import locate, summarize
from nbcompile.display.text import escape
from tests.support.shell import run_cell

CELL = (
    "%%compile\nimport torch\n"
    "def model_breaks(x):\n"
    "    y = x.sin()\n"
    "    print('<i>model</i>')\n"
    "    return y.cos() + 1\n"
)


def test_model_items_and_both_renderers(ip):
    run_cell(ip, CELL)
    run_cell(ip, "model_breaks(torch.randn(4)); model_breaks(torch.randn(4, dtype=torch.float64))")
    rec = nbcompile.report(ip.user_ns["model_breaks"])
    summary = summarize([rec])
    (t,) = summary.targets
    assert (t.name, t.kind, t.status) == ("model_breaks", "function", "compiled")
    assert t.counts.breaks == rec.graph_break_count == 1
    assert t.counts.recompiles == rec.recompile_count >= 1
    assert t.counts.kernels == sum(1 for k in rec.kernels if k.kind == "kernel")
    assert 0 < t.counts.kernels < len(rec.kernels)  # code pieces such as `call` don't count

    kinds = [i.kind for i in t.items]
    assert kinds.index("graph_break") < kinds.index("recompile")
    (gb,) = [i for i in t.items if i.kind == "graph_break"]
    assert gb.code == "print('<i>model</i>')"
    assert gb.location is not None and gb.location.where == f"line {rec.graph_breaks[0].lineno}"
    assert gb.location.via == ""  # a cell line needs no "reached from"
    recompiles = [i for i in t.items if i.kind == "recompile"]
    # which frame (the cell's function or its part resumed after the break) and which
    # recompile of that frame, with torch's compile id
    resumed = "the part of `model_breaks` after its graph break at line 5"
    assert [i.compile_id for i in recompiles] == [
        f"#1 of {'`model_breaks`' if r.frame == 'model_breaks' else resumed} "
        f"(torch's compile id {r.compile_id})" for r in rec.recompiles]

    text, html = render_text(summary), render_html(summary)
    assert text.splitlines()[0].startswith("model_breaks (function): compiled; ")
    assert f"graph break at {gb.location.where}: {gb.code}  -- {gb.text}" in text
    assert f"<code>{escape(gb.code)}</code> &mdash; {escape(gb.text)}" in html
    for item in t.items:
        assert item.text in text and escape(item.text) in html
    assert "<i>model</i>" not in html
    bundle = summary_bundle([rec])
    assert (bundle["text/plain"], bundle["text/html"]) == (text, html)


def test_status_wording_and_library_locations(ip):
    run_cell(ip, CELL)
    rec = nbcompile.report(ip.user_ns["model_breaks"])
    assert summarize([rec]).targets[0].status == "waiting for first call"
    compiling = dataclasses.replace(rec, status="compiling", compiling_since=100.0)
    assert summarize([compiling], now=112.4).targets[0].status == "compiling... 12s"
    where = locate("/site-packages/transformers/models/llama.py", 42, [])
    assert (where.where, where.via) == ("transformers/models/llama.py:42", "")
    assert locate("<ipython-input-3>", 7, []).where == "line 7"
