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
# # 3. Modes and timing: when does compiling pay off?
#
# `torch.compile(mode=...)` picks a bundle of Inductor settings:
#
# * `default`: fusion and generated kernels; the baseline of compiled code.
# * `reduce-overhead`: adds **CUDA graphs**: the GPU records the whole sequence of kernel
#   launches once and replays it with one call, removing the CPU's launch overhead.
#   Skipped on this CPU: there is no GPU to record on.
# * `max-autotune`: tries several implementations of matmuls/convolutions (and kernel
#   configs) and keeps the fastest; plus CUDA graphs. On this CPU the autotuning part
#   applies, and compiles take longer.
# * `max-autotune-no-cudagraphs`: the autotuning without CUDA graphs; same as above.
#
# Whether any of it pays off depends on where the time goes. This notebook measures,
# with nbcompile's `%compare` (and `nbcompile.compare(fn, *args, modes=...)`):
#
# * the first call (compile) is reported apart from the steady-state run time;
# * eager and every mode are measured in **interleaved** repeats, so a load spike on
#   the machine hits all of them alike, with the thread count held fixed;
# * each speedup is the median of per-repeat ratios to eager, with its spread
#   (interquartile range). The row's verdict says **faster** only when that spread
#   stays clear of 1.0x, the effect is at least 3 % and the run-time spreads of the
#   mode and of eager do not overlap; otherwise it says *no significant
#   difference* instead of ranking noise. (On a busy machine the last condition can
#   fail even for a clear speedup: then read the paired spread.)
# * each mode's output is compared with eager's.
#
# The checks below never assert absolute times, only what the comparisons conclude.

# %%
# %load_ext nbcompile
import matplotlib.pyplot as plt
import torch

import nbcompile

torch.manual_seed(0)
print("torch", torch.__version__, "| threads:", torch.get_num_threads())


# %% [markdown]
# ## Case 1: a chain of elementwise operations
#
# Eager PyTorch runs `wave` as nine separate operations, each reading its inputs
# from memory and writing a full-size result back. Inductor fuses all of them into
# one loop that reads `x` once and writes the result once.

# %%
def wave(x):
    y = torch.sin(x) * 1.5 + torch.cos(x)
    y = torch.tanh(y) * torch.sigmoid(x)
    return torch.exp(-y * y) + x * 0.1

x = torch.randn(1024, 1024)

# %%
# wave_cmp = %compare wave(x) --modes default,reduce-overhead,max-autotune-no-cudagraphs --budget 6
wave_cmp

# %% [markdown]
# Read the table from left to right: the **compile** column is the first call of
# each mode (modes that produce the same code hit Inductor's cache and compile
# quickly); **run** is the median steady-state time with half the interquartile
# range; **speedup** is the median of per-repeat ratios to eager, with its spread in
# brackets; **max |diff|** checks that the mode computes the same thing.
#
# The `reduce-overhead` row carries a note: CUDA graphs do not apply on a CPU, so
# this mode ran as plain compiled code. On a GPU it matters most for small batches,
# where launching many tiny kernels costs more than running them.

# %%
# check: the fused chain is faster than eager, and the difference is significant;
# every mode computes the same numbers; reduce-overhead says it skipped CUDA graphs
default = wave_cmp.row("default")
print(default.mode, default.verdict, f"{default.speedup:.2f}x",
      f"[{default.speedup_q1:.2f}-{default.speedup_q3:.2f}]")
print("verdict:", default.verdict)
# the paired per-repeat speedups stay clear of 1.0x, by more than 3 %
assert default.speedup_q1 > 1.0 and default.speedup > 1.03
assert all(row.numerics_ok for row in wave_cmp.rows)
assert any("CUDA graphs" in note for note in wave_cmp.row("reduce-overhead").notes)


# %% [markdown]
# ## Case 2: a matmul-bound model
#
# A stack of 512-wide linear layers spends almost all its time in matrix
# multiplications. Eager PyTorch already calls an optimised library (oneDNN/MKL)
# for them, and so does the compiled code: Inductor emits the same library call as
# an *extern kernel* (`extern_kernels.addmm`) and only fuses the small activation
# functions around it. Notebook 5 shows that code.

