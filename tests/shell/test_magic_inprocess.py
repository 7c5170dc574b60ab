"""%%compile in a real in-process IPython shell, with real Inductor compiles on the CPU."""

from __future__ import annotations

import json
import logging

import jsonschema
import pytest
import torch

import nbcompile
from nbcompile.core.notebook.capture.session import get_session
from nbcompile.core.records import MIME_TYPE
from nbcompile.core.trace import log_taps
from nbcompile.core.trace.listener import TRACE_LOGGER
from nbcompile.display import summary_bundle
from nbcompile.magics import cell_hooks
from tests.support.schema import SCHEMA
from tests.support.shell import run_cell

EXAMPLE = '''import torch
def gelu_chain(x):
    y = torch.sin(x) * 2
    print("debug")          # a graph break <script>alert(1)</script>
    return torch.relu(y) + 1
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU())
keys_before = list(model.state_dict())
model_before = model
'''


@pytest.fixture(scope="module")
def example(ip):
    """The README example: defined in one cell, called (and recompiled) in later ones."""
    ip.run_cell_magic("compile", "--mode max-autotune-no-cudagraphs", EXAMPLE)
    run_cell(ip, "x = torch.randn(8, 64)\ny1 = gelu_chain(x)\ny2 = model(x)")
    run_cell(ip, "y3 = gelu_chain(x.double())")
    return ip


def test_function_is_rebound_to_the_compiled_callable(example):
    fn = example.user_ns["gelu_chain"]
    assert callable(getattr(fn, "_torchdynamo_orig_callable", None))
    assert fn._torchdynamo_orig_callable.__name__ == "gelu_chain"


def test_module_compiled_in_place_keeps_identity_and_state_dict(example):
    ns = example.user_ns
    assert ns["model"] is ns["model_before"]
    assert list(ns["model"].state_dict()) == ns["keys_before"] == ["0.weight", "0.bias"]
    assert ns["model"]._compiled_call_impl is not None


def test_sequential_really_compiled(example):
    """module.compile() alone is a silent no-op for nn.Sequential in torch 2.13."""
    rep = nbcompile.report(example.user_ns["model"])
    assert rep.status == "compiled"
    assert rep.graph_count == 1
    assert any(k.name == "extern_kernels.addmm" for k in rep.kernels)
    assert torch.allclose(example.user_ns["y2"], torch.relu(
        example.user_ns["model"]._call_impl(example.user_ns["x"])))


def test_graph_break_has_reason_cell_line_and_hint(example):
    rep = nbcompile.report(example.user_ns["gelu_chain"])
    assert rep.graph_count >= 2  # split at the break
    [gb] = rep.graph_breaks
    assert gb.lineno == 5  # the cell editor's line: %%compile is line 1
    assert gb.line.startswith('print("debug")')
    assert "print" in gb.reason
    assert gb.hint
    assert gb.filename == rep.cell.filename


def test_cpu_kernels_are_cpp_source(example):
    rep = nbcompile.report(example.user_ns["gelu_chain"])
    cpp = [k for k in rep.kernels if k.language == "cpp"]
    assert cpp and all(k.name.startswith("cpp_fused_") for k in cpp)
    assert 'extern "C"' in cpp[0].source
    assert any("sin" in k.source for k in cpp) and cpp[0].source in rep.output_code
    assert any(k.kind == "wrapper" and k.name == "call" for k in rep.kernels)


def test_recompile_reason_in_words(example):
    rep = nbcompile.report(example.user_ns["gelu_chain"])
    assert rep.recompiles, "a dtype change must recompile"
    assert any("dtype mismatch" in r.reason and "Double" in r.reason for r in rep.recompiles)


