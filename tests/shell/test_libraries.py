"""nbcompile where people use torch.compile: Hugging Face Transformers, Lightning Fabric.

Real libraries on the CPU, tiny configs, no network (``HF_HUB_OFFLINE=1``). The HF model is
built in a ``%%compile --mode reduce-overhead --fullgraph`` cell of the in-process shell;
Fabric runs in a real kernel (nbclient), as a notebook runs it. Plus unit tests of the
advice and user-stack parsing on synthetic records.
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap

import pytest
import torch

import nbcompile
from nbcompile.core.insight.advice import advise
from nbcompile.core.records import CompileRecord
from nbcompile.core.trace.stacks import cell_frame, parse_user_stack
from nbcompile.display.bundle import summary_text

from .conftest import execute_notebook, make_notebook, run_cell

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a hub: everything is built locally


# --- advice, on synthetic compile records ------------------------------------------------


def _compiles(*reasons: str, frame: str = "fn") -> list[CompileRecord]:
    return [CompileRecord(compile_id=f"0/{i}", frame=frame, recompile_reason=r)
            for i, r in enumerate(("",) + reasons)]


def test_growing_sequence_is_a_recompile_storm():
    reasons = [f"tensor 'x' size mismatch at index 1. expected {n}, actual {n + 1}"
               for n in (8, 9, 10)]
    [advice] = advise("step", _compiles(*reasons), dynamic=False)
    assert advice.kind == "recompile-storm"
    assert "recompiled 3 times" in advice.message and "x at dim 1: 8 -> 9 -> 10 -> 11" in (
        advice.message)
    # compiled with dynamic=False: that is the cause, and the fix says so (issue 25)
    assert "--no-dynamic" in advice.message and "Drop --no-dynamic" in advice.fix
    [advice] = advise("step", _compiles(*reasons))
    assert "--dynamic" in advice.fix and "mark_dynamic" in advice.fix


def test_growing_kv_cache_advises_a_static_cache():
    reason = ("tensor 'kwargs['past_key_values'].layers[0].keys' size mismatch at index 2. "
              "expected 8, actual 9")
    [advice] = advise("lm", _compiles(reason))
    assert advice.kind == "recompile-storm"
    assert "KV cache" in advice.message
    assert 'cache_implementation = "static"' in advice.fix


def test_item_specialisation_and_recompile_limit():
    reasons = ["___stack0 == 834.5", "___stack0 == 12.25", "___stack0 == 3.0"]
    kinds = [a.kind for a in advise("f", _compiles(*reasons), limit=4)]
    assert kinds == ["scalar-specialization", "recompile-limit"]
    assert not advise("f", _compiles("tensor 'x' dtype mismatch. expected Float, actual Double"))
    shrinking = "tensor 'x' size mismatch at index 0. expected 9, actual 8"
    assert not advise("f", _compiles(shrinking, shrinking))


def test_user_stack_of_a_graph_break_and_of_a_failed_compile():
    brk = textwrap.dedent('''\
        Graph break in user code at /lib/helper.py:3
        Graph Break Reason: Call to builtin print
        User code traceback:
          File "<ipython-input-4-0123abcd>", line 2, in wrapper
            return helper(x)
          File "/lib/helper.py", line 3, in helper
            print("x")
        Traceback (most recent call last):
          File "/site-packages/torch/_dynamo/symbolic_convert.py", line 1, in step
        ''')
    stack = parse_user_stack(brk)
    assert [(f.filename, f.lineno) for f in stack] == [
        ("<ipython-input-4-0123abcd>", 2), ("/lib/helper.py", 3)]
    assert cell_frame(stack).filename == "<ipython-input-4-0123abcd>"
    err = 'boom\n\nfrom user code:\n   File "/tmp/ipykernel_7/123.py", line 5, in f\n    g()\n'
    assert cell_frame(parse_user_stack(err)).lineno == 5
    assert parse_user_stack("no stack here") == []


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


# --- a graph break inside a library, reached from a cell line -----------------------------


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


# --- Hugging Face Transformers -----------------------------------------------------------

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


# --- Lightning Fabric (real kernel) ------------------------------------------------------

FABRIC_CELLS = [
    "%load_ext nbcompile",
    '''%%compile
import torch
import lightning as L
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
    def forward(self, x):
        return torch.relu(self.fc(x)) * 2
net = Net()''',
    # compile first, then fabric.setup(): what Fabric's guide asks for
    '''import json, nbcompile
fabric = L.Fabric(accelerator="cpu", devices=1)
fmodel = fabric.setup(net)
x = torch.randn(4, 16)
out = fmodel(x)
r = nbcompile.report(fmodel)
print(json.dumps({"name": r.name, "status": r.status, "graphs": r.graph_count,
                  "same": r.id == nbcompile.report(net).id,
                  "ok": bool(torch.allclose(out, net._call_impl(x)))}))''',
    # a cell that defines an already set-up module: its inner module is compiled
    '''%%compile
set_up = fabric.setup(Net())
keys_before = list(set_up.state_dict())''',
    '''out2 = set_up(x)
r2 = nbcompile.report(set_up)
print(json.dumps({"status": r2.status, "graphs": r2.graph_count, "wrapper": r2.wrapper,
                  "compiled": r2.compiled_object, "notes": r2.notes,
                  "inner": type(set_up.module).__name__,
                  "keys": keys_before == list(set_up.state_dict())}))''',
]


@pytest.fixture(scope="module")
def fabric_nb():
    pytest.importorskip("lightning")
    return execute_notebook(make_notebook(FABRIC_CELLS), timeout=300)


def _json_out(cell) -> dict:
    text = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
    return json.loads(text.strip().splitlines()[-1])


def test_fabric_compile_then_setup_keeps_records(fabric_nb):
    got = _json_out(fabric_nb.cells[2])
    assert got == {"name": "net", "status": "compiled", "graphs": 1, "same": True, "ok": True}


def test_fabric_already_set_up_module_has_its_inner_module_compiled(fabric_nb):
    got = _json_out(fabric_nb.cells[4])
    assert got["status"] == "compiled" and got["graphs"] == 1 and got["keys"]
    assert got["wrapper"] == "_FabricModule" and got["inner"] == "Net"
    assert got["compiled"] == "the Net inside set_up (_FabricModule), compiled in place"
    # (with a cold FX graph cache, cell 2's compile of the same Net stored the graph this
    # compile reused, and a note says so)
    [note] = [n for n in got["notes"] if "reused" not in n]
    assert "compiled its inner module (Net) in place" in note
    assert "compile before fabric.setup()" in note


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
