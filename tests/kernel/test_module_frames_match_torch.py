"""Module targets compile exactly what ``model.compile()`` compiles: a differential test in
two fresh kernels, the same program with plain torch and under ``%%compile``. torch's own
record (``compilation_metrics`` heard on ``torch.__trace``) is the oracle: the same frames,
compile ids, failed frames and recompiles, for a module with a graph break in ``forward``
and for a module holding an ``nn.LSTM`` (which torch refuses) called with two batch sizes."""

from __future__ import annotations

import json

from tests.support.kernel import execute_notebook, make_notebook

LISTEN = '''import json, logging, torch
_metrics = []
class _Heard(logging.Handler):
    def emit(self, r):
        m = getattr(r, "metadata", {}).get("compilation_metrics")
        if m:
            _metrics.append([m.get("compile_id"), m.get("co_name"), m.get("fail_type"),
                             bool(m.get("recompile_reason"))])
_log = logging.getLogger("torch.__trace")
_log.addHandler(_Heard())
_log.setLevel(logging.DEBUG)
'''
MODULES = '''class Breaks(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
    def forward(self, x):
        y = self.lin(x)
        torch._dynamo.graph_break()
        return y.relu()
class Recurrent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(4, 4)
    def forward(self, x):
        return self.rnn(x)[0].sum()
breaks = Breaks()
recurrent = Recurrent()
'''
CALLS = '''breaks(torch.randn(2, 4)); breaks(torch.randn(5, 4))
recurrent(torch.randn(3, 2, 4)); recurrent(torch.randn(3, 5, 4))
print("METRICS", json.dumps(_metrics))
'''


def _metrics(nb) -> list[list]:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            for line in out.get("text", "").splitlines():
                if line.startswith("METRICS "):
                    return json.loads(line.removeprefix("METRICS "))
    raise AssertionError("no metrics printed")


def test_module_compiles_are_torchs_own():
    plain = execute_notebook(make_notebook(
        [LISTEN, "# the same lines as under %%compile\n" + MODULES
         + "breaks.compile()\nrecurrent.compile()\n", CALLS]))
    ours = execute_notebook(make_notebook(
        ["%load_ext nbcompile\n" + LISTEN, "%%compile\n" + MODULES, CALLS,
         "import nbcompile\nprint('IDS', json.dumps([[c.compile_id for c in "
         "nbcompile.report(m).compiles] for m in (breaks, recurrent)]))"]))
    torch_says = _metrics(plain)
    assert torch_says[:4] == [
        ["0/0", "forward", None, False], ["1/0", "torch_dynamo_resume_in_forward_at_8", None,
                                          False],
        ["0/1", "forward", None, True], ["1/1", "torch_dynamo_resume_in_forward_at_8", None,
                                         True]], torch_says
    # the LSTM: refused at once (2.13: one failed frame, no recompile), or, on a torch that
    # delays the refusal (2.15), frames of its own; either way torch's record is the oracle
    lstm = torch_says[4:]
    assert lstm and lstm[0][:2] == ["2/0", "forward"], torch_says
    if lstm[0][2] == "Unsupported":
        assert lstm == [["2/0", "forward", "Unsupported", False]], torch_says
    assert _metrics(ours) == torch_says
    ids = next(line for out in ours.cells[3].outputs for line in out.get("text", "").splitlines()
               if line.startswith("IDS "))
    assert json.loads(ids.removeprefix("IDS ")) == [["0/0", "1/0", "0/1", "1/1"],
                                                    [m[0] for m in lstm]]
