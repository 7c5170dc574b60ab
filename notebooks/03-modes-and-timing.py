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
# * each speedup is the median of per-repeat ratios to eager, with the 95 % confidence
#   interval of that median beside it (`[95% CI 3.1-3.6x]`). The row's verdict says
#   **faster** (or **slower**) when the interval lies entirely above (below) 1.0x and
#   the effect is at least 3 %; *no significant difference* when a narrow interval
#   holds 1.0x; *inconclusive* when a wide one does (or too few repeats were bought);
# * each mode's output is compared with eager's;
# * each row, eager included, also measures the memory of one call (see *Where the
#   memory goes* below).
#
# The checks below assert no times and no speedups (they depend on the machine and on
# what else runs on it): the numbers each mode computes, the notes, the explanations.

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
# range; **speedup** is the median of per-repeat ratios to eager, with the interval
# its verdict rests on in brackets; **max |diff|** checks that the mode computes the
# same thing; **peak memory/call** and **allocated/call** are the memory of one call.
# The line under the title says what the command took: the `--budget` bounds the timed
# calls, and the first calls (compiles) and the memory measurement come on top.
#
# The `reduce-overhead` row carries a note: CUDA graphs do not apply on a CPU, so
# this mode ran as plain compiled code. On a GPU it matters most for small batches,
# where launching many tiny kernels costs more than running them.

# %%
# check: every mode computes the same numbers; reduce-overhead says it skipped CUDA
# graphs. The speedup is printed, not asserted: how much faster depends on the machine
# and on what else runs on it (`python -m benchmarks --only 6` measures it)
default = wave_cmp.row("default")
print(default.mode, default.verdict, f"{default.speedup:.2f}x",
      f"[{default.speedup_q1:.2f}-{default.speedup_q3:.2f}]")
print("verdict:", default.verdict)
assert all(row.numerics_ok for row in wave_cmp.rows)
overhead = wave_cmp.row("reduce-overhead")
assert any("CUDA graphs" in note for note in overhead.notes), overhead.notes


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
# check: every mode computes the same numbers (the speedups above are measurements of this
# machine at this moment; why the stack gains less is in its code: its matmuls stay
# library calls, checked with %kprun below)
print(f"default mode: wave {wave_cmp.row('default').speedup:.2f}x, "
      f"stack {stack_cmp.row('default').speedup:.2f}x")
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
# ## Where the memory goes
#
# Every `%compare` row also measures the memory of one more call: **peak memory/call**
# is the most tensor memory in use at once during the call, above what was in use
# before it (the call's output counts), and **allocated/call** is every byte the
# allocator handed out during it. On a CPU nbcompile reads both from `torch.profiler`'s
# allocation events (`profile_memory=True`), on a GPU from the CUDA allocator's
# statistics; beside the peak the row says how it compares with eager's
# (`0.25x eager's peak`). For a training step a **saved for backward** column shows
# what the forward keeps for backward, eager against AOTAutograd's compiled forward.
#
# `wave` above is the classic case for compiled code: eager PyTorch writes one full-size
# intermediate per operation, while the fused kernel writes only its output.

# %%
# check: the fused chain needs a fraction of eager's memory
MiB = 2**20
eager_row, fused = wave_cmp.row("eager"), wave_cmp.row("default")
for row in (eager_row, fused):
    print(f"{row.mode:8} peak {row.peak_memory_bytes / MiB:5.1f} MiB, allocated "
          f"{row.allocated_bytes / MiB:5.1f} MiB  {row.memory_verdict}")
assert fused.peak_memory_bytes <= 0.5 * eager_row.peak_memory_bytes
assert fused.allocated_bytes < eager_row.allocated_bytes / 4

# %% [markdown]
# `%kprun` shows the same per kernel and per source line: `stack_prof.memory` has the
# peaks of one compiled and one eager call and a timeline of the bytes in use across
# each (the chart in the profile above); each kernel row carries the bytes it allocated,
# each source line the bytes allocated on it, compiled and eager.

# %%
mem = stack_prof.memory
print(f"stack: peak {mem.peak_bytes / MiB:.2f} MiB compiled, {mem.eager_peak_bytes / MiB:.2f} "
      f"MiB eager; {len(mem.timeline)} timeline points")
for line in stack_prof.lines:
    if line.eager_allocated_bytes or line.compiled_allocated_bytes:
        print(f"  line {line.lineno}: {line.compiled_allocated_bytes / MiB:.2f} MiB compiled, "
              f"{line.eager_allocated_bytes / MiB:.2f} MiB eager  {line.line.strip()}")

