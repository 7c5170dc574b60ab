"""Issue 15 part 6: nbcompile's plumbing never shows in what the user reads."""

from __future__ import annotations

import nbcompile

from .conftest import run_cell

CELL = '''import torch
bn_model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8))
'''


def test_recompile_reason_names_the_users_module(ip):
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "_x = torch.randn(4, 8)\n_ = bn_model(_x)\nbn_model.eval()\n_ = bn_model(_x)")
    report = nbcompile.report(ip.user_ns["bn_model"])
    assert report.recompiles, "switching to eval mode must recompile"
    reason = report.recompiles[-1].reason
    assert "bn_model[1].training changed" in reason, reason
    assert "eval()" in reason, reason
    for plumbing in ("__nbcompile_call__", "L['self']", "_modules", "argument self"):
        assert plumbing not in reason, reason


def test_storm_reason_says_what_changed_this_time(ip):
    ip.run_cell_magic("compile", "--no-dynamic", "def scaled(x, k):\n    return x * k + 1\n")
    run_cell(ip, "import torch._dynamo\n"
                 "_limit = torch._dynamo.config.recompile_limit\n"
                 "torch._dynamo.config.recompile_limit = 8\n"
                 "try:\n"
                 "    for _k in range(6):\n"
                 "        scaled(torch.ones(4), _k)\n"
                 "finally:\n"
                 "    torch._dynamo.config.recompile_limit = _limit\n")
    report = nbcompile.report(ip.user_ns["scaled"])
    assert report.recompile_count == 5, report.recompiles
    last = report.recompiles[-1]
    # The fifth recompile (k=5) failed the guards of versions k=0..4; the reason words the
    # newest version's guard (k == 4) once, and counts the four older ones.
    assert last.reason.count("k == ") <= 1 and last.reason.count(";") == 0, last.reason
    assert "4" in last.reason and "4 older compiled versions did not match" in last.reason
    assert all(f"k == {k}" in last.guard for k in range(5)), last.guard
    first = report.recompiles[0]
    assert "older" not in first.reason, first.reason


def test_rank_change_advice_never_suggests_dynamic(ip):
    ip.run_cell_magic("compile", "", "def total(x):\n    return (x * 2).sum()\n")
    run_cell(ip, "for _shape in [(4,), (4, 4), (4, 4, 4)]:\n    total(torch.ones(_shape))\n")
    target = ip.user_ns["total"]
    report = nbcompile.report(target)
    assert report.recompile_count == 2 and "rank mismatch" in report.recompiles[-1].reason
    advice = {a.kind: a for a in report.advice}
    assert "rank-change" in advice, report.advice
    assert "cannot help" in advice["rank-change"].message
    for a in report.advice:
        assert "%%compile --dynamic" not in a.fix and "mark_dynamic(" not in a.fix, a
    import torch
    fixes = nbcompile.suggest(target, calls=[(torch.ones(s),) for s in [(4,), (4, 4), (4, 4, 4)]])
    assert not any("--dynamic" in s.change or "mark_dynamic" in s.change for s in fixes.items)


def test_syntax_error_in_a_compile_cell_reads_like_a_plain_cells(ip, capsys):
    ip.user_ns.pop("broken", None)
    capsys.readouterr()
    plain = ip.run_cell("def broken(x:\n    return x\n")
    plain_text = capsys.readouterr().out
    result = ip.run_cell("%%compile\ndef broken(x:\n    return x\n")
    text = capsys.readouterr().out
    assert isinstance(result.error_in_exec, SyntaxError) and not result.success
    assert plain.error_before_exec is not None and "broken" not in ip.user_ns
    assert "SyntaxError: '(' was never closed" in text and "def broken(x:" in text, text
    for plumbing in ("compile.py", "cells.py", "ast.py", "interactiveshell.py", "Traceback"):
        assert plumbing not in text, text
    # the plain cell's display, its line number counting the %%compile line
    assert "line 2" in text and "line 1" in plain_text, (plain_text, text)
    assert text.strip().splitlines()[1:] == plain_text.strip().splitlines()[1:], (plain_text, text)


def test_error_in_a_modules_forward_shows_no_nbcompile_frame(ip, capsys):
    ip.run_cell_magic("compile", "", "class Raises(torch.nn.Module):\n"
                                     "    def forward(self, x):\n"
                                     "        raise ValueError('boom in forward')\n"
                                     "raiser = Raises()\n")
    capsys.readouterr()
    result = ip.run_cell("raiser(torch.ones(2))")
    text = capsys.readouterr().out
    assert isinstance(result.error_in_exec, ValueError), result
    assert "boom in forward" in text and "raise ValueError('boom in forward')" in text, text
    assert "nbcompile-entry" not in text and "nbcompile/" not in text, text


def test_module_graphs_use_the_users_names(ip):
    ip.run_cell_magic("compile", "", "class Scale(torch.nn.Module):\n"
                                     "    def __init__(self):\n"
                                     "        super().__init__()\n"
                                     "        self.lin = torch.nn.Linear(4, 4)\n"
                                     "    def forward(self, batch):\n"
                                     "        return self.lin(batch).relu()\n"
                                     "scaler = Scale()\n")
    run_cell(ip, "_ = scaler(torch.ones(2, 4))")
    graph = nbcompile.report(ip.user_ns["scaler"]).compiles[0].graphs[0]
    assert "scaler_lin_weight" in graph and "scaler_lin_bias" in graph, graph
    assert "batch" in graph, graph
    for plumbing in ("L_self", "l_self", "L_args", "nbcompile-entry", "_call_impl"):
        assert plumbing not in graph, graph
