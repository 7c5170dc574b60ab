"""nbcompile.diagnose / %diagnose: crash or accuracy, the layer, the culprit's line, the float64
verdict and workarounds proven on copies, with real compiles.

Cases: the bfloat16 chain (Inductor keeps float32 inside its fused kernel: compiled is
the closer to float64); torch's own fault injection in Inductor's C++ relu (a wrong
result, a compile error), found at the relu line; crashes only Dynamo or AOTAutograd
show (a custom op whose fake kernel is wrong; one whose backward formula is wrong); a
clean function. After each: the user's compiled target and its Dynamo cache, torch's
settings and the input tensors are checked unchanged.
"""

from __future__ import annotations

import pytest
import torch
import torch._dynamo
import torch._functorch.config
import torch._inductor.config

import nbcompile
from tests.support.shell import run_cell


def test_magic_diagnoses_a_call_in_the_namespace(ip):
    run_cell(ip, "import torch\n"
                 "def wobble(x):\n"
                 "    y = torch.relu(x) * 2\n"
                 "    return y + 1\n"
                 "xw = torch.randn(32)\n")
    with torch._inductor.config.patch({"cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}):
        d = ip.run_line_magic("diagnose", "wobble(xw) --budget 60")
    assert isinstance(d, nbcompile.Diagnosis)
    assert d.kind == "accuracy" and d.layer == "inductor"
    assert d.lineno == 3 and d.line == "y = torch.relu(x) * 2"
    assert d.filename is not None and d.filename.startswith("<ipython-input-")
    # compiled is the less accurate one: the note offers %repro (wobble is no target yet)
    assert d.reference is not None and d.reference.closer == "eager"
    assert any("compile wobble in a %%compile cell; then %repro wobble(x) --fact "
               "accuracy (with your inputs)" in n for n in d.notes), d.notes
    with pytest.raises(Exception, match="--budget must be a positive"):
        ip.run_line_magic("diagnose", "wobble(xw) --budget 0")


def test_a_failed_compile_points_to_diagnose_with_the_call(ip):
    """The %%compile summary of a target whose compile failed names the %diagnose command
    (published in the record's notes: the labextension shows them as they are)."""
    from nbcompile.core.insight.diagnose_hint import DIAGNOSE_DOES
    from nbcompile.core.notebook.capture.session import get_session
    from nbcompile.core.notebook.capture.snapshot import target_record
    from nbcompile.display.bundle import summary_text
    from nbcompile.display.payload import summary_payload

    ip.run_cell_magic("compile", "", "import torch\ndef jolt(x, *, k=2):\n"
                                     "    return torch.relu(x) * k\n")
    with torch._inductor.config.patch({"cpp.inject_relu_bug_TESTING_ONLY": "compile_error"}):
        assert ip.run_cell("jolt(torch.randn(8))").error_in_exec is not None
    record = target_record(get_session().find(ip.user_ns["jolt"]))
    hint = f"The compile failed: %diagnose jolt(x) (with your inputs) {DIAGNOSE_DOES}."
    assert record.status == "failed" and hint in record.notes
    assert hint in summary_text([record])
    assert hint in summary_payload([record])["targets"][0]["notes"]
    # a graph break under fullgraph=True: the summary names its line already, no hint
    ip.run_cell_magic("compile", "--fullgraph", "def rigid(x):\n    print('no')\n"
                                               "    return x\n")
    assert ip.run_cell("rigid(torch.ones(2))").error_in_exec is not None
    rigid = target_record(get_session().find(ip.user_ns["rigid"]))
    assert rigid.status == "failed" and not any("%diagnose" in n for n in rigid.notes)
