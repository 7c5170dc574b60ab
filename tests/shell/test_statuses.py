"""Statuses that are true (real IPython shell, real compiles)."""

from __future__ import annotations

import torch

import nbcompile
from tests.support.shell import run_cell

DECORATED = '''import torch
@torch.compile
def deco_sin(x):
    return torch.sin(x) + 1
'''


def test_function_decorated_with_torch_compile_in_the_cell_keeps_a_record(ip):
    ip.run_cell_magic("compile", "", DECORATED)
    run_cell(ip, "_d = deco_sin(torch.randn(6))")
    report = nbcompile.report(ip.user_ns["deco_sin"])
    assert report.graph_count >= 1
    assert report.to_dict()["status"] == "compiled"
    assert any("already compiled with torch.compile" in n for n in report.to_dict()["notes"])


def test_first_call_that_raises_says_torch_runs_it_uncompiled_for_good(ip):
    ip.run_cell_magic("compile", "", "import torch\n"
                                     "def picky(x):\n"
                                     "    if x.shape[0] > 3:\n"
                                     "        raise ValueError('too long')\n"
                                     "    return (x * 2).sin()\n")
    result = ip.run_cell("picky(torch.ones(5))")
    assert isinstance(result.error_in_exec, ValueError)
    run_cell(ip, "_p = picky(torch.ones(2))")  # torch does not compile it again
    record = nbcompile.report(ip.user_ns["picky"]).to_dict()
    assert record["status"] == "not_compiled" and record["graph_count"] == 0
    note = " ".join(record["notes"])
    assert "first call raised" in note and "uncompiled for good" in note, note
    assert "re-run this %%compile cell" in note, note
    # the line is listed once: as the place of the break, not again as an error (torch
    # 2.9 logs no break for it, only the failed compile's reason: then no line at all)
    assert record["error"] is None
    lines = [5] if torch.__version__ >= "2.10" else []
    assert [b["lineno"] for b in record["graph_breaks"]] == lines, record["graph_breaks"]


def test_generator_and_factory_say_what_runs_uncompiled(ip):
    ip.run_cell_magic("compile", "", "def steps(x):\n"
                                     "    for i in range(3):\n"
                                     "        yield x * i\n"
                                     "def make_scaler(k):\n"
                                     "    def scale(x):\n"
                                     "        return x * k\n"
                                     "    return scale\n")
    run_cell(ip, "_s = list(steps(torch.ones(2)))\n_g = make_scaler(2)\n_ = _g(torch.ones(2))")
    gen = nbcompile.report(ip.user_ns["steps"]).to_dict()
    assert gen["status"] == "not_compiled", gen["status"]
    assert "generator function" in " ".join(gen["notes"])
    factory = nbcompile.report(ip.user_ns["make_scaler"]).to_dict()
    assert factory["status"] == "not_compiled", factory["status"]
    note = " ".join(factory["notes"])
    assert "returns a function (scale)" in note and "torch.compile(scale)" in note, note


def test_an_alias_keeps_the_record_after_the_name_is_redefined(ip):
    ip.run_cell_magic("compile", "", "def versioned(x):\n    return x.sin()\n")
    run_cell(ip, "versioned_v1 = versioned")
    ip.run_cell_magic("compile", "", "def versioned(x):\n    return x.cos()\n")
    run_cell(ip, "_a = versioned_v1(torch.ones(2))\n_b = versioned(torch.ones(2))")
    old = nbcompile.report(ip.user_ns["versioned_v1"])
    new = nbcompile.report(ip.user_ns["versioned"])
    assert old.graph_count == 1 and new.graph_count == 1
    assert "sin" in old.compiles[0].graphs[0] and "cos" in new.compiles[0].graphs[0]


def test_module_used_only_inside_a_step_says_compiled_inside(ip):
    ip.run_cell_magic("compile", "", "inner_model = torch.nn.Linear(2, 2)\n"
                                     "def inner_step(x):\n"
                                     "    return inner_model(x).sum()\n")
    before = nbcompile.report(ip.user_ns["inner_model"]).to_dict()
    assert before["status"] == "pending"
    run_cell(ip, "_ = inner_step(torch.ones(2))")
    record = nbcompile.report(ip.user_ns["inner_model"]).to_dict()
    assert record["status"] == "compiled_inside" and record["compiled_inside"] == "inner_step"
    assert "compiled inside inner_step" in " ".join(record["notes"])
    text = nbcompile.report(ip.user_ns["inner_model"])._repr_mimebundle_()["text/plain"]
    assert "inner_model (module): compiled inside inner_step" in text, text
