"""The overwritten-output words follow torch's own message for each variant: the output
one gets the copy fix, and torch's own setting where its message offers one (torch 2.15's
``cudagraph_trees_generation_cloning``), the gradient one (torch 2.13+) torch's advice on
``.grad`` buffers (``CUDAGraphTreeManager.format_dealloc_msg`` is the oracle)."""

from __future__ import annotations

import inspect
from dataclasses import replace

import pytest
from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

from nbcompile.core.notebook.cudagraphs import cloning
from nbcompile.core.notebook.cudagraphs.hazard import (
    Explanation,
    HazardReport,
    Overwritten,
    Shared,
    SharedReport,
    parse_message,
)
from nbcompile.display.hazard import explanation_text, report_text, shared_text
from tests.fixtures.torch_text import TORCH_2_15_CLONING_CONFIG, TORCH_2_15_OVERWRITE_MESSAGE

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


# --- torch's own remedy, where the running torch offers one -------------------------------

CLONING = "torch._inductor.config.triton.cudagraph_trees_generation_cloning"


def test_torch_2_15s_cloning_setting_is_offered_in_its_words():
    """torch 2.15's overwrite message offers ``cudagraph_trees_generation_cloning``
    (quoted from its source in ``tests/fixtures/torch_text.py``): the fix offers it beside
    the copy, named and worded as torch's message words it; once it is on, the words say
    why it did not keep this output (torch reads it when it compiles a graph)."""
    offered = cloning.parse(TORCH_2_15_OVERWRITE_MESSAGE)
    assert offered is not None
    assert offered == cloning.Cloning(
        CLONING, "'user_visible'", "clone all user-visible tensors that persist across "
        "generations")
    # the name and the value are the ones torch 2.15's config declares
    name = offered.setting.rsplit(".", 1)[1]
    assert f'{name}: Literal["user_visible"] | None = None' in TORCH_2_15_CLONING_CONFIG
    message = parse_message(TORCH_2_15_OVERWRITE_MESSAGE)
    assert message is not None and not message.gradient
    names = (Overwritten("y1", 3, message, "step"),)
    shown = [report_text(HazardReport(5, names, ("step",), 1, offered)),
             explanation_text(Explanation(names, 5, ("step",), message, offered)),
             shared_text(SharedReport(5, (), ("step",), (Shared("y1", 3),), offered))]
    for words in shown:
        assert "`y1 = f(x).clone()`" in words
        assert f"set `{CLONING} = 'user_visible'` before compiling" in words
        assert ('"clone all user-visible tensors that persist across generations" '
                "(torch's words") in words
    on = replace(offered, on=True)
    said = report_text(HazardReport(5, names, ("step",), 1, on))
    assert (f"torch's setting `{CLONING} = 'user_visible'` is on, yet this output was "
            "overwritten") in said
    assert "a graph compiled before it was set does not" in said
    assert "before compiling" not in said
    written = shared_text(SharedReport(5, (), ("step",), (Shared("y1", 3),), on))
    assert "is on, yet this output was written" in written
    # torch's gradient message offers no setting (torch clones no backward output)
    grad = (Overwritten("w.grad", 3, replace(message, gradient=True), "step"),)
    assert CLONING not in report_text(HazardReport(5, grad, ("step",), 1, offered))


def test_the_running_torch_offers_what_its_own_message_offers():
    """The installed torch's own message is the oracle: the setting is offered exactly
    when it names one (2.13's offers only a copy), and read as on exactly when torch's
    config holds the value it names."""
    text = CUDAGraphTreeManager.format_dealloc_msg(None)
    found = cloning.running()
    assert (found is not None) == ("set torch._inductor.config." in text)
    message = parse_message(text)
    assert message is not None
    report = HazardReport(5, (Overwritten("y1", 3, message, "step"),), ("step",), 1, found)
    words = report_text(report)
    assert "`y1 = f(x).clone()`" in words
    if found is None:
        assert "torch._inductor.config" not in words
    else:
        assert found.assignment in text and found.assignment in words
    # whether a setting is on is read from torch's own config, as torch holds it
    from torch._inductor import config as inductor_config
    trees = cloning.Cloning("torch._inductor.config.triton.cudagraph_trees", "True", "x")
    assert cloning.is_set(trees) is (inductor_config.triton.cudagraph_trees is True)
    assert not cloning.is_set(cloning.Cloning(CLONING + "_not_a_setting", "'x'", "x"))
