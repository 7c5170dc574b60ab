"""``%%compile --codegen triton``: Triton kernels generated on a CPU-only machine, with
every patch scoped to the preview target's calls."""

from __future__ import annotations

import os

import pytest
import torch
import torch.utils._triton as torch_triton

import nbcompile
from nbcompile.core.notebook import triton_preview
from nbcompile.display.bundle import summary_html, summary_text
from tests.support.shell import run_cell

pytest.importorskip("triton")

CELL = '''import torch

def preview_pointwise(x):
    return torch.sigmoid(x * 3) + 1

def preview_sum(x):
    return x.sum(-1) * 2

def preview_softmax(x):
    return torch.softmax(x, -1)

def preview_tanh(x):
    return torch.tanh(x) + 1

def preview_mixed(x):
    return torch.nn.functional.softplus(x).tanh().sum(-1)

preview_seq = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
'''


def config_state() -> dict:
    return dict(torch._inductor.config.get_config_copy())


def patched_state() -> tuple:
    """Everything the preview patches while a preview target runs."""
    import triton.language as tl
    from torch._inductor.runtime import triton_helpers

    return (torch_triton.triton_hash_with_backend, os.environ.get("TRITON_INTERPRET"),
            dict(vars(triton_helpers)), dict(vars(tl)), dict(vars(tl.tensor)))


@pytest.fixture(scope="module")
def preview(ip):
    before = (config_state(), patched_state())
    ip.run_cell_magic("compile", "--codegen triton", CELL)
    run_cell(ip, "xt = torch.randn(4, 8)\npp = preview_pointwise(xt)\nps = preview_sum(xt)\n"
                 "pq = preview_seq(xt)\npm = preview_softmax(xt)\npt = preview_tanh(xt)\n"
                 "px = preview_mixed(xt)")
    # the explicit choice: Triton's interpreter only, raising where it cannot run
    ip.run_cell_magic("compile", "--codegen triton-interpret",
                      "def interp_softmax(x):\n    return torch.softmax(x, -1)\n\n"
                      "def interp_tanh(x):\n    return torch.tanh(x) + 1\n")
    errors = {}
    for name in ("interp_softmax", "interp_tanh"):
        try:
            ip.user_ns[name](ip.user_ns["xt"])
            errors[name] = None
        except triton_preview.TritonPreviewError as e:
            errors[name] = e
    after = (config_state(), patched_state())
    return ip, before, after, errors


def triton_kernels(ip, name: str):
    rep = nbcompile.report(ip.user_ns[name])
    return rep, [k for k in rep.kernels if k.kind == "kernel"]


def test_pointwise_preview_is_triton_source_and_runs(preview):
    ip = preview[0]
    rep, kernels = triton_kernels(ip, "preview_pointwise")
    assert rep.preview == "triton"
    assert any("Triton preview" in note for note in rep.notes)
    assert kernels and all(k.language == "triton" for k in kernels)
    assert kernels[0].name.startswith("triton_poi_fused")
    assert "@triton.jit" in kernels[0].source
    assert "aten.sigmoid" in kernels[0].ops and kernels[0].lines
    assert kernels[0].lines[0].line == "return torch.sigmoid(x * 3) + 1"
    x = ip.user_ns["xt"]
    torch.testing.assert_close(ip.user_ns["pp"], torch.sigmoid(x * 3) + 1)


def test_reduction_preview_is_triton_source(preview):
    ip = preview[0]
    _, kernels = triton_kernels(ip, "preview_sum")
    assert kernels and kernels[0].name.startswith(("triton_per_", "triton_red_"))
    assert "@triton.jit" in kernels[0].source and "tl.sum" in kernels[0].source
    torch.testing.assert_close(ip.user_ns["ps"], ip.user_ns["xt"].sum(-1) * 2)


