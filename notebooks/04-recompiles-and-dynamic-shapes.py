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
# # 4. Recompiles and dynamic shapes
#
# A compiled graph is only valid for inputs like the ones it was traced with. Dynamo
# records **guards** next to each graph: checks on the inputs (sizes, dtype, device,
# `requires_grad`), on Python values the code read (globals, attributes, numbers)
# and on the configuration. Every call runs the guards first:
#
# * all pass: the cached compiled code runs;
# * one fails: Dynamo **recompiles** for the new situation and keeps both versions,
#   up to `torch._dynamo.config.recompile_limit` versions per function (8 by
#   default). Past the limit it stops compiling that function and runs it eagerly.
#
# Recompiles are the second most common reason for "torch.compile made my code slow"
# after graph breaks. This notebook makes them happen on purpose and reads the
# reasons nbcompile records.

# %%
# %load_ext nbcompile
import matplotlib.pyplot as plt
import torch

import nbcompile

torch.manual_seed(0)
print("torch", torch.__version__, "| threads:", torch.get_num_threads())


# %%
# %%compile
def soft_norm(x):
    return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))


# %% [markdown]
# ## A new shape
#
# The first call compiles for a batch of 8 rows. The second call has 8 rows again:
# the guards pass, no compile. The third has 12 rows: the guard on the size fails.

# %%
soft_norm(torch.randn(8, 16))
soft_norm(torch.randn(8, 16))    # same shape: cached code
soft_norm(torch.randn(12, 16))   # new batch size: recompile
r = nbcompile.report(soft_norm)
for rc in r.recompiles:
    print(rc.compile_id, "|", rc.reason)

# %% [markdown]
# The reason names the tensor (`x`), the dimension (`index 0`, the batch dimension),
# what the compiled code expected and what it got. The compile id `0/1` reads
# "frame 0, version 1": the first recompile of this function.
#
# Now a third batch size, 20 rows:

# %%
soft_norm(torch.randn(20, 16))
r = nbcompile.report(soft_norm)
print(repr(r))
print("compiled versions:", [c.compile_id for c in r.compiles])

# %%
# check: the recompile reason names the changed dimension; 20 rows needed no recompile
assert r.recompile_count == 1
reason = r.recompiles[0].reason
assert "size mismatch at index 0" in reason and "expected 8" in reason and "actual 12" in reason
assert [c.compile_id for c in r.compiles] == ["0/0", "0/1"]

# %% [markdown]
# No recompile for 20 rows. This is **automatic dynamic shapes**, PyTorch's default:
# the first compile specialises on every size (the fastest code for exactly those
# shapes). When a size changes, the recompile marks *that* dimension as dynamic, a
# symbol `s0` instead of a number, and the new code works for any batch size
# (with a few exceptions: sizes 0 and 1 are still special). One recompile, then
# done.
#
# ## A new dtype
#
# A dtype change cannot be made symbolic: float64 needs different code.

# %%
soft_norm(torch.randn(20, 16, dtype=torch.float64))
r = nbcompile.report(soft_norm)
print(r.recompiles[-1].reason)

# %%
# check: the dtype change is a recompile whose reason names both dtypes
assert r.recompile_count == 2
assert "dtype mismatch" in r.recompiles[-1].reason
assert "expected Float, actual Double" in r.recompiles[-1].reason


# %% [markdown]
# ## `--dynamic`, `--no-dynamic` and the default
#
# `%%compile` exposes `torch.compile`'s `dynamic=` argument:
#
# * *(default)* `dynamic=None`: specialise first, go dynamic on the dimension that
#   changes (what you just saw);
# * `--dynamic`: dynamic from the first compile: one compile serves all sizes, at
#   the price of slightly more general code;
# * `--no-dynamic`: always specialise: one compile **per size**.
#
# The same function compiled three ways, fed the same six batch sizes:

# %%
# %%compile --dynamic
def norm_dynamic(x):
    return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))


# %%
# %%compile --no-dynamic
def norm_static(x):
    return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))


# %%
# %%compile
def norm_auto(x):
    return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))


# %%
sizes = [8, 9, 10, 11, 12, 13]
variants = {"--dynamic": norm_dynamic, "default": norm_auto, "--no-dynamic": norm_static}
compiles_after = {name: [] for name in variants}
for n in sizes:
    batch = torch.randn(n, 16)
    for name, fn in variants.items():
        fn(batch)
        compiles_after[name].append(len(nbcompile.report(fn).compiles))

