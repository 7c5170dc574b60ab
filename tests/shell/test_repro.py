"""``%repro`` / ``nbcompile.repro``: a standalone script of a target's graph breaks (in a
helper from another cell) or its recompile (on a global), run in a fresh process whose
torch record decides whether it reproduced; a report and the fresh run's trace beside it;
nothing of the notebook's unrelated names or environment carried; no file overwritten."""

from __future__ import annotations

import ast
import sys

import pytest
from IPython.core.error import UsageError

import nbcompile
from tests.support.shell import run_cell


def _imports(path: str) -> set[str]:
    tree = ast.parse(open(path).read())
    return {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
            for a in n.names} | {(n.module or "").split(".")[0] for n in ast.walk(tree)
                                 if isinstance(n, ast.ImportFrom)}


def test_a_break_in_a_helper_of_another_cell_reproduces_in_a_fresh_process(
        ip, tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SECRET_TOKEN", "s3cr3t")
    run_cell(ip, "import torch\nUNRELATED_NAME = 'not needed'\nSCALE = 3")
    run_cell(ip, 'def rp_helper(x):\n    print("a break")\n    return x.cos()')
    run_cell(ip, "%%compile --backend eager\ndef rp_fn(x):\n    return rp_helper(x.sin()) * SCALE")
    run_cell(ip, "rp_fn(torch.randn(4, 3)[:, 0].unsqueeze(1))")
    where = tmp_path / "bug"
    r = ip.run_line_magic("repro", f"rp_fn(torch.randn(6, 2).t()) --dir {where} --no-env")
    assert isinstance(r, nbcompile.Repro)
    assert r.kind == "graph_breaks" and r.reproduced, (r.differs, r.seen)
    # torch's record in the fresh process: its counters, and the line its own trace holds
    assert r.seen["types"] == ["Failed to trace builtin operator"]
    assert r.seen["lines"] == ['print("a break")']
    text = open(r.path).read()
    assert _imports(r.path) <= {"json", "sys", "torch"}
    assert "def rp_helper" in text and "SCALE = 3" in text
    assert "UNRELATED_NAME" not in text and "s3cr3t" not in text
    # the call's input: its shape, dtype and strides (a transposed view)
    assert "torch.randn((12,), dtype=torch.float32).as_strided((2, 6), (1, 2))" in text
    assert nbcompile.open_trace(r.trace_dir).compiles
    report = open(r.report_path).read()
    assert f"torch {__import__('torch').__version__}" in report and r.trace_dir in report
    assert "reproduced" in repr(r) and r.to_dict()["reproduced"] is True
    # never over existing files
    with pytest.raises(UsageError, match="not an empty folder"):
        ip.run_line_magic("repro", f"rp_fn(torch.randn(3)) --dir {where}")


def test_a_recompile_on_a_global_reproduces_and_its_absence_is_told(ip, tmp_path):
    run_cell(ip, "import torch\nRP_K = 1")
    run_cell(ip, "%%compile --backend eager\ndef rp_g(x):\n    return x * RP_K + 1")
    run_cell(ip, "rp_g(torch.randn(5))\nRP_K = 2\nrp_g(torch.randn(5))")
    r = nbcompile.repro(ip.user_ns["rp_g"], ip.user_ns["torch"].randn(5),
                        folder=tmp_path / "rc", collect_env=False)
    assert r.kind == "recompile" and r.reproduced, (r.differs, r.seen)
    assert any("G['RP_K'] == 1" in g for g in r.seen["guards"])
    assert "RP_K, RP_K_now = 1, RP_K" in open(r.path).read()
    # the script's own check fails, in words, where torch records no such recompile
    script = tmp_path / "rc" / "repro.py"
    edited = tmp_path / "edited.py"
    edited.write_text(script.read_text().replace("RP_K, RP_K_now = 1, RP_K",
                                                 "RP_K_now = RP_K"))
    import subprocess

    done = subprocess.run([sys.executable, str(edited)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "did not reproduce" in done.stderr


def test_nothing_to_reproduce_is_said_and_nothing_written(ip, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_cell(ip, "import torch")
    run_cell(ip, "%%compile --backend eager\ndef rp_ok(x):\n    return x + 1")
    with pytest.raises(UsageError, match="nothing to reproduce"):
        ip.run_line_magic("repro", "rp_ok(torch.randn(3))")
    with pytest.raises(UsageError, match="no record of"):
        ip.run_line_magic("repro", "print(1)")
    assert list(tmp_path.iterdir()) == []


def test_an_accuracy_difference_reproduces_with_the_saved_inputs(ip, tmp_path):
    """torch's injected wrong relu in Inductor's C++: the fresh run's own numbers differ
    from eager's and eager is the closer to float64; the call's values travel in
    inputs.pt, which only the script loads (weights_only)."""
    import torch

    run_cell(ip, "import torch")
    run_cell(ip, "%%compile\ndef rp_acc(x):\n    return torch.relu(x) * 2 + 1")
    x = torch.randn(16)
    with torch._inductor.config.patch({"cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}):
        r = nbcompile.repro(ip.user_ns["rp_acc"], x, fact="accuracy", save_inputs=True,
                            folder=tmp_path / "acc", collect_env=False)
    assert r.kind == "accuracy" and r.reproduced, (r.differs, r.seen, r.problem)
    assert r.expected["closer"] == "eager" and r.seen["closer"] == "eager"
    assert r.seen["within_tolerance"] is False and r.seen["max_abs_diff"] > 0
    text = open(r.path).read()
    assert "inject_relu_bug_TESTING_ONLY" in text and "weights_only=True" in text
    assert r.saved == [str(tmp_path / "acc" / "inputs.pt")]
    saved = torch.load(r.saved[0], weights_only=True)
    assert torch.equal(saved["argument x"], x)


def test_a_module_of_the_notebooks_class_reproduces_a_bfloat16_difference(ip, tmp_path):
    """A module target: its class defined from the notebook, built as its cell built it,
    its weights from state_dict.pt; a bfloat16 chain that Inductor computes in float32
    (compiled the closer to float64), shown again on seeded random inputs."""
    run_cell(ip, "import torch\n"
                 "class RpNet(torch.nn.Module):\n"
                 "    def __init__(self, n, scale=1.0):\n"
                 "        super().__init__()\n"
                 "        self.w = torch.nn.Parameter(torch.ones(n))\n"
                 "        self.scale = scale\n"
                 "    def forward(self, x):\n"
                 "        y = x * self.w * 1.7 + 0.3\n"
                 "        y = torch.sin(y) * y\n"
                 "        y = torch.exp(y) / (1 + torch.exp(y))\n"
                 "        return torch.tanh(y * self.scale - 0.2)")
    run_cell(ip, "%%compile\nrp_net = RpNet(64, scale=3.1).to(torch.bfloat16)")
    x = ip.user_ns["torch"].randn(8, 64, dtype=ip.user_ns["torch"].bfloat16)
    ip.user_ns["rp_x"] = x
    r = ip.run_line_magic("repro", f"rp_net(rp_x) --dir {tmp_path / 'mod'} --no-env")
    assert r.kind == "accuracy" and r.reproduced, (r.differs, r.seen, r.problem)
    assert r.expected["closer"] == r.seen["closer"] == "compiled"
    text = open(r.path).read()
    assert "class RpNet" in text and "model = RpNet(64, scale=3.1)" in text
    assert r.saved == [str(tmp_path / "mod" / "state_dict.pt")]
    # an attribute the constructor does not make is not carried: refused in words
    run_cell(ip, "rp_net.scale = 3.0")
    r = nbcompile.repro(ip.user_ns["rp_net"], x, fact="accuracy",
                        folder=tmp_path / "no", collect_env=False)
    assert not r.reproduced and "attribute scale is 3.0" in r.problem and not r.path


def test_suggest_with_no_fix_that_helped_offers_the_repro_it_names(ip, tmp_path, monkeypatch):
    """%suggest leaves an explicit graph break to PyTorch: its notes name the %repro
    command, which runs as named (nothing is run for the user until they do)."""
    monkeypatch.chdir(tmp_path)
    run_cell(ip, "import torch")
    run_cell(ip, "%%compile --backend eager\ndef rp_gb(x):\n    x = x + 1\n"
                 "    torch._dynamo.graph_break()\n    return x * 2")
    run_cell(ip, "rp_x = torch.randn(4)\nrp_gb(rp_x)")
    s = ip.run_line_magic("suggest", "rp_gb(rp_x) --budget 30")
    assert not s.verified
    offer = next(n for n in s.notes if "%repro" in n)
    assert "%repro rp_gb(x) --fact graph_breaks (with your inputs)" in offer
    assert list(tmp_path.iterdir()) == []  # offered, not run
    r = ip.run_line_magic("repro", "rp_gb(rp_x) --fact graph_breaks --no-env")
    assert r.reproduced, (r.differs, r.seen)


def test_auto_passes_over_recompiles_a_script_cannot_rebuild_and_says_so(ip, tmp_path):
    """Every recompile here is on an int's value or in code after a graph break (a value
    on the resume frame's stack, ``___stack0``): ``auto`` writes the graph breaks and says
    why not the recompile; asked for the recompile, the refusal names the fact to ask for."""
    run_cell(ip, "import torch")
    run_cell(ip, 'def rp_h(x):\n    print("a break")\n    return x.cos()')
    run_cell(ip, "%%compile --backend eager\ndef rp_rep(x, n):\n    return rp_h(x.repeat(n)) * 2")
    run_cell(ip, "rp_rep(torch.randn(4), 2)\nrp_rep(torch.randn(4), 3)")
    with pytest.raises(UsageError, match="ask for --fact graph_breaks") as refused:
        ip.run_line_magic("repro", f"rp_rep(torch.randn(4), 3) --fact recompile --dir "
                                   f"{tmp_path / 'no'} --no-env")
    assert "___stack0 is a value on its stack" in str(refused.value)
    assert not (tmp_path / "no").exists()
    r = ip.run_line_magic("repro", f"rp_rep(torch.randn(4), 3) --dir {tmp_path / 'gb'} --no-env")
    assert r.kind == "graph_breaks" and r.reproduced, (r.differs, r.seen)
    assert r.notes[0].startswith("its recompile is not reproduced") and "___stack0" in r.notes[0]
    assert "note: its recompile is not reproduced" in repr(r)
    assert "its recompile is not reproduced" in open(r.report_path).read()


def test_auto_writes_the_targets_own_recompile_over_a_newer_one_after_a_break(ip, tmp_path):
    """A new size recompiles the target's frame and the code after its graph break; the
    newest recompile (``___stack0``'s size) cannot be rebuilt, the target's own (its
    argument's size) can: that one is written and reproduces on this call's size."""
    run_cell(ip, "import torch")
    run_cell(ip, 'def rp_h2(x):\n    print("a break")\n    return x.cos()')
    run_cell(ip, "%%compile --backend eager\ndef rp_sz(x):\n    return rp_h2(x.sin()) * 2")
    run_cell(ip, "rp_sz(torch.randn(4))\nrp_sz(torch.randn(5))")
    r = ip.run_line_magic("repro", f"rp_sz(torch.randn(6)) --dir {tmp_path / 'rc'} --no-env")
    assert r.kind == "recompile" and r.reproduced, (r.differs, r.seen)
    assert r.expected["guard"] == "tensor 'x' size mismatch at index 0. expected 4"
    assert any("expected 4, actual 6" in g for g in r.seen["guards"])
    assert "___stack0" in r.notes[0]
    assert "x_before = torch.randn((4,), dtype=torch.float32)" in open(r.path).read()


def test_the_stance_in_force_is_carried_into_the_script(ip, tmp_path):
    """Under ``%%stance fail_on_recompile`` a fresh compile is refused: that crash shows in
    the fresh process only because the script sets the same stance."""
    run_cell(ip, "import torch, nbcompile")
    run_cell(ip, "%%compile --backend eager\ndef rp_st(x):\n    return x * 2")
    run_cell(ip, "%%stance fail_on_recompile\n"
                 f"rp_r = nbcompile.repro(rp_st, torch.randn(3), folder={str(tmp_path / 's')!r}, "
                 "collect_env=False)")
    r = ip.user_ns["rp_r"]
    assert r.kind == "crash" and r.reproduced, (r.differs, r.seen, r.problem)
    assert r.expected["message"].startswith(
        "Detected recompile when torch.compile stance is 'fail_on_recompile'")
    assert "torch.compiler.set_stance('fail_on_recompile')" in open(r.path).read()
    assert "the stance in force is carried: torch.compiler.set_stance('fail_on_recompile')" \
        in r.notes
    from nbcompile.core import torch_compat

    assert torch_compat.current_stance() == "default"  # %%stance put it back
