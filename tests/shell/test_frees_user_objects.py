"""Issue 15 part 1: what the user drops is freed (real IPython shell, real compiles)."""

from __future__ import annotations

import gc
import weakref

from .conftest import run_cell

CELL = '''import torch
big = torch.nn.Linear(256, 512)
'''


def _compile_and_call(ip) -> weakref.ref:
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "_y = big(torch.randn(2, 256))\ndel _y")
    return weakref.ref(ip.user_ns["big"].weight)


def test_rerun_then_del_frees_the_module(ip):
    first = _compile_and_call(ip)
    second = _compile_and_call(ip)  # the cell re-run: a new module replaces the old one
    gc.collect()
    assert first() is None, "the replaced module is still held after the cell re-ran"
    run_cell(ip, "del big")
    gc.collect()
    assert second() is None, "the module is still held after `del big; gc.collect()`"


def test_reset_frees_the_module(ip):
    ref = _compile_and_call(ip)
    ip.run_line_magic("reset", "-f")
    ip.run_line_magic("load_ext", "nbcompile")
    gc.collect()
    assert ref() is None, "the module is still held after %reset -f"
