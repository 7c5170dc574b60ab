"""What a call produced (``runs/produced.py``), without compiling: outputs of any type
snapshot and judged (NumPy arrays as arrays, numbers, objects that cannot be compared
said so, never a verdict), the state tensors a call changes found and labelled, and both
judges (compare's and diagnose's) naming a changed buffer that differs."""

from __future__ import annotations

import numpy as np
import torch

from nbcompile.core.diagnosis.judge import judge
from nbcompile.core.perf.numerics import drift, numeric_diff
from nbcompile.core.runs.produced import Opaque, Produced, snapshot
from nbcompile.core.runs.sandbox import Sandbox


def _gen():
    yield 1


def test_snapshot_keeps_what_can_be_compared_and_marks_the_rest() -> None:
    arr = np.arange(4.0)
    leaves = snapshot((torch.ones(2), arr, 3, 2.5, "s", None, _gen(), map(abs, [1]),
                       np.float32(1.5), object(), np.array(["a"], dtype=object)))
    assert torch.equal(leaves[0], torch.ones(2))
    assert isinstance(leaves[1], torch.Tensor) and leaves[1].tolist() == [0.0, 1.0, 2.0, 3.0]
    arr[0] = 9.0  # a copy: later changes to the array are not seen
    assert leaves[1][0] == 0.0
    assert leaves[2:6] == [3, 2.5, "s", None]
    assert [type(v) for v in leaves[6:8]] == [Opaque, Opaque]
    assert leaves[6].type_name == "generator" and leaves[7].type_name == "map"
    assert leaves[8] == 1.5
    assert isinstance(leaves[9], Opaque) and leaves[9].type_name == "object"
    assert isinstance(leaves[10], Opaque) and "object" in leaves[10].type_name


def test_two_generators_get_no_verdict_and_no_drift() -> None:
    a, b = snapshot(_gen()), snapshot(_gen())
    assert drift(a, b) is None  # not "eager is not reproducible"
    diff, ok, _, notes = numeric_diff(a, b)
    assert (diff, ok) == (None, None)
    assert notes == ["not comparable: generator (output)"]
    judged = judge(a, b)
    assert not judged.comparable and judged.max_abs_diff is None
    assert "not comparable: generator (output)" in judged.notes


def test_numpy_outputs_are_compared_as_arrays() -> None:
    ref = snapshot(np.array([1.0, 2.0]))
    diff, ok, _, _ = numeric_diff(ref, snapshot(np.array([1.0, 2.0])))
    assert (diff, ok) == (0.0, True)
    diff, ok, _, _ = numeric_diff(ref, snapshot(np.array([1.0, 3.0])))
    assert diff == 1.0 and ok is False
    assert judge(ref, snapshot(np.array([1.0, 3.0]))).ok is False


def test_a_tensor_beside_a_generator_is_still_judged() -> None:
    ref = snapshot((torch.ones(3), _gen()))
    got = snapshot((torch.ones(3) * 2, _gen()))
    diff, ok, _, notes = numeric_diff(ref, got)
    assert diff == 1.0 and ok is False
    assert "not comparable: generator (output[1])" in notes
    judged = judge(ref, got)
    assert judged.comparable and not judged.ok


class _Ema(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("ema", torch.zeros(2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.ema.mul_(0.5).add_(x.mean(0))
        return self.lin(x)


def test_sandbox_finds_the_state_a_call_changes_and_puts_it_back() -> None:
    model = _Ema()
    box = Sandbox(model, (torch.ones(3, 2),), {})
    out = model(*box.args)
    assert box.changed_state() == ["buffer ema"]
    produced = box.produced(out, [], box.changed_state())
    assert produced.labels == ["output", "buffer ema"]
    assert produced.state == ["buffer ema"]
    assert not produced.random
    box.restore()
    assert torch.equal(model.ema, torch.zeros(2))


def test_a_changed_buffer_that_differs_is_named_by_both_judges() -> None:
    ref = Produced.of(torch.ones(2), state=[("buffer ema", torch.tensor([1.0, 2.0]))])
    got = Produced.of(torch.ones(2), state=[("buffer ema", torch.tensor([1.0, 2.5]))])
    diff, ok, _, notes = numeric_diff(ref.leaves, got.leaves, ref.labels)
    assert diff == 0.5 and ok is False
    assert any(n.startswith("buffer ema differs from eager's") for n in notes)
    judged = judge(ref.leaves, got.leaves, ref.labels)
    assert not judged.ok
    assert any(n.startswith("buffer ema differs from eager's") for n in judged.notes)
