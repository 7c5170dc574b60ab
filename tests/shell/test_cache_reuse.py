"""A target that reused another target's compile says whose (real IPython
shell, real compiles). torch records the reuse of a graph as an FX graph / AOTAutograd
cache hit on the key an earlier compile stored (a miss); a shared callee's frames,
compiled during one target's call, are run by another's without a compile (its break
enters the callee). nbcompile names the compile reused, and counts what torch compiled."""

from __future__ import annotations

import random

import nbcompile
from tests.support.shell import run_cell


def _cell(constant: float) -> str:
    # a constant of this run only: no compile of an earlier test run is a cache hit
    return (f"import torch\ndef f(x):\n    return (x.sin() * {constant}).cos()\n"
            f"def g(x):\n    return (x.sin() * {constant}).cos()\n"
            f"def h(x):\n    return (x.cos() + {constant}).sin()\n")


def _reuse_notes(name: str, ns: dict) -> list[str]:
    return [n for n in nbcompile.report(ns[name]).notes if " reused " in n]


def test_second_target_names_the_compile_it_reused(ip):
    ip.run_cell_magic("compile", "", _cell(random.uniform(2, 3)))
    run_cell(ip, "_a = torch.randn(7)\nf(_a); g(_a); h(_a)")
    ns = ip.user_ns
    f_compile = nbcompile.report(ns["f"]).compiles[0]
    g_compile = nbcompile.report(ns["g"]).compiles[0]
    assert f_compile.cache.get("fx_graph_cache_miss") == 1, f_compile.cache  # torch's record
    assert g_compile.cache.get("fx_graph_cache_hit") == 1, g_compile.cache
    assert _reuse_notes("g", ns) == [
        f"Compile {g_compile.compile_id} reused f's compile {f_compile.compile_id} "
        "(FX graph and AOTAutograd cache hits: the same graph, compiled once in this "
        "kernel)."], nbcompile.report(ns["g"]).notes
    assert _reuse_notes("f", ns) == []  # it stored the graph: nothing reused
    assert _reuse_notes("h", ns) == []  # near miss: another graph, its own compile


def test_rerun_cell_names_the_earlier_run(ip):
    cell = _cell(random.uniform(3, 4))
    ip.run_cell_magic("compile", "--only f", cell)
    run_cell(ip, "f(torch.randn(5))")
    first = nbcompile.report(ip.user_ns["f"]).compiles[0].compile_id
    ip.run_cell_magic("compile", "--only f", cell)
    run_cell(ip, "f(torch.randn(5))")
    [note] = _reuse_notes("f", ip.user_ns)
    assert f"reused an earlier f's compile {first} (" in note, note


SHARED = '''import torch
def h(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2
def f(x):
    return h(x.sin()).cos()
def g(x):
    return h(x.cos()).sin()
def k(x):
    x = x.cos()
    torch._dynamo.graph_break()
    return x.sin()
'''


def test_shared_callee_compiled_once_is_named_in_the_second_target(ip):
    ip.run_cell_magic("compile", "--backend eager --only f,g,k", SHARED)
    run_cell(ip, "_a = torch.randn(7)\nf(_a); g(_a); k(_a)")
    ns = ip.user_ns
    f_report, g_report = nbcompile.report(ns["f"]), nbcompile.report(ns["g"])
    h_ids = [c.compile_id for c in f_report.compiles if c.frame == "h"
             or c.frame.startswith("torch_dynamo_resume_in_h_")]
    assert len(h_ids) == 2, f_report.compiles  # torch compiled h's frames in f's call
    # g's call compiled only g's own frames (torch's record): counted as such
    assert [c.frame for c in g_report.compiles] == ["g", "torch_dynamo_resume_in_g_at_10"]
    [note] = [n for n in g_report.notes if "also ran" in n]
    assert note.startswith("g's call also ran frames compiled during f's call (h, "
                           f"torch_dynamo_resume_in_h_at_5: compile {', '.join(h_ids)})"), note
    # near misses: f compiled them itself; k breaks in its own body
    assert not [n for n in f_report.notes if "also ran" in n], f_report.notes
    assert not [n for n in nbcompile.report(ns["k"]).notes if "also ran" in n]
