"""A target Dynamo produced no graph for says so (status ``not_compiled``, why and what
would help); nbcompile's entry function never appears as a place."""

from __future__ import annotations

import nbcompile
from nbcompile.display.bundle import summary_html, summary_text
from tests.support.shell import run_cell


def test_lstm_is_not_compiled_and_says_why(ip):
    ip.run_cell_magic("compile", "", "import torch\nnc_lstm = torch.nn.LSTM(4, 4)\n")
    run_cell(ip, "nc_out, _ = nc_lstm(torch.randn(2, 3, 4))")
    rep = nbcompile.report(ip.user_ns["nc_lstm"])
    assert rep.status == "not_compiled" and rep.graph_count == 0
    assert rep.to_dict()["status"] == "not_compiled"
    why = [n for n in rep.notes if "was not compiled" in n]
    assert len(why) == 1 and "allow_rnn" in why[0] and "LSTM" in why[0]
    text, html = summary_text([rep]), summary_html([rep])
    breaks = [gb.to_dict() for c in rep.compiles for gb in c.graph_breaks]
    for shown in (text, html, repr(rep.graph_breaks), repr(breaks)):
        assert "nbcompile-entry" not in shown
    assert "not compiled (runs eagerly)" in text and "allow_rnn" in html
    if rep.graph_breaks:  # 2.13: a break at nbcompile's entry; 2.15: in Module._call_impl
        (gb,) = rep.graph_breaks
        assert gb.filename is None and gb.lineno is None and "internal" in gb.reason
    else:  # torch 2.9: no break record, the compile fails with Dynamo's refusal
        assert [c.status for c in rep.compiles] == ["failed"]
        assert "RNN, GRU, or LSTM" in rep.compiles[0].error
    assert "line None" not in text


def test_function_with_a_graph_is_still_compiled(ip):
    ip.run_cell_magic("compile", "", "def nc_fine(x):\n    return x.sin() + 1\n")
    run_cell(ip, "nc_fine(torch.randn(3))")
    assert nbcompile.report(ip.user_ns["nc_fine"]).status == "compiled"


def test_a_module_files_function_bound_by_the_cell_is_said_with_how_to_compile_it(
        ip, tmp_path, capsys):
    """``f = mymod.f`` in a ``%%compile`` cell: ``f`` is new to the namespace but defined in
    a module file: not compiled (the cell's targets are what it defines), and the summary
    says where ``f`` lives and how to compile it, not "no new functions"."""
    import sys

    (tmp_path / "nc_mod.py").write_text("def f(x):\n    return x.sin()\n")
    sys.path.insert(0, str(tmp_path))
    try:
        capsys.readouterr()
        ip.run_cell_magic("compile", "", "import nc_mod\nnc_f = nc_mod.f\n")
        shown = capsys.readouterr().out
        assert ip.user_ns["nc_f"] is ip.user_ns["nc_mod"].f  # nothing compiled or rebound
        assert "no new functions" not in shown, shown
        assert ("nc_f is nc_mod.f, a function of module nc_mod (nc_mod.py), not defined in "
                "this cell" in shown), shown
        assert "nc_f = torch.compile(nc_mod.f)" in shown
        # beside a target of the cell: the same words, as a note of the cell's summary
        ip.run_cell_magic("compile", "--backend eager",
                          "nc_g = nc_mod.f\ndef nc_own(x):\n    return x.cos()\n")
        notes = nbcompile.report(ip.user_ns["nc_own"]).notes
        assert any(n.startswith("nc_g is nc_mod.f, a function of module nc_mod") for n in notes)
        # torch's own functions are no one's concern
        capsys.readouterr()
        ip.run_cell_magic("compile", "", "import torch\nnc_relu = torch.relu\n")
        assert "a function of module" not in capsys.readouterr().out
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("nc_mod", None)
