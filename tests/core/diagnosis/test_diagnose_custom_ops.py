"""A custom op with no fake kernel: ``diagnose`` says what torch found (none registered),
not that a fake kernel disagrees with the real one. ``torch.library.opcheck`` is the
oracle: its own result for the op says there is none."""

from __future__ import annotations

import inspect

import pytest
import torch

import nbcompile

#: Real Inductor compiles: the whole suite, not the fast tier.
pytestmark = pytest.mark.slow


@torch.library.custom_op("nbcompile_nofake::doubled", mutates_args=())
def doubled(x: torch.Tensor) -> torch.Tensor:  # no register_fake
    return x * 2


_LIB = torch.library.Library("nbcompile_nometa", "DEF")  # noqa: TOR901 - an op with no Meta
_LIB.define("tripled(Tensor x) -> Tensor")
_LIB.impl("tripled", lambda x: x * 3, "CPU")


def uses_doubled(x):
    y = doubled(x)
    return y + 1


def uses_tripled(x):
    y = torch.ops.nbcompile_nometa.tripled(x)
    return y - 1


def _line(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _opcheck_says_no_fake(op, x) -> bool:
    results = torch.library.opcheck(op, (x,), raise_exception=False)
    error, texts = results["test_faketensor"], []
    while isinstance(error, BaseException):  # the exception and what it was raised from
        texts.append(str(error))
        error = error.__cause__ or error.__context__
    return any("no fake impl" in t for t in texts)


def test_custom_op_without_a_fake_kernel_is_said_so():
    x = torch.randn(8)
    assert _opcheck_says_no_fake(torch.ops.nbcompile_nofake.doubled.default, x)
    d = nbcompile.diagnose(uses_doubled, x, budget_s=60)
    assert d.kind == "crash" and d.layer == "dynamo"
    assert "nbcompile_nofake.doubled" in d.culprit
    assert "no fake (meta) kernel registered" in d.culprit
    assert "There was no fake impl registered" in d.culprit  # torch's own words
    assert "disagrees" not in d.culprit
    assert d.lineno == _line(uses_doubled, "= doubled(x)")


def test_library_op_without_a_meta_kernel_compiles_as_torch_says():
    """opcheck's strict fake-tensor test fails for it, but torch.compile runs the real CPU
    kernel in its place (a fallback kernel): plain torch compiles it and agrees with eager,
    so diagnose says ok and names no culprit."""
    x = torch.randn(8)
    assert _opcheck_says_no_fake(torch.ops.nbcompile_nometa.tripled.default, x)
    torch.testing.assert_close(torch.compile(uses_tripled, backend="eager")(x), uses_tripled(x))
    d = nbcompile.diagnose(uses_tripled, x, budget_s=60)
    assert d.kind == "ok" and not d.culprit
