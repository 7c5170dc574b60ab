"""nbcompile.suggest: rewrites of the user's own lines and integer specialisation, proven
on copies with real compiles: a data-dependent ``if`` -> ``torch.where``, a
NumPy call -> its torch function, an int argument whose value changes -> a 0-d tensor;
a rewrite that changes the result is never verified; a training step keeps the user's
model as it was."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

from nbcompile.core.fixes.rewrites import RewriteError, branch_to_where
from nbcompile.core.fixes.suggest import suggest

#: Compiles real code or runs child processes: not in the fast tier.
pytestmark = pytest.mark.slow

EDGES = np.array([-1.0, 0.0, 1.0], dtype=np.float32)


def tame(x):
    x = x - x.mean(dim=0)
    if x.std() > 1.0:
        x = x / x.std()
    return x * 2


def pick(x):
    return x * 2 if x.sum() > 0 else x - 1


def reduce_or_keep(x):
    if x.sum() > 0:
        y = x.sum()
    else:
        y = x
    return y + 1


def two_steps(x):
    if x.sum() > 0:
        y = x * 2
        return y + 1
    return x


def binned(x):
    bins = np.digitize(x.numpy(), EDGES)
    return x * 2, torch.from_numpy(bins)


def _rewrite(result):
    found = [s for s in result.items if s.kind == "rewrite"]
    assert found, [(s.kind, s.change) for s in result.items]
    return found[0]


def test_if_on_a_tensor_becomes_torch_where_and_is_proven():
    code = tame.__code__
    result = suggest(tame, torch.randn(64) * 3)
    assert result.baseline.breaks == 1
    item = _rewrite(result)
    line = inspect.getsourcelines(tame)[1] + 2  # the if, wherever the file puts it
    assert item.change == (f"# lines {line}-{line + 1}\n- if x.std() > 1.0:\n- x = x / x.std()\n"
                           "+ x = torch.where(x.std() > 1.0, x / x.std(), x)")
    assert item.verified and item.after.breaks == 0, item.note
    assert item.same_result.ok
    assert tame.__code__ is code  # the user's function is untouched


def test_a_conditional_expression_becomes_torch_where():
    item = _rewrite(suggest(pick, torch.randn(8)))
    assert "+ return torch.where(x.sum() > 0, x * 2, x - 1)" in item.change
    assert item.verified


def test_a_where_that_changes_the_result_is_not_verified():
    # torch.where broadcasts the sum to x's shape: not what the branch returned.
    item = _rewrite(suggest(reduce_or_keep, torch.rand(8)))
    assert "torch.where(x.sum() > 0, x.sum(), x)" in item.change
    assert not item.verified and item.status == "tried, did not help"
    assert "changes the result" in item.note or "failed" in item.note


def test_a_branch_that_is_not_one_expression_says_why_and_names_torch_cond():
    try:
        branch_to_where(two_steps, two_steps.__code__.co_firstlineno + 1)
    except RewriteError as e:
        assert "torch.cond" in str(e)
    else:
        raise AssertionError("a two-statement branch was rewritten")
    item = _rewrite(suggest(two_steps, torch.randn(8)))
    assert item.note.startswith("not tried:") and "torch.cond" in item.note
    assert item.after is None


def test_a_numpy_call_becomes_its_torch_function_with_its_later_use():
    result = suggest(binned, torch.randn(32))
    assert result.baseline.breaks >= 1
    item = _rewrite(result)
    assert "+ bins = torch.bucketize(x, torch.as_tensor(EDGES), right=True)" in item.change
    assert "+ return (x * 2, bins)" in item.change or "+ return x * 2, bins" in item.change
    assert item.verified and item.same_result.ok, item.note
