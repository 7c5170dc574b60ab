"""Lightning Fabric in a real kernel (nbclient), as a notebook runs it: a module compiled
then set up, and one already set up, keep their records. Real library on the CPU, tiny
config, no network."""

from __future__ import annotations

import json
import os

import pytest

from tests.support.kernel import execute_notebook, make_notebook

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a hub: everything is built locally

FABRIC_CELLS = [
    "%load_ext nbcompile",
    '''%%compile
import torch
import lightning as L
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
    def forward(self, x):
        return torch.relu(self.fc(x)) * 2
net = Net()''',
    # compile first, then fabric.setup(): what Fabric's guide asks for
    '''import json, nbcompile
fabric = L.Fabric(accelerator="cpu", devices=1)
fmodel = fabric.setup(net)
x = torch.randn(4, 16)
out = fmodel(x)
r = nbcompile.report(fmodel)
print(json.dumps({"name": r.name, "status": r.status, "graphs": r.graph_count,
                  "same": r.id == nbcompile.report(net).id,
                  "ok": bool(torch.allclose(out, net._call_impl(x)))}))''',
    # a cell that defines an already set-up module: its inner module is compiled
    '''%%compile
set_up = fabric.setup(Net())
keys_before = list(set_up.state_dict())''',
    '''out2 = set_up(x)
r2 = nbcompile.report(set_up)
print(json.dumps({"status": r2.status, "graphs": r2.graph_count, "wrapper": r2.wrapper,
                  "compiled": r2.compiled_object, "notes": r2.notes,
                  "inner": type(set_up.module).__name__,
                  "keys": keys_before == list(set_up.state_dict())}))''',
]


@pytest.fixture(scope="module")
def fabric_nb():
    pytest.importorskip("lightning")
    return execute_notebook(make_notebook(FABRIC_CELLS), timeout=300)


def _json_out(cell) -> dict:
    text = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
    return json.loads(text.strip().splitlines()[-1])


def test_fabric_compile_then_setup_keeps_records(fabric_nb):
    got = _json_out(fabric_nb.cells[2])
    assert got == {"name": "net", "status": "compiled", "graphs": 1, "same": True, "ok": True}


def test_fabric_already_set_up_module_has_its_inner_module_compiled(fabric_nb):
    got = _json_out(fabric_nb.cells[4])
    assert got["status"] == "compiled" and got["graphs"] == 1 and got["keys"]
    assert got["wrapper"] == "_FabricModule" and got["inner"] == "Net"
    assert got["compiled"] == "the Net inside set_up (_FabricModule), compiled in place"
    # (with a cold FX graph cache, cell 2's compile of the same Net stored the graph this
    # compile reused, and a note says so)
    [note] = [n for n in got["notes"] if "reused" not in n]
    assert "compiled its inner module (Net) in place" in note
    assert "compile before fabric.setup()" in note
