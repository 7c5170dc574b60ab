"""The last notebook edges in a real kernel, run as a notebook runs them (nbclient), with
torch's own answer as the oracle: a module file the notebook writes, edits and reloads
(its break's line is the file's line now, as ``torch._dynamo.explain`` names it), a helper
that calls ``open`` (IPython's own in a notebook) reproduced by ``%compile_time``'s fresh
process in the notebook's directory, and a module file's function bound in a
``%%compile`` cell said with how to compile it."""

from __future__ import annotations

import json

import pytest

from tests.support.kernel import execute_notebook, make_notebook, outputs_of

MODULE = '''import torch

class EdgeNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
{body}        print("{words}")
        return y.relu()

def helper(x):
    return x.sin()
'''
FIRST = MODULE.format(body="", words="first version")
SECOND = MODULE.format(body="        y = y * 2\n        y = y + 1\n", words="second version")

CELLS = [
    "%load_ext nbcompile",
    f"%%writefile edge_module.py\n{FIRST}",
    "import importlib, json, torch, nbcompile\nimport edge_module",
    "%%compile --backend eager\nedge_net = edge_module.EdgeNet()",
    "_ = edge_net(torch.randn(2, 4))",
    f"%%writefile edge_module.py\n{SECOND}",  # 5: the user edits the module file
    "importlib.reload(edge_module)",
    "%%compile --backend eager\nedge_net = edge_module.EdgeNet()",
    "_ = edge_net(torch.randn(2, 4))\n"
    "gb = nbcompile.report(edge_net).graph_breaks[0]\n"
    "ex = torch._dynamo.explain(edge_module.EdgeNet())(torch.randn(2, 4))\n"
    "fr = ex.break_reasons[0].user_stack[-1]\n"
    "print(json.dumps([gb.lineno, gb.line, fr.lineno,\n"
    "                  open(fr.filename).read().splitlines()[fr.lineno - 1].strip()]))",
    # 9: open() in a helper: IPython's open in the notebook, Python's in the fresh process
    "with open('edge_scale.txt', 'w') as f:\n    f.write('3')\n"
    "def edge_scale():\n    with open('edge_scale.txt') as f:\n        return float(f.read())\n"
    "def edge_fn(x):\n    return x * edge_scale()\n"
    "ct = nbcompile.compile_time(edge_fn, torch.randn(4), remedies=(), rounds=1)\n"
    "print(json.dumps([ct.reproducible, ct.notes, ct.runs[0].same_result if ct.runs else None]))",
    # 10: a module file's function bound by a %%compile cell
    "%%compile\nedge_helper = edge_module.helper",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    return execute_notebook(make_notebook(CELLS), cwd=tmp_path_factory.mktemp("edges"))


def _printed(cell) -> str:
    """The last line the cell printed (the forward's own print comes before it)."""
    text = "".join(o.get("text", "") for o in outputs_of(cell) if o["output_type"] == "stream")
    return text.strip().splitlines()[-1]


def test_a_reloaded_modules_break_line_is_the_files_line_now(executed):
    ours_no, ours_line, torch_no, file_line = json.loads(_printed(executed.cells[8]))
    assert (ours_no, ours_line) == (torch_no, file_line) == (12, 'print("second version")')


def test_open_in_a_helper_is_reproduced_in_a_fresh_process(executed):
    reproducible, notes, same = json.loads(_printed(executed.cells[9]))
    assert reproducible and same is True, notes


def test_a_module_files_function_is_said_with_how_to_compile_it(executed):
    shown = "".join(o.get("data", {}).get("text/plain", "")
                    for o in outputs_of(executed.cells[10]))
    assert "no new functions" not in shown
    assert "edge_helper is edge_module.helper, a function of module edge_module" in shown
    assert "edge_helper = torch.compile(edge_module.helper)" in shown
