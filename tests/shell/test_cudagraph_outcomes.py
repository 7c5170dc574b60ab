"""CUDA-graph outcomes come from torch's own record (real IPython shell, real compiles):
its words per compile when it logged them, the skip it counted when it logged none,
nothing otherwise; no fixed note."""

from __future__ import annotations

import logging

import torch

import nbcompile
from nbcompile.core.notebook.cudagraph_log import LOGGER, NO_REASON
from tests.support.shell import run_cell

BACKEND = "nbc_cudagraph_words"


def _backend(gm, example_inputs):
    # what Inductor does for a graph it cannot capture (cudagraph_utils), during the compile
    logging.getLogger(LOGGER).warning("skipping cudagraphs due to mutated inputs (1 instances)")
    return gm.forward


if BACKEND not in torch._dynamo.list_backends(None):
    torch._dynamo.register_backend(_backend, name=BACKEND)


def test_reduce_overhead_on_cpu_says_the_skip_torch_counted(ip):
    run_cell(ip, "import torch")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def cg_ro(x):\n    return (x + 1).sin()\n")
    run_cell(ip, "_ = cg_ro(torch.randn(6))")
    report = nbcompile.report(ip.user_ns["cg_ro"])
    assert [c.cudagraphs for c in report.compiles] == [[NO_REASON]]
    assert not any("CUDA graphs" in n for n in report.notes), report.notes


def test_torchs_logged_reason_is_kept_with_its_compile(ip):
    ip.run_cell_magic("compile", f"--backend {BACKEND}",
                      "def cg_words(x):\n    return x * 3\n")
    run_cell(ip, "_ = cg_words(torch.randn(6))")
    report = nbcompile.report(ip.user_ns["cg_words"])
    assert [c.cudagraphs for c in report.compiles] == [
        ["skipping cudagraphs due to mutated inputs (1 instances)"]]
    assert report.to_dict()["compiles"][0]["cudagraphs"] == report.compiles[0].cudagraphs


def test_default_mode_says_nothing_about_cuda_graphs(ip):
    ip.run_cell_magic("compile", "", "def cg_plain(x):\n    return x - 2\n")
    run_cell(ip, "_ = cg_plain(torch.randn(6))")
    report = nbcompile.report(ip.user_ns["cg_plain"])
    assert all(c.cudagraphs == [] for c in report.compiles)