def test_report_fields_and_json(example):
    rep = nbcompile.report(example.user_ns["gelu_chain"])
    assert rep.name == "gelu_chain" and rep.kind == "function"
    assert rep.options["mode"] == "max-autotune-no-cudagraphs"
    assert rep.compile_time_s > 0
    assert all(c.graphs or c.status == "failed" for c in rep.compiles)
    assert "# File:" in rep.compiles[0].graphs[0]
    assert "TREE_GUARD_MANAGER" in rep.compiles[0].guards or rep.compiles[0].guards
    data = json.loads(json.dumps(rep.to_dict()))
    assert data["schema_version"] == 1
    jsonschema.validate(data, SCHEMA)
    assert "CompileReport gelu_chain" in repr(rep)
    bundle = rep._repr_mimebundle_()
    assert MIME_TYPE in bundle and "text/html" in bundle and "text/plain" in bundle


def test_summary_bundle_escapes_user_strings(example):
    records = [nbcompile.report(example.user_ns["gelu_chain"])]
    bundle = summary_bundle(records)
    assert "<script>alert(1)</script>" not in bundle["text/html"]
    assert "&lt;script&gt;" in bundle["text/html"]
    jsonschema.validate(bundle[MIME_TYPE], SCHEMA)


def test_raising_cell_rebinds_nothing(ip):
    ip.user_ns.pop("half_done", None)
    result = ip.run_cell(
        "%%compile\ndef half_done(x):\n    return x + 1\nraise ValueError('boom')\n"
    )
    assert isinstance(result.error_in_exec, ValueError)
    fn = ip.user_ns["half_done"]  # a plain run would have defined it too ...
    assert not hasattr(fn, "_torchdynamo_orig_callable")  # ... but it is not compiled
    assert get_session().find(fn) is None


def test_rerun_replaces_targets_and_what_is_not_a_target(ip):
    cell = (
        "import torch\nfrom torch.nn.functional import relu\n"
        "class Block(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n"
        "def twice(x):\n    return x * 2\n_private = lambda x: x\nn = 3\n"
        "inner = torch.nn.Linear(2, 2)\nouter = torch.nn.Sequential(inner)\n"
    )
    ip.run_cell_magic("compile", "", cell)
    first = ip.user_ns["twice"]
    ip.run_cell_magic("compile", "", cell)
    names = [t.name for t in get_session().targets]
    assert names.count("twice") == 1 and names.count("outer") == 1
    assert ip.user_ns["twice"] is not first
    for not_target in ("relu", "Block", "_private", "n", "inner"):
        assert not_target not in names
    assert any("inner is part of another compiled module" in n
               for n in nbcompile.report(ip.user_ns["twice"]).notes)


def test_disable_registers_but_runs_eagerly(ip):
    ip.run_cell_magic("compile", "--disable", "def lazy_fn(x):\n    return x + 1\n")
    rep = nbcompile.report(ip.user_ns["lazy_fn"])
    assert rep.status == "disabled"
    run_cell(ip, "lazy_out = lazy_fn(torch.ones(2))")
    assert nbcompile.report(ip.user_ns["lazy_fn"]).graph_count == 0


def test_last_expression_value_is_returned(ip):
    assert ip.run_cell_magic("compile", "", "def ident(x):\n    return x\n41 + 1") == 42


def test_fullgraph_break_is_a_clear_error_naming_the_line(ip, capsys):
    ip.run_cell_magic("compile", "--fullgraph", "def strict(x):\n    y = x + 1\n"
                      "    print('no')\n    return y\n")
    capsys.readouterr()
    result = ip.run_cell("strict(torch.ones(2))")
    out = capsys.readouterr()
    assert result.error_in_exec is not None
    text = out.out + out.err
    assert "`strict` cannot be compiled as one graph (fullgraph=True)" in text
    assert "line 4: print('no')" in text
    rep = nbcompile.report(ip.user_ns["strict"])
    assert rep.status == "failed" and rep.error.lineno == 4 and "print" in rep.error.message


