"""A model class in a module file the notebook edits and reloads (``%%writefile``, then
``importlib.reload``): every source line nbcompile shows is the file's as it is now, the
same line ``torch._dynamo.explain`` names for the same code."""

from __future__ import annotations

import sys

import torch

import nbcompile
from tests.support.shell import run_cell

FIRST = '''import torch

class ReNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        print("first version")
        return y.relu()
'''
#: the same class, its break two lines lower and worded otherwise
SECOND = FIRST.replace('''        y = self.lin(x)
        print("first version")''', '''        y = self.lin(x)
        y = y * 2
        y = y + 1
        print("the second version, two lines lower")''')


def _explained_line(net, x) -> tuple[int, str]:
    """The break's line as torch names it (``explain``'s user stack), read from the file."""
    explained = torch._dynamo.explain(net)(x)
    frame = explained.break_reasons[0].user_stack[-1]
    with open(frame.filename) as f:
        return frame.lineno, f.read().splitlines()[frame.lineno - 1].strip()


def test_a_reloaded_modules_break_line_is_the_files_line_now(ip, tmp_path, capsys):
    path = tmp_path / "renet_module.py"
    path.write_text(FIRST)
    sys.path.insert(0, str(tmp_path))
    try:
        run_cell(ip, "import importlib, torch\nimport renet_module")
        ip.run_cell_magic("compile", "--backend eager", "re_net = renet_module.ReNet()")
        run_cell(ip, "_ = re_net(torch.randn(2, 4))")
        (first,) = nbcompile.report(ip.user_ns["re_net"]).graph_breaks
        assert first.line == 'print("first version")'

        path.write_text(SECOND)  # the user edits the file, then reloads it
        run_cell(ip, "importlib.reload(renet_module)")
        ip.run_cell_magic("compile", "--backend eager", "re_net = renet_module.ReNet()")
        run_cell(ip, "_ = re_net(torch.randn(2, 4))")
        (second,) = nbcompile.report(ip.user_ns["re_net"]).graph_breaks
        torch_lineno, torch_line = _explained_line(
            ip.user_ns["renet_module"].ReNet(), torch.randn(2, 4))
        capsys.readouterr()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("renet_module", None)
    assert (second.lineno, second.line) == (torch_lineno, torch_line) == (
        12, 'print("the second version, two lines lower")')
