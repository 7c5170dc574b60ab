"""Graph breaks deduplicated across targets and compiles, ranked by measured time
outside graphs when a profile saw them, else by hits (real compiles)."""

from __future__ import annotations

import nbcompile
from nbcompile.core.insight.break_ranking import rank_breaks
from nbcompile.display.summary_model import summarize
from tests.support.shell import run_cell

CELL = """
import torch
def rb_often(x):
    y = torch.sin(x) * 2.0
    print("often")
    return y + 1.0
def rb_once(x):
    y = torch.cos(x) * 3.0
    torch._dynamo.graph_break()
    return y - 1.0
"""


def test_breaks_ranked_by_hits_then_by_measured_time(ip, capsys):
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "import torch\n"
                 "for n in (8, 9, 10):\n    rb_often(torch.randn(n))\n"
                 "rb_once(torch.randn(8))\n")
    capsys.readouterr()
    often = nbcompile.report(ip.user_ns["rb_often"])
    once = nbcompile.report(ip.user_ns["rb_once"])
    assert len(often.graph_breaks) == 1 and len(once.graph_breaks) == 1
    emitted = sum(len(c.graph_breaks) for r in (often, once) for c in r.compiles)

    ranked = rank_breaks([once, often])
    assert [r.graph_break.lineno for r in ranked] == [
        often.graph_breaks[0].lineno, once.graph_breaks[0].lineno]  # most hit first
    assert ranked[0].hits >= 2 and ranked[1].hits == 1, [r.hits for r in ranked]
    assert sum(r.hits for r in ranked) == emitted  # every report counted, each break once
    assert ranked[0].targets == ["rb_often"] and ranked[1].targets == ["rb_once"]
    assert all(r.outside_graphs_s is None for r in ranked)
    assert rank_breaks([once, often, often])[0].hits == 2 * ranked[0].hits  # a re-run

    # a profile of the rarely hit break measures its cost: it now ranks first
    prof = nbcompile.profile(ip.user_ns["rb_once"], ip.user_ns["torch"].randn(8), repeat=3)
    assert prof.outside_graphs_s > 0 and prof.graph_breaks
    measured = rank_breaks([once, often], [prof])
    assert measured[0].graph_break.lineno == once.graph_breaks[0].lineno
    assert measured[0].outside_graphs_s == prof.outside_graphs_s
    assert measured[1].outside_graphs_s is None


def test_summary_lists_a_targets_breaks_most_hit_first(ip, capsys):
    ip.run_cell_magic("compile", "", CELL.replace("rb_", "rs_"))
    run_cell(ip, "import torch\nfor n in (8, 9):\n    rs_often(torch.randn(n))\n")
    capsys.readouterr()
    rep = nbcompile.report(ip.user_ns["rs_often"])
    [target] = summarize([rep]).targets
    breaks = [i for i in target.items if i.kind == "graph_break"]
    assert [b.text for b in breaks] == [r.graph_break.reason for r in rank_breaks([rep])]
    assert len(breaks) == rep.graph_break_count
