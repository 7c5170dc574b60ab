"""9. Saved notebook size: a tiny 1-layer GPT-2 compiled 12 times and a one-line function
recompiled 30 times, each with its ``report()`` displayed, executed in a real kernel and
saved; at the largest budget (``--output-budget 8M``, ``MAX_OUTPUT_BUDGET``: about per-item
caps only, as before outputs had a total byte budget) and with the default 256K budget.

``python -m benchmarks --only 9``
"""

from __future__ import annotations

import json

import nbformat
from nbclient import NotebookClient

SETUP = """
%load_ext nbcompile
import torch
torch._dynamo.config.recompile_limit = 64
torch._dynamo.config.cache_size_limit = 64
"""

def gpt2_cells(compiles: int = 12) -> list[str]:
    """The GPT-2 case's cells: the model compiled ``--no-dynamic``, called with
    ``compiles`` sequence lengths (one compile each), its report displayed."""
    return [
        """%%compile --no-dynamic
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
gpt = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=128,
                                 n_positions=64)).eval()
""",
        f"""with torch.no_grad():
    for n in range(4, {4 + compiles}):
        gpt(torch.randint(0, 128, (1, n)))
""",
        "nbcompile.report(gpt)",
    ]


GPT2_CELLS = gpt2_cells()

ONE_LINE_CELLS = [
    """%%compile --no-dynamic
def bump(x, k):
    return x * k + 1
""",
    """for k in range(30):
    bump(torch.ones(4), k)
""",
    "nbcompile.report(bump)",
]

CASES = {"gpt2, 12 compiles": GPT2_CELLS, "one-line fn, 30 recompiles": ONE_LINE_CELLS}


def notebook(cells: list[str], budget: str | None = None) -> nbformat.NotebookNode:
    """The notebook of one case; ``budget`` sets ``%nbcompile config --output-budget``."""
    setup = SETUP + "import nbcompile\n"
    if budget:
        setup += f"%nbcompile config --output-budget {budget}\n"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in [setup, *cells]]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def run(nb: nbformat.NotebookNode, timeout: int = 900) -> nbformat.NotebookNode:
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   shutdown_kernel="immediate").execute()
    return nb


def saved_size(nb: nbformat.NotebookNode) -> int:
    """Bytes of the notebook as Jupyter saves it."""
    return len(nbformat.writes(nb).encode())


def largest_output(nb: nbformat.NotebookNode) -> int:
    """Bytes of the largest single output, as JSON."""
    return max(len(json.dumps(o).encode()) for cell in nb.cells for o in cell.get("outputs", []))


def bench_notebook_size() -> list[dict]:
    """Rows for ``python -m benchmarks``: saved size with the budget / without (ratio)."""
    rows = []
    for name, cells in CASES.items():
        unbounded = run(notebook(cells, "8M"))
        bounded = run(notebook(cells))
        before, after = saved_size(unbounded), saved_size(bounded)
        rows.append({
            "name": f"9. saved notebook size with/without output budget: {name}",
            "value": after / before, "spread": None, "target": "GPT-2 under 1 MB",
            "ok": after < 1_000_000,
            "detail": (f"{before / 1e6:.2f} MB -> {after / 1e6:.2f} MB; largest output "
                       f"{largest_output(unbounded) / 1e3:.0f} KB -> "
                       f"{largest_output(bounded) / 1e3:.0f} KB"),
        })
    return rows
