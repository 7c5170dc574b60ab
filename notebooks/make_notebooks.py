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


def code(text: str) -> tuple[str, str]:
    return ("code", textwrap.dedent(text).strip("\n"))


def build(slug: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }
    for i, (kind, source) in enumerate(cells):
        cell_id = f"{slug[:40]}-{i:02d}"
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(source, id=cell_id)
        else:
            cell = nbformat.v4.new_code_cell(source, id=cell_id)
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
        Notebook 5 reads the generated code in detail; here is just the size of it:
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

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "01-getting-started": NB01,
    "02-graph-breaks": NB02,
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
