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
# # 8. Opening TORCH_TRACE logs: scripts and multi-rank jobs
#
# The compiles that hurt most often happen far from a notebook: in a training script,
# in a `torchrun` job with several processes, on a cluster. PyTorch already records
# them when the job runs with the environment variable `TORCH_TRACE=/some/dir`: each
# process (each *rank*) writes one log file of structured-trace events, the same events
# nbcompile reads live inside the kernel.
#
# `nbcompile.open_trace(dir)` reads such a directory and shows every compile of every
# rank, with the same details as a live `%%compile` target (graphs, graph breaks,
# recompile reasons, guards, generated code), plus what a distributed job needs: **which
# ranks compiled differently**. Ranks that compile different graphs run different
# collectives in a different order, the classic cause of a distributed job that hangs.
#
# This notebook runs a tiny two-rank DDP job on the CPU (backend `gloo`), in which rank 1
# gets a batch of another size at its second step, and finds that rank from the log.

# %%
# %load_ext nbcompile
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import nbcompile

work = Path(tempfile.mkdtemp(prefix="nbcompile-tutorial-08-"))
print("working in", work)

# %% [markdown]
# ## The job: a DDP training script
#
# The script trains a two-layer network for two steps under `DistributedDataParallel`,
# with `model.compile()` (compile the inner module, not the DDP wrapper). Every rank
# uses batches of 8 rows, except rank 1 at step 1, which gets 6: a data loader whose
# last batch is short on one rank is a common way this happens in real jobs. Each rank
# gets its own Inductor cache directory, as on separate machines.

# %%
script = work / "train.py"
script.write_text(textwrap.dedent('''
    import os
    import tempfile

    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="tutorial-08-cache-")

    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(16, 32)
            self.fc2 = nn.Linear(32, 4)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))


    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = Net()
    model.compile()
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for step in range(2):
        batch = 6 if (rank == 1 and step == 1) else 8
        loss = ddp(torch.randn(batch, 16)).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"rank {rank}: done")
    dist.destroy_process_group()
'''))

# %% [markdown]
# ## Run it with `torchrun` under `TORCH_TRACE`
#
# `torchrun --nproc-per-node=2` starts two processes (ranks 0 and 1) on this machine;
# `--standalone` picks a free port for them to meet. `TORCH_TRACE` names the directory
# the logs go to. In a real job you would set the same variable in the launch script
# (or the SLURM batch file) and copy the directory back.

# %%
trace_dir = work / "trace"
env = {**os.environ, "TORCH_TRACE": str(trace_dir), "OMP_NUM_THREADS": "1"}
job = subprocess.run(
    [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node=2", "--standalone",
     str(script)],
    env=env, cwd=work, capture_output=True, text=True, timeout=600,
)
print("exit code", job.returncode)
print(job.stdout[-2000:] or job.stderr[-2000:])
for log in sorted(trace_dir.iterdir()):
    print(f"{log.name}  {log.stat().st_size / 1e3:.0f} kB")

# %%
# check: the job ran and each rank wrote its own log
assert job.returncode == 0, job.stderr[-3000:]
assert len(list(trace_dir.glob("dedicated_log_torch_trace_rank_*.log"))) == 2

# %% [markdown]
# ## Open the trace
#
# `open_trace` indexes the logs from the events' headers (fast, however big the logs);
# graphs, guards and generated code are read from the files when first asked for. The
# display shows a grid: one row per rank, one column per compile id (`0/0` reads "frame
# 0, first version"; `0/1` is its first recompile). A marked cell is a place where the
# ranks compiled differently. In JupyterLab the Compile inspector shows the same trace.

# %%
trace = nbcompile.open_trace(trace_dir)
trace

# %%
print("ranks:", trace.ranks)
for c in trace.compiles:
    print(f"rank {c.rank}  [{c.compile_id}]  {c.status:9}  {c.function}  "
          f"{len(c.graphs)} graph(s)  {c.compile_time_s:.1f} s")

# %% [markdown]
# ## Which rank compiled differently?
#
# `.divergences` lists each way the ranks differ: its `kind` (`compile_ids`: one rank
# compiled something the others did not; `graphs`, `guards`, `cache`: same compile ids,
# other contents), the `groups` of ranks that agree with each other, and a `detail`
# naming the first place it shows.

# %%
for d in trace.divergences:
    print(d.kind, d.groups, d.compile_id)
    print("   ", d.detail)

# %% [markdown]
# Rank 1 has a compile the other rank lacks. Its recompile reason says why: the guard
# on the batch dimension of `x` failed (8 rows expected, 6 seen). The fix lives in the
# data (equal batch sizes on every rank, e.g. `drop_last=True`), or in marking the batch
# dimension dynamic (`torch._dynamo.mark_dynamic(x, 0)`) so every rank compiles once for
# any size.

# %%
odd = next(d for d in trace.divergences if d.kind == "compile_ids")
extra = trace.compile(odd.compile_id, rank=1)
print(f"rank {extra.rank} [{extra.compile_id}] {extra.frame}")
print("recompile reason:", extra.recompile_reason)
print(extra.graphs[0][:600])

# %%
# check: the divergence names rank 1 alone, at compile 0/1, and the size that changed
assert trace.ranks == [0, 1]
assert odd.groups == [[0], [1]] and odd.compile_id == "0/1"
assert "size mismatch at index 0" in extra.recompile_reason
assert "expected 8, actual 6" in extra.recompile_reason
assert not [c for c in trace.compiles if c.rank == 0 and c.compile_id == "0/1"]
assert not trace.problems, trace.problems

# %% [markdown]
# ## Outside the notebook
#
# The same reader works from a terminal, e.g. on the login node of a cluster:
#
# ```
# python -m nbcompile open /path/to/trace_dir                # text summary
# python -m nbcompile open /path/to/trace_dir --html job.html  # one self-contained page
# python -m nbcompile open /path/to/trace_dir --json job.json  # the record
# ```
#
# and `%nbcompile open PATH` shows the report under a cell, like the display above.

# %%
summary = subprocess.run([sys.executable, "-m", "nbcompile", "open", str(trace_dir)],
                         capture_output=True, text=True, timeout=120)
print(summary.stdout[:1500])
