"""nbcompile where people use torch.compile: Hugging Face Transformers in the in-process
shell (a ``%%compile --mode reduce-overhead --fullgraph`` cell), real library on the CPU,
tiny configs, no network (``HF_HUB_OFFLINE=1``). Fabric in a real kernel is in
tests/kernel/, the advice on synthetic records in tests/core/insight/."""

from __future__ import annotations

import os
import re
import sys

import pytest
import torch

import nbcompile
from nbcompile.core.trace.stacks import cell_frame
from nbcompile.display.bundle import summary_text
from tests.support.shell import run_cell

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a hub: everything is built locally


def test_item_storm_in_a_real_compile_is_explained(ip):
    """Without automatic dynamic shapes each new .item() value recompiles, up to the limit."""
    ip.run_cell_magic("compile", "--backend eager --no-dynamic",
                      "import torch\ndef scaled(x):\n    s = x.sum().item()\n    return x * s\n")
    run_cell(ip, "for i in range(10):\n    scaled(torch.full((3,), float(i + 1)))")
    advice = {a.kind: a for a in nbcompile.report(ip.user_ns["scaled"]).advice}
    assert set(advice) == {"scalar-specialization", "recompile-limit"}
    assert "the part of `scaled` after its graph break at line 4" in advice[
        "scalar-specialization"].message
    assert "capture_scalar_outputs = True" in advice["scalar-specialization"].fix
    assert "recompile_limit (8)" in advice["recompile-limit"].message


def test_graph_break_in_library_names_the_cell_line_too(ip, tmp_path):
    (tmp_path / "nbc_helper_lib.py").write_text(
        "def scale(x):\n    y = x * 2\n    print('lib says hi')\n    return y + 1\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        ip.run_cell_magic("compile", "", "import torch, nbc_helper_lib\n"
                          "def via_lib(x):\n    return nbc_helper_lib.scale(x) - 1\n")
        run_cell(ip, "via_lib(torch.ones(3))")
    finally:
        sys.path.remove(str(tmp_path))
    [gb] = nbcompile.report(ip.user_ns["via_lib"]).graph_breaks
    assert gb.filename.endswith("nbc_helper_lib.py") and gb.lineno == 3
    cell = cell_frame(gb.stack)
    assert cell is not None and cell.lineno == 4  # %%compile is line 1 of the cell
    assert cell.line == "return nbc_helper_lib.scale(x) - 1"


HF_CELL = '''import torch
from transformers import AutoModelForCausalLM, LlamaConfig
torch.manual_seed(0)
config = LlamaConfig(vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
lm = AutoModelForCausalLM.from_config(config).eval()
lm_before, keys_before = lm, list(lm.state_dict())
'''


@pytest.fixture(scope="module")
def hf(ip):
    pytest.importorskip("transformers")
    ip.run_cell_magic("compile", "--mode reduce-overhead --fullgraph", HF_CELL)
    run_cell(ip, "ids = torch.randint(0, 96, (1, 8))\n"
                 "with torch.no_grad():\n"
                 "    logits = lm(input_ids=ids).logits\n"
                 "    eager_logits = lm._call_impl(input_ids=ids).logits\n")
    return ip


def test_hf_model_compiled_in_place(hf):
    ns = hf.user_ns
    assert ns["lm"] is ns["lm_before"]
    assert list(ns["lm"].state_dict()) == ns["keys_before"]
    assert ns["lm"]._compiled_call_impl is not None
    rep = nbcompile.report(ns["lm"])
    assert rep.kind == "module" and rep.status == "compiled"
    assert rep.options["mode"] == "reduce-overhead" and rep.options["fullgraph"] is True
    assert rep.compiled_object == "lm.compile()" and rep.wrapper is None


def test_hf_forward_matches_eager_and_report_has_graphs_and_kernels(hf):
    torch.testing.assert_close(hf.user_ns["logits"], hf.user_ns["eager_logits"],
                               rtol=1e-4, atol=1e-4)
    rep = nbcompile.report(hf.user_ns["lm"])
    assert rep.graph_count >= 1 and not rep.graph_breaks  # --fullgraph held
    assert any(k.language == "cpp" and k.kind == "kernel" for k in rep.kernels)
    assert "LlamaForCausalLM" not in " ".join(rep.notes)  # no wrapper note: not wrapped


def test_hf_generate_growing_sequence_explains_the_recompile_storm(hf):
    run_cell(hf, "with torch.no_grad():\n"
                 "    gen = lm.generate(ids, max_new_tokens=3, do_sample=False)")
    assert hf.user_ns["gen"].shape == (1, 11)
    rep = nbcompile.report(hf.user_ns["lm"])
    assert any("size mismatch" in r.reason for r in rep.recompiles)
    assert all("__nbcompile_call__" not in r.reason for r in rep.recompiles)
    [storm] = [a for a in rep.advice if a.kind == "recompile-storm"]
    # the grown tensor as torch's guard names it (transformers 5.23: kwargs['past_key_values']
    # ...; 5.24: cache...)
    assert re.search(r"KV cache grew \(\S*layers\[0\]\.keys at dim 2: 8 -> 9\)",
                     storm.message), storm.message
    assert 'cache_implementation = "static"' in storm.fix
    assert any("the start of a recompile storm" in n for n in rep.notes)  # every renderer
    assert rep.to_dict()["advice"][0]["kind"] == "recompile-storm"


# Transformers' cached helpers, traced through by Dynamo: torch's warning about the
# library's code, nothing for this suite to act on
@pytest.mark.filterwarnings("ignore:Dynamo detected a call to a `functools.lru_cache`")
def test_hf_fullgraph_break_names_library_line_and_cell_line(hf, capsys):
    hf.run_cell_magic("compile", "--fullgraph",
                      "def complete(ids):\n"
                      "    return lm.generate(ids, max_new_tokens=2, do_sample=False)\n")
    capsys.readouterr()
    result = hf.run_cell("complete(ids)")
    shown = capsys.readouterr()
    assert result.error_in_exec is not None
    err = nbcompile.report(hf.user_ns["complete"]).error
    assert "transformers" in err.filename and err.line  # the library line that broke
    cell = cell_frame(err.stack)
    assert cell is not None and cell.lineno == 3
    assert cell.line.startswith("return lm.generate(")
    text = shown.out + shown.err
    assert "`complete` cannot be compiled as one graph" in text
    assert "reached from your code at" in text and "line 3: return lm.generate(" in text
    summary = summary_text([nbcompile.report(hf.user_ns["complete"])])  # the live summary
    assert "error at transformers/generation/utils.py:" in summary
    assert "reached from cell line 3: return lm.generate(" in summary


def test_recompile_limit_advice_uses_the_limit_in_force_during_the_compiles(ip):
    """A limit patched only around the calls still counts once the block has ended."""
    ip.run_cell_magic("compile", "--no-dynamic", "import torch\ndef scale_by_max(x):\n"
                      "    peak = x.abs().max().item()\n    return x / peak\n")
    with torch._dynamo.config.patch(recompile_limit=3):
        for i in range(5):
            ip.user_ns["scale_by_max"](torch.full((4,), float(i + 1)))
    rep = nbcompile.report(ip.user_ns["scale_by_max"])
    kinds = {a.kind for a in rep.advice}
    assert "recompile-limit" in kinds, rep.advice
    assert any("recompile_limit (3)" in a.message for a in rep.advice)
