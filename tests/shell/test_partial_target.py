"""A ``functools.partial`` bound in a ``%%compile`` cell is compiled like a function
(``torch.compile(partial)``), and report() tells the truth about it (real IPython shell)."""

from __future__ import annotations

import functools

import pytest

import nbcompile
from tests.support.shell import run_cell


def test_partial_of_a_cell_function_is_compiled(ip):
    run_cell(ip, "import functools, torch")
    ip.run_cell_magic("compile", "", "def pt_scale(x, k):\n    return (x * k).sin()\n"
                                     "pt_twice = functools.partial(pt_scale, k=2)\n")
    bound = ip.user_ns["pt_twice"]
    assert not isinstance(bound, functools.partial)  # rebound to the compiled callable
    out = run_cell(ip, "pt_twice(torch.ones(3))").result
    assert out.allclose((torch_ones := out.new_ones(3) * 2).sin()), torch_ones
    report = nbcompile.report(bound)
    assert report.status == "compiled" and report.graph_count == 1, report.status
    assert any(line.line.strip() == "return (x * k).sin()"
               for k in report.kernels for line in k.lines)


def test_report_on_an_unrecorded_partial_says_why():
    with pytest.raises(LookupError, match="functools.partial") as err:
        nbcompile.report(functools.partial(print, "x"))
    assert "wraps a function defined in the notebook" in str(err.value)
