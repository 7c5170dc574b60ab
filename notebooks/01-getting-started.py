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
# # 1. Getting started: what `torch.compile` does, and when
#
# `torch.compile` makes PyTorch code faster without rewriting it. Two pieces do the
# work:
#
# * **Dynamo** watches your Python function *while it runs*, records every tensor
#   operation into a graph, and protects that graph with **guards** (checks such as
#   "the input is a float32 tensor of shape 8×64"). Where it cannot follow the
#   Python code it stops the graph and lets Python run that part: a **graph break**.
# * **Inductor** turns each graph into generated code: on this CPU, C++ loops that
#   *fuse* many small operations into one pass over memory; on a GPU, Triton kernels.
#
# Much of this is invisible in plain PyTorch. `nbcompile` makes it visible:
# `%%compile` runs a cell and compiles the functions and modules it defined, and a
# live summary under the cell shows what happened when they compile. `nbcompile.report(obj)`
# returns everything it captured as plain Python data.
#
# **How to read these notebooks.** Run them top to bottom. Cells that start with
# `# check:` verify what the text above them claims; if one fails, the text is wrong
# for your versions of PyTorch or nbcompile (the test suite runs them all).

# %%
# %load_ext nbcompile
import time

import matplotlib.pyplot as plt
import torch

import nbcompile

torch.manual_seed(0)
print("torch", torch.__version__, "| threads:", torch.get_num_threads())


# %% [markdown]
# ## Compiling a function
#
# Here is the tanh approximation of GELU, written out as six elementwise operations.
# `%%compile` runs the cell as usual and then rebinds `gelu_tanh` to
# `torch.compile(gelu_tanh)`.

# %%
# %%compile
def gelu_tanh(x):
    inner = 0.7978845608 * (x + 0.044715 * x ** 3)
    return 0.5 * x * (1.0 + torch.tanh(inner))


# %% [markdown]
# The summary says **waiting for first call**. That is not nbcompile being lazy:
# `torch.compile` itself compiles nothing when you call it. It only installs a hook;
# Dynamo needs real inputs to trace, because the graph it records depends on them
# (their shapes, dtypes, devices).

# %%
# check: nothing is compiled before the first call
r = nbcompile.report(gelu_tanh)
print(r.status, "| graphs:", r.graph_count)
assert r.status == "pending" and r.graph_count == 0

# %% [markdown]
# Now call it a few times and time each call. Watch the summary under the
# `%%compile` cell: it changes to *compiling...* and then to *compiled* while this
# cell runs.

# %%
x = torch.randn(512, 512)
call_times = []
for _ in range(6):
    start = time.perf_counter()
    y = gelu_tanh(x)
    call_times.append(time.perf_counter() - start)
print(["%.1f ms" % (t * 1e3) for t in call_times])

fig, ax = plt.subplots(figsize=(6, 2.5))
ax.bar(range(1, 7), [t * 1e3 for t in call_times], color=["C3"] + ["C0"] * 5)
ax.set_yscale("log")
ax.set_xlabel("call number")
ax.set_ylabel("ms (log scale)")
ax.set_title("The first call pays for the compile")
plt.show()

# %% [markdown]
# The first call traced the function, generated and built a C++ kernel and then
# ran it; later calls only check the guards and run the kernel. (Inductor keeps an
# on-disk cache, so a second kernel session compiling the same graph is quicker, but
# the first call is always the slow one.)
#
# Compiling must not change the result: the compiled function agrees with PyTorch's
# own `gelu(approximate="tanh")`.

# %%
# check: compiled at the first call, one graph, no breaks, and the same numbers
r = nbcompile.report(gelu_tanh)
print(repr(r))
assert r.status == "compiled" and r.graph_count == 1 and r.graph_break_count == 0
assert r.compile_time_s > 0
assert call_times[0] > max(call_times[1:]), "the first call includes the compile"
reference = torch.nn.functional.gelu(x, approximate="tanh")
torch.testing.assert_close(gelu_tanh(x), reference, atol=1e-5, rtol=1e-5)

# %% [markdown]
# `nbcompile.report(gelu_tanh)` displays itself as the same summary plus details.
# Its attributes are plain data: `graph_count`, `graph_breaks`, `recompiles`,
# `kernels` (the generated code), `compile_time_s`, and `to_dict()` for JSON.
# Notebook 5 reads the generated code in detail; here is just the size of it.
#
# In JupyterLab the same records fill the **Compile inspector** in the right
# sidebar (the *Inspect* button under a `%%compile` cell opens it): graph breaks you
# can click to jump to their line, recompiles, and the generated code in a
# searchable view. It follows whichever notebook is active.

# %%
for kernel in r.kernels:
    print(f"{kernel.kind:8} {kernel.language:7} {kernel.name:40} {kernel.size:6} chars")


# %% [markdown]
# ## Compiling a module
#
# For an `nn.Module`, PyTorch recommends compiling it **in place** with
# `model.compile()`. `%%compile` does that for every module instance the cell
# creates: the name keeps the very same object, only its calls go through the
# compiled code.

# %%
class TinyMLP(torch.nn.Module):
    def __init__(self, d_in=64, hidden=128, d_out=10):
        super().__init__()
        self.fc1 = torch.nn.Linear(d_in, hidden)
        self.fc2 = torch.nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


# %%
# %%compile
model = TinyMLP()