def test_calls_the_interpreter_cannot_run_are_computed_eagerly_and_said(preview):
    """softplus, tanh and sum together (libdevice math and a reduction): the call
    returns the right result, the Triton kernels stay in the report, a note says how."""
    ip = preview[0]
    x = ip.user_ns["xt"]
    torch.testing.assert_close(ip.user_ns["px"],
                               torch.nn.functional.softplus(x).tanh().sum(-1))
    torch.testing.assert_close(ip.user_ns["pm"], torch.softmax(x, -1))
    torch.testing.assert_close(ip.user_ns["pt"], torch.tanh(x) + 1)
    for name in ("preview_mixed", "preview_tanh"):
        rep, kernels = triton_kernels(ip, name)
        assert kernels and all("@triton.jit" in k.source for k in kernels)
        notes = [n for n in rep.notes if "computed eagerly" in n]
        assert len(notes) == 1, rep.notes
        assert kernels[0].name in notes[0] and "triton-interpret" in notes[0]
    rep = nbcompile.report(ip.user_ns["preview_mixed"])
    text, html = summary_text([rep]), summary_html([rep])
    assert "computed eagerly" in text and "computed eagerly" in html


def test_kernel_the_interpreter_cannot_run_fails_clearly_with_code_kept(preview):
    ip, _, _, errors = preview
    error = errors["interp_softmax"]
    _, kernels = triton_kernels(ip, "interp_softmax")
    assert kernels and "@triton.jit" in kernels[0].source
    if error is None:
        pytest.skip("this Triton's interpreter runs the softmax reduction")
    message = str(error)
    assert kernels[0].name in message
    assert "cannot run on this CPU-only machine" in message
    assert "without --codegen triton" in message
    rep = nbcompile.report(ip.user_ns["interp_softmax"])
    assert any(kernels[0].name in note and "interpreter" in note for note in rep.notes)


def test_libdevice_math_failure_names_the_cause(preview):
    ip, _, _, errors = preview
    error = errors["interp_tanh"]
    _, kernels = triton_kernels(ip, "interp_tanh")
    assert kernels and "libdevice" in kernels[0].source
    if error is None:
        pytest.skip("this Triton's interpreter runs libdevice.tanh")
    assert "libdevice" in str(error) and "Reduction" not in str(error)


def test_module_preview(preview):
    ip = preview[0]
    rep, kernels = triton_kernels(ip, "preview_seq")
    assert rep.preview == "triton" and rep.kind == "module"
    assert any(k.language == "triton" and "@triton.jit" in k.source for k in kernels)
    seq, x = ip.user_ns["preview_seq"], ip.user_ns["xt"]
    torch.testing.assert_close(ip.user_ns["pq"], torch.relu(seq[0](x)))


def test_config_and_patched_functions_are_exactly_restored(preview):
    _, before, after, _ = preview
    assert after[0] == before[0]
    hash_fn, env, helpers, lang, tensor = after[1]
    assert hash_fn is before[1][0] and env == before[1][1]
    for now, then in ((helpers, before[1][2]), (lang, before[1][3]), (tensor, before[1][4])):
        # (Triton's interpreter adds names of its own to the globals of the functions
        # it rewrites; every name that was there is the very same object again.)
        assert [k for k, v in then.items() if now.get(k) is not v] == []
    assert torch._inductor.config.cpu_backend != "triton"


def test_ordinary_compile_after_preview_is_cpp(preview, ip):
    ip.run_cell_magic("compile", "", "def after_preview(x):\n    return x.cos() * 2\n")
    run_cell(ip, "ap = after_preview(xt)")
    rep = nbcompile.report(ip.user_ns["after_preview"])
    assert rep.preview == ""
    assert [k.language for k in rep.kernels if k.kind == "kernel"] == ["cpp"]


def test_codegen_triton_needs_inductor(ip):
    with pytest.raises(Exception, match="needs --backend inductor"):
        ip.run_cell_magic("compile", "--codegen triton --backend eager",
                          "def g(x):\n    return x\n")
