"""A module made of torch's own layers: none of its source lines maps to a kernel, and its
record says so and why, in one sentence that agrees with torch's own graph of it (no op has
a stack trace; the layers are those its ``nn_module_stack`` names). Where a line maps,
nothing is said."""

from __future__ import annotations

import re

import torch

from nbcompile.core.insight.annotate import no_kernel_lines, torch_layers
from nbcompile.core.records import (
    CellRef,
    CompileRecord,
    Kernel,
    LineAnnotation,
    SourceLine,
    TargetRecord,
)

CELL = "<ipython-input-3-0123456789ab>"


def _torch_graph(fn, *args) -> torch.fx.GraphModule:
    """The graph Dynamo hands its backend for ``fn(*args)``: torch's own record."""
    graphs: list[torch.fx.GraphModule] = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compile(fn, backend=backend)(*args)
    return graphs[-1]


def _record(name: str, kind: str, gm: torch.fx.GraphModule, lines: list[SourceLine],
            annotations: list[LineAnnotation]) -> TargetRecord:
    # The graph's text as the structured trace logs it (``dynamo_output_graph``).
    text = gm.print_readable(print_output=False, include_stride=True, include_device=True)
    kernels = [Kernel("cpp_fused_relu_0", "cpp", "...", lines=lines),
               Kernel("extern_kernels.addmm", "cpp", "...", kind="extern", lines=lines),
               Kernel("call", "python", "...", kind="wrapper")]
    return TargetRecord(id="t1", name=name, kind=kind,  # type: ignore[arg-type]
                        status="compiled", cell=CellRef(CELL, 3),
                        compiles=[CompileRecord("0/0", "forward", graphs=[text])],
                        kernels=kernels, annotations=annotations)


def _cell_lines(*texts: str) -> list[LineAnnotation]:
    return [LineAnnotation(CELL, n, t, "outside") for n, t in enumerate(texts, start=1)]


def test_a_module_of_torch_layers_says_no_line_maps_and_why():
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU())
    gm = _torch_graph(model, torch.randn(4, 16))
    ops = [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]
    # torch's answer: no op of the graph has a stack trace (Dynamo leaves frames inside
    # torch/nn/modules out), and the layers each op ran in are torch's own
    assert ops and not any(n.meta.get("stack_trace") for n in ops), [
        n.meta.get("stack_trace") for n in ops]
    torch_names = {str(t).rsplit(".", 1)[-1].strip("'>") for n in ops
                   for _, t in n.meta["nn_module_stack"].values()}
    layers = torch_layers(model)
    assert set(layers) == torch_names - {"Sequential"} == {"Linear", "ReLU"}

    lines = _cell_lines("model = torch.nn.Sequential(torch.nn.Linear(16, 16), "
                        "torch.nn.ReLU())")
    said = no_kernel_lines(_record("model", "module", gm, [], lines), lines, layers)
    assert said == (
        "No source line of `model` maps to a kernel: torch recorded no source line for any "
        "op of its graph, since they all run inside torch's own layers (Linear, ReLU), "
        "whose lines torch leaves out of an op's stack trace.")


def test_nothing_is_said_where_a_line_maps():
    def f(x):
        return torch.relu(x @ x) + 1

    gm = _torch_graph(f, torch.randn(4, 4))
    # torch names the user's own lines (this file's) for the ops of a function of theirs
    files = {m.group(1) for n in gm.graph.nodes
             if (m := re.search(r'File "([^"]+)"', n.meta.get("stack_trace") or ""))}
    assert files == {__file__}, files
    lines = _cell_lines("def f(x):", "    return torch.relu(x @ x) + 1")
    mapped = [SourceLine(CELL, 2, "    return torch.relu(x @ x) + 1")]
    assert no_kernel_lines(_record("f", "function", gm, mapped, lines), lines) == ""
    lines[1].kernel_refs = [0]  # tied through the annotations alone
    assert no_kernel_lines(_record("f", "function", gm, [], lines), lines) == ""
    # no kernel yet (waiting for the first call): nothing to light, nothing to say
    pending = _record("f", "function", gm, [], lines)
    pending.kernels = []
    assert no_kernel_lines(pending, _cell_lines("def f(x):")) == ""


def test_kernels_tied_to_lines_not_shown_name_their_files():
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU())
    gm = _torch_graph(model, torch.randn(4, 16))
    elsewhere = [SourceLine("/home/u/project/helpers.py", 12, "return x.relu()")]
    lines = _cell_lines("model = make()")
    said = no_kernel_lines(_record("model", "module", gm, elsewhere, lines), lines)
    assert said == ("No source line of `model` maps to a kernel: its kernels came from "
                    "lines of helpers.py, not shown here.")
