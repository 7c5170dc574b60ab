"""Issue 25 parts 3 and 4: nbcompile's plumbing never shows, interrupts and guards in
words (real in-process IPython shell, real compiles)."""

from __future__ import annotations

import json
import signal

import torch

import nbcompile
from nbcompile.display.summary_model import status_text

from .conftest import run_cell

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
