"""The parsing rules of generated code on small hand-written texts: kernels split and
relocated after a cache hit, kernels of two compiles paired by name."""

from __future__ import annotations

from nbcompile.core.insight.compile_diff import diff_compiles
from nbcompile.core.records import CompileRecord, Kernel
from nbcompile.core.trace.output_code import split_kernels

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
