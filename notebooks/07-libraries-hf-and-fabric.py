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
# # 7. Libraries: Hugging Face Transformers and Lightning Fabric
#
# Most `torch.compile` users don't write models from scratch: they load one from
# Hugging Face Transformers or train with Lightning. This notebook shows what nbcompile
# tells you there, all on the CPU with tiny models built locally (no downloads):
#
# * a Transformers causal LM compiled in place by `%%compile --mode reduce-overhead --fullgraph`;
# * `generate()` and the **recompile storm** of a growing KV cache, and the setting that stops it;
# * a `--fullgraph` break deep inside a library, tied back to *your* line;
# * Lightning Fabric, compiling before and after `fabric.setup()`.

# %%
# %load_ext nbcompile
import os

os.environ["HF_HUB_OFFLINE"] = "1"  # everything below is built locally: never reach a hub
import torch

import nbcompile
from nbcompile.core.trace.stacks import cell_frame

_ = torch.manual_seed(0)

# %% [markdown]
# ## A Transformers model, compiled in place
#
# Build the model the way Transformers users do, here from a tiny config instead of
# `from_pretrained`. The cell runs normally; afterwards nbcompile compiles the model it
# defined **in place** (`lm.compile(...)`): `lm` stays the same object with the same
# `state_dict` keys, so saving, loading and `generate()` keep working. `--fullgraph` asks
# for one graph per forward: any graph break becomes an error that names its line.

# %%
# %%compile --mode reduce-overhead --fullgraph
from transformers import AutoModelForCausalLM, LlamaConfig

config = LlamaConfig(vocab_size=96, hidden_size=32, intermediate_size=64,
                     num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                     max_position_embeddings=64)
lm = AutoModelForCausalLM.from_config(config).eval()
lm_before, keys_before = lm, list(lm.state_dict())

# %% [markdown]
# Nothing is compiled yet: compilation happens at the first call. The summary under the
# cell above updates when it does. Run a forward pass and compare it with the eager
# forward (`lm._call_impl` skips the compiled path):

# %%
ids = torch.randint(0, 96, (1, 8))
with torch.no_grad():
    logits = lm(input_ids=ids).logits
    eager_logits = lm._call_impl(input_ids=ids).logits
print("max difference vs eager:", (logits - eager_logits).abs().max().item())
nbcompile.report(lm)

# %%
# check: compiled in place, same numbers, one graph per forward, real C++ kernels
r = nbcompile.report(lm)
assert lm is lm_before and list(lm.state_dict()) == keys_before
torch.testing.assert_close(logits, eager_logits, rtol=1e-4, atol=1e-4)
assert r.status == "compiled" and r.graph_count >= 1 and not r.graph_breaks
assert any(k.language == "cpp" and k.kind == "kernel" for k in r.kernels)
print(r)

# %% [markdown]
# ## `generate()` and the recompile storm
#
# `generate()` calls the model once per new token. With Transformers' default
# *dynamic* KV cache, the cache grows by one position per step, so the shapes the
# compiled code was specialised for change at every step: Dynamo's guards fail and it
# compiles again. nbcompile groups the recompiles by code object, sees the same tensor
# growing, and says in words what to set.

# %%
with torch.no_grad():
    gen = lm.generate(ids, max_new_tokens=3, do_sample=False)
r = nbcompile.report(lm)
for rc in r.recompiles:
    print(f"recompile {rc.compile_id}: {rc.reason}")
for advice in r.advice:
    print(f"\n[{advice.kind}] {advice.message}\nFix: {advice.fix}")

# %%
# check: the storm is detected and the advice names HF's static cache
assert gen.shape == (1, 11)
assert any("size mismatch" in rc.reason for rc in r.recompiles)
[storm] = [a for a in r.advice if a.kind == "recompile-storm"]
assert "KV cache grew" in storm.message
assert 'cache_implementation = "static"' in storm.fix

# %% [markdown]
# ### Following the advice: a static KV cache
#
# A static cache is allocated once for the maximum length, so every decoding step has
# the same shapes. Compile a second copy of the model (same weights) and generate with
# `cache_implementation="static"`: one compile for the prompt, one for the decoding
# step, and no storm.

# %%
# %%compile --mode reduce-overhead --fullgraph
lm_static = AutoModelForCausalLM.from_config(config).eval()
lm_static.load_state_dict(lm.state_dict())
lm_static.generation_config.cache_implementation = "static"

