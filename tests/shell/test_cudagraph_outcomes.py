"""CUDA-graph outcomes come from torch's own record (real IPython shell, real compiles):
``not_used`` on a CPU from torch's skip count and the graph's device, ``skipped`` with
torch's reason and the cell line its message names, nothing when nothing was asked for;
the summary's one-line total says the same."""

from __future__ import annotations

import torch
from torch._dynamo.utils import counters

import nbcompile
from nbcompile.display.bundle import summary_html, summary_text
from nbcompile.display.summary_model import summarize
from tests.support.shell import run_cell

BACKEND = "nbc_cudagraph_words"


def _backend(gm, example_inputs):
    # What Inductor does for a graph whose input is mutated, with torch's own functions:
    # the message from the placeholder's stack trace, logged and counted (cudagraph_utils).
    from torch._inductor.cudagraph_utils import (
        get_mutation_stack_trace,
        get_placeholder_info,
        log_cudagraph_skip_and_bump_counter,
    )

    log_cudagraph_skip_and_bump_counter(
        get_mutation_stack_trace(get_placeholder_info(gm.graph), [0]))
    return gm.forward


if BACKEND not in torch._dynamo.list_backends(None):
    torch._dynamo.register_backend(_backend, name=BACKEND)


def _notes(report) -> list[str]:
    (target,) = summarize([report]).targets
    return [i.text for i in target.items if i.kind == "note"]


def test_reduce_overhead_on_cpu_is_not_used_on_cpu(ip):
    run_cell(ip, "import torch")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def cg_ro(x):\n    return (x + 1).sin()\n")
    before = counters["inductor"]["cudagraph_skips"]
    run_cell(ip, "_ = cg_ro(torch.randn(6))")
    skips = counters["inductor"]["cudagraph_skips"] - before
    report = nbcompile.report(ip.user_ns["cg_ro"])
    (compile_,) = report.compiles
    # torch counted its skip and logged no words: its reason for a CPU graph is "cpu device"
    assert skips >= 1
    outcome = compile_.cudagraphs
    assert outcome is not None
    assert (outcome.status, outcome.reason, outcome.messages) == ("not_used", "cpu device", [])
    assert report.to_dict()["compiles"][0]["cudagraphs"]["status"] == "not_used"
    notes = _notes(report)
    assert [n for n in notes if n.startswith("CUDA graphs:")] == [
        "CUDA graphs: not used on cpu (torch: cpu device)"]
    assert not any("0 skips" in n or "0 of" in n for n in notes), notes
    # the text and HTML summaries (and the report's HTML) render it
    assert "CUDA graphs: not used on cpu" in summary_text([report])
    assert "CUDA graphs: not used on cpu" in summary_html([report])


def test_torchs_skip_message_gives_reason_and_the_cell_line(ip):
    cell = ip.execution_count
    ip.run_cell_magic("compile", f"--backend {BACKEND}",
                      "def cg_words(x):\n    y = x * 3\n    return y\n")
    run_cell(ip, "_ = cg_words(torch.randn(6))")
    report = nbcompile.report(ip.user_ns["cg_words"])
    (compile_,) = report.compiles
    outcome = compile_.cudagraphs
    assert outcome is not None and outcome.status == "skipped"
    assert outcome.reason == "mutated inputs (1 instances)"
    (message,) = outcome.messages
    assert message.startswith("skipping cudagraphs due to mutated inputs (1 instances). Found")
    assert outcome.line is not None
    assert (outcome.line.lineno, outcome.line.line) == (3, "y = x * 3")
    assert outcome.cell == cell
    assert _notes(report)[-1] == (
        f"CUDA graphs: 0 of 1 graph runs as a CUDA graph; skipped: "
        f"mutated inputs (1 instances) (cell [{cell}], line 3: y = x * 3)")


def test_default_mode_says_nothing_about_cuda_graphs(ip):
    ip.run_cell_magic("compile", "", "def cg_plain(x):\n    return x - 2\n")
    run_cell(ip, "_ = cg_plain(torch.randn(6))")
    report = nbcompile.report(ip.user_ns["cg_plain"])
    assert all(c.cudagraphs is None for c in report.compiles)
    assert not any(n.startswith("CUDA graphs") for n in _notes(report))


def test_inductors_global_cudagraphs_flag_is_asking_for_them(ip):
    """``torch._inductor.config.triton.cudagraphs = True`` asks every compile without a
    mode for CUDA graphs, as ``reduce-overhead`` does: torch counts its skip on a CPU, and
    nbcompile says so; with the flag off nothing was asked for, and nothing is said."""
    run_cell(ip, "import torch")
    for flag, name in ((True, "cg_global_on"), (False, "cg_global_off")):
        ip.run_cell_magic("compile", "", f"def {name}(x):\n    return (x - 1).cos()\n")
        before = counters["inductor"]["cudagraph_skips"]
        with torch._inductor.config.patch({"triton.cudagraphs": flag}):
            run_cell(ip, f"_ = {name}(torch.randn(6))")
        skips = counters["inductor"]["cudagraph_skips"] - before
        (compile_,) = nbcompile.report(ip.user_ns[name]).compiles
        outcome = compile_.cudagraphs
        if flag:
            assert skips >= 1  # torch's own record: it was asked, and skipped it
            assert outcome is not None and (outcome.status, outcome.reason) == (
                "not_used", "cpu device")
        else:
            assert skips == 0 and outcome is None
