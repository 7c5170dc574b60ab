"""The overwritten-output words follow torch's own message for each variant: the output
one gets the copy fix, the gradient one (torch 2.13+) torch's advice on ``.grad`` buffers
(``CUDAGraphTreeManager.format_dealloc_msg`` is the oracle)."""

from __future__ import annotations

import inspect

import pytest
from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

from nbcompile.core.notebook.cudagraphs.hazard import (
    Explanation,
    HazardReport,
    Overwritten,
    parse_message,
)
from nbcompile.display.hazard import explanation_text, report_text

STACK = 'File "<ipython-input-4-abc>", line 3, in step\n    loss.backward()'


def _message(gradient: bool):
    if gradient and "is_grad_output" not in inspect.signature(
            CUDAGraphTreeManager.format_dealloc_msg).parameters:
        pytest.skip("this torch has no gradient variant of the message (2.13+)")
    kwargs = {"is_grad_output": True} if gradient else {}
    text = CUDAGraphTreeManager.format_dealloc_msg(STACK, **kwargs)
    message = parse_message(text)
    assert message is not None and message.gradient is gradient
    return text, message


@pytest.mark.parametrize("gradient", [False, True])
def test_each_variant_gets_torchs_fix(gradient):
    text, message = _message(gradient)
    names = (Overwritten("g", 3, message, "step"),)
    shown = [report_text(HazardReport(5, names, ("step",))),
             explanation_text(Explanation(names, 5, ("step",), message))]
    for words in shown:
        if gradient:
            assert "set .grad to None before each backward" in words
            assert ".clone()" not in words
            assert "set .grad to None before each backward" in text  # torch says so too
        else:
            assert "`g = f(x).clone()`" in words and ".grad" not in words
    assert ("accessing gradient tensor output" in shown[0]) is gradient
