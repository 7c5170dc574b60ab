"""nbcompile.suggest: rewrites of the user's own lines and integer specialisation, proven
on copies with real compiles: a data-dependent ``if`` -> ``torch.where``, a
NumPy call -> its torch function, an int argument whose value changes -> a 0-d tensor;
a rewrite that changes the result is never verified; a training step keeps the user's
model as it was."""

from __future__ import annotations

import torch

import nbcompile
from nbcompile.core.fixes.suggest import suggest
from tests.support.shell import run_cell


def test_an_int_whose_value_changes_is_passed_as_a_tensor(ip):
    run_cell(ip, "%load_ext nbcompile")
    run_cell(ip, "%%compile --no-dynamic\nimport torch\ndef bump(x, k):\n    return x * k + 1")
    run_cell(ip, "for k in range(6):\n    bump(torch.ones(4), k)")
    bump = ip.user_ns["bump"]
    before = nbcompile.report(bump).to_dict()
    result = suggest(bump, calls=[(torch.ones(4), k) for k in range(6)])
    assert result.baseline.recompiles >= 4  # --no-dynamic: one compile per value of k
    tensor = next(s for s in result.items if "0-d tensor" in s.change)
    assert "pass k as a 0-d tensor" in tensor.change
    assert tensor.verified and tensor.after.recompiles == 0, tensor.note
    assert nbcompile.report(bump).to_dict() == before


def test_a_training_step_gets_proven_fixes_and_the_model_is_untouched(ip):
    run_cell(ip, "%load_ext nbcompile")
    run_cell(ip, """%%compile
import torch
torch.manual_seed(0)
ts_model = torch.nn.Linear(8, 1)
ts_opt = torch.optim.SGD(ts_model.parameters(), lr=0.1)
def ts_step(x, y):
    ts_opt.zero_grad()
    loss = torch.nn.functional.mse_loss(ts_model(x), y)
    loss.backward()
    ts_opt.step()
    scale = loss.item()
    return loss * scale""")
    run_cell(ip, "ts_x, ts_y = torch.randn(16, 8), torch.randn(16, 1)\n_ = ts_step(ts_x, ts_y)")
    model = ip.user_ns["ts_model"]
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    result = suggest(ip.user_ns["ts_step"], ip.user_ns["ts_x"], ip.user_ns["ts_y"])
    assert result.baseline.breaks >= 1 and not result.baseline.error, result.baseline
    assert any(p.line == "scale = loss.item()" for p in result.problems)
    proven = {s.change for s in result.verified}
    assert "torch._dynamo.config.capture_scalar_outputs = True" in proven, [
        (s.change, s.note) for s in result.items]
    for k, v in model.state_dict().items():
        assert torch.equal(v, weights[k]), k
