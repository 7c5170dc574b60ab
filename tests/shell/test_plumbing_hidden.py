"""nbcompile's plumbing never shows in what the user reads (its names, its frames, its entry
function), and interrupts and guards are said in words (real IPython shell, real compiles)."""

from __future__ import annotations

import json
import signal

import torch

import nbcompile
from nbcompile.display.summary_model import status_text
from tests.support.shell import run_cell

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


NET = '''import torch
class PlumbNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
    def forward(self, inputs, scale):
        return self.lin(inputs) * scale
plumb_net = PlumbNet()
'''


def test_a_module_report_names_no_entry_function_and_guards_name_forward_args(ip):
    ip.run_cell_magic("compile", "--backend eager", NET)
    run_cell(ip, "_ = plumb_net(torch.randn(2, 3), 2.0)\n"
                 "_ = plumb_net(torch.randn(2, 3), 3.0)\n"
                 "_ = plumb_net(torch.randn(5, 3), 2.0)")
    report = nbcompile.report(ip.user_ns["plumb_net"])
    text = json.dumps(report.to_dict())
    assert "nbcompile-entry" not in text, text[text.find("nbcompile-entry") - 200:][:400]
    assert report.compiles[0].filename.startswith("<ipython-input-"), report.compiles[0]
    reasons = " | ".join(r.reason for r in report.recompiles)
    assert reasons and "args[" not in reasons, reasons
    assert "scale == 2.0" in reasons and "tensor 'inputs'" in reasons, reasons


def test_an_error_while_tracing_a_module_shows_the_users_frames_only(ip):
    ip.run_cell_magic("compile", "--backend eager",
                      "class PlumbBad(torch.nn.Module):\n"
                      "    def forward(self, y):\n"
                      "        return y @ torch.randn(3, 3)\n"
                      "plumb_bad = PlumbBad()\n")
    result = ip.run_cell("plumb_bad(torch.randn(2, 5))")
    error = result.error_in_exec
    assert error is not None and "from user code:" in str(error), error
    user_code = str(error).split("from user code:")[1]
    assert "nbcompile-entry" not in user_code and "_call_impl" not in user_code, user_code
    assert "in forward" in user_code and "y @ torch.randn(3, 3)" in user_code, user_code
    report = nbcompile.report(ip.user_ns["plumb_bad"])
    assert report.status == "failed" and report.error.type == type(error).__name__
    assert [s.line for s in report.error.stack] == ["return y @ torch.randn(3, 3)"], (
        report.error.stack)
    assert "nbcompile-entry" not in json.dumps(report.to_dict())


_interrupts = [1]  # how many compiles to interrupt


def _interrupting_backend(gm, example_inputs):
    """Ctrl-C during the backend compile: a real SIGINT, delivered while torch compiles."""
    if _interrupts[0]:
        _interrupts[0] -= 1
        signal.raise_signal(signal.SIGINT)  # Python raises KeyboardInterrupt here
    return gm.forward


def test_ctrl_c_during_the_first_compile_says_interrupted_and_compiles_again(ip):
    name = "nbc_interrupting"
    if name not in torch._dynamo.list_backends(None):
        torch._dynamo.register_backend(_interrupting_backend, name=name)
    ip.run_cell_magic("compile", f"--backend {name}",
                      "def interrupted_fn(x):\n    return x.sin() + 1\n")
    _interrupts[0] = 1
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = ip.run_cell("_ = interrupted_fn(torch.randn(3))")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert isinstance(result.error_in_exec, KeyboardInterrupt), result.error_in_exec
    report = nbcompile.report(ip.user_ns["interrupted_fn"])
    assert report.status == "failed" and report.graph_count == 0, report
    assert report.error.type == "KeyboardInterrupt", report.error
    assert "next call of interrupted_fn compiles it again" in report.error.message
    assert status_text(report) == "interrupted (the next call compiles again)"
    assert [c.status for c in report.compiles] == ["failed"]
    # the next call compiles again: torch kept nothing of the interrupted compile
    run_cell(ip, "_ = interrupted_fn(torch.randn(3))")
    report = nbcompile.report(ip.user_ns["interrupted_fn"])
    assert report.status == "compiled" and report.graph_count == 1 and report.error is None
    assert [c.status for c in report.compiles] == ["failed", "ok"]


OPTIMIZER = '''import torch
class Momentum(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr))
    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if len(state) == 0:
                    state["buf"] = torch.zeros_like(p)
                state["buf"].mul_(0.9).add_(p.grad)
                p.add_(state["buf"], alpha=-group["lr"])
guard_model = torch.nn.Linear(3, 1)
opt = Momentum(guard_model.parameters())
'''


def test_an_optimizer_state_guard_is_said_in_words(ip):
    run_cell(ip, OPTIMIZER)
    ip.run_cell_magic("compile", "--backend eager --only train_step",
                      "def train_step(x, y):\n"
                      "    opt.zero_grad()\n"
                      "    loss = ((guard_model(x) - y) ** 2).mean()\n"
                      "    loss.backward()\n"
                      "    opt.step()\n"
                      "    return loss\n")
    run_cell(ip, "for _ in range(3):\n    train_step(torch.randn(4, 3), torch.randn(4, 1))\n")
    report = nbcompile.report(ip.user_ns["train_step"])
    reasons = [r.reason for r in report.recompiles]
    assert len(reasons) == 1, reasons
    assert reasons[0].startswith("opt's state was empty at the first call: Momentum creates "
                                 "it at its first step()"), reasons
    assert ".state" not in reasons[0] and "G[" not in reasons[0], reasons
    assert "state" in report.recompiles[0].guard  # the raw guard stays for who wants it


def test_torch_nn_module_record_has_none_of_nbcompiles_names(ip):
    ip.run_cell_magic("compile", "", "import torch\nplumb_seq = torch.nn.Sequential("
                                     "torch.nn.Linear(13, 7), torch.nn.ReLU())\n")
    run_cell(ip, "_ = plumb_seq(torch.randn(3, 13))\n_ = plumb_seq(torch.randn(5, 13))")
    report = nbcompile.report(ip.user_ns["plumb_seq"])
    assert report.status == "compiled" and report.graph_count >= 1, report.status
    text = json.dumps(report.to_dict())
    for plumbing in ("nbcompile-entry", "self._call_impl(*args, **kwargs)", "nbcompile.entry"):
        assert plumbing not in text, plumbing
    # torch's wrap_inline frame: its args[0] is the module, its args[1] the input (a
    # recompile happens unless an earlier wrap_inline compile made the size dynamic:
    # automatic dynamic is remembered per code location, shared by those frames)
    for recompile in report.recompiles:
        assert recompile.reason.startswith("tensor 'input' size mismatch"), recompile.reason
    graph = report.compiles[0].graphs[0]
    assert "plumb_seq_0_weight" in graph and "input: " in graph, graph
