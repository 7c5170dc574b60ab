"""``%kprun`` (``nbcompile.profile``) of a training step on a CUDA GPU: the backward's
extern matmuls (``extern_kernels.mm``, launched as ``aten::mm`` on the autograd thread)
matched to their extern kernels with their device time, and the total device time
against ``torch.profiler``'s for the same code under plain ``torch.compile``."""

from __future__ import annotations

from typing import Any

import torch
from torch.profiler import ProfilerActivity
from torch.profiler import profile as torch_profile

from nbcompile.core import torch_compat
from tests.support.gpu import save
from tests.support.shell import run_cell

MODEL = ("import torch\nimport nbcompile\ntorch.manual_seed(0)\n"
         "model_t = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(),\n"
         "                              torch.nn.Linear(256, 256)).cuda()\n"
         "xt = torch.randn(64, 256, device='cuda')")
STEP = ("def train_t(x):\n"
        "    out = model_t(x)\n"
        "    loss = out.square().mean()\n"
        "    loss.backward()\n"
        "    return loss\n")
LINE = 3  # ``out = model_t(x)``: the %%compile magic is line 1 of the cell
REPEAT = 10


def _in_backward(event: Any) -> bool:
    parent = event.cpu_parent
    while parent is not None:
        if "CompiledFunctionBackward" in parent.name:
            return True
        parent = parent.cpu_parent
    return False


def _torch_graph_device_us(fn: Any, x: torch.Tensor) -> tuple[float, int]:
    """torch's own figures for the same code compiled plainly: the device time of its
    compiled graphs per call (``device_time_total`` of each ``## Call CompiledFxGraph``
    event: the kernels CUPTI linked to the ops inside it) and the ``aten::mm`` launches of
    its backward graph per call."""
    compiled = torch.compile(fn)
    for _ in range(3):
        compiled(x)
    torch.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(REPEAT):
            compiled(x)
        torch.cuda.synchronize()
    calls = [e for e in p.events() or [] if e.name.startswith("## Call CompiledFxGraph")]
    device_us = sum(e.device_time_total for e in calls) / REPEAT
    mms = sum(1 for c in calls if _in_backward(c) for e in c.cpu_children
              if e.name == "aten::mm")
    return device_us, mms // REPEAT


def test_kprun_matches_backward_extern_matmuls_with_device_time(ip, evidence):
    run_cell(ip, MODEL)
    ip.run_cell_magic("compile", "", STEP)
    run_cell(ip, "_ = train_t(xt)\nrep_t = nbcompile.report(train_t)\n"
                 f"prof_t = nbcompile.profile(train_t, xt, repeat={REPEAT}, memory=False)")
    prof, report = ip.user_ns["prof_t"], ip.user_ns["rep_t"]
    torch_us, torch_mms = _torch_graph_device_us(
        torch_compat.orig_callable(ip.user_ns["train_t"]), ip.user_ns["xt"])
    save(evidence, "kprun_training_step",
         {"profile": prof.to_dict(), "torch_graph_device_us": torch_us,
          "torch_backward_mm_launches": torch_mms}, [])
    # the backward's extern matmuls, as Inductor generated them for the user's compile
    wanted = [k for k in report.kernels
              if k.stage == "backward" and k.kind == "extern" and k.name.endswith(".mm")]
    assert wanted and len(wanted) == torch_mms, (wanted, torch_mms)
    rows = [k for k in prof.kernels if k.stage == "backward" and k.kind == "extern"
            and k.name.endswith(".mm")]
    assert len(rows) == len(wanted), [(k.name, k.kind, k.stage, k.event) for k in prof.kernels]
    for row in rows:  # each: its own extern kernel, every call, device time, its line
        assert row.event == "aten::mm" and row.calls == REPEAT, row
        assert row.total_s > 0 and row.lines == [LINE], row
    # nothing of the graphs left unmatched: no 'aten::mm' row of kind 'other'
    assert not [k for k in prof.kernels if k.kind == "other" and k.event == "aten::mm"]
    # Triton kernels are the graphs' kernels, not 'other' rows
    assert any(k.kind == "kernel" and k.name.startswith("triton_") for k in prof.kernels)
    mine_us = sum(k.total_s for k in prof.kernels
                  if k.kind in ("kernel", "extern")) / prof.repeat * 1e6
    assert torch_us > 0 and 0.5 < mine_us / torch_us < 2.0, (mine_us, torch_us)
