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
# # 6. Compiling a training step
#
# For training, PyTorch's advice is to compile the **training step**: the function
# that runs the forward pass, the loss, the backward pass and the optimizer update
# for one batch, but not the Python loop over batches. That gives the compiler the
# most to work with: the forward and its gradient are compiled together, and the
# optimizer's update (a long list of small per-parameter operations) is fused too.
#
# With distributed training there is one more rule: **compile the inner module,
# not the `DistributedDataParallel` wrapper**. We check both, on a small classifier
# and random data.

# %%
# %load_ext nbcompile
import time

import matplotlib.pyplot as plt
import torch

import nbcompile

torch.manual_seed(0)
print("torch", torch.__version__, "| threads:", torch.get_num_threads())

# %%
import copy


class Classifier(torch.nn.Module):
    def __init__(self, d_in=20, hidden=64, classes=3):
        super().__init__()
        self.fc1 = torch.nn.Linear(d_in, hidden)
        self.fc2 = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

# a learnable toy problem: the class is how many of the first two features are > 0
X = torch.randn(1024, 20)
Y = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
batches = [(X[i:i + 64], Y[i:i + 64]) for i in range(0, 1024, 64)]

model = Classifier()
eager_model = copy.deepcopy(model)    # same starting weights, trained without compile
loss_fn = torch.nn.CrossEntropyLoss()


# %% [markdown]
# ## The step function
#
# The step takes the model and its optimizer as arguments, so the very same code can
# also run eagerly on the twin model for comparison.

# %%
# %%compile
def train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.detach()


# %%
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
eager_opt = torch.optim.Adam(eager_model.parameters(), lr=1e-2)
eager_step = train_step._torchdynamo_orig_callable   # the uncompiled function

losses, eager_losses, step_times = [], [], []
for _epoch in range(2):
    for x, y in batches:
        start = time.perf_counter()
        losses.append(train_step(model, opt, x, y).item())
        step_times.append(time.perf_counter() - start)
        eager_losses.append(eager_step(eager_model, eager_opt, x, y).item())
print(f"{len(losses)} steps; first step {step_times[0]:.1f} s, "
      f"median step {sorted(step_times)[len(step_times) // 2] * 1e3:.2f} ms")
print(f"loss: {losses[0]:.3f} -> {losses[-1]:.3f}")

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(eager_losses, label="eager", lw=3, alpha=0.5)
ax.plot(losses, "--", label="compiled step")
ax.set_xlabel("step")
ax.set_ylabel("loss")
ax.legend()
plt.show()

# %%
# check: the compiled step trains, and trains like the eager step
assert sum(losses[-8:]) / 8 < 0.7 * sum(losses[:8]) / 8, "the loss goes down"
torch.testing.assert_close(torch.tensor(losses), torch.tensor(eager_losses),
                           atol=1e-3, rtol=1e-3)
for p, q in zip(model.parameters(), eager_model.parameters(), strict=True):
    torch.testing.assert_close(p, q, atol=1e-3, rtol=1e-3)

# %% [markdown]
# ## What the compiler made of it
#
# The summary under the `%%compile` cell (and the report) show several graphs and
# some graph breaks, and that is expected:

# %%
r = nbcompile.report(train_step)
print(repr(r))
print()
for c in r.compiles:
    print(f"{c.compile_id:5} {c.frame:45} graphs={len(c.graphs)}  {c.times.get('total_s', 0):.2f}s")
print()
for gb in r.graph_breaks:
    where = "this notebook" if gb.filename == r.cell.filename else gb.filename
    print(f"break at line {gb.lineno} of {where}: {gb.line}")
    print(f"    {gb.reason[:110]}")

