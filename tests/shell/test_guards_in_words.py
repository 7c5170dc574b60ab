"""Guards in words, on evidence (real IPython shell, real compiles).

A recompile reason that is the length guard on a ``*args`` parameter says how many
positional arguments the compiled version was for and how many the new call passed (from
the new compile's own guards); the raw guard stays in ``recompile_guard``. The same guard
on an ordinary list argument is not a count of positional arguments (near miss).
"""

from __future__ import annotations

import nbcompile
from tests.support.shell import run_cell

CELL = '''import torch
def total(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out.relu()
def first(items):
    return items[0] * len(items)
'''


def test_varargs_length_guard_in_words(ip):
    ip.run_cell_magic("compile", "--backend eager", CELL)
    run_cell(ip, "_a = torch.randn(4)\ntotal(_a); total(_a, _a); total(_a, _a, _a)")
    compiles = nbcompile.report(ip.user_ns["total"]).compiles
    assert len(compiles) == 3, compiles
    second, third = compiles[1], compiles[2]
    assert second.recompile_guard == "len(xs) == 1"  # torch's own text, kept as evidence
    assert second.recompile_reason == (
        "total was compiled for a call with 1 positional argument (*xs); this call passed "
        "2, so it recompiled (the compiled code assumed len(xs) == 1)"), second
    assert third.recompile_reason.startswith(
        "total was compiled for a call with 2 positional arguments (*xs); this call passed "
        "3, so it recompiled"), third
    assert "len(xs) == 2" in third.recompile_reason


def test_list_length_guard_is_not_called_positional_arguments(ip):
    ip.run_cell_magic("compile", "--backend eager", CELL)
    run_cell(ip, "_a = torch.randn(4)\nfirst([_a, _a]); first([_a, _a, _a])")
    compiles = nbcompile.report(ip.user_ns["first"]).compiles
    assert len(compiles) == 2, compiles
    reason = compiles[1].recompile_reason
    assert "len(items) == 2" in reason, reason
    assert "positional argument" not in reason, reason
