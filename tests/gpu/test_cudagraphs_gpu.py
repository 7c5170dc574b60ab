"""``--mode reduce-overhead`` on a CUDA GPU: each compile's CUDA-graph outcome agrees with
torch's own record of the same run: the messages torch logs (its ``cudagraphs`` loggers),
``counters["inductor"]["cudagraph_skips"]`` and the recordings CUDA-graph trees log."""

from __future__ import annotations

import logging
import re

from torch._dynamo.utils import counters
from torch._inductor import config as inductor_config

import nbcompile
from nbcompile.core.notebook.cudagraphs import is_skip
from nbcompile.display.summary_model import summarize
from tests.support.gpu import TorchMessages, save
from tests.support.shell import run_cell

#: CUDA-graph trees log each recording here ("Recording cudagraph tree for ...", INFO).
TREES_LOGGER = "torch._inductor.cudagraph_trees.__cudagraphs"


def _skips() -> int:
    return int(counters["inductor"]["cudagraph_skips"])


def _total(report) -> str:
    (target,) = summarize([report]).targets
    return next(i.text for i in target.items if i.text.startswith("CUDA graphs:"))


def test_cpu_tensor_input_is_skipped_with_torchs_reason_and_line(ip, torch_messages, evidence):
    run_cell(ip, "import torch")
    cell = ip.execution_count
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def gcg_cpu(x, y):\n    a = (x + 1).sin()\n    b = y * 2\n"
                      "    return a, b\n")
    before = _skips()
    run_cell(ip, "xg = torch.randn(64, device='cuda'); yc = torch.randn(64)\n"
                 "for _ in range(3):\n    _ = gcg_cpu(xg, yc)")
    report = nbcompile.report(ip.user_ns["gcg_cpu"])
    save(evidence, "cpu_input", report, torch_messages.messages)
    said = [m for m in torch_messages.messages if is_skip(m)]
    assert said and "cpu device" in said[0], torch_messages.messages
    assert _skips() - before == len(said)  # torch counted what it said
    (compile_,) = report.compiles
    outcome = compile_.cudagraphs
    assert outcome is not None and outcome.status == "skipped"
    assert outcome.messages == torch_messages.messages
    assert outcome.reason.startswith("cpu device")
    assert outcome.line is not None and outcome.line.line == "b = y * 2"
    assert (outcome.line.lineno, outcome.cell) == (4, cell)
    assert _total(report).startswith("CUDA graphs: 0 of 1 graph runs as a CUDA graph; "
                                     "skipped: cpu device")


def test_mutated_input_is_skipped_at_its_first_run(ip, torch_messages, evidence):
    cell = ip.execution_count
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def gcg_mut(a, b):\n    a.add_(1)\n    return (a * b).sin()\n")
    before = _skips()
    run_cell(ip, "am = torch.randn(64, device='cuda'); bm = torch.randn(64, device='cuda')\n"
                 "for _ in range(3):\n    _ = gcg_mut(am, bm)")
    report = nbcompile.report(ip.user_ns["gcg_mut"])
    save(evidence, "mutated_input", report, torch_messages.messages)
    said = [m for m in torch_messages.messages if is_skip(m)]
    assert len(said) == 1 and "mutated inputs" in said[0], torch_messages.messages
    assert _skips() - before == 1
    outcome = report.compiles[-1].cudagraphs
    assert outcome is not None and outcome.status == "skipped"
    assert said[0] in outcome.messages
    assert outcome.reason == "mutated inputs (1 instances)"
    assert outcome.line is not None and outcome.line.line == "a.add_(1)"
    assert (outcome.line.lineno, outcome.cell) == (3, cell)  # the magic line is line 1


def test_recorded_graphs_and_recordings_per_input_size(ip, torch_messages, evidence):
    recordings = TorchMessages()
    trees = logging.getLogger(TREES_LOGGER)
    level = trees.level
    trees.setLevel(logging.DEBUG)
    trees.addHandler(recordings)
    sizes = (32, 48, 64, 80)
    try:
        # torch warns past 2 distinct sizes of one graph (its default is 8)
        with inductor_config.patch({"triton.cudagraph_dynamic_shape_warn_limit": 2}):
            ip.run_cell_magic("compile", "--mode reduce-overhead",
                              "def gcg_ok(x):\n    return (x + 1).sin() * 2\n")
            before = _skips()
            run_cell(ip, f"for n in {sizes}:\n    xs = torch.randn(n, device='cuda')\n"
                         "    for _ in range(3):\n        _ = gcg_ok(xs)")
    finally:
        trees.removeHandler(recordings)
        trees.setLevel(level)
    report = nbcompile.report(ip.user_ns["gcg_ok"])
    recorded = [m for m in recordings.messages if "recording cudagraph tree" in m.lower()]
    save(evidence, "sizes", {"record": report.to_dict(), "recordings": recorded},
         torch_messages.messages)
    assert _skips() == before and not any(is_skip(m) for m in torch_messages.messages)
    outcomes = [c.cudagraphs for c in report.compiles]
    assert outcomes and all(o is not None and o.status == "recorded" for o in outcomes)
    # torch records one graph per distinct size a compile sees: all four sizes
    assert len(recorded) == len(sizes), recordings.messages
    warned = [m for m in torch_messages.messages if "distinct sizes" in m]
    if warned:  # past the warn limit, torch's words are kept with the dynamic compile
        observed = re.search(r"observed (\d+) distinct sizes", warned[0])
        assert observed is not None and int(observed.group(1)) > 2
        assert any(warned[0] in (o.messages if o else []) for o in outcomes)
    n = len(outcomes)
    assert _total(report) == (f"CUDA graphs: {n} of {n} graphs run as CUDA graphs" if n > 1
                              else "CUDA graphs: 1 of 1 graph runs as a CUDA graph")