fig, ax = plt.subplots(figsize=(6, 3))
for name, counts in compiles_after.items():
    ax.step(sizes, counts, where="post", marker="o", label=name)
ax.set_xlabel("batch size of the call")
ax.set_ylabel("compiles so far")
ax.set_title("Compiles for six batch sizes")
ax.legend()
plt.show()
print(compiles_after)

# %%
# check: dynamic compiles once, the default twice, static once per size
assert compiles_after["--dynamic"][-1] == 1
assert compiles_after["default"][-1] == 2
assert compiles_after["--no-dynamic"][-1] == len(sizes)
assert all("size mismatch at index 0" in rc.reason
           for rc in nbcompile.report(norm_static).recompiles)

# %% [markdown]
# Which to use? The default is right most of the time. Use `--dynamic` (or
# `torch._dynamo.mark_dynamic(x, 0)` on one input) when you *know* a dimension
# varies, such as sequence length, to skip the first specialised compile. Use
# `--no-dynamic` only for a handful of fixed shapes where the specialised code is
# measurably faster.
#
# ## Try it: pick a batch size
#
# Move the slider (when the notebook runs in JupyterLab) to call the three
# variants with a new batch size, and watch which of them recompile. Sizes 0 and 1
# are specialised even by dynamic code.

# %%
import ipywidgets as widgets
from IPython.display import display

size_slider = widgets.IntSlider(value=16, min=1, max=64, description="batch size")
size_out = widgets.Output()

def call_all(change=None):
    n = size_slider.value
    lines = []
    for name, fn in variants.items():
        before = len(nbcompile.report(fn).compiles)
        fn(torch.randn(n, 16))
        after = nbcompile.report(fn)
        verdict = "recompiled" if len(after.compiles) > before else "cached code"
        reason = after.recompiles[-1].reason if verdict == "recompiled" else ""
        lines.append(f"{name:13} {verdict:12} {reason}")
    size_out.clear_output()
    with size_out:
        print(f"batch size {n}:")
        print("\n".join(lines))

size_slider.observe(call_all, names="value")
display(widgets.VBox([size_slider, size_out]))
call_all()


# %% [markdown]
# ## The recompile limit
#
# Guards also cover plain Python numbers a function reads. `.item()` turns a tensor
# into such a number, and the code *after* the `.item()` graph break (the resume
# function of notebook 2) depends on it. With `--no-dynamic` every new value is a
# new specialisation, so each call with new data recompiles: a **recompile storm**.
# Dynamo cuts it off at `recompile_limit`. We lower the limit from 8 to 4 to see it
# quickly.

# %%
# %%compile --no-dynamic
def scale_by_max(x):
    peak = x.abs().max().item()
    return x / peak


# %%
import torch._dynamo

default_limit = torch._dynamo.config.recompile_limit
torch._dynamo.config.recompile_limit = 4     # lowered for this demo, restored below
for _ in range(8):
    scale_by_max(torch.randn(64))
storm = nbcompile.report(scale_by_max)
print(repr(storm))
for rc in storm.recompiles:
    print(rc.compile_id, "|", rc.reason[:160])
print()
for advice in storm.advice:
    print(f"[{advice.kind}] {advice.message}")
    print(f"    fix: {advice.fix}")


# %% [markdown]
# Eight calls, but only four versions of the code after the break and three
# recompiles: at the fifth version Dynamo hit the limit, gave up on that frame and
# has run it in plain Python ever since. PyTorch says so only once, in a log warning
# (above). Each reason says a Python number changed: the guard was on the exact
# value of `peak`.
#
# nbcompile looks at the pattern across compiles and says it in words: the summary
# under the `%%compile` cell and `report(...).advice` name the *scalar
# specialisation* and the *recompile limit*, each with a fix.
#
# The default (`dynamic=None`) is kinder: after one recompile it turns the number
# into a symbol too. The real fix is to not leave the tensor world at all:
# `x / x.abs().max()` divides by a 0-dimensional tensor, with no break and no guard
# on its value.

# %%
# %%compile --no-dynamic
def scale_by_max_fixed(x):
    return x / x.abs().max()


# %%
for _ in range(8):
    scale_by_max_fixed(torch.randn(64))
fixed = nbcompile.report(scale_by_max_fixed)
print(repr(fixed))
torch._dynamo.config.recompile_limit = default_limit

