"""``nbcompile.profile`` / ``%kprun`` (real compiles, real torch.profiler),
graph-break ids and links, compile phases."""

from __future__ import annotations

import re

import pytest
import torch
from IPython.core.error import UsageError

import nbcompile
from tests.support.profiles import _check_accounting, _check_profile
from tests.support.shell import run_cell

CELL = """
import torch
def prof_chain(x):
    y = torch.sin(x) * 2.0
    z = torch.cos(y) + y
    return torch.tanh(z) / 3.0
"""

BREAK_CELL = """
import torch
def prof_break(x):
    y = torch.relu(x) * 2.0
    s = y.sum().item()
    return y * s
"""






@pytest.fixture(scope="module")
def compiled_chain(ip):
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "x_prof = torch.randn(256, 256)\n_ = prof_chain(x_prof)")
    return ip.user_ns["prof_chain"]


def _cache_entries(fn) -> int:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return len(_debug_get_cache_entry_list(fn._torchdynamo_orig_callable.__code__))


def test_profile_of_a_function_ties_kernels_to_lines(ip, compiled_chain):
    before = nbcompile.report(compiled_chain)
    entries = _cache_entries(compiled_chain)
    p = nbcompile.profile(compiled_chain, ip.user_ns["x_prof"], repeat=4)
    _check_profile(p, 4)
    # kernel names are the report's kernel names (the user's own compile)
    report_names = {k.name for k in before.kernels}
    generated = [k for k in p.kernels if k.kind == "kernel"]
    assert generated and all(k.name in report_names for k in generated)
    # every line of the body has compiled and eager time; the def line has none
    source = {ln.line.strip(): ln for ln in p.lines}
    for text in ("y = torch.sin(x) * 2.0", "z = torch.cos(y) + y", "return torch.tanh(z) / 3.0"):
        line = source[text]
        assert line.compiled_s > 0 and line.eager_s > 0 and line.kernels, line
        assert line.speedup == pytest.approx(line.eager_s / line.compiled_s)
    assert source["def prof_chain(x):"].compiled_s == 0
    assert p.untied_s == 0 and p.outside_graphs_s == 0  # one graph, all of it on lines
    # the user's target and its Dynamo cache are untouched
    after = nbcompile.report(compiled_chain)
    assert len(after.compiles) == len(before.compiles)
    assert _cache_entries(compiled_chain) == entries


def test_kprun_magic(ip, compiled_chain):
    run_cell(ip, "p_prof = %kprun prof_chain(x_prof) --repeat 2")
    p = ip.user_ns["p_prof"]
    assert isinstance(p, nbcompile.Profile) and p.repeat == 2 and p.name == "prof_chain"
    assert "kernel" in p._repr_mimebundle_()["text/plain"]
    html = p._repr_mimebundle_()["text/html"]
    assert "rgba(230, 81, 0" in html and "torch.sin(x) * 2.0" in html  # coloured source
    for line, message in (("%kprun prof_chain(x_prof) --repeat 0", "--repeat must be"),
                          ("%kprun --repeat 2", "needs a call"),
                          ("%kprun prof_chain(x_prof) -r 2 --repeat 3", "given twice"),
                          ("%kprun prof_chain", "needs a call such as"),
                          ("%kprun nope(x_prof)", "could not evaluate nope")):
        result = ip.run_cell(line)
        assert isinstance(result.error_in_exec, UsageError), line
        assert message in str(result.error_in_exec)


def test_graph_break_id_and_link_and_phases(ip):
    ip.run_cell_magic("compile", "", BREAK_CELL)
    run_cell(ip, "_ = prof_break(torch.randn(64))")
    rep = nbcompile.report(ip.user_ns["prof_break"])
    assert rep.graph_breaks
    gb = rep.graph_breaks[0]
    assert re.fullmatch(r"GB\d{4}", gb.gb_id), gb
    assert gb.doc_url.startswith("https://") and gb.gb_id[2:] in gb.doc_url
    summary = nbcompile.display.bundle.summary_bundle([rep])
    assert gb.gb_id in summary["text/plain"]
    assert f"href='{gb.doc_url}'" in summary["text/html"]
    for c in rep.compiles:
        assert c.phases, c.compile_id
        assert all(v > 0 for v in c.phases.values())
        assert sum(c.phases.values()) <= c.times["total_s"] + 1e-6
    assert any(c.guard_latency_s is not None for c in rep.compiles)
    assert rep.to_dict()["compiles"][0]["phases"] == rep.compiles[0].phases
    html = rep._repr_mimebundle_()["text/html"]
    assert "compile time by phase" in html and "Dynamo tracing" in html  # stacked bars
    # the profile sees the break: Python between the graphs
    p = nbcompile.profile(ip.user_ns["prof_break"], torch.randn(64), repeat=2)
    assert p.outside_graphs_s > 0
    _check_accounting(p)