def test_fullgraph_error_names_the_compiled_target_not_an_inlined_one(ip, capsys):
    """The frame Dynamo was compiling is the outermost: a target it inlined (here one
    that breaks the graph) is not the one that cannot be one graph."""
    ip.run_cell_magic("compile", "", "import torch\ndef noisy(x):\n    print('no')\n"
                                     "    return x * 2\n")
    ip.run_cell_magic("compile", "--fullgraph", "def outer(x):\n    return noisy(x) + 1\n")
    capsys.readouterr()
    result = ip.run_cell("outer(torch.ones(2))")
    text = "".join(capsys.readouterr())
    assert result.error_in_exec is not None
    assert "`outer` cannot be compiled as one graph (fullgraph=True)" in text, text
    # the cell named as the summary names noisy's defining cell
    cell = nbcompile.report(ip.user_ns["noisy"]).to_dict()["cell"]["execution_count"]
    assert f"Graph break at cell [{cell}], line 4: print('no')" in text, text


def test_unload_removes_the_trace_handler_and_load_restores_it(ip):
    logger = logging.getLogger(TRACE_LOGGER)
    listener = get_session().listener

    def ours_on_trace() -> list[logging.Handler]:
        return [h for h in logger.handlers if isinstance(h, log_taps.Fanout)]

    assert listener.installed and listener in log_taps.sinks(TRACE_LOGGER)
    assert len(ours_on_trace()) == 1
    hooks = ["pre_run_cell:torch_log_filter", "pre_run_cell:cell_history",
             "pre_run_cell:cudagraph_hazards", "post_run_cell:cell_history",
             "post_run_cell:cudagraph_hazards", "post_run_cell:cache_keys"]
    assert cell_hooks.installed(ip) == hooks
    ours = [cb for cbs in ip.events.callbacks.values() for cb in cbs
            if getattr(cb, "__name__", "").startswith("nbcompile_")]
    assert len(ours) == len(hooks)
    ip.run_line_magic("unload_ext", "nbcompile")
    try:
        assert not listener.installed and ours_on_trace() == []  # nothing left on torch
        assert ip.find_cell_magic("compile") is None
        assert cell_hooks.installed(ip) == []
        assert not any(cb in cbs for cbs in ip.events.callbacks.values() for cb in ours)
    finally:
        ip.run_line_magic("load_ext", "nbcompile")
    assert listener.installed and len(ours_on_trace()) == 1
    assert cell_hooks.installed(ip) == hooks


def test_a_failing_cell_hook_never_breaks_the_cell():
    """A job around a cell that raises is swallowed there: the cell runs and the next hook
    still runs (IPython's own events, a shell of their own)."""
    from IPython.core.events import EventManager, available_events

    class Shell:
        events = EventManager(None, available_events)

    shell, ran = Shell(), []

    def boom(_shell, _arg):
        raise RuntimeError("a bug in a hook")

    cell_hooks.install(shell, [cell_hooks.CellHook("post_run_cell", "boom", boom),
                               cell_hooks.CellHook("post_run_cell", "after",
                                                   lambda sh, res: ran.append(res))])
    try:
        shell.events.trigger("post_run_cell", "result")
        assert ran == ["result"]
    finally:
        cell_hooks.uninstall(shell)
    assert not shell.events.callbacks["post_run_cell"]


def test_cuda_graph_mode_on_cpu_says_what_it_does(ip):
    """What happened to CUDA graphs comes from torch's own record of each compile (its
    words, or its skip count), not from a fixed note made before any call."""
    ip.run_cell_magic("compile", "--mode reduce-overhead", "def ro(x):\n    return x * 3\n")
    ip.run_cell("import torch\nro(torch.ones(4))").raise_error()
    report = nbcompile.report(ip.user_ns["ro"])
    assert not any("need a GPU" in n for n in report.notes)
    if not torch.cuda.is_available():
        assert report.compiles and report.compiles[0].cudagraphs, report.compiles


def test_module_used_inside_a_compiled_step_says_so(ip):
    ip.run_cell_magic("compile", "", (
        "import torch\nnet = torch.nn.Linear(4, 1)\n"
        "def step(x):\n    return net(x).sum()\n"
    ))
    notes = nbcompile.report(ip.user_ns["net"]).notes
    assert any("net is used inside step" in n for n in notes), notes
    assert not any("is used inside" in n for n in nbcompile.report(ip.user_ns["step"]).notes)