# %%
# check: the storm stopped at the limit (4 versions of the resume code), and the
# fix compiles once for all eight calls
resume = [c for c in storm.compiles if c.frame.startswith("torch_dynamo_resume")]
assert len(resume) == 4 and storm.recompile_count == 3
assert all("Python number" in rc.reason for rc in storm.recompiles)
assert {"scalar-specialization", "recompile-limit"} <= {a.kind for a in storm.advice}
assert fixed.recompile_count == 0 and fixed.graph_count == 1
assert fixed.graph_break_count == 0

# %% [markdown]
# ## Prove the fix before you write it: `suggest`
#
# `nbcompile.suggest(fn, calls=[...])` (or `%suggest fn(x)` for one call) replays the
# calls on a fresh copy of the target, with the target's own `--no-dynamic`, proposes a
# change for each graph break and recompile (a setting, a `%%compile` option, or a
# rewrite of your line) and tries each one on another copy. A change is *verified*
# only when the copy has fewer breaks or recompiles **and** gives the same result.
# `scale_by_max` itself is not touched: its report keeps the storm above.

# %%
calls = [(torch.randn(64),) for _ in range(6)]
fixes = nbcompile.suggest(scale_by_max, calls=calls)
for item in fixes.items:
    print(f"[{item.status}] {item.change.splitlines()[-1]}")
    print(f"    {item.note[:150]}")

# %%
# check: keeping the peak a tensor is proven on a copy (no break, same result), and the
# user's function still has its own storm
proven = [s.change for s in fixes.verified]
assert any("+ peak = x.abs().max()" in c for c in proven), proven
assert fixes.baseline.breaks >= 1
assert nbcompile.report(scale_by_max).recompile_count == 3

# %% [markdown]
# ## Out of order: which cell caused it, and `%%stance`
#
# Notebooks are run out of order: you go back, change a global two cells up, and run
# the call again. The recompile is paid in the cell of the call, but caused in another.
# nbcompile notes, per cell run, which globals (and which modules' `training` flags)
# it changed, so each recompile names both: the cell that changed what the failed
# guard reads, and the cell whose call recompiled (`.changed_by`, `.cell`).

# %%
# %%compile --backend eager
def activate(x):
    return torch.relu(x) if ACTIVATION == "relu" else torch.tanh(x)


# %%
ACTIVATION = "relu"
activate(torch.randn(4))    # compiles for ACTIVATION == "relu"

# %%
ACTIVATION = "tanh"         # changed here, two cells above the call

# %%
print("a cell in between")

# %%
activate(torch.randn(4))    # the guard on ACTIVATION fails: recompile
rc = nbcompile.report(activate).recompiles[-1]
print(rc.reason)
print("changed by:", rc.changes, "| the call in cell", rc.cell)

# %%
# check: the recompile names the cell of the call and the cell two above that set the global
assert rc.cell is not None and rc.changed_by == [rc.cell - 2], (rc.cell, rc.changed_by)
assert "ACTIVATION = 'tanh'" in rc.changes[0]

# %% [markdown]
# When a function must not recompile any more (a training loop you have tuned),
# `%%stance fail_on_recompile` runs one cell under
# `torch.compiler.set_stance("fail_on_recompile")`: a call that would recompile raises
# instead, and nbcompile says which guard failed and which cell changed what it reads.
# (`%nbcompile stance NAME` sets a stance for the cells that follow; `force_eager` and
# `eager_on_recompile` run calls eagerly, and the summary counts them.)

# %%
ACTIVATION = "sigmoid"

# %% tags=["raises-exception"]
# %%stance fail_on_recompile
activate(torch.randn(4))

# %%
# check: the refused call compiled nothing
assert nbcompile.report(activate).recompile_count == 1

# %% [markdown]
# ## What you saw
#
# * Every compiled graph has guards; a failed guard means a recompile, and
#   nbcompile shows the reason: *size mismatch at index 0. expected 8, actual 12*,
#   *dtype mismatch. expected Float, actual Double*, *a Python number changed*.
# * By default a changing size becomes dynamic after one recompile; `--dynamic`
#   starts dynamic, `--no-dynamic` never goes dynamic.
# * After `recompile_limit` versions Dynamo runs the function eagerly, with a
#   single log warning; nbcompile's advice points it out. Values read with `.item()`
#   and other Python numbers are a common cause: keep them as tensors.
# * `nbcompile.suggest` proves a fix on a copy before you change your code.
# * Each recompile names the cell whose call paid for it and the cell that changed what
#   its guard reads; `%%stance fail_on_recompile` stops the next one, in words.
#
# Next: **5. Reading generated code**.
