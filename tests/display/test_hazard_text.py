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


def test_a_hazard_is_a_record_the_summary_shows_in_its_own_styles():
    """Worded once: the cell's output, the record's ``text`` (the summary and the inspector
    show it) say the same; the HTML uses the summary's classes, no inline colours."""
    from nbcompile.core.records import TargetRecord
    from nbcompile.display.bundle import summary_html, summary_text
    from nbcompile.display.hazard import report_bundle, report_record

    _, message = _message(False)
    report = HazardReport(5, (Overwritten("y1", 3, message, "step"),), ("step",), 1)
    record = report_record(report)
    assert (record.kind, record.cell, record.gradient) == ("overwritten", 5, False)
    assert [(n.name, n.bound_in, n.by) for n in record.names] == [("y1", 3, "step")]
    assert record.text == report_text(report).replace("nbcompile: ", "")
    bundle = report_bundle(report)
    assert "class='nbcompile-summary'" in bundle["text/html"]
    assert "style=\"" not in bundle["text/html"] and "#d9822b" not in bundle["text/html"]
    assert bundle["text/plain"].startswith("warning: nbcompile: the call of `step`")
    target = TargetRecord(id="t1", name="step", kind="function", status="compiled",
                          cudagraph_hazards=[record])
    text = summary_text([target])
    assert "warning: after cell [5]: the call of `step` in this cell" in text
    assert "after cell [5]: the call of `step`" in summary_html([target])