# %%
# lm and lm_static are one class: torch keeps one cache for their forward code, so the
# static model's first compiles would be recompiles against lm's entries (as with two
# `model.compile()` calls). Start from torch's empty cache to see lm_static's own.
torch.compiler.reset()
with torch.no_grad():
    gen_static = lm_static.generate(ids, max_new_tokens=3, do_sample=False)
r_static = nbcompile.report(lm_static)
print(r_static)
for rc in r_static.recompiles:
    print(f"recompile {rc.compile_id}: {rc.reason}")

# %%
# check: no growing shapes, no storm advice
assert gen_static.shape == (1, 11)
assert not [a for a in r_static.advice if a.kind == "recompile-storm"]
assert not any("size mismatch" in rc.reason for rc in r_static.recompiles)


# %% [markdown]
# ## A `--fullgraph` break inside a library
#
# Compile the model, not `generate()`: the generation loop is Python control flow
# full of data-dependent decisions. If you do compile a function that calls
# `generate()` with `--fullgraph`, the first call fails at a line deep inside
# Transformers. A library line alone is hard to act on, so nbcompile keeps Dynamo's
# whole user stack and shows the line of *your* cell that led there. (Run
# `complete(ids)` on its own to see the inline error; here we catch it to read the record.)

# %%
# %%compile --fullgraph
def complete(ids):
    return lm.generate(ids, max_new_tokens=2, do_sample=False)


# %%
try:
    complete(ids)
except Exception as e:
    print(type(e).__name__, "-", str(e).splitlines()[0])
err = nbcompile.report(complete).error
print(f"\nbroke at {err.filename}:{err.lineno}\n    {err.line}")
print("user stack (outermost first):")
for frame in err.stack:
    print(f"  {frame.filename}:{frame.lineno}: {frame.line}")

# %%
# check: the library line and the cell line that led there
assert "transformers" in err.filename and err.line
mine = cell_frame(err.stack)
assert mine is not None and mine.line.startswith("return lm.generate(")

# %% [markdown]
# ## Lightning Fabric
#
# Fabric's guide says: compile **before** `fabric.setup()`. With nbcompile that is a
# `%%compile` cell followed by `fabric.setup(model)`. The set-up module wraps the
# compiled one, so the compiled forward runs and `nbcompile.report()` finds the
# records through the wrapper.

# %%
# %%compile
import lightning as L


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2

net = Net()

# %%
fabric = L.Fabric(accelerator="cpu", devices=1)
fmodel = fabric.setup(net)
x = torch.randn(4, 16)
out = fmodel(x)
nbcompile.report(fmodel)

# %%
# check: the report of the set-up module is the compiled net's
r = nbcompile.report(fmodel)
assert r.name == "net" and r.status == "compiled" and r.graph_count == 1
torch.testing.assert_close(out, net._call_impl(x))

# %% [markdown]
# The other order happens too: a cell that sets the model up and is then marked
# `%%compile`. nbcompile sees the `_FabricModule` wrapper, compiles the module inside it
# in place (as it does for `DistributedDataParallel` and FSDP) and says so in the
# report: which wrapper it saw and what it compiled.

# %%
# %%compile
set_up = fabric.setup(Net())

# %%
out2 = set_up(x)
r2 = nbcompile.report(set_up)
print("wrapper seen:", r2.wrapper)
print("compiled:    ", r2.compiled_object)
for note in r2.notes:
    print("note:", note)

# %%
# check: the inner module was compiled, and the report says so
assert r2.status == "compiled" and r2.graph_count == 1
assert r2.wrapper == "_FabricModule"
assert r2.compiled_object == "the Net inside set_up (_FabricModule), compiled in place"
assert any("compiled its inner module (Net)" in n for n in r2.notes)

# %% [markdown]
# ## What to remember
#
# * nbcompile compiles library models in place: same object, same `state_dict`.
# * Read `report(model).advice`: a growing sequence length (HF `generate()` with a
#   dynamic cache) is a recompile storm; a static cache
#   (`cache_implementation="static"`) compiles the decoding step once.
# * A `--fullgraph` error inside a library comes with the stack back to your line.
# * With Fabric, compile before `fabric.setup()`; if the module is already set up,
#   nbcompile compiles the module inside and tells you. DDP and FSDP wrappers are
#   handled the same way.
