# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 5. Reading the generated code
#
# Inductor's output for one graph is a Python module. It contains:
#
# * **kernels**: generated functions that do the actual work. On a CPU they are C++
#   loops (compiled into a shared library the first time); on a GPU they are
#   **Triton** kernels;
# * **extern kernels**: calls into existing libraries where those are already best,
#   such as `extern_kernels.addmm` for a linear layer's matmul;
# * the **wrapper**, a Python function `call(args)` that allocates the output
#   buffers and launches the kernels in order.
#
# nbcompile splits that module into `report(obj).kernels`, ties each kernel to the
# cell lines it came from, and can show the cell annotated line by line
# (`%%compile --annotate`, `report(obj).annotate()`). With `--codegen triton` it
# also shows the Triton code a GPU would get, generated here on the CPU.

# %%
# %load_ext nbcompile
import torch

import nbcompile

torch.manual_seed(0)
print("torch", torch.__version__, "| threads:", torch.get_num_threads())


# %% [markdown]
# ## Fusion: one kernel for a chain of operations

# %%
# %%compile --annotate
def wave(x):
    y = torch.sin(x) * 1.5 + torch.cos(x)
    y = torch.tanh(y) * torch.sigmoid(x)
    return torch.exp(-y * y) + x * 0.1


# %%
x = torch.randn(256, 256)
out = wave(x)     # the annotated source above fills in after this first call
r = nbcompile.report(wave)
for k in r.kernels:
    lines = [sl.lineno for sl in k.lines]
    print(f"{k.kind:8} {k.language:7} {k.name:45} lines {lines}")

# %% [markdown]
# Three lines of Python, nine operations, **one** generated kernel: its name lists
# the fused operations (`cpp_fused_add_cos_exp_mul_...`). Here is its C++ source:

# %%
kernel = next(k for k in r.kernels if k.kind == "kernel")
print(kernel.source)

# %% [markdown]
# What to look for in it:
#
# * `extern "C" void kernel(...)` takes plain pointers: the input `x` and the
#   output buffer (called `in_out_ptr0` when Inductor reuses a buffer). Nothing in
#   between is written to memory: the intermediate results live in registers;
# * the loop over all elements, usually split into a **vectorised** main loop
#   (`at::vec::Vectorized<float>`, several floats per instruction, when the CPU
#   supports it) and a scalar tail for the leftover elements;
# * `#pragma omp` lines: the loop is shared among the CPU threads;
# * every operation of the Python lines, in order, as one expression per temporary
#   (`tmp0`, `tmp1`, ...).
#
# And the wrapper that runs it:

# %%
wrapper = next(k for k in r.kernels if k.kind == "wrapper")
print(wrapper.source)

# %%
# check: one fused C++ kernel holds every operation of the three lines; the wrapper
# allocates the output and calls it; the annotation maps the lines to it
kernels = [k for k in r.kernels if k.kind == "kernel"]
assert len(kernels) == 1 and kernels[0].language == "cpp"
ops = {op.split(".")[1] for op in kernels[0].ops}
print(sorted(ops))
assert {"sin", "cos", "tanh", "sigmoid", "exp", "mul", "add"} <= ops
assert 'extern "C"' in kernel.source
assert kernel.name in wrapper.source and "empty_strided" in wrapper.source
annotated = r.annotate()
body = [a.lineno for a in annotated.by_category("kernel")]
assert body == [3, 4, 5], body


# %% [markdown]
# ## A module: extern matmuls and fused activations
#
# A linear layer is a matrix multiplication plus a bias. Inductor does not write its
# own matmul on the CPU: it calls `extern_kernels.addmm` (bias + matmul in one
# library call) and fuses what comes after it (here: the GELU) into a kernel.

# %%
class Block(torch.nn.Module):
    def __init__(self, width=128):
        super().__init__()
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        h = self.up(x)
        h = torch.nn.functional.gelu(h)
        return x + self.down(h)


# %%
# %%compile --annotate
block = Block()

# %%
y = block(torch.randn(32, 128))
rb = nbcompile.report(block)
for k in rb.kernels:
    where = [sl.line for sl in k.lines]
    print(f"{k.kind:8} {k.name:40} {where}")

