"""How ``%diagnose`` names TF32 and reduced-precision matmuls (pure logic, on a CPU).

The graphs are Dynamo's own readable graphs of real functions (``GraphModule.print_readable``
with strides and devices, as torch logs them in ``dynamo_output_graph``); the settings
are read from torch after ``torch.set_float32_matmul_precision`` (a CPU build keeps and
reports them: ``torch.backends.cuda.matmul.allow_tf32`` reads cuBLAS's flag). Only the
device differs from a GPU run: there the note is added for a call on CUDA
(``diagnose._name_matmul_precision``; ``tests/gpu/test_diagnose_gpu.py`` checks it live).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
import torch._dynamo

from nbcompile.core.diagnosis.precision import (
    MATMUL_NOTE,
    MatmulSettings,
    graph_dtypes,
    has_conv,
    has_matmul,
    matmul_precision,
    read_matmul_settings,
)
from nbcompile.core.diagnosis.record import Diagnosis, Reference, Rung
from nbcompile.core.diagnosis.verdict import summary


def _graphs(fn: Callable[..., torch.Tensor], *args: torch.Tensor) -> list[str]:
    """Dynamo's readable graphs of ``fn`` (what torch logs as ``dynamo_output_graph``)."""
    texts: list[str] = []

    def backend(gm: torch.fx.GraphModule, _inputs: list[torch.Tensor]):
        texts.append(gm.print_readable(print_output=False, include_stride=True,
                                       include_device=True))
        return gm.forward

    torch._dynamo.reset()
    torch.compile(fn, backend=backend)(*args)
    return texts


@pytest.fixture(scope="module")
def graphs() -> dict[str, list[str]]:
    x, w = torch.randn(8, 8), torch.randn(8, 8)
    lin = torch.nn.Linear(8, 8)
    conv = torch.nn.Conv2d(1, 1, 3)
    found = {
        "at": _graphs(lambda a, b: (a @ b).relu(), x, w),
        "mm": _graphs(lambda a, b: torch.mm(a, b) + 1, x, w),
        "linear": _graphs(lambda a: lin(a).sin(), x),
        "bmm_bf16": _graphs(lambda a: torch.bmm(a, a.transpose(1, 2)),
                            x.view(2, 4, 8).to(torch.bfloat16)),
        "conv": _graphs(lambda a: conv(a).cos(), torch.randn(1, 1, 6, 6)),
        "pointwise": _graphs(lambda a: a.sin() * 2, x),
    }
    torch._dynamo.reset()
    return found


def test_matmuls_and_convolutions_are_read_from_dynamos_graphs(graphs):
    for name in ("at", "mm", "linear", "bmm_bf16"):
        assert has_matmul(graphs[name]), graphs[name]
    assert not has_matmul(graphs["pointwise"]) and not has_matmul(graphs["conv"])
    assert has_conv(graphs["conv"]) and not has_conv(graphs["at"])
    assert graph_dtypes(graphs["bmm_bf16"]) >= {"bfloat16"}


def test_settings_as_torch_reports_them_after_set_float32_matmul_precision():
    before = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("high")
        high = read_matmul_settings()
        torch.set_float32_matmul_precision("highest")
        highest = read_matmul_settings()
    finally:
        torch.set_float32_matmul_precision(before)
    assert high.float32_precision == "high" and high.cuda_tf32
    assert highest.float32_precision == "highest" and not highest.cuda_tf32


def test_tf32_is_named_with_the_settings_and_the_float64_errors(graphs):
    high = MatmulSettings(float32_precision="high", cuda_tf32=True)
    found = matmul_precision(high, graph_dtypes(graphs["at"]), has_matmul(graphs["at"]),
                             has_conv(graphs["at"]), 2.1e-3, 4e-7)
    note = found.note
    assert note.startswith(MATMUL_NOTE)
    assert "float32 matmuls run in TF32" in note and "'high'" in note
    assert "allow_tf32 is True" in note
    assert "eager is off by 0.0021 and compiled by 4e-07" in note
    assert "torch.set_float32_matmul_precision('highest')" in note
    assert found.causes == ("TF32 matmuls",)
    medium = MatmulSettings(float32_precision="medium", cuda_tf32=True)
    assert "TF32 or bfloat16" in matmul_precision(medium, {"float32"}, True, False).note


def test_nothing_is_named_without_evidence(graphs):
    high = MatmulSettings(float32_precision="high", cuda_tf32=True)
    highest = MatmulSettings()
    # full float32 precision, no matmul, or no float32 matmul: nothing to name
    none = matmul_precision(highest, {"float32"}, True, False)
    assert none.note == "" and none.causes == ()
    assert matmul_precision(high, graph_dtypes(graphs["pointwise"]),
                            has_matmul(graphs["pointwise"]), False).note == ""
    assert matmul_precision(high, {"float64"}, True, False).causes == ()


def test_reduced_precision_reductions_and_tf32_convolutions_are_named(graphs):
    torch_defaults = MatmulSettings(cudnn_tf32=True, fp16_reduced=True, bf16_reduced=True)
    found = matmul_precision(torch_defaults, graph_dtypes(graphs["bmm_bf16"]),
                             has_matmul(graphs["bmm_bf16"]), False)
    bf16 = found.note
    assert "bfloat16 matmuls may reduce in reduced precision" in bf16
    assert "allow_bf16_reduced_precision_reduction is True" in bf16
    assert "float16 matmuls" not in bf16.replace("bfloat16 matmuls", "")
    assert found.causes == ("reduced-precision matmul reductions",)
    conv = matmul_precision(torch_defaults, graph_dtypes(graphs["conv"]), False,
                            has_conv(graphs["conv"])).note
    assert "float32 convolutions run in TF32" in conv
    assert "torch.backends.cudnn.allow_tf32 = False" in conv


def test_the_summary_names_the_cause_of_an_accuracy_verdict():
    found = matmul_precision(MatmulSettings(float32_precision="high", cuda_tf32=True),
                             {"float32"}, True, False, 1e-3, 1e-3)
    d = Diagnosis(name="f", kind="accuracy", layer="inductor", max_abs_diff=1e-3,
                  mismatched=10, numel=100, rungs=[Rung("inductor", "inductor", "accuracy")],
                  reference=Reference(eager_error=1e-3, compiled_error=1e-3,
                                      closer="neither"),
                  notes=[found.note], matmul_precision=list(found.causes))
    text = summary(d)
    assert "TF32 matmuls are in force (torch's settings on this GPU)" in text
    d.matmul_precision = []
    assert "TF32" not in summary(d)  # no cause found, none named
    d.matmul_precision, d.kind = list(found.causes), "ok"
    assert "TF32" not in summary(d)  # nothing to explain
