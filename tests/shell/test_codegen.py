"""Generated code split into kernels tied to cell lines: real CPU compiles in-process."""

from __future__ import annotations

import pytest
import torch

import nbcompile
from tests.support.shell import run_cell

CELL = '''import torch
import torch.nn as nn

def pointwise(x):
    a = x * 2
    b = torch.sin(a) + 1
    return b.relu()

class TinyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        h = self.fc1(x)
        h = torch.relu(h)
        return self.fc2(h)

tiny_mlp = TinyMLP()
'''


@pytest.fixture(scope="module")
def compiled(ip):
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "xin = torch.randn(8, 16)\npw = pointwise(xin)\nout = tiny_mlp(xin)")
    return ip


def lineno(rep, text: str) -> int:
    """The cell line number of the line whose stripped text is ``text``."""
    import linecache

    lines = linecache.getlines(rep.cell.filename)
    return next(i for i, line in enumerate(lines, start=1) if line.strip() == text)


def test_pointwise_chain_is_one_cpp_kernel_mapped_to_exactly_its_lines(compiled):
    rep = nbcompile.report(compiled.user_ns["pointwise"])
    kernels = [k for k in rep.kernels if k.kind == "kernel"]
    assert len(kernels) == 1
    (k,) = kernels
    assert k.language == "cpp" and k.name.startswith("cpp_fused_")
    assert k.size == len(k.source) > 0 and 'extern "C"' in k.source
    assert {"aten.mul", "aten.sin", "aten.add", "aten.relu"} <= set(k.ops)
    expected = {lineno(rep, t) for t in ("a = x * 2", "b = torch.sin(a) + 1", "return b.relu()")}
    assert {sl.lineno for sl in k.lines} == expected
    assert all(sl.filename == rep.cell.filename for sl in k.lines)
    assert [sl.line for sl in k.lines] == ["a = x * 2", "b = torch.sin(a) + 1", "return b.relu()"]
    wrapper = [k for k in rep.kernels if k.kind == "wrapper"]
    assert len(wrapper) == 1 and wrapper[0].name == "call" and k.name in wrapper[0].source


def test_mlp_addmm_extern_calls_map_to_the_linear_lines(compiled):
    rep = nbcompile.report(compiled.user_ns["tiny_mlp"])
    addmms = [k for k in rep.kernels if k.kind == "extern" and k.stage != "backward"]
    assert [k.name for k in addmms] == ["extern_kernels.addmm", "extern_kernels.addmm"]
    assert all(k.language == "python" and "aten.addmm" in k.ops for k in addmms)
    assert [[sl.lineno for sl in k.lines] for k in addmms] == [
        [lineno(rep, "h = self.fc1(x)")], [lineno(rep, "return self.fc2(h)")]
    ]
    relu = [k for k in rep.kernels if k.kind == "kernel"]
    assert len(relu) == 1 and relu[0].name.startswith("cpp_fused_relu")
    assert [sl.lineno for sl in relu[0].lines] == [lineno(rep, "h = torch.relu(h)")]


def test_published_record_keeps_kernel_lines(compiled):
    from nbcompile.display.bundle import published_record

    data = published_record(nbcompile.report(compiled.user_ns["pointwise"]))
    kernel = next(k for k in data["kernels"] if k["kind"] == "kernel")
    assert kernel["lines"] and kernel["ops"] and kernel["stage"] == "inference"
    assert all(c["post_grad_graphs"] == [] for c in data["compiles"])


BLOCK = '''import torch
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 16)
    def forward(self, x):
        h = self.up(x)
        h = torch.nn.functional.gelu(h)
        return x + self.down(h)
block = Block()
'''


def test_provenance_ties_each_cpp_kernel_to_exactly_its_line(ip):
    """Two kernels sharing ops (gelu's adds, the residual add) are told apart by Inductor's
    own provenance tracking, which the extension turns on while it is loaded."""
    assert torch._inductor.config.trace.provenance_tracking_level >= 1
    ip.run_cell_magic("compile", "", BLOCK)
    run_cell(ip, "with torch.no_grad():\n    bout = block(torch.randn(4, 16))")
    rep = nbcompile.report(ip.user_ns["block"])
    by_name = {k.name: k for k in rep.kernels if k.kind == "kernel"}
    gelu = next(k for n, k in by_name.items() if "gelu" in n)
    add = next(k for n, k in by_name.items() if "gelu" not in n and "add" in n)
    assert [line.line for line in gelu.lines] == ["h = torch.nn.functional.gelu(h)"]
    assert [line.line for line in add.lines] == ["return x + self.down(h)"]
    externs = [k for k in rep.kernels if k.kind == "extern"]
    assert [k.lines[0].line for k in externs] == ["h = self.up(x)", "return x + self.down(h)"]


def test_unload_restores_provenance_tracking(ip):
    before = torch._inductor.config.trace.provenance_tracking_level
    ip.run_line_magic("unload_ext", "nbcompile")
    try:
        assert torch._inductor.config.trace.provenance_tracking_level == 0
    finally:
        ip.run_line_magic("load_ext", "nbcompile")
    assert torch._inductor.config.trace.provenance_tracking_level == before
