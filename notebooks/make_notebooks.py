"""Write the tutorial notebooks of this folder (run: ``python notebooks/make_notebooks.py``).

The committed ``.ipynb`` files are the artifacts; this script reproduces them exactly
(no outputs, stable cell ids), so a change to a tutorial is a change here followed by
a re-run. ``tests/test_notebooks.py`` checks that the two agree and executes every
notebook in a real kernel.

Each notebook is a list of cells written with ``md(...)`` (prose) and ``code(...)``.
Cells that start with ``# check:`` are assertion cells: they verify what the prose
just claimed, so the test suite notices when a PyTorch or nbcompile change makes the
text wrong.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def md(text: str) -> tuple[str, str]:
    return ("markdown", textwrap.dedent(text).strip("\n"))


def code(text: str, tags: list[str] | None = None) -> tuple[str, str] | tuple[str, str, list]:
    source = textwrap.dedent(text).strip("\n")
    return ("code", source, tags) if tags else ("code", source)


def build(slug: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }
    for i, (kind, source, *tags) in enumerate(cells):
        cell_id = f"{slug[:40]}-{i:02d}"
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(source, id=cell_id)
        else:
            cell = nbformat.v4.new_code_cell(source, id=cell_id)
            if tags:
                cell.metadata["tags"] = list(tags[0])
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


SETUP = code(
    """
    %load_ext nbcompile
    import time
    import torch
    import nbcompile
    import matplotlib.pyplot as plt

    torch.manual_seed(0)
    print("torch", torch.__version__, "| threads:", torch.get_num_threads())
    """
)

# --------------------------------------------------------------------------------------
# 01 getting started
# --------------------------------------------------------------------------------------

NB01 = [
    md(
        """
        # 1. Getting started: what `torch.compile` does, and when

        `torch.compile` makes PyTorch code faster without rewriting it. Two pieces do the
        work:

        * **Dynamo** watches your Python function *while it runs*, records every tensor
          operation into a graph, and protects that graph with **guards** (checks such as
          "the input is a float32 tensor of shape 8×64"). Where it cannot follow the
          Python code it stops the graph and lets Python run that part: a **graph break**.
        * **Inductor** turns each graph into generated code: on this CPU, C++ loops that
          *fuse* many small operations into one pass over memory; on a GPU, Triton kernels.

        Much of this is invisible in plain PyTorch. `nbcompile` makes it visible:
        `%%compile` runs a cell and compiles the functions and modules it defined, and a
        live summary under the cell shows what happened when they compile. `nbcompile.report(obj)`
        returns everything it captured as plain Python data.

        **How to read these notebooks.** Run them top to bottom. Cells that start with
        `# check:` verify what the text above them claims; if one fails, the text is wrong
        for your versions of PyTorch or nbcompile (the test suite runs them all).
        """
    ),
    SETUP,
    md(
        """
        ## Compiling a function

        Here is the tanh approximation of GELU, written out as six elementwise operations.
        `%%compile` runs the cell as usual and then rebinds `gelu_tanh` to
        `torch.compile(gelu_tanh)`.
        """
    ),
    code(
        """
        %%compile
        def gelu_tanh(x):
            inner = 0.7978845608 * (x + 0.044715 * x ** 3)
            return 0.5 * x * (1.0 + torch.tanh(inner))
        """
    ),
    md(
        """
        The summary says **waiting for first call**. That is not nbcompile being lazy:
        `torch.compile` itself compiles nothing when you call it. It only installs a hook;
        Dynamo needs real inputs to trace, because the graph it records depends on them
        (their shapes, dtypes, devices).
        """
    ),
    code(
        """
        # check: nothing is compiled before the first call
        r = nbcompile.report(gelu_tanh)
        print(r.status, "| graphs:", r.graph_count)
        assert r.status == "pending" and r.graph_count == 0
        """
    ),
    md(
        """
        Now call it a few times and time each call. Watch the summary under the
        `%%compile` cell: it changes to *compiling...* and then to *compiled* while this
        cell runs.
        """
    ),
    code(
        """
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
        """
    ),
    md(
        """
        The first call traced the function, generated and built a C++ kernel and then
        ran it; later calls only check the guards and run the kernel. (Inductor keeps an
        on-disk cache, so a second kernel session compiling the same graph is quicker, but
        the first call is always the slow one.)

        Compiling must not change the result: the compiled function agrees with PyTorch's
        own `gelu(approximate="tanh")`.
        """
    ),
    code(
        """
        # check: compiled at the first call, one graph, no breaks, and the same numbers
        r = nbcompile.report(gelu_tanh)
        print(repr(r))
        assert r.status == "compiled" and r.graph_count == 1 and r.graph_break_count == 0
        assert r.compile_time_s > 0
        assert call_times[0] > max(call_times[1:]), "the first call includes the compile"
        reference = torch.nn.functional.gelu(x, approximate="tanh")
        torch.testing.assert_close(gelu_tanh(x), reference, atol=1e-5, rtol=1e-5)
        """
    ),
    md(
        """
        `nbcompile.report(gelu_tanh)` displays itself as the same summary plus details.
        Its attributes are plain data: `graph_count`, `graph_breaks`, `recompiles`,
        `kernels` (the generated code), `compile_time_s`, and `to_dict()` for JSON.
        Notebook 5 reads the generated code in detail; here is just the size of it.

        In JupyterLab the same records fill the **Compile inspector** in the right
        sidebar (the *Inspect* button under a `%%compile` cell opens it): graph breaks you
        can click to jump to their line, recompiles, and the generated code in a
        searchable view. It follows whichever notebook is active.
        """
    ),
    code(
        """
        for kernel in r.kernels:
            print(f"{kernel.kind:8} {kernel.language:7} {kernel.name:40} {kernel.size:6} chars")
        """
    ),
    md(
        """
        ## Compiling a module

        For an `nn.Module`, PyTorch recommends compiling it **in place** with
        `model.compile()`. `%%compile` does that for every module instance the cell
        creates: the name keeps the very same object, only its calls go through the
        compiled code.
        """
    ),
    code(
        """
        class TinyMLP(torch.nn.Module):
            def __init__(self, d_in=64, hidden=128, d_out=10):
                super().__init__()
                self.fc1 = torch.nn.Linear(d_in, hidden)
                self.fc2 = torch.nn.Linear(hidden, d_out)

            def forward(self, x):
                return self.fc2(torch.nn.functional.gelu(self.fc1(x)))
        """
    ),
    code(
        """
        %%compile
        model = TinyMLP()
        """
    ),
    code(
        """
        batch = torch.randn(32, 64)
        logits = model(batch)   # the first call: the summary above updates
        print(type(model).__name__, logits.shape)
        print(list(model.state_dict()))
        """
    ),
    code(
        """
        # check: the module was compiled in place (same class, same state_dict keys)
        r = nbcompile.report(model)
        print(repr(r))
        assert isinstance(model, TinyMLP)
        assert r.status == "compiled" and r.graph_count == 1
        assert list(model.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
        """
    ),
    md(
        """
        ## `model.compile()` versus `torch.compile(model)`

        Both exist in plain PyTorch, and they are not the same thing:

        * `model.compile()` changes `model` in place and returns nothing. `model` is still
          a `TinyMLP`; its `state_dict` is unchanged.
        * `torch.compile(model)` returns a *new* wrapper object, an `OptimizedModule`,
          that holds the original as `._orig_mod`. Every `state_dict` key of the wrapper
          gains the prefix `_orig_mod.`, so a checkpoint saved from it does not load into
          a plain model (and `isinstance` checks fail).

        Neither call compiles anything yet (no input, no first call), so this cell is fast.
        """
    ),
    code(
        """
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
        """
    ),
    code(
        """
        # check: only torch.compile(model) renames the keys (and changes the type)
        assert isinstance(in_place, TinyMLP) and not isinstance(wrapped, TinyMLP)
        assert not any(k.startswith("_orig_mod.") for k in in_place.state_dict())
        assert all(k.startswith("_orig_mod.") for k in wrapped.state_dict())
        assert wrapped._orig_mod.state_dict().keys() == in_place.state_dict().keys()
        assert load_error is not None and "_orig_mod.fc1.weight" in load_error
        print(TinyMLP().load_state_dict(in_place.state_dict()))   # loads fine
        """
    ),
    md(
        """
        ## Where to apply `torch.compile`

        PyTorch's advice: compile the **highest-level callable that compiles without
        trouble**. In order of preference:

        1. **the step function**: the inference or training step, including the pre- and
           post-processing around the model (but not the Python loop over batches);
        2. **the top-level module**, when the code around it cannot be compiled;
        3. **a sub-module**, when the top-level module has code that Dynamo cannot follow
           (data-dependent checks, logging, calls into other libraries).

        A larger region gives Inductor more to fuse. Below, one function compiles the
        input normalisation, the whole model and the softmax into one graph.
        """
    ),
    code(
        """
        net = TinyMLP()   # a plain, uncompiled model
        """
    ),
    code(
        """
        %%compile
        def predict(batch):
            batch = (batch - batch.mean(dim=0)) / (batch.std(dim=0) + 1e-5)
            return torch.softmax(net(batch), dim=-1)
        """
    ),
    code(
        """
        probs = predict(batch)
        step = nbcompile.report(predict)
        graph_text = "\\n".join(g for c in step.compiles for g in c.graphs)
        print(repr(step))
        print("operations in the graph of predict:", sum(c.graph_op_count for c in step.compiles))
        print("operations in the graph of model:  ",
              sum(c.graph_op_count for c in nbcompile.report(model).compiles))
        """
    ),
    code(
        """
        # check: one graph holds the normalisation, the model's layers and the softmax
        assert step.graph_count == 1 and step.graph_break_count == 0
        assert "softmax" in graph_text and "linear" in graph_text and "std" in graph_text
        assert sum(c.graph_op_count for c in step.compiles) > sum(
            c.graph_op_count for c in nbcompile.report(model).compiles)
        torch.testing.assert_close(probs.sum(dim=-1), torch.ones(32))
        """
    ),
    md(
        """
        The third option, a sub-module: this `Guarded` model refuses non-finite inputs.
        `if not torch.isfinite(x).all()` depends on the *values* in `x`, which a graph
        cannot express (notebook 2 is all about such graph breaks). Instead of fighting
        it, compile only the part that matters, `guarded.body`. `%%compile` compiles
        a sub-module bound to a name in place, so `guarded` uses the compiled body too.
        """
    ),
    code(
        """
        class Guarded(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.body = TinyMLP()

            def forward(self, x):
                if not torch.isfinite(x).all():
                    raise ValueError("non-finite input")
                return self.body(x)

        guarded = Guarded()
        """
    ),
    code(
        """
        %%compile
        body = guarded.body
        """
    ),
    code(
        """
        out = guarded(batch)        # the check runs in Python, the body runs compiled
        # check: the sub-module was compiled in place, and only it
        r = nbcompile.report(body)
        print(repr(r))
        assert body is guarded.body
        assert r.status == "compiled" and r.graph_count == 1 and r.graph_break_count == 0
        """
    ),
    md(
        """
        ## What you saw

        * `torch.compile` compiles at the **first call**, not when you call `torch.compile`;
          that first call is slow, later calls are fast.
        * Prefer `model.compile()` (in place, same `state_dict` keys) to
          `torch.compile(model)` (a wrapper whose keys gain `_orig_mod.`).
        * Compile the largest region that works: step function, then module, then
          sub-module.

        Next: **2. Graph breaks**: what stops Dynamo, how to read the reasons, how to fix them.
        """
    ),
]

# --------------------------------------------------------------------------------------
# 02 graph breaks
# --------------------------------------------------------------------------------------

NB02 = [
    md(
        """
        # 2. Graph breaks: find them, read them, fix them

        Dynamo records tensor operations into a graph while your function runs. When it
        meets something it cannot put in a graph, it does not fail: it **breaks the
        graph**. It compiles what it has so far, lets Python run the troublesome line, and
        starts a new graph after it (a *resume function*). The program still gives the
        right answer, but:

        * each break ends a graph, so Inductor cannot fuse across it;
        * each break costs a trip back to Python, and more graphs mean more guards to check;
        * some breaks also cause recompiles (notebook 4).

        This notebook builds a small feature function with four classic breaks, reads
        nbcompile's account of them, fixes them one at a time, and then proves the result
        is a single graph with `--fullgraph`.
        """
    ),
    SETUP,
    md(
        """
        ## A function with four graph breaks

        `featurize` centres a batch, scales it, tames large spreads and assigns each value
        to a bin. Every numbered line is a typical graph break:

        1. `print(...)`: a side effect on the outside world;
        2. `.item()`: turns a tensor into a Python number (the graph would have to end to
           produce it);
        3. `if <tensor>:`: Python control flow that depends on tensor *values*;
        4. `np.digitize(...)`: Dynamo can translate many NumPy calls into torch operations,
           but not this one.
        """
    ),
    code(
        """
        %%compile
        import numpy as np

        EDGES = np.array([-1.0, 0.0, 1.0], dtype=np.float32)

        def featurize(x):
            x = x - x.mean(dim=0)
            print("featurize: batch of", x.shape[0])      # 1. print
            scale = x.abs().max().item()                  # 2. .item()
            if x.std() > 1.0:                             # 3. if on a tensor value
                x = x / x.std()
            bins = np.digitize(x.numpy(), EDGES)          # 4. a NumPy call torch can't translate
            return x / scale, torch.from_numpy(bins)
        """
    ),
    code(
        """
        data = torch.randn(256, 8) * 3
        reference = featurize(data)     # the first call compiles: see the summary above
        """
    ),
    md(
        """
        The summary under the `%%compile` cell now lists each break with its **line
        number in that cell** (the `%%compile` line is line 1), the line itself, and the
        reason Dynamo gave. The report has the same data as attributes:
        """
    ),
    code(
        """
        r = nbcompile.report(featurize)
        print(repr(r))
        for gb in r.graph_breaks:
            print(f"line {gb.lineno}: {gb.line}")
            print(f"    reason: {gb.reason}")
            if gb.hint:
                print(f"    hint:   {gb.hint.splitlines()[0]}")
        """
    ),
    code(
        """
        # check: four breaks, one on each numbered line, and five graphs around them
        def broken_lines(report):
            return sorted(gb.line.split("#")[0].strip() for gb in report.graph_breaks)

        print(broken_lines(r))
        assert r.graph_break_count == 4, r.graph_breaks
        assert broken_lines(r) == sorted([
            'print("featurize: batch of", x.shape[0])',
            "scale = x.abs().max().item()",
            "if x.std() > 1.0:",
            "bins = np.digitize(x.numpy(), EDGES)",
        ])
        assert r.graph_count == 5
        reasons = " ".join(gb.reason for gb in r.graph_breaks)
        assert "print" in reasons and "item()" in reasons and "numpy" in reasons.lower()
        assert any("data-dependent" in gb.reason.lower() for gb in r.graph_breaks)
        """
    ),
    md(
        """
        How to read the reasons:

        * **print**: *Failed to trace builtin operator `print`*. Dynamo does not reorder
          side effects into a graph. Remove debug prints from compiled code, or print
          outside the compiled function.
        * **`.item()`**: *Unsupported Tensor.item() call*. The graph works on tensors; a
          Python `float` exists only after the graph has run. Keep values as tensors
          (a 0-dimensional tensor broadcasts just like a number).
        * **data-dependent `if`**: Python needs `True` or `False` *now*, but the tensor's
          value is only known when the graph runs. Compute both outcomes and pick with
          `torch.where`, which is a tensor operation.
        * **unsupported NumPy function**: Dynamo maps NumPy calls to torch functions when it
          knows an equivalent; `np.digitize` is not in its table. Use the torch operation
          directly: `torch.bucketize(x, edges, right=True)` is `np.digitize(x, edges)`.

        ## What `--fullgraph` does

        `--fullgraph` (`torch.compile(..., fullgraph=True)`) turns the first graph break
        into an error instead of splitting the graph. It is how you *guarantee* one graph.
        On the broken function it fails at the first call, naming the line:
        """
    ),
    code(
        """
        %%compile --fullgraph
        def featurize_strict(x):
            x = x - x.mean(dim=0)
            print("featurize: batch of", x.shape[0])
            return x / x.abs().max()
        """
    ),
    code(
        """
        try:
            featurize_strict(data)
        except Exception as err:
            print(type(err).__name__, "-", str(err).splitlines()[0])
        strict = nbcompile.report(featurize_strict)
        print(f"status: {strict.status}; line {strict.error.lineno}: {strict.error.line}")
        """
    ),
    code(
        """
        # check: --fullgraph fails at the first call and names the print line
        assert strict.status == "failed"
        assert strict.error.lineno == 4 and strict.error.line.startswith("print(")
        """
    ),
    md(
        """
        ## Fixing the breaks one at a time

        Each cell below is the previous version with one line changed (marked `# fixed`).
        Re-running a `%%compile` cell replaces the target; we keep each version's report
        in `history` for a plot at the end.
        """
    ),
    code(
        """
        history = {"original": nbcompile.report(featurize)}
        """
    ),
    code(
        """
        %%compile
        def featurize(x):
            x = x - x.mean(dim=0)
            # fixed 1: no print in compiled code
            scale = x.abs().max().item()
            if x.std() > 1.0:
                x = x / x.std()
            bins = np.digitize(x.numpy(), EDGES)
            return x / scale, torch.from_numpy(bins)
        """
    ),
    code(
        """
        out = featurize(data)
        history["no print"] = nbcompile.report(featurize)
        print(broken_lines(history["no print"]))
        """
    ),
    code(
        """
        %%compile
        def featurize(x):
            x = x - x.mean(dim=0)
            scale = x.abs().max()                         # fixed 2: stays a tensor
            if x.std() > 1.0:
                x = x / x.std()
            bins = np.digitize(x.numpy(), EDGES)
            return x / scale, torch.from_numpy(bins)
        """
    ),
    code(
        """
        out = featurize(data)
        history["no .item()"] = nbcompile.report(featurize)
        print(broken_lines(history["no .item()"]))
        """
    ),
    code(
        """
        %%compile
        def featurize(x):
            x = x - x.mean(dim=0)
            scale = x.abs().max()
            std = x.std()
            x = torch.where(std > 1.0, x / std, x)         # fixed 3: branchless
            bins = np.digitize(x.numpy(), EDGES)
            return x / scale, torch.from_numpy(bins)
        """
    ),
    code(
        """
        out = featurize(data)
        history["no if"] = nbcompile.report(featurize)
        print(broken_lines(history["no if"]))
        """
    ),
    md(
        """
        The last fix replaces NumPy with its torch equivalent. Now we expect one graph,
        so we ask for it: with `--fullgraph`, any break left would be an error.
        """
    ),
    code(
        """
        %%compile --fullgraph
        EDGES_T = torch.from_numpy(EDGES)

        def featurize(x):
            x = x - x.mean(dim=0)
            scale = x.abs().max()
            std = x.std()
            x = torch.where(std > 1.0, x / std, x)
            bins = torch.bucketize(x, EDGES_T, right=True)  # fixed 4: torch, not NumPy
            return x / scale, bins
        """
    ),
    code(
        """
        fixed = featurize(data)
        history["fullgraph"] = nbcompile.report(featurize)
        print(repr(history["fullgraph"]))
        """
    ),
    code(
        """
        names = list(history)
        fig, ax = plt.subplots(figsize=(7, 2.8))
        ax.plot(names, [history[n].graph_count for n in names], "o-", label="graphs")
        ax.plot(names, [history[n].graph_break_count for n in names], "s--", label="graph breaks")
        ax.set_ylim(bottom=0)
        ax.set_title("featurize, one fix at a time")
        ax.legend()
        plt.show()
        """
    ),
    code(
        """
        # check: each fix removes exactly one break; the end is one graph under --fullgraph
        counts = [history[n].graph_break_count for n in names]
        print(dict(zip(names, counts)))
        assert counts == [4, 3, 2, 1, 0]
        assert [history[n].graph_count for n in names][-1] == 1
        assert history["fullgraph"].status == "compiled"
        assert history["fullgraph"].options.get("fullgraph") is True
        # ...and the fixed function computes the same thing as the original
        torch.testing.assert_close(fixed[0], reference[0])
        assert torch.equal(fixed[1], reference[1])
        """
    ),
    md(
        """
        ## What you saw

        * A graph break is not an error: Dynamo splits the graph and runs the line in
          Python. nbcompile lists each break with its cell line and reason.
        * The usual suspects: `print` and other side effects, `.item()` / `.tolist()`,
          `if` on tensor values, library calls Dynamo cannot translate.
        * Fixes: drop the side effect, keep values as tensors, use `torch.where` for
          value-dependent choices, use torch operations instead of NumPy.
        * `--fullgraph` turns a break into an error at the first call: use it to prove
          (and keep) a function break-free.

        Not every break needs fixing: a break outside the hot path costs little. Fix
        the ones that split the heavy work. (For `.item()` there is also
        `torch._dynamo.config.capture_scalar_outputs = True`, which keeps the number in the
        graph as a symbol.)

        Next: **3. Modes and timing**.
        """
    ),
]

# --------------------------------------------------------------------------------------
# 04 recompiles and dynamic shapes
# --------------------------------------------------------------------------------------

NB04 = [
    md(
        """
        # 4. Recompiles and dynamic shapes

        A compiled graph is only valid for inputs like the ones it was traced with. Dynamo
        records **guards** next to each graph: checks on the inputs (sizes, dtype, device,
        `requires_grad`), on Python values the code read (globals, attributes, numbers)
        and on the configuration. Every call runs the guards first:

        * all pass: the cached compiled code runs;
        * one fails: Dynamo **recompiles** for the new situation and keeps both versions,
          up to `torch._dynamo.config.recompile_limit` versions per function (8 by
          default). Past the limit it stops compiling that function and runs it eagerly.

        Recompiles are the second most common reason for "torch.compile made my code slow"
        after graph breaks. This notebook makes them happen on purpose and reads the
        reasons nbcompile records.
        """
    ),
    SETUP,
    code(
        """
        %%compile
        def soft_norm(x):
            return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))
        """
    ),
    md(
        """
        ## A new shape

        The first call compiles for a batch of 8 rows. The second call has 8 rows again:
        the guards pass, no compile. The third has 12 rows: the guard on the size fails.
        """
    ),
    code(
        """
        soft_norm(torch.randn(8, 16))
        soft_norm(torch.randn(8, 16))    # same shape: cached code
        soft_norm(torch.randn(12, 16))   # new batch size: recompile
        r = nbcompile.report(soft_norm)
        for rc in r.recompiles:
            print(rc.compile_id, "|", rc.reason)
        """
    ),
    md(
        """
        The reason names the tensor (`x`), the dimension (`index 0`, the batch dimension),
        what the compiled code expected and what it got. The compile id `0/1` reads
        "frame 0, version 1": the first recompile of this function.

        Now a third batch size, 20 rows:
        """
    ),
    code(
        """
        soft_norm(torch.randn(20, 16))
        r = nbcompile.report(soft_norm)
        print(repr(r))
        print("compiled versions:", [c.compile_id for c in r.compiles])
        """
    ),
    code(
        """
        # check: the recompile reason names the changed dimension; 20 rows needed no recompile
        assert r.recompile_count == 1
        reason = r.recompiles[0].reason
        assert "size mismatch at index 0" in reason and "expected 8" in reason and "actual 12" in reason
        assert [c.compile_id for c in r.compiles] == ["0/0", "0/1"]
        """
    ),
    md(
        """
        No recompile for 20 rows. This is **automatic dynamic shapes**, PyTorch's default:
        the first compile specialises on every size (the fastest code for exactly those
        shapes). When a size changes, the recompile marks *that* dimension as dynamic, a
        symbol `s0` instead of a number, and the new code works for any batch size
        (with a few exceptions: sizes 0 and 1 are still special). One recompile, then
        done.

        ## A new dtype

        A dtype change cannot be made symbolic: float64 needs different code.
        """
    ),
    code(
        """
        soft_norm(torch.randn(20, 16, dtype=torch.float64))
        r = nbcompile.report(soft_norm)
        print(r.recompiles[-1].reason)
        """
    ),
    code(
        """
        # check: the dtype change is a recompile whose reason names both dtypes
        assert r.recompile_count == 2
        assert "dtype mismatch" in r.recompiles[-1].reason
        assert "expected Float, actual Double" in r.recompiles[-1].reason
        """
    ),
    md(
        """
        ## `--dynamic`, `--no-dynamic` and the default

        `%%compile` exposes `torch.compile`'s `dynamic=` argument:

        * *(default)* `dynamic=None`: specialise first, go dynamic on the dimension that
          changes (what you just saw);
        * `--dynamic`: dynamic from the first compile: one compile serves all sizes, at
          the price of slightly more general code;
        * `--no-dynamic`: always specialise: one compile **per size**.

        The same function compiled three ways, fed the same six batch sizes:
        """
    ),
    code(
        """
        %%compile --dynamic
        def norm_dynamic(x):
            return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))
        """
    ),
    code(
        """
        %%compile --no-dynamic
        def norm_static(x):
            return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))
        """
    ),
    code(
        """
        %%compile
        def norm_auto(x):
            return torch.tanh(x) / (1 + x.abs().sum(dim=-1, keepdim=True))
        """
    ),
    code(
        """
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
        """
    ),
    code(
        """
        # check: dynamic compiles once, the default twice, static once per size
        assert compiles_after["--dynamic"][-1] == 1
        assert compiles_after["default"][-1] == 2
        assert compiles_after["--no-dynamic"][-1] == len(sizes)
        assert all("size mismatch at index 0" in rc.reason
                   for rc in nbcompile.report(norm_static).recompiles)
        """
    ),
    md(
        """
        Which to use? The default is right most of the time. Use `--dynamic` (or
        `torch._dynamo.mark_dynamic(x, 0)` on one input) when you *know* a dimension
        varies, such as sequence length, to skip the first specialised compile. Use
        `--no-dynamic` only for a handful of fixed shapes where the specialised code is
        measurably faster.

        ## Try it: pick a batch size

        Move the slider (when the notebook runs in JupyterLab) to call the three
        variants with a new batch size, and watch which of them recompile. Sizes 0 and 1
        are specialised even by dynamic code.
        """
    ),
    code(
        """
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
                print("\\n".join(lines))

        size_slider.observe(call_all, names="value")
        display(widgets.VBox([size_slider, size_out]))
        call_all()
        """
    ),
    md(
        """
        ## The recompile limit

        Guards also cover plain Python numbers a function reads. `.item()` turns a tensor
        into such a number, and the code *after* the `.item()` graph break (the resume
        function of notebook 2) depends on it. With `--no-dynamic` every new value is a
        new specialisation, so each call with new data recompiles: a **recompile storm**.
        Dynamo cuts it off at `recompile_limit`. We lower the limit from 8 to 4 to see it
        quickly.
        """
    ),
    code(
        """
        %%compile --no-dynamic
        def scale_by_max(x):
            peak = x.abs().max().item()
            return x / peak
        """
    ),
    code(
        """
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
        """
    ),
    md(
        """
        Eight calls, but only four versions of the code after the break and three
        recompiles: at the fifth version Dynamo hit the limit, gave up on that frame and
        has run it in plain Python ever since. PyTorch says so only once, in a log warning
        (above). Each reason says a Python number changed: the guard was on the exact
        value of `peak`.

        nbcompile looks at the pattern across compiles and says it in words: the summary
        under the `%%compile` cell and `report(...).advice` name the *scalar
        specialisation* and the *recompile limit*, each with a fix.

        The default (`dynamic=None`) is kinder: after one recompile it turns the number
        into a symbol too. The real fix is to not leave the tensor world at all:
        `x / x.abs().max()` divides by a 0-dimensional tensor, with no break and no guard
        on its value.
        """
    ),
    code(
        """
        %%compile --no-dynamic
        def scale_by_max_fixed(x):
            return x / x.abs().max()
        """
    ),
    code(
        """
        for _ in range(8):
            scale_by_max_fixed(torch.randn(64))
        fixed = nbcompile.report(scale_by_max_fixed)
        print(repr(fixed))
        torch._dynamo.config.recompile_limit = default_limit
        """
    ),
    code(
        """
        # check: the storm stopped at the limit (4 versions of the resume code), and the
        # fix compiles once for all eight calls
        resume = [c for c in storm.compiles if c.frame.startswith("torch_dynamo_resume")]
        assert len(resume) == 4 and storm.recompile_count == 3
        assert all("Python number" in rc.reason for rc in storm.recompiles)
        assert {"scalar-specialization", "recompile-limit"} <= {a.kind for a in storm.advice}
        assert fixed.recompile_count == 0 and fixed.graph_count == 1
        assert fixed.graph_break_count == 0
        """
    ),
    md(
        """
        ## What you saw

        * Every compiled graph has guards; a failed guard means a recompile, and
          nbcompile shows the reason: *size mismatch at index 0. expected 8, actual 12*,
          *dtype mismatch. expected Float, actual Double*, *a Python number changed*.
        * By default a changing size becomes dynamic after one recompile; `--dynamic`
          starts dynamic, `--no-dynamic` never goes dynamic.
        * After `recompile_limit` versions Dynamo runs the function eagerly, with a
          single log warning; nbcompile's advice points it out. Values read with `.item()`
          and other Python numbers are a common cause: keep them as tensors.

        Next: **5. Reading generated code**.
        """
    ),
]

# --------------------------------------------------------------------------------------
# 06 compiling a training step
# --------------------------------------------------------------------------------------

NB06 = [
    md(
        '''
        # 6. Compiling a training step

        For training, PyTorch's advice is to compile the **training step**: the function
        that runs the forward pass, the loss, the backward pass and the optimizer update
        for one batch, but not the Python loop over batches. That gives the compiler the
        most to work with: the forward and its gradient are compiled together, and the
        optimizer's update (a long list of small per-parameter operations) is fused too.

        With distributed training there is one more rule: **compile the inner module,
        not the `DistributedDataParallel` wrapper**. We check both, on a small classifier
        and random data.
        '''
    ),
    SETUP,
    code(
        '''
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
        '''
    ),
    md(
        '''
        ## The step function

        The step takes the model and its optimizer as arguments, so the very same code can
        also run eagerly on the twin model for comparison.
        '''
    ),
    code(
        '''
        %%compile
        def train_step(model, opt, x, y):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss.detach()
        '''
    ),
    code(
        '''
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        eager_opt = torch.optim.Adam(eager_model.parameters(), lr=1e-2)
        eager_step = train_step._torchdynamo_orig_callable   # the uncompiled function

        losses, eager_losses, step_times = [], [], []
        for epoch in range(2):
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
        '''
    ),
    code(
        '''
        # check: the compiled step trains, and trains like the eager step
        assert sum(losses[-8:]) / 8 < 0.7 * sum(losses[:8]) / 8, "the loss goes down"
        torch.testing.assert_close(torch.tensor(losses), torch.tensor(eager_losses),
                                   atol=1e-3, rtol=1e-3)
        for p, q in zip(model.parameters(), eager_model.parameters()):
            torch.testing.assert_close(p, q, atol=1e-3, rtol=1e-3)
        '''
    ),
    md(
        '''
        ## What the compiler made of it

        The summary under the `%%compile` cell (and the report) show several graphs and
        some graph breaks, and that is expected:
        '''
    ),
    code(
        '''
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
        '''
    ),
    md(
        '''
        How to read it:

        * **`loss.backward()` is a graph break**: Dynamo does not trace the call to
          `backward()` itself. That does not mean the backward pass runs uncompiled:
          AOTAutograd traced the forward graph *together with its gradient* and Inductor
          compiled both; `backward()` runs that compiled backward.
        * **the optimizer step is its own graph**: after the break, Dynamo compiles
          `opt.step()` (frames named `step`/`wrapper` from `torch/optim`). The
          per-parameter Adam updates become a few fused kernels.
        * **breaks inside PyTorch's own code** (lines of `torch/optim/...`): PyTorch places
          some on purpose around the optimizer's bookkeeping. Fix the breaks in *your*
          lines; leave these.

        The seed pattern compiles all of this with one decorator (or one `%%compile`).
        Compiling only the model (`model.compile()`) would compile the forward and
        backward but leave the optimizer's many small operations eager.
        '''
    ),
    code(
        '''
        # check: the backward call is a break in our cell, the forward (with its backward)
        # and the optimizer step were compiled, and the step time dropped after the first
        user_breaks = [gb.line for gb in r.graph_breaks if gb.filename == r.cell.filename]
        print(user_breaks)
        assert "loss.backward()" in user_breaks
        assert r.status == "compiled" and r.graph_count >= 2
        assert any(c.frame == "step" for c in r.compiles), [c.frame for c in r.compiles]
        assert any(k.stage == "backward" for k in r.kernels), "a compiled backward"
        assert step_times[0] > max(step_times[1:]), "the first step includes the compile"
        '''
    ),
    md(
        '''
        ## DistributedDataParallel: compile the inner module

        `DistributedDataParallel` (DDP) wraps a model and, during the backward pass, starts
        averaging the gradients across processes in buckets while the rest of the
        backward still runs. PyTorch recommends compiling the **inner** module and leaving
        the wrapper alone: `model.compile()` and then `DDP(model)`, or the same in either
        order. `%%compile` follows that rule: given a DDP object, it compiles
        `ddp.module` in place.

        DDP needs a process group. With the `gloo` backend and a world of one process it
        runs on any CPU, which is enough to see the mechanics (a real job starts one
        process per device, e.g. with `torchrun`).
        '''
    ),
    code(
        '''
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
        '''
    ),
    code(
        '''
        %%compile
        ddp_model = torch.nn.parallel.DistributedDataParallel(Classifier())
        '''
    ),
    code(
        '''
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
        '''
    ),
    code(
        '''
        # check: the inner module was compiled in place; the wrapper and keys are unchanged
        rd = nbcompile.report(ddp_model)
        print(repr(rd))
        assert rd.wrapper == "DistributedDataParallel" and rd.status == "compiled"
        assert isinstance(ddp_model, torch.nn.parallel.DistributedDataParallel)
        assert isinstance(ddp_model.module, Classifier)
        assert all(k.startswith("module.") and "_orig_mod" not in k for k in ddp_model.state_dict())
        assert sum(ddp_losses[-4:]) < sum(ddp_losses[:4])
        '''
    ),
    code(
        '''
        dist.destroy_process_group()
        '''
    ),
    md(
        '''
        ## What you saw

        * Compile the whole training step, optimizer included. `loss.backward()` shows up
          as a graph break, but the backward pass is compiled (by AOTAutograd, with the
          forward), and so is the optimizer step.
        * Check a compiled step against an eager twin: same losses, same weights.
        * With DDP (or FSDP), compile the inner module; nbcompile does that for you and
          keeps the `state_dict` keys intact (no `_orig_mod.`).

        That is the end of the tutorials. Take `%%compile` to your own notebook: start with
        the largest callable, read the summary, fix the breaks on your lines, watch the
        recompile reasons, and time with `%compare` before you believe a speedup.
        '''
    ),
]

# --------------------------------------------------------------------------------------
# 03 modes and timing
# --------------------------------------------------------------------------------------

NB03 = [
    md(
        '''
        # 3. Modes and timing: when does compiling pay off?

        `torch.compile(mode=...)` picks a bundle of Inductor settings:

        | mode | what it adds | on this CPU |
        |---|---|---|
        | `default` | fusion, generated kernels | the baseline of compiled code |
        | `reduce-overhead` | **CUDA graphs**: the GPU records the whole sequence of kernel launches once and replays it with one call, removing the CPU's launch overhead | skipped: there is no GPU to record on |
        | `max-autotune` | tries several implementations of matmuls/convolutions (and kernel configs) and keeps the fastest; plus CUDA graphs | the autotuning part applies; compiles take longer |
        | `max-autotune-no-cudagraphs` | the autotuning without CUDA graphs | same as above |

        Whether any of it pays off depends on where the time goes. This notebook measures,
        with nbcompile's `%compare` (and `nbcompile.compare(fn, *args, modes=...)`):

        * the first call (compile) is reported apart from the steady-state run time;
        * eager and every mode are measured in **interleaved** repeats, so a load spike on
          the machine hits all of them alike, with the thread count held fixed;
        * each speedup is the median of per-repeat ratios to eager, with its spread
          (interquartile range). The row's verdict says **faster** only when that spread
          stays clear of 1.0x, the effect is at least 3 % and the run-time spreads of the
          mode and of eager do not overlap; otherwise it says *no significant
          difference* instead of ranking noise. (On a busy machine the last condition can
          fail even for a clear speedup: then read the paired spread.)
        * each mode's output is compared with eager's.

        The checks below never assert absolute times, only what the comparisons conclude.
        '''
    ),
    SETUP,
    md(
        '''
        ## Case 1: a chain of elementwise operations

        Eager PyTorch runs `wave` as nine separate operations, each reading its inputs
        from memory and writing a full-size result back. Inductor fuses all of them into
        one loop that reads `x` once and writes the result once.
        '''
    ),
    code(
        '''
        def wave(x):
            y = torch.sin(x) * 1.5 + torch.cos(x)
            y = torch.tanh(y) * torch.sigmoid(x)
            return torch.exp(-y * y) + x * 0.1

        x = torch.randn(1024, 1024)
        '''
    ),
    code(
        '''
        wave_cmp = %compare wave(x) --modes default,reduce-overhead,max-autotune-no-cudagraphs --budget 6
        wave_cmp
        '''
    ),
    md(
        '''
        Read the table from left to right: the **compile** column is the first call of
        each mode (modes that produce the same code hit Inductor's cache and compile
        quickly); **run** is the median steady-state time with half the interquartile
        range; **speedup** is the median of per-repeat ratios to eager, with its spread in
        brackets; **max |diff|** checks that the mode computes the same thing.

        The `reduce-overhead` row carries a note: CUDA graphs do not apply on a CPU, so
        this mode ran as plain compiled code. On a GPU it matters most for small batches,
        where launching many tiny kernels costs more than running them.
        '''
    ),
    code(
        '''
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
        '''
    ),
    md(
        '''
        ## Case 2: a matmul-bound model

        A stack of 512-wide linear layers spends almost all its time in matrix
        multiplications. Eager PyTorch already calls an optimised library (oneDNN/MKL)
        for them, and so does the compiled code: Inductor emits the same library call as
        an *extern kernel* (`extern_kernels.addmm`) and only fuses the small activation
        functions around it. Notebook 5 shows that code.
        '''
    ),
    code(
        '''
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
        '''
    ),
    code(
        '''
        stack_cmp = %compare stack(xs) --modes default,max-autotune-no-cudagraphs --budget 5
        stack_cmp
        '''
    ),
    code(
        '''
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
        '''
    ),
    code(
        '''
        # check: compiling helps the elementwise chain much more than the matmul stack
        assert stack_cmp.row("default").speedup < wave_cmp.row("default").speedup
        assert all(row.numerics_ok for row in stack_cmp.rows)
        '''
    ),
    md(
        '''
        ## Does the compile time pay back?

        A speedup per call only helps after enough calls to repay the first call's
        compile. The break-even point is compile time divided by the time saved per call:
        '''
    ),
    code(
        '''
        def break_even(cmp, mode="default"):
            row, eager = cmp.row(mode), cmp.row("eager")
            saved = eager.median_s - row.median_s
            return row.compile_s / saved if saved > 0 else float("inf")

        for name, cmp in [("wave", wave_cmp), ("stack", stack_cmp)]:
            calls = break_even(cmp)
            print(f"{name:6} compile {cmp.row('default').compile_s:6.2f} s, "
                  f"break-even after {calls:,.0f} calls" if calls != float("inf")
                  else f"{name:6} never pays back at this size")
        '''
    ),
    md(
        '''
        (Compile times here depend on Inductor's on-disk cache: a graph compiled before,
        by you or by another notebook, costs far less the second time.)

        ## Try it: batch size and mode

        Speedups depend on the input size. In JupyterLab, pick a batch size and a mode for
        the `stack` model and press *Compare* (each run compiles a fresh copy and takes a
        few seconds). Small batches leave less work per call, so fixed per-call costs
        weigh more.
        '''
    ),
    code(
        '''
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
        '''
    ),
    md(
        '''
        ## What you saw

        * Compiling pays off when fusion removes memory traffic and per-operation
          overhead (elementwise chains, normalisations, activations, optimizer updates);
          it does little for time spent inside one big library matmul.
        * `reduce-overhead` is about CUDA graphs: a GPU feature; on a CPU it changes nothing.
        * `max-autotune` trades compile time for trying more implementations; measure
          before you keep it.
        * Time with interleaved repeats and look at the spread: a speedup whose range
          includes 1.0x is not a speedup.

        Next: **4. Recompiles and dynamic shapes**.
        '''
    ),
]

# --------------------------------------------------------------------------------------
# 05 reading generated code
# --------------------------------------------------------------------------------------

NB05 = [
    md(
        '''
        # 5. Reading the generated code

        Inductor's output for one graph is a Python module. It contains:

        * **kernels**: generated functions that do the actual work. On a CPU they are C++
          loops (compiled into a shared library the first time); on a GPU they are
          **Triton** kernels;
        * **extern kernels**: calls into existing libraries where those are already best,
          such as `extern_kernels.addmm` for a linear layer's matmul;
        * the **wrapper**, a Python function `call(args)` that allocates the output
          buffers and launches the kernels in order.

        nbcompile splits that module into `report(obj).kernels`, ties each kernel to the
        cell lines it came from, and can show the cell annotated line by line
        (`%%compile --annotate`, `report(obj).annotate()`). With `--codegen triton` it
        also shows the Triton code a GPU would get, generated here on the CPU.
        '''
    ),
    SETUP,
    md(
        '''
        ## Fusion: one kernel for a chain of operations
        '''
    ),
    code(
        '''
        %%compile --annotate
        def wave(x):
            y = torch.sin(x) * 1.5 + torch.cos(x)
            y = torch.tanh(y) * torch.sigmoid(x)
            return torch.exp(-y * y) + x * 0.1
        '''
    ),
    code(
        '''
        x = torch.randn(256, 256)
        out = wave(x)     # the annotated source above fills in after this first call
        r = nbcompile.report(wave)
        for k in r.kernels:
            lines = [sl.lineno for sl in k.lines]
            print(f"{k.kind:8} {k.language:7} {k.name:45} lines {lines}")
        '''
    ),
    md(
        '''
        Three lines of Python, nine operations, **one** generated kernel: its name lists
        the fused operations (`cpp_fused_add_cos_exp_mul_...`). Here is its C++ source:
        '''
    ),
    code(
        '''
        kernel = next(k for k in r.kernels if k.kind == "kernel")
        print(kernel.source)
        '''
    ),
    md(
        '''
        What to look for in it:

        * `extern "C" void kernel(...)` takes plain pointers: the input `x` and the
          output buffer (called `in_out_ptr0` when Inductor reuses a buffer). Nothing in
          between is written to memory: the intermediate results live in registers;
        * the loop over all elements, usually split into a **vectorised** main loop
          (`at::vec::Vectorized<float>`, several floats per instruction, when the CPU
          supports it) and a scalar tail for the leftover elements;
        * `#pragma omp` lines: the loop is shared among the CPU threads;
        * every operation of the Python lines, in order, as one expression per temporary
          (`tmp0`, `tmp1`, ...).

        And the wrapper that runs it:
        '''
    ),
    code(
        '''
        wrapper = next(k for k in r.kernels if k.kind == "wrapper")
        print(wrapper.source)
        '''
    ),
    code(
        '''
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
        '''
    ),
    md(
        '''
        ## A module: extern matmuls and fused activations

        A linear layer is a matrix multiplication plus a bias. Inductor does not write its
        own matmul on the CPU: it calls `extern_kernels.addmm` (bias + matmul in one
        library call) and fuses what comes after it (here: the GELU) into a kernel.
        '''
    ),
    code(
        '''
        class Block(torch.nn.Module):
            def __init__(self, width=128):
                super().__init__()
                self.up = torch.nn.Linear(width, 4 * width)
                self.down = torch.nn.Linear(4 * width, width)

            def forward(self, x):
                h = self.up(x)
                h = torch.nn.functional.gelu(h)
                return x + self.down(h)
        '''
    ),
    code(
        '''
        %%compile --annotate
        block = Block()
        '''
    ),
    code(
        '''
        y = block(torch.randn(32, 128))
        rb = nbcompile.report(block)
        for k in rb.kernels:
            where = [sl.line for sl in k.lines]
            print(f"{k.kind:8} {k.name:40} {where}")
        '''
    ),
    code(
        '''
        # check: both linear layers are extern addmm calls, the GELU is a generated kernel
        externs = [k for k in rb.kernels if k.kind == "extern"]
        generated = [k for k in rb.kernels if k.kind == "kernel"]
        assert [k.name for k in externs].count("extern_kernels.addmm") >= 1
        assert any("mm" in k.name for k in externs)
        assert any("gelu" in k.name for k in generated), [k.name for k in generated]
        lines_of_externs = {sl.line for k in externs for sl in k.lines}
        assert "h = self.up(x)" in lines_of_externs
        '''
    ),
    md(
        '''
        The whole generated module is in `report(obj).output_code`, and Inductor also
        keeps it on disk (the path is in each compile record). Browse the kernels of both
        targets with the menu below (it works in JupyterLab; here it shows the first).
        '''
    ),
    code(
        '''
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
        '''
    ),
    md(
        '''
        ## The same function as Triton (a GPU preview)

        On a GPU, Inductor writes **Triton** kernels instead of C++. `%%compile --codegen
        triton` asks Inductor for them on this CPU-only machine: the code is exactly what
        a GPU build would compile, but here it can only run in Triton's slow
        *interpreter*, and not every kernel can. The preview is for reading, not timing.

        It needs the `triton` package (`pip install triton` installs beside the CPU
        build of torch).
        '''
    ),
    code(
        '''
        import importlib.util

        HAVE_TRITON = importlib.util.find_spec("triton") is not None
        print("triton installed:", HAVE_TRITON)
        '''
    ),
    code(
        '''
        %%compile --codegen triton
        def swish_shift(x):
            return torch.sigmoid(x) * x + 1.0
        ''',
        tags=["raises-exception"],
    ),
    code(
        '''
        from nbcompile.core.triton_preview import TritonPreviewError

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
        '''
    ),
    md(
        '''
        A Triton kernel is written for *one block* of elements; the GPU runs many copies
        (programs) at once:

        * `tl.program_id(0) * XBLOCK` is where this program's block starts, and
          `xindex = xoffset + tl.arange(0, XBLOCK)` are the element indices it handles;
        * `xmask` switches off the indices past the end when the size is not a multiple of
          the block;
        * `tl.load` reads a whole block from memory, the arithmetic works on the block,
          `tl.store` writes the block back: the same fusion as the C++ loop, organised for
          thousands of GPU threads instead of a few CPU cores.
        '''
    ),
    code(
        '''
        # check: the preview produced a Triton kernel with block loads and stores
        if HAVE_TRITON:
            assert triton_kernel.name.startswith("triton_poi_fused")
            for token in ("@triton.jit", "tl.program_id", "tl.load", "tl.store"):
                assert token in triton_kernel.source, token
        '''
    ),
    md(
        '''
        ## What you saw

        * Inductor's output is a wrapper plus kernels; elementwise work is fused into one
          generated kernel per graph region, matmuls go to library calls.
        * `report(obj).kernels` has each kernel's language, source, ops and cell lines;
          `--annotate` colours the cell by what each line became.
        * `--codegen triton` shows the GPU version of the same fusion.

        Next: **6. Compiling a training step**.
        '''
    ),
]

NOTEBOOKS: dict[str, list[tuple]] = {
    "01-getting-started": NB01,
    "02-graph-breaks": NB02,
    "03-modes-and-timing": NB03,
    "04-recompiles-and-dynamic-shapes": NB04,
    "05-reading-generated-code": NB05,
    "06-compiling-a-training-step": NB06,
}


def write_all(folder: Path = HERE) -> list[Path]:
    paths = []
    for slug, cells in NOTEBOOKS.items():
        path = folder / f"{slug}.ipynb"
        nbformat.write(build(slug, cells), path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for p in write_all(target):
        print("wrote", p)
