"""``%%compile`` over a cell that rebinds a name to the object it already held (``model =
model``, ``f = f``): the way a user compiles what an earlier cell built. A name the cell
assigns is a target, as with ``m2 = model`` or ``--only model``."""

from __future__ import annotations

import torch

import nbcompile
from nbcompile.core.notebook.cells.running import bound_names
from nbcompile.display.summary_model import EMPTY_TEXT
from tests.support.shell import run_cell


def test_a_module_rebound_to_itself_is_compiled(ip, capsys):
    run_cell(ip, "import torch\n"
                 "rb_model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())\n"
                 "rb_same = rb_model\n"
                 "rb_x = torch.randn(4, 8)")
    ip.run_cell_magic("compile", "--backend eager", "rb_model = rb_model")
    assert EMPTY_TEXT not in capsys.readouterr().out
    ns = ip.user_ns
    assert ns["rb_model"] is ns["rb_same"]  # compiled in place, as module.compile() does
    run_cell(ip, "rb_y = rb_model(rb_x)")
    rep = nbcompile.report(ns["rb_model"])
    assert rep.name == "rb_model" and rep.kind == "module"
    assert rep.status == "compiled" and rep.graph_count == 1
    # torch as the oracle: the compiled call gives eager's numbers
    torch.testing.assert_close(ns["rb_y"], ns["rb_model"]._call_impl(ns["rb_x"]))


def test_a_function_rebound_to_itself_is_compiled(ip):
    run_cell(ip, "import torch\n"
                 "def rb_fn(x):\n"
                 "    return torch.sin(x) + 1\n"
                 "rb_plain = rb_fn")
    ip.run_cell_magic("compile", "--backend eager", "rb_fn = rb_fn")
    ns = ip.user_ns
    assert ns["rb_fn"] is not ns["rb_plain"]  # rebound to torch.compile(rb_fn)
    assert ns["rb_fn"]._torchdynamo_orig_callable is ns["rb_plain"]
    run_cell(ip, "rb_out = rb_fn(torch.ones(3))")
    rep = nbcompile.report(ns["rb_fn"])
    assert rep.kind == "function" and rep.status == "compiled" and rep.graph_count == 1
    torch.testing.assert_close(ns["rb_out"], torch.sin(torch.ones(3)) + 1)


def test_names_a_cell_does_not_assign_stay_untouched(ip):
    """A module only used (called, read) by the cell is not the cell's target, and a
    comprehension's loop variable is not a name the cell binds."""
    run_cell(ip, "import torch\n"
                 "rb_used = torch.nn.Linear(2, 2)\n"
                 "rb_layer = torch.nn.Linear(2, 2)\n"
                 "rb_layers = [torch.nn.Linear(2, 2)]")
    ip.run_cell_magic("compile", "--backend eager",
                      "rb_out2 = rb_used(torch.ones(2))\n"
                      "rb_outs = [rb_layer(torch.ones(2)) for rb_layer in rb_layers]")
    for name in ("rb_used", "rb_layer"):
        try:
            nbcompile.report(ip.user_ns[name])
        except LookupError:
            continue
        raise AssertionError(f"{name} became a target of a cell that does not assign it")
    assert bound_names("a = [b for b in c if (d := b)]") == {"a", "d"}