# %% [markdown]
# ### When compiled code needs more
#
# Compiled code is not always leaner. `torch.compile` rewrites every in-place change
# out of place (AOTAutograd *functionalizes* the graph) and copies the result back into
# the input afterwards. Eager `scatter_add_` adds into the buffer where it is and
# allocates nothing; the compiled call allocates a whole new buffer of the same size.

# %%
def accumulate(counts, idx, src):
    counts.scatter_add_(0, idx, src)
    return counts

counts = torch.zeros(1024, 1024)
idx = torch.randint(0, 1024, (64, 1024))
src = torch.randn(64, 1024)

# %%
# acc_cmp = %compare accumulate(counts, idx, src) --modes default --budget 2
acc_cmp

# %%
# check: eager adds in place; the compiled call allocates a buffer the size of counts,
# and the row says why (the numbers its reason rests on are the rows' own)
acc = acc_cmp.row("default")
print("eager allocates", acc_cmp.row("eager").allocated_bytes, "bytes; compiled",
      acc.allocated_bytes, f"({acc.memory_verdict})")
for reason in acc.memory_explanations:
    print(reason.kind, reason.evidence)
assert acc_cmp.row("eager").allocated_bytes == 0
assert acc.peak_memory_bytes >= counts.numel() * counts.element_size()
assert any(r.kind == "functionalized-mutation" for r in acc.memory_explanations)
assert torch.count_nonzero(counts) == 0  # measured on copies: your buffer is untouched

# %% [markdown]
# On a GPU the other classic cost is `reduce-overhead`: CUDA graphs keep a memory pool
# of their own between calls; its row says how much (`held between calls`).
#
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


# %% [markdown]
# ## CUDA graphs: `--mode reduce-overhead`
#
# `%compare` above timed `reduce-overhead` as one mode among others. Compiled with
# `%%compile --mode reduce-overhead`, a function also says, per compile, what torch did
# about CUDA graphs, read from torch's own record: `recorded`, `skipped` (torch's reason and
# the line of yours its message names), or `not_used` when the graph has no CUDA device.
# On this CPU it is the last: torch counts a skip in
# `torch._dynamo.utils.counters["inductor"]["cudagraph_skips"]` and keeps its reason
# (`cpu device`) without logging a word. The summary says `CUDA graphs: not used on cpu`,
# never "0 skips".

# %%
# %%compile --mode reduce-overhead
def shift_scale(x):
    return x * 2 + 1

# %%
from torch._dynamo.utils import counters

skips_before = counters["inductor"]["cudagraph_skips"]
_ = shift_scale(torch.randn(8))
skips = counters["inductor"]["cudagraph_skips"] - skips_before
outcome = nbcompile.report(shift_scale).compiles[0].cudagraphs
print("torch counted", skips, "CUDA-graph skip(s); nbcompile read:", outcome)

# %%
# check: the claim agrees with torch: not used (on a CPU, "cpu device"), and torch's own
# counter counted the skip it is read from
assert outcome is not None and outcome.status == "not_used", outcome
assert outcome.reason == "cpu device" and skips >= 1

# %% [markdown]
# ### What a CUDA GPU shows
#
# On a CUDA GPU the same cell runs as CUDA graphs, and nbcompile explains each call from
# CUDA-graph trees' own state (the guide's `%%compile` page, section *CUDA graphs*,
# `docs/guide/compile.md`, has the details):
#
# * **Per call**: a graph's first call runs eagerly to warm up, the second records it,
#   later calls replay it. So the first two calls are slow and a timing that includes
#   them misleads (`%compare` times the replays after both). The summary lists the calls
#   with their cells (warmed up, recorded, replayed); `report(f).cudagraph_calls` holds
#   the counts.
# * **Per input size**: each new input size records a graph of its own.
#   `report(f).cudagraph_shapes` lists each size with the cell that first ran it, torch's
#   warning limit (`cudagraph_dynamic_shape_warn_limit`) and the remedy that fits: pad to
#   a few sizes, `torch._dynamo.mark_dynamic`, or `cudagraph_skip_dynamic_graphs`.
# * **Re-records**: when a static input's data pointer changes (a parameter's storage
#   replaced, say) torch records the graph again; the summary names the input whose
#   pointer changed and its line, and says so when torch gives up past
#   `cudagraph_unexpected_rerecord_limit` and runs the graph eagerly.
# * **Memory**: the bytes the graphs' private memory pool reserves before and after each
#   cell's call, and in `%compare`'s `reduce-overhead` row the bytes it holds between
#   calls.
# * **Overwritten outputs**: CUDA-graph trees reuse an output's memory at the next replay.
#   `y1 = f(x)` in one cell and `f(x)` again in a later one leaves `y1` holding nothing;
#   reading it raises torch's "accessing tensor output of CUDAGraphs that has been
#   overwritten by a subsequent run". nbcompile names `y1` at the cell whose call
#   overwrote it, with the cell that bound it. The fix: `y1 = f(x).clone()`
#   (`torch.compiler.cudagraph_mark_step_begin()` does not keep it).
#
# * **Graph partitions**: a CPU tensor beside CUDA ones does not stop CUDA graphs any
#   more. Inductor splits the graph (graph partitioning, on by default since torch 2.9),
#   records what it can and runs the rest outside; torch says which op and why only in
#   its DEBUG log, which nbcompile reads for you: "1 of 2 graph partitions runs outside
#   them: cpu ops (cell [5], line 4: b = y * 2)".
#
# What an H200 recorded for three such cells (the GPU suite's run, `make test-gpu`, torch
# 2.11; `docs/project/gpu.md` keeps that run's figures): the counts its records hold, in
# today's words. That run's nbcompile numbered only the calls it watched; today every
# call has its number.

