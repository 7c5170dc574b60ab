"""%%compile through a real IPython kernel (nbclient), as a notebook runs it."""

from __future__ import annotations

import jsonschema
import pytest

from nbcompile.core.records import MIME_TYPE
from tests.support.kernel import execute_notebook, make_notebook
from tests.support.schema import SCHEMA

CELLS = [
    "%load_ext nbcompile",
    # 1: the README example
    '''%%compile --mode max-autotune-no-cudagraphs
import torch
def gelu_chain(x):
    y = torch.sin(x) * 2
    print("debug")          # a graph break
    return torch.relu(y) + 1
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU())''',
    # 2: first calls, in a later cell
    "x = torch.randn(8, 64)\nout = gelu_chain(x), model(x)",
    # 3: the report
    '''import nbcompile
r = nbcompile.report(gelu_chain)
print([(gb.lineno, gb.line) for gb in r.graph_breaks], r.graph_count)
print(sorted({k.language for k in r.kernels}))
r''',
    # 4: DDP (gloo, world size 1): the inner module is compiled
    '''import os, torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
dist.init_process_group("gloo", rank=0, world_size=1)''',
    '''%%compile
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
    def forward(self, x):
        return torch.relu(self.fc(x)) * 2
ddp = torch.nn.parallel.DistributedDataParallel(Net())
keys_before = list(ddp.state_dict())''',
    '''out = ddp(torch.randn(2, 8))
rd = nbcompile.report(ddp)
print(rd.wrapper, rd.status, rd.graph_count, keys_before == list(ddp.state_dict()))
dist.destroy_process_group()''',
    # 7: fullgraph failure, at the first call
    '''%%compile --fullgraph
def strict(x):
    y = x + 1
    print("no")
    return y''',
    "strict(torch.ones(2))",
]


@pytest.fixture(scope="module")
def executed():
    return execute_notebook(make_notebook(CELLS), allow_errors=True)


def _display(cell):
    return [o for o in cell.outputs if o.get("output_type") == "display_data"
            and MIME_TYPE in o.get("data", {})]


def _stdout(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


def test_live_summary_is_updated_in_place_after_the_first_call(executed):
    [summary] = _display(executed.cells[1])
    assert summary["metadata"] == {} or isinstance(summary["metadata"], dict)
    payload = summary["data"][MIME_TYPE]
    jsonschema.validate(payload, SCHEMA)
    # nbclient applies update_display_data to the original output: it holds the final state
    by_name = {t["name"]: t for t in payload["targets"]}
    assert by_name["gelu_chain"]["status"] == "compiled"
    assert by_name["gelu_chain"]["graph_break_count"] == 1
    assert by_name["gelu_chain"]["graph_breaks"][0]["lineno"] == 5
    assert by_name["model"]["status"] == "compiled"
    assert "text/html" in summary["data"] and "text/plain" in summary["data"]
    # the defining cell's cell [N], as the summary names it
    assert payload["cell"]["execution_count"] == executed.cells[1].execution_count
    assert by_name["gelu_chain"]["cell"]["execution_count"] == executed.cells[1].execution_count
    assert "waiting for first call" not in summary["data"]["text/plain"]


def test_report_in_a_kernel_has_cell_lines_and_cpp(executed):
    out = _stdout(executed.cells[3])
    assert """[(5, 'print("debug")          # a graph break')] 2""" in out
    assert "'cpp'" in out
    result = [o for o in executed.cells[3].outputs if o.get("output_type") == "execute_result"]
    assert result and MIME_TYPE in result[0]["data"]


def test_ddp_inner_module_compiled(executed):
    assert "DistributedDataParallel compiled 1 True" in _stdout(executed.cells[6])
    [summary] = _display(executed.cells[5])
    assert "compiled its inner module (Net) in place" in summary["data"]["text/plain"]


def test_fullgraph_error_names_the_cell_line(executed):
    errors = [o for o in executed.cells[8].outputs if o.get("output_type") == "error"]
    assert errors, "the call must fail in the notebook"
    text = "\n".join(errors[0]["traceback"])
    assert "`strict` cannot be compiled as one graph (fullgraph=True)" in text
    assert f'cell [{executed.cells[7].execution_count}], line 4: print("no")' in text
    assert len(errors[0]["traceback"]) < 10  # a clear message, not a 60-line traceback