# %%
batch = torch.randn(32, 64)
logits = model(batch)   # the first call: the summary above updates
print(type(model).__name__, logits.shape)
print(list(model.state_dict()))

# %%
# check: the module was compiled in place (same class, same state_dict keys)
r = nbcompile.report(model)
print(repr(r))
assert isinstance(model, TinyMLP)
assert r.status == "compiled" and r.graph_count == 1
assert list(model.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]

# %% [markdown]
# ## `model.compile()` versus `torch.compile(model)`
#
# Both exist in plain PyTorch, and they are not the same thing:
#
# * `model.compile()` changes `model` in place and returns nothing. `model` is still
#   a `TinyMLP`; its `state_dict` is unchanged.
# * `torch.compile(model)` returns a *new* wrapper object, an `OptimizedModule`,
#   that holds the original as `._orig_mod`. Every `state_dict` key of the wrapper
#   gains the prefix `_orig_mod.`, so a checkpoint saved from it does not load into
#   a plain model (and `isinstance` checks fail).
#
# Neither call compiles anything yet (no input, no first call), so this cell is fast.

# %%
in_place = TinyMLP()
in_place.compile()            # returns None; in_place is still a TinyMLP
wrapped = torch.compile(TinyMLP())

print("model.compile():    ", type(in_place).__name__, list(in_place.state_dict())[:2])
print("torch.compile(model):", type(wrapped).__name__, list(wrapped.state_dict())[:2])

try:
    TinyMLP().load_state_dict(wrapped.state_dict())
    load_error = None
except RuntimeError as err:
    load_error = str(err)
print()
print("Loading the wrapper's state_dict into a fresh TinyMLP:")
print(load_error)

# %%
# check: only torch.compile(model) renames the keys (and changes the type)
assert isinstance(in_place, TinyMLP) and not isinstance(wrapped, TinyMLP)
assert not any(k.startswith("_orig_mod.") for k in in_place.state_dict())
assert all(k.startswith("_orig_mod.") for k in wrapped.state_dict())
assert wrapped._orig_mod.state_dict().keys() == in_place.state_dict().keys()
assert load_error is not None and "_orig_mod.fc1.weight" in load_error
print(TinyMLP().load_state_dict(in_place.state_dict()))   # loads fine

# %% [markdown]
# ## Where to apply `torch.compile`
#
# PyTorch's advice: compile the **highest-level callable that compiles without
# trouble**. In order of preference:
#
# 1. **the step function**: the inference or training step, including the pre- and
#    post-processing around the model (but not the Python loop over batches);
# 2. **the top-level module**, when the code around it cannot be compiled;
# 3. **a sub-module**, when the top-level module has code that Dynamo cannot follow
#    (data-dependent checks, logging, calls into other libraries).
#
# A larger region gives Inductor more to fuse. Below, one function compiles the
# input normalisation, the whole model and the softmax into one graph.

# %%
net = TinyMLP()   # a plain, uncompiled model


# %%
# %%compile
def predict(batch):
    batch = (batch - batch.mean(dim=0)) / (batch.std(dim=0) + 1e-5)
    return torch.softmax(net(batch), dim=-1)


# %%
probs = predict(batch)
step = nbcompile.report(predict)
graph_text = "\n".join(g for c in step.compiles for g in c.graphs)
print(repr(step))
print("operations in the graph of predict:", sum(c.graph_op_count for c in step.compiles))
print("operations in the graph of model:  ",
      sum(c.graph_op_count for c in nbcompile.report(model).compiles))

# %%
# check: one graph holds the normalisation, the model's layers and the softmax
assert step.graph_count == 1 and step.graph_break_count == 0
assert "softmax" in graph_text and "linear" in graph_text and "std" in graph_text
assert sum(c.graph_op_count for c in step.compiles) > sum(
    c.graph_op_count for c in nbcompile.report(model).compiles)
torch.testing.assert_close(probs.sum(dim=-1), torch.ones(32))


# %% [markdown]
# The third option, a sub-module: this `Guarded` model refuses non-finite inputs.
# `if not torch.isfinite(x).all()` depends on the *values* in `x`, which a graph
# cannot express (notebook 2 is all about such graph breaks). Instead of fighting
# it, compile only the part that matters, `guarded.body`. `%%compile` compiles
# a sub-module bound to a name in place, so `guarded` uses the compiled body too.

# %%
class Guarded(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = TinyMLP()

    def forward(self, x):
        if not torch.isfinite(x).all():
            raise ValueError("non-finite input")
        return self.body(x)

guarded = Guarded()

# %%
# %%compile
body = guarded.body

# %%
out = guarded(batch)        # the check runs in Python, the body runs compiled
# check: the sub-module was compiled in place, and only it
r = nbcompile.report(body)
print(repr(r))
assert body is guarded.body
assert r.status == "compiled" and r.graph_count == 1 and r.graph_break_count == 0

# %% [markdown]
# ## What you saw
#
# * `torch.compile` compiles at the **first call**, not when you call `torch.compile`;
#   that first call is slow, later calls are fast.
# * Prefer `model.compile()` (in place, same `state_dict` keys) to
#   `torch.compile(model)` (a wrapper whose keys gain `_orig_mod.`).
# * Compile the largest region that works: step function, then module, then
#   sub-module.
#
# Next: **2. Graph breaks**: what stops Dynamo, how to read the reasons, how to fix them.