# %%
# check: both linear layers are extern addmm calls, the GELU is a generated kernel
externs = [k for k in rb.kernels if k.kind == "extern"]
generated = [k for k in rb.kernels if k.kind == "kernel"]
assert [k.name for k in externs].count("extern_kernels.addmm") >= 1
assert any("mm" in k.name for k in externs)
assert any("gelu" in k.name for k in generated), [k.name for k in generated]
lines_of_externs = {sl.line for k in externs for sl in k.lines}
assert "h = self.up(x)" in lines_of_externs

# %% [markdown]
# The whole generated module is in `report(obj).output_code`, and Inductor also
# keeps it on disk (the path is in each compile record). Browse the kernels of both
# targets with the menu below (it works in JupyterLab; here it shows the first).

# %%
import ipywidgets as widgets
from IPython.display import display

everything = {f"{name}: {k.name}": k
              for name, rep in [("wave", r), ("block", rb)] for k in rep.kernels}
choice = widgets.Dropdown(options=list(everything), description="kernel",
                          layout=widgets.Layout(width="90%"))
source_view = widgets.Output()

def show_kernel(_=None):
    source_view.clear_output()
    with source_view:
        print(everything[choice.value].source)

choice.observe(show_kernel, names="value")
display(widgets.VBox([choice, source_view]))
show_kernel()
print(f"output code of block: {len(rb.output_code):,} characters; on disk:",
      rb.compiles[0].output_code_path)

# %% [markdown]
# ## The same function as Triton (a GPU preview)
#
# On a GPU, Inductor writes **Triton** kernels instead of C++. `%%compile --codegen
# triton` asks Inductor for them on this CPU-only machine: the code is exactly what
# a GPU build would compile, but here it can only run in Triton's slow
# *interpreter*, and not every kernel can. The preview is for reading, not timing.
#
# It needs the `triton` package (`pip install triton` installs beside the CPU
# build of torch).

# %%
import importlib.util

HAVE_TRITON = importlib.util.find_spec("triton") is not None
print("triton installed:", HAVE_TRITON)


# %% tags=["raises-exception"]
# %%compile --codegen triton
def swish_shift(x):
    return torch.sigmoid(x) * x + 1.0


# %%
from nbcompile.core.notebook.triton_preview import TritonPreviewError

if HAVE_TRITON:
    try:
        preview_out = swish_shift(x)
        print("ran in Triton's interpreter; same result as eager:",
              torch.allclose(preview_out, torch.sigmoid(x) * x + 1.0, atol=1e-6))
    except TritonPreviewError as err:
        print("generated, but the interpreter could not run it:", err)
    rt = nbcompile.report(swish_shift)
    triton_kernel = next(k for k in rt.kernels if k.language == "triton")
    print(triton_kernel.source[triton_kernel.source.index("@triton.jit"):])
else:
    print("skipped: pip install triton to see the preview")

# %% [markdown]
# A Triton kernel is written for *one block* of elements; the GPU runs many copies
# (programs) at once:
#
# * `tl.program_id(0) * XBLOCK` is where this program's block starts, and
#   `xindex = xoffset + tl.arange(0, XBLOCK)` are the element indices it handles;
# * `xmask` switches off the indices past the end when the size is not a multiple of
#   the block;
# * `tl.load` reads a whole block from memory, the arithmetic works on the block,
#   `tl.store` writes the block back: the same fusion as the C++ loop, organised for
#   thousands of GPU threads instead of a few CPU cores.

# %%
# check: the preview produced a Triton kernel with block loads and stores
if HAVE_TRITON:
    assert triton_kernel.name.startswith("triton_poi_fused")
    for token in ("@triton.jit", "tl.program_id", "tl.load", "tl.store"):
        assert token in triton_kernel.source, token

# %% [markdown]
# ## What you saw
#
# * Inductor's output is a wrapper plus kernels; elementwise work is fused into one
#   generated kernel per graph region, matmuls go to library calls.
# * `report(obj).kernels` has each kernel's language, source, ops and cell lines;
#   `--annotate` colours the cell by what each line became.
# * `--codegen triton` shows the GPU version of the same fusion.
#
# Next: **6. Compiling a training step**.
