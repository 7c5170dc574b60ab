"""%compare never changes the user's objects, in the real in-process
IPython shell: module buffers, inputs changed in place, the RNG, and prints."""

from __future__ import annotations

import torch

from tests.support.shell import run_cell

SETUP = """
import torch
state_bn = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.BatchNorm1d(16)).train()
state_xb = torch.randn(32, 16)
_ = state_bn(state_xb)

def state_bump(z):
    z.add_(1.0)
    return z * 2

state_z = torch.zeros(64)

def state_noisy(x):
    return torch.nn.functional.dropout(torch.sin(x), 0.5, training=True)

state_xn = torch.randn(64, 64)

def state_chatty(x):
    print("chatty line")
    return torch.cos(x) + 1
"""


def _setup(ip) -> None:
    if "state_chatty" not in ip.user_ns:
        run_cell(ip, SETUP)


def test_batchnorm_buffers_are_untouched(ip):
    _setup(ip)
    bn = ip.user_ns["state_bn"][1]
    before = {k: v.clone() for k, v in ip.user_ns["state_bn"].state_dict().items()}
    assert int(bn.num_batches_tracked) == 1
    run_cell(ip, "state_r1 = %compare state_bn(state_xb) --modes default --budget 0.3")
    after = ip.user_ns["state_bn"].state_dict()
    assert int(bn.num_batches_tracked) == 1
    for key, value in before.items():
        assert torch.equal(after[key], value), key
    res = ip.user_ns["state_r1"]
    assert res.row("default").numerics_ok  # every candidate ran from the same state


def test_input_changed_in_place_is_reported_not_a_false_differs(ip):
    _setup(ip)
    run_cell(ip, "state_r2 = %compare state_bump(state_z) --modes default --budget 0.3")
    assert torch.equal(ip.user_ns["state_z"], torch.zeros(64))  # the user's z is unchanged
    res = ip.user_ns["state_r2"]
    assert res.mutated_inputs == ["args[0]"]
    row = res.row("default")
    assert row.numerics_ok is True and row.max_abs_diff == 0.0
    assert any("changes args[0] in place" in n for n in row.notes), row.notes
    assert "changes args[0] in place" in repr(res)
    assert res.to_dict()["mutated_inputs"] == ["args[0]"]


def test_random_ops_leave_the_rng_alone_and_are_not_called_wrong(ip):
    _setup(ip)
    run_cell(ip, "state_rng_before = torch.get_rng_state()")
    run_cell(ip, "state_r3 = %compare state_noisy(state_xn) --modes default --budget 0.3")
    assert torch.equal(torch.get_rng_state(), ip.user_ns["state_rng_before"])
    res = ip.user_ns["state_r3"]
    assert res.random_ops is True
    row = res.row("default")
    assert row.numerics_ok is not False  # not a false "DIFFERS"
    assert "DIFFERS" not in repr(res)
    assert any("random" in n for n in row.notes), row.notes


def test_prints_are_captured_and_counted(ip, capsys):
    _setup(ip)
    capsys.readouterr()
    run_cell(ip, "state_r4 = %compare state_chatty(state_xn) --modes default --budget 0.3")
    printed = capsys.readouterr().out
    assert printed.count("chatty line") == 0, printed[:300]
    res = ip.user_ns["state_r4"]
    assert res.captured_output_lines > 10
    assert any(f"{res.captured_output_lines} lines" in n for n in res.notes), res.notes