# %% [markdown]
# How to read it:
#
# * **`loss.backward()` is a graph break**: Dynamo does not trace the call to
#   `backward()` itself. That does not mean the backward pass runs uncompiled:
#   AOTAutograd traced the forward graph *together with its gradient* and Inductor
#   compiled both; `backward()` runs that compiled backward.
# * **the optimizer step is its own graph**: after the break, Dynamo compiles
#   `opt.step()` (frames named `step`/`wrapper` from `torch/optim`). The
#   per-parameter Adam updates become a few fused kernels.
# * **breaks inside PyTorch's own code** (lines of `torch/optim/...`): PyTorch places
#   some on purpose around the optimizer's bookkeeping. Fix the breaks in *your*
#   lines; leave these.
#
# The seed pattern compiles all of this with one decorator (or one `%%compile`).
# Compiling only the model (`model.compile()`) would compile the forward and
# backward but leave the optimizer's many small operations eager.

# %%
# check: the backward call is a break in our cell, the forward (with its backward)
# and the optimizer step were compiled, and the step time dropped after the first
user_breaks = [gb.line for gb in r.graph_breaks if gb.filename == r.cell.filename]
print(user_breaks)
assert "loss.backward()" in user_breaks
assert r.status == "compiled" and r.graph_count >= 2
assert any(c.frame == "step" for c in r.compiles), [c.frame for c in r.compiles]
assert any(k.stage == "backward" for k in r.kernels), "a compiled backward"
assert step_times[0] > max(step_times[1:]), "the first step includes the compile"

# %% [markdown]
# ## DistributedDataParallel: compile the inner module
#
# `DistributedDataParallel` (DDP) wraps a model and, during the backward pass, starts
# averaging the gradients across processes in buckets while the rest of the
# backward still runs. PyTorch recommends compiling the **inner** module and leaving
# the wrapper alone: `model.compile()` and then `DDP(model)`, or the same in either
# order. `%%compile` follows that rule: given a DDP object, it compiles
# `ddp.module` in place.
#
# DDP needs a process group. With the `gloo` backend and a world of one process it
# runs on any CPU, which is enough to see the mechanics (a real job starts one
# process per device, e.g. with `torchrun`).

# %%
import os
import socket

import torch.distributed as dist

with socket.socket() as s:          # a free local port for the rendezvous
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ["MASTER_ADDR"] = "127.0.0.1"
os.environ["MASTER_PORT"] = str(port)
dist.init_process_group("gloo", rank=0, world_size=1)
print("world size:", dist.get_world_size())

# %%
# %%compile
ddp_model = torch.nn.parallel.DistributedDataParallel(Classifier())

# %%
ddp_opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
ddp_losses = []
for x, y in batches:
    ddp_opt.zero_grad(set_to_none=True)
    loss = loss_fn(ddp_model(x), y)
    loss.backward()                  # DDP's gradient hooks run here
    ddp_opt.step()
    ddp_losses.append(loss.item())
print(f"loss: {ddp_losses[0]:.3f} -> {ddp_losses[-1]:.3f}")
print(type(ddp_model).__name__, "| inner:", type(ddp_model.module).__name__)
print(list(ddp_model.state_dict())[:2])

# %%
# check: the inner module was compiled in place; the wrapper and keys are unchanged
rd = nbcompile.report(ddp_model)
print(repr(rd))
assert rd.wrapper == "DistributedDataParallel" and rd.status == "compiled"
assert isinstance(ddp_model, torch.nn.parallel.DistributedDataParallel)
assert isinstance(ddp_model.module, Classifier)
assert all(k.startswith("module.") and "_orig_mod" not in k for k in ddp_model.state_dict())
assert sum(ddp_losses[-4:]) < sum(ddp_losses[:4])

# %%
dist.destroy_process_group()

# %% [markdown]
# ## What you saw
#
# * Compile the whole training step, optimizer included. `loss.backward()` shows up
#   as a graph break, but the backward pass is compiled (by AOTAutograd, with the
#   forward), and so is the optimizer step.
# * Check a compiled step against an eager twin: same losses, same weights.
# * With DDP (or FSDP), compile the inner module; nbcompile does that for you and
#   keeps the `state_dict` keys intact (no `_orig_mod.`).
#
# That is the end of the tutorials. Take `%%compile` to your own notebook: start with
# the largest callable, read the summary, fix the breaks on your lines, watch the
# recompile reasons, and time with `%compare` before you believe a speedup.
