"""Every memory measurement starts from the same state: ``compare``'s rows and ``profile``'s
two sides measure a training step (zero_grad, forward, backward, optimizer step) from the
user's inputs, parameters, gradients and optimizer state, whatever ran before the measured
call (another row's call, whose gradients the step's ``zero_grad`` frees). So ``%compare``
and ``%kprun`` give the same peaks for the same call, compiled and eager."""

from __future__ import annotations

import pytest
import torch

import nbcompile

pytestmark = pytest.mark.slow

WIDTH, BATCH = 1024, 256
ACT = BATCH * WIDTH * 4  # one activation of the step
GRADS = 2 * (WIDTH * WIDTH + WIDTH) * 4  # the two layers' gradients

torch.manual_seed(0)
MODEL = torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
                            torch.nn.Linear(WIDTH, WIDTH))
OPT = torch.optim.SGD(MODEL.parameters(), lr=0.01)


def train_step(x, y):
    OPT.zero_grad()
    loss = torch.nn.functional.mse_loss(MODEL(x), y)
    loss.backward()
    OPT.step()
    return loss.detach()


def _within(a: int | None, b: int | None, rel: float = 0.10) -> bool:
    assert a is not None and b is not None
    return abs(a - b) <= rel * max(a, b)


@pytest.mark.parametrize("trained", [False, True], ids=["no-grads-yet", "after-a-step"])
def test_compare_and_profile_agree_on_a_training_steps_peaks(trained):
    x, y = torch.randn(BATCH, WIDTH), torch.randn(BATCH, WIDTH)
    for p in MODEL.parameters():
        p.grad = None
    if trained:
        train_step(x, y)  # the user ran the step once: gradients exist before the call
    weights = [p.detach().clone() for p in MODEL.parameters()]
    c = nbcompile.compare(train_step, x, y, modes=("default",), budget_s=0.5, explain=False)
    p = nbcompile.profile(train_step, x, y, repeat=1)
    eager, default = c.row("eager"), c.row("default")
    assert default.status == "ok", default.error
    m = p.memory
    assert m is not None
    peaks = (eager.peak_memory_bytes, default.peak_memory_bytes,
             m.eager_peak_bytes, m.peak_bytes)
    assert _within(default.peak_memory_bytes, m.peak_bytes), peaks
    assert _within(eager.peak_memory_bytes, m.eager_peak_bytes), peaks
    assert default.peak_memory_ratio is not None
    if trained:
        # zero_grad frees the old gradients before backward allocates new ones: the peak
        # above the start is activations, not gradients (eager keeps more of them alive)
        for peak in peaks:
            assert peak is not None and ACT <= peak < GRADS / 2, peaks
        assert default.peak_memory_ratio < 0.9
    else:
        # no gradients before the call: backward allocates all of them
        for peak in peaks:
            assert peak is not None and GRADS <= peak <= GRADS + 4 * ACT, peaks
    assert "same starting state" in default.memory_note
    # the user's weights are as they were
    assert all(torch.equal(a, b.detach()) for a, b in zip(weights, MODEL.parameters(),
                                                           strict=True))
    assert all((q.grad is not None) == trained for q in MODEL.parameters())


def chain(x):
    y = x * 1.7 + 0.3
    y = torch.sin(y) * y
    y = torch.exp(y) / (1 + torch.exp(y))
    return torch.tanh(y * 3.1 - 0.2)


def test_a_known_case_the_same_in_both_commands():
    # a pointwise chain on a 2048 x 2048 float32 tensor (16 MiB): eager allocates one
    # result per op, at most 4 alive at once; Inductor fuses it into one kernel writing
    # only the output
    side = 2048
    t = side * side * 4
    x = torch.randn(side, side)
    c = nbcompile.compare(chain, x, modes=("default",), budget_s=0.3, explain=False)
    p = nbcompile.profile(chain, x, repeat=1)
    assert p.memory is not None
    for eager_peak in (c.row("eager").peak_memory_bytes, p.memory.eager_peak_bytes):
        assert eager_peak == pytest.approx(4 * t, abs=4096)
    for peak in (c.row("default").peak_memory_bytes, p.memory.peak_bytes):
        assert peak == pytest.approx(t, abs=4096)
