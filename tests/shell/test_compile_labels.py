"""How a compile is named: each compile's ``label`` and each kernel's ``compile_label``,
written once in the record. A torch.nn module compiles through torch's ``wrap_inline``
frame (``inner``): the record keeps torch's frame name, and every view names the compile by
the module the user wrote. Two kernels of one name from two compiles read apart."""

from __future__ import annotations

import re

import torch

import nbcompile
from nbcompile.core.records import MIME_TYPE, CompileProgress
from nbcompile.display.bundle import render_text
from nbcompile.display.report_html import report_bundle
from nbcompile.display.summary_model import progress_text, summarize
from tests.support.shell import run_cell


def _module_called(ip, name: str, options: str, calls: str):
    """A ``Sequential`` compiled as ``name`` and called; its report, and torch's own record
    of each compile's code name (its compilation metrics)."""
    run_cell(ip, "import torch")
    run_cell(ip, f"%%compile {options}\n{name} = torch.nn.Sequential(torch.nn.Linear(3, 3), "
                 "torch.nn.ReLU())\n")
    run_cell(ip, calls.format(name))
    metrics = {str(m.compile_id): m.co_name
               for m in torch._dynamo.utils.get_compilation_metrics()}
    return nbcompile.report(ip.user_ns[name]), metrics


def test_a_modules_compile_is_named_by_the_module(ip):
    report, metrics = _module_called(ip, "label_model", "", "_ = {}(torch.ones(2, 3))")
    (c,) = report.compiles
    assert metrics.get(c.compile_id) == c.frame == "inner"  # torch's name for it, kept
    assert c.label == f"compile {c.compile_id} (label_model)"
    assert {k.compile_label for k in report.kernels} == {f"compile {c.compile_id}"}
    assert f"# ===== compile {c.compile_id} (label_model) =====" in report.output_code

    bundle = report_bundle(report)
    page = bundle["text/html"]
    assert f"FX graph 0 of compile {c.compile_id} (label_model)" in page
    assert "(inner)" not in page and " inner<" not in page, re.findall(r".{60}inner.{20}", page)
    published = bundle[MIME_TYPE]["targets"][0]
    assert published["compiles"][0]["label"] == c.label
    assert {k["compile_label"] for k in published["kernels"]} == {f"compile {c.compile_id}"}


def test_a_modules_recompile_and_progress_are_named_by_the_module(ip):
    report, metrics = _module_called(ip, "label_net", "--no-dynamic",
                                     "_ = {0}(torch.ones(2, 3))\n_ = {0}(torch.ones(5, 3))")
    (rc,) = report.recompiles
    assert metrics.get(rc.compile_id) == rc.frame == "inner"  # torch's name, kept
    (item,) = [i for i in summarize([report]).targets[0].items if i.kind == "recompile"]
    assert item.compile_id == f"#1 of `label_net` (torch's compile id {rc.compile_id})"
    text = render_text(summarize([report]))
    assert "inner" not in text, re.findall(r".{40}inner.{20}", text)
    # a compile of the wrapper frame, in progress: named by the module, not placed in torch
    (c,) = [c for c in report.compiles if c.compile_id == rc.compile_id]
    running = CompileProgress(compile_id=c.compile_id, frame=c.frame, filename=c.filename,
                              lineno=67, phase="AOTAutograd")
    assert progress_text(running, "label_net") == f"frame {c.compile_id} label_net"
    assert progress_text(running).startswith(f"frame {c.compile_id} inner (torch/")


def test_two_kernels_of_one_name_name_their_compiles(ip):
    run_cell(ip, "import torch")
    run_cell(ip, "%%compile\ndef label_sin(x):\n    return torch.sin(x) * 2\n")
    run_cell(ip, "_ = label_sin(torch.ones(4))\n_ = label_sin(torch.ones(4, dtype=torch.float64))")
    report = nbcompile.report(ip.user_ns["label_sin"])
    ids = [c.compile_id for c in report.compiles]
    assert len(ids) == 2 and ids[0] != ids[1]
    generated = [k for k in report.kernels if k.kind == "kernel"]
    names = {k.name for k in generated}
    assert len(names) == 1 and len(generated) == 2, [(k.name, k.compile_id) for k in generated]
    assert [k.compile_label for k in generated] == [f"compile {i}" for i in ids]
    assert [c.label for c in report.compiles] == [f"compile {i} (label_sin)" for i in ids]
    page = report_bundle(report)["text/html"]
    (name,) = names
    for i in ids:
        assert f"<code>{name}</code> &middot; compile {i} &middot; cpp" in page