# %%
class Stack(torch.nn.Module):
    def __init__(self, width=512, depth=3):
        super().__init__()
        self.layers = torch.nn.ModuleList(
            torch.nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x

stack = Stack()
xs = torch.randn(64, 512)

# %%
# stack_cmp = %compare stack(xs) --modes default,max-autotune-no-cudagraphs --budget 5
stack_cmp

# %%
labels = ["wave: default", "stack: default", "stack: max-autotune-nc"]
rows = [wave_cmp.row("default"), stack_cmp.row("default"),
        stack_cmp.row("max-autotune-no-cudagraphs")]
medians = [r.speedup for r in rows]
low = [r.speedup - r.speedup_q1 for r in rows]
high = [r.speedup_q3 - r.speedup for r in rows]

fig, ax = plt.subplots(figsize=(6, 3))
ax.bar(labels, medians, yerr=[low, high], capsize=6, color=["C2", "C0", "C0"])
ax.axhline(1.0, color="k", lw=1, ls="--")
ax.set_ylabel("speedup vs eager (median, IQR)")
ax.set_title("Fusion pays off; a library matmul is already fast")
plt.show()

# %%
# check: compiling helps the elementwise chain much more than the matmul stack
assert stack_cmp.row("default").speedup < wave_cmp.row("default").speedup
assert all(row.numerics_ok for row in stack_cmp.rows)


# %% [markdown]
# ## Where the time goes
#
# `%compare` times the whole call. When a mode is not faster than eager, it also
# profiles the call and says why, with the measured number each reason rests on
# (the *why not faster* lines under the `stack` rows above): per-call overhead
# dominating a small workload, extern library calls taking most of the time, graph
# breaks between graphs, recompiles during the measurement.
#
# `%kprun` (after IPython's `%prun`) shows that profile itself: it compiles a fresh
# copy, runs it under `torch.profiler`, and lists the measured time of every
# generated kernel and extern call, painted on the source lines they came from,
# next to what eager spent on the same lines.

# %%
# stack_prof = %kprun stack(xs) --repeat 10
stack_prof

# %%
# check: the matmul stack's kernel time is in the library matmuls (extern calls),
# and every mode the comparison did not find faster carries a measured explanation
from nbcompile.core.perf.explain import needs_explanation

extern_share = sum(k.share for k in stack_prof.kernels if k.kind == "extern")
print(f"extern calls: {extern_share:.0%} of the kernel time")
assert any(k.kind == "extern" and "addmm" in k.name for k in stack_prof.kernels)
for row in stack_cmp.rows:
    assert bool(row.explanations) == needs_explanation(row), row.mode
    print(row.mode, row.verdict, [e.kind for e in row.explanations])

# %% [markdown]
# The first call's compile has phases too. A function compiled with `%%compile`
# reports each compile's time by phase (Dynamo tracing, AOTAutograd, Inductor passes
# and lowering, code generation, the C++ compile) as a stacked bar, and
# `save_chrome_trace` writes the same events for Perfetto or `chrome://tracing`.

# %%
# %%compile
def wave_compiled(x):
    return wave(x)

# %%
import os
import tempfile

_ = wave_compiled(x)
wave_report = nbcompile.report(wave_compiled)
trace_path = wave_report.save_chrome_trace(os.path.join(tempfile.mkdtemp(), "wave.json"))
print("chrome trace:", trace_path.stat().st_size, "bytes")
wave_report

# %%
# check: every compile has its phases, and they add up to at most its compile time
for c in wave_report.compiles:
    assert c.phases and sum(c.phases.values()) <= c.times["total_s"] + 1e-6
    print(c.compile_id, {name: round(s, 2) for name, s in c.phases.items()})


# %% [markdown]
# ## Does the compile time pay back?
#
# A speedup per call only helps after enough calls to repay the first call's
# compile. The break-even point is compile time divided by the time saved per call:

# %%
def break_even(cmp, mode="default"):
    row, eager = cmp.row(mode), cmp.row("eager")
    saved = eager.median_s - row.median_s
    return row.compile_s / saved if saved > 0 else float("inf")

for name, cmp in [("wave", wave_cmp), ("stack", stack_cmp)]:
    calls = break_even(cmp)
    print(f"{name:6} compile {cmp.row('default').compile_s:6.2f} s, "
          f"break-even after {calls:,.0f} calls" if calls != float("inf")
          else f"{name:6} never pays back at this size")

# %% [markdown]
# (Compile times here depend on Inductor's on-disk cache: a graph compiled before,
# by you or by another notebook, costs far less the second time.)
#
# ## Try it: batch size and mode
#
# Speedups depend on the input size. In JupyterLab, pick a batch size and a mode for
# the `stack` model and press *Compare* (each run compiles a fresh copy and takes a
# few seconds). Small batches leave less work per call, so fixed per-call costs
# weigh more.

# %%
import ipywidgets as widgets
from IPython.display import display

batch = widgets.SelectionSlider(options=[1, 8, 64, 256, 1024], value=64,
                                description="batch")
mode = widgets.Dropdown(options=["default", "max-autotune-no-cudagraphs"],
                        description="mode")
run = widgets.Button(description="Compare", button_style="primary")
result = widgets.Output()

def on_run(_=None):
    result.clear_output()
    with result:
        inputs = torch.randn(batch.value, 512)
        display(nbcompile.compare(stack, inputs, modes=(mode.value,), budget_s=2))

run.on_click(on_run)
display(widgets.VBox([widgets.HBox([batch, mode, run]), result]))

# %% [markdown]
# ## What you saw
#
# * Compiling pays off when fusion removes memory traffic and per-operation
#   overhead (elementwise chains, normalisations, activations, optimizer updates);
#   it does little for time spent inside one big library matmul.
# * `reduce-overhead` is about CUDA graphs: a GPU feature; on a CPU it changes nothing.
# * `max-autotune` trades compile time for trying more implementations; measure
#   before you keep it.
# * Time with interleaved repeats and look at the spread: a speedup whose range
#   includes 1.0x is not a speedup.
#
# Next: **4. Recompiles and dynamic shapes**.