# %%
import json
from pathlib import Path

h200 = json.loads(Path("data/h200-cudagraphs.json").read_text())
print(f"{h200['device']}, torch {h200['torch']}")
for scenario in h200["scenarios"]:
    print(f"\n{scenario['code']}")
    for outcome in scenario["outcomes"]:
        split = outcome["partitions"] or {}
        outside = [f"{n['reason']} ({n['line']['line']})" for n in split.get("outside", [])]
        print(f"  compile: {outcome['status']}"
              + (f"; {split['partitions'] - split['cudagraphable']} of "
                 f"{split['partitions']} partitions outside: {', '.join(outside)}"
                 if outside else ""))
    for call in scenario["calls"]:
        label = f"call {call['call']}" if call["call"] else "a call (not numbered in that run)"
        print(f"  {label}: {call['what']}")
    if scenario["shapes"]:
        print(f"  sizes recorded: {', '.join(scenario['shapes'])}")

# %%
# check: what the text above says is what the H200's records hold
cpu_input, sizes, rerecord = h200["scenarios"]
split = cpu_input["outcomes"][0]["partitions"]
assert cpu_input["outcomes"][0]["status"] == "recorded"
assert (split["partitions"], split["cudagraphable"]) == (2, 1)
assert split["outside"][0]["reason"] == "cpu ops"
assert [c["what"].split(" (")[0] for c in cpu_input["calls"]] == [
    "warmed up 1 graph", "recorded 1 graph", "replayed 1 graph"]
assert sizes["shapes"] == ["static", "48", "64", "80"]
# a re-record is a recording torch made: the call that recorded again recorded once
again = [c for c in rerecord["calls"] if "recorded again" in c["what"]]
assert len(again) == 1 and "replayed" not in again[0]["what"]

# %% [markdown]
# On a machine with CUDA, the two cells below show the doctor live; on a CPU they say
# there is nothing to show.

# %%
if torch.cuda.is_available():
    xc = torch.randn(256, 256, device="cuda")
    for _ in range(3):
        shift_scale(xc)
    for call in nbcompile.report(shift_scale).cudagraph_calls:
        pool = ("" if call.pool_after is None else
                f"; graph pool {call.pool_before or 0} -> {call.pool_after} bytes")
        print(f"call {call.call} (cell [{call.cell}]): {call.warmups} warm-up(s), "
              f"{call.recordings} recording(s), {call.replays} replay(s){pool}")
    y1 = shift_scale(xc)  # kept across cells: memory of the CUDA graph's pool
else:
    print("No CUDA device here: this cell shows nothing.")

# %%
if torch.cuda.is_available():
    y2 = shift_scale(xc)  # replays into y1's memory: nbcompile reports y1 below this cell
else:
    print("No CUDA device here: no CUDA-graph output to overwrite.")


# %% [markdown]
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
# * `reduce-overhead` is about CUDA graphs: a GPU feature; on a CPU it changes nothing,
#   and `%%compile` says so (`CUDA graphs: not used on cpu`), from torch's own count.
# * `max-autotune` trades compile time for trying more implementations; measure
#   before you keep it.
# * Time with interleaved repeats and look at the interval: a speedup whose interval
#   includes 1.0x is not a speedup.
# * Memory is half of the trade: fusion removes intermediates (a quarter of eager's
#   peak for `wave`), while an in-place update becomes a copy once compiled.
#
# Next: **4. Recompiles and dynamic shapes**.
