"""Generated code split into kernels tied to cell lines: real CPU compiles in-process,
plus the parsing rules on small hand-written texts."""

from __future__ import annotations

import pytest
import torch

import nbcompile
from nbcompile.core.insight.compile_diff import diff_compiles
from nbcompile.core.records import CompileRecord, Kernel
from nbcompile.core.trace.output_code import split_kernels

from .conftest import run_cell

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


# --- parsing rules on hand-written texts (no compile) --------------------------------

DYNAMO = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8][1]cpu"):
        l_x_ = L_x_

        # File: <cell-2>:3 in f, code: y = x.relu()
        y: "f32[8][1]cpu" = l_x_.relu();  l_x_ = None

        # File: <cell-2>:4 in f, code: z = y @ y
        z: "f32[8][1]cpu" = y @ y

        # File: <cell-2>:5 in f, code: return z.relu() * 2
        relu_1: "f32[8][1]cpu" = z.relu()
        mul: "f32[8][1]cpu" = relu_1 * 2
        return (mul,)
'''
# As logged on an FX-graph-cache hit: the locations of the compile that filled the cache.
STALE_POST_GRAD = '''class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8][1]cpu"):
        # File: <cell-1>:7 in f, code: y = x.relu()
        relu: "f32[8][1]cpu" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None

        # File: <cell-1>:8 in f, code: z = y @ y
        mm: "f32[8][1]cpu" = torch.ops.aten.mm.default(relu, relu)

        # File: <cell-1>:9 in f, code: return z.relu() * 2
        relu_1: "f32[8][1]cpu" = torch.ops.aten.relu.default(mm)
        mul: "f32[8][1]cpu" = torch.ops.aten.mul.Tensor(relu_1, 2);  relu_1 = None
        return (mul,)
'''
OUTPUT = """# AOT ID: ['3_inference']
import torch
cpp_fused_relu_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
extern "C" void kernel(const float* in_ptr0, float* out_ptr0) { /* relu */ }
''')


cpp_fused_mul_relu_1 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
extern "C" void kernel(const float* in_ptr0, float* out_ptr0) { /* relu, mul */ }
''')


async_compile.wait(globals())

class Runner:
    def call(self, args):
        arg0_1, = args
        buf0 = empty_strided_cpu((8, ), (1, ), torch.float32)
        cpp_fused_relu_0(arg0_1, buf0)
        buf1 = empty_strided_cpu((8, ), (1, ), torch.float32)
        # Topologically Sorted Source Nodes: [z], Original ATen: [aten.mm]
        extern_kernels.mm(buf0, buf0, out=buf1)
        cpp_fused_mul_relu_1(buf0, buf1)
        return (buf1, )

runner = Runner(partitions=[])
"""


def test_split_kernels_relocates_cache_hit_locations_and_splits_same_ops():
    kernels = split_kernels(OUTPUT, [DYNAMO], "3/0", post_grad_graph=STALE_POST_GRAD)
    by_name = {k.name: k for k in kernels}
    assert [k.kind for k in kernels] == ["kernel", "kernel", "extern", "wrapper"]
    assert all(k.stage == "inference" and k.compile_id == "3/0" for k in kernels)
    first, second = by_name["cpp_fused_relu_0"], by_name["cpp_fused_mul_relu_1"]
    assert [(sl.filename, sl.lineno) for sl in first.lines] == [("<cell-2>", 3)]
    assert first.nodes == ["relu"]
    assert [(sl.filename, sl.lineno) for sl in second.lines] == [("<cell-2>", 5)]
    assert second.ops == ["aten.relu", "aten.mul"] and second.nodes == ["relu_1", "mul"]
    extern = by_name["extern_kernels.mm"]
    assert extern.ops == ["aten.mm"] and [sl.lineno for sl in extern.lines] == [4]


def test_diff_kernels_pairs_by_name_and_reports_added():
    def rec(cid: str, sources: dict[str, str]) -> CompileRecord:
        return CompileRecord(compile_id=cid, frame="f", kernels=[
            Kernel(name=n, language="cpp", source=s, compile_id=cid) for n, s in sources.items()
        ])

    before = rec("0/0", {"cpp_fused_a_0": "float x;\nreturn;"})
    after = rec("0/1", {"cpp_fused_a_0": "double x;\nreturn;", "cpp_fused_b_1": "int y;"})
    after.recompile_reason = "tensor 'x' dtype mismatch. expected Float, actual Double"
    diffs = diff_compiles([before, after])
    assert [(d.kernel, d.change) for d in diffs] == [("cpp_fused_a_0", "changed"),
                                                      ("cpp_fused_b_1", "added")]
    assert "-float x;" in diffs[0].diff and "+double x;" in diffs[0].diff
    assert diffs[0].cause.startswith("tensor 'x' dtype")
    assert diff_compiles([before]) == []


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
