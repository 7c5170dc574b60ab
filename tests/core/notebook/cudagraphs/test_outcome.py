"""torch's CUDA-graph messages read into a compile's outcome, and the one-line total.

No CPU run makes torch log a CUDA-graph skip, and the committed H200 trace holds no such
message (the ``cudagraphs`` logger does not write to TORCH_TRACE): the messages below are
torch 2.13's format strings copied verbatim from its source (``cudagraph_utils.py``:
``format_default_skip_message``, ``get_mutation_stack_trace``,
``check_multiple_devices_or_any_cpu_nodes``, ``get_input_storage_mutation_reason``,
``maybe_warning_due_to_dynamic_shape``; ``compile_fx.py``: the incompatible-op and
dynamic-graph reasons; ``output_code.py``: the prefix it adds; ``cudagraph_trees.py``: the
re-record limit), filled with the user frame the H200 trace names for its mutated input.
"""

from __future__ import annotations

import re

from nbcompile.core.notebook.cudagraphs.outcome import (
    NO_REASON,
    graph_device,
    is_skip,
    outcome,
    reason_of,
    total,
    user_line,
    with_message,
)
from nbcompile.core.records import CompileRecord
from nbcompile.trace_report import open_trace
from tests.support import ROOT

LOG = ROOT / "tests" / "fixtures" / "traces" / "gpu" / "dedicated_log_torch_trace_h200.log"


def _h200_frame() -> tuple[str, int, str]:
    """The user line of the H200 run's mutated input, as its graph printed it."""
    graph = open_trace(str(LOG)).compile("0/0_1").graphs[0]
    m = re.search(r"# File: (\S+):(\d+) in (\w+), code: (a\.add_\(1\))", graph)
    assert m, graph
    return m.group(1), int(m.group(2)), m.group(4)


def _stack(filename: str, lineno: int, code: str, fn: str = "f") -> str:
    """An FX node's ``stack_trace`` as torch stores it (``traceback.format_list``)."""
    return f'  File "{filename}", line {lineno}, in {fn}\n    {code}\n'


def test_mutated_input_message_gives_reason_and_user_line():
    filename, lineno, code = _h200_frame()
    # get_mutation_stack_trace: f"{msg}. Found from : \n {stack_trace}"
    message = ("skipping cudagraphs due to mutated inputs (1 instances)"
               f". Found from : \n {_stack(filename, lineno, code)}")
    assert is_skip(message)
    assert reason_of(message) == "mutated inputs (1 instances)"
    line = user_line(message)
    assert line is not None and (line.filename, line.lineno, line.line) == (
        filename, lineno, "a.add_(1)")
    result = outcome([message], counted=True, requested=True, device="cuda",
                     cell_of=lambda f: 7 if f == filename else None)
    assert result is not None
    assert (result.status, result.reason, result.cell, result.messages) == (
        "skipped", "mutated inputs (1 instances)", 7, [message])


def test_reasons_of_each_skip_torch_logs():
    stack = _stack("<ipython-input-4-0a1b2c>", 3, "return x.item() + y", "g")
    cases = {
        # output_code.py wraps a lowering reason that already has the prefix
        "skipping cudagraphs due to skipping cudagraphs due to cpu device (arg3_1)"
        f". Found from : \n {stack}": "cpu device (arg3_1)",
        "skipping cudagraphs due to multiple devices: device(type='cuda', index=0), "
        "device(type='cuda', index=1)":
            "multiple devices: device(type='cuda', index=0), device(type='cuda', index=1)",
        f"skipping cudagraphs due to input storage mutation (1 instances). Found from:\n {stack}":
            "input storage mutation (1 instances)",
        "skipping cudagraphs due to disabling cudagraphs due to incompatible op "
        f"aten._local_scalar_dense.default Found from {stack}\n":
            "incompatible op aten._local_scalar_dense.default",
        "skipping cudagraphs due to graph with symbolic shapes inputs and "
        f"config.triton.cudagraph_skip_dynamic_graphs=True. Found from {stack}\n":
            "graph with symbolic shapes inputs and "
            "config.triton.cudagraph_skip_dynamic_graphs=True",
        "skipping cudagraph due to function 0 exceeding max re-recording limit (=50) on "
        "cudagraph node 2 due to static input data pointer changed.\ninput name: primals_1. "
        "data pointer changed from 1 to 2. input stack trace: None\n.":
            "function 0 exceeding max re-recording limit (=50) on cudagraph node 2 due to "
            "static input data pointer changed",
        "skipping cudagraphs due to ['non-Tensor inputs']": "['non-Tensor inputs']",
    }
    for message, reason in cases.items():
        assert is_skip(message), message
        assert reason_of(message) == reason, message
    found = user_line(next(iter(cases)))
    assert found is not None and (found.filename, found.lineno) == ("<ipython-input-4-0a1b2c>", 3)
    result = with_message(None, next(iter(cases)))
    assert (result.status, result.cell) == ("skipped", 4)  # IPython's filename names the cell


def test_dynamic_shape_warning_is_kept_and_is_no_skip():
    warning = ("CUDAGraph supports dynamic shapes by recording a new graph for each distinct "
               "input size. Recording too many CUDAGraphs may lead to extra overhead. We have "
               "observed 9 distinct sizes. Please consider the following options for better "
               "performance: a) padding inputs to a few fixed number of shapes; or b) set "
               "torch._inductor.config.triton.cudagraph_skip_dynamic_graphs=True. Set "
               "torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit=None to "
               "silence this warning.")
    assert not is_skip(warning)
    result = outcome([warning], counted=False, requested=True, device="cuda")
    assert result is not None and (result.status, result.messages) == ("recorded", [warning])


def test_outcome_without_messages():
    assert outcome([], counted=False, requested=False, device="cuda") is None
    recorded = outcome([], counted=False, requested=True, device="cuda")
    assert recorded is not None and (recorded.status, recorded.reason) == ("recorded", "")
    cpu = outcome([], counted=True, requested=True, device="cpu")
    assert cpu is not None and (cpu.status, cpu.reason) == ("not_used", "cpu device")
    silent = outcome([], counted=True, requested=True, device="cuda")
    assert silent is not None and (silent.status, silent.reason) == ("skipped", NO_REASON)


def test_graph_device_of_the_h200_trace_and_of_cpu_graphs():
    trace = open_trace(str(LOG))
    graphs = [c for c in trace.compiles if c.graphs]
    assert graphs and all(graph_device(c.graphs) == "cuda" for c in graphs)
    assert graph_device(['l_x_: "f32[6][1]cpu"']) == "cpu"
    assert graph_device(['a: "f32[6][1]cpu"', 'b: "bf16[2, 3][3, 1]cuda:0"']) == "cuda"
    assert graph_device([], ["cpp"]) == "cpu"
    assert graph_device([], []) is None


def _compile(cudagraphs) -> CompileRecord:
    return CompileRecord("0/0", "f", cudagraphs=cudagraphs)


def test_total_line():
    recorded = outcome([], counted=False, requested=True, device="cuda")
    skipped = with_message(None, "skipping cudagraphs due to mutated inputs (1 instances)"
                           f". Found from : \n {_stack('<ipython-input-5-ab>', 2, 'x.add_(1)')}")
    assert total([_compile(None)]) is None
    assert total([_compile(recorded)] * 3 + [_compile(skipped)]) == (
        "CUDA graphs: 3 of 4 graphs run as CUDA graphs; skipped: mutated inputs "
        "(1 instances) (cell [5], line 2: x.add_(1))")
    cpu = outcome([], counted=True, requested=True, device="cpu")
    assert total([_compile(cpu), _compile(cpu)]) == (
        "CUDA graphs: not used on cpu (torch: cpu device)")


def test_a_cache_served_compile_says_its_partitions_are_not_known():
    """An FX-graph cache hit logs no partition lines (Inductor's scheduler does not run):
    its graph is not said to run whole as a CUDA graph, its partitions are not known."""
    recorded = outcome([], counted=False, requested=True, device="cuda")
    served = CompileRecord("0/0", "f", cudagraphs=recorded, cache={"fx_graph_cache_hit": 1})
    text = total([served])
    assert text is not None and text.startswith("CUDA graphs: 1 of 1 graph runs as a CUDA graph")
    assert "graph partitions not known for 1 of them (served from the FX-graph cache" in text
    assert "not known" not in (total([_compile(recorded)]) or "")


def test_asked_for_as_inductor_decides():
    """The options' flag, else the mode's settings, else Inductor's global flag."""
    import torch._inductor.config as inductor_config

    from nbcompile.core.notebook.cudagraphs.outcome import asked_for
    from nbcompile.core.notebook.targets.options import CompileOptions

    for flag in (False, True):
        with inductor_config.patch({"triton.cudagraphs": flag}):
            assert asked_for(CompileOptions()) is flag
            assert asked_for(CompileOptions(mode="default")) is flag
            assert asked_for(CompileOptions(mode="reduce-overhead"))
            # this mode only leaves the flag out (list_mode_options): the global one holds
            assert asked_for(CompileOptions(mode="max-autotune-no-cudagraphs")) is flag
            assert not asked_for(CompileOptions(options={"triton.cudagraphs": False}))
            assert not asked_for(CompileOptions(backend="eager"))


def test_the_non_tree_path_is_seen_as_inductor_decides():
    """``triton.cudagraph_trees`` given, else Inductor's global flag (default True): off,
    Inductor captures through ``compile_fx``'s non-tree path, which logs nothing per call."""
    import torch._inductor.config as inductor_config

    from nbcompile.core.notebook.cudagraphs.outcome import NON_TREE, trees_on
    from nbcompile.core.notebook.targets.options import CompileOptions

    assert inductor_config.triton.cudagraph_trees is True  # torch's default
    assert trees_on(CompileOptions(mode="reduce-overhead"))
    off = CompileOptions(options={"triton.cudagraphs": True, "triton.cudagraph_trees": False})
    assert not trees_on(off)
    with inductor_config.patch({"triton.cudagraph_trees": False}):
        assert not trees_on(CompileOptions(mode="reduce-overhead"))
        assert trees_on(CompileOptions(options={"triton.cudagraph_trees": True}))
    assert "not known here" in NON_TREE and "cudagraph_trees = False" in NON_TREE


def test_a_compiles_words_are_made_once_with_partitions_said_when_not_known():
    """The Compiles column's words travel in the record (``text``; the inspector renders
    them): a cache-served compile on a CUDA graph says its partitions are not known
    instead of a plain "recorded"; one whose scheduler ran and split nothing says
    "recorded"; a skip keeps torch's reason and the user's line."""
    from types import SimpleNamespace

    from nbcompile.core.notebook.cudagraphs.outcome import describe, of_compile
    from nbcompile.core.notebook.targets.options import CompileOptions

    owner = SimpleNamespace(options=CompileOptions(mode="reduce-overhead"),
                            cell=SimpleNamespace(filename="", execution_count=None))
    graph = 'def forward(self, L_x_: "f32[8][1]cuda:0"):\n    return (L_x_ + 1,)'
    served = CompileRecord("0/0", "f", graphs=[graph], cache={"fx_graph_cache_hit": 1})
    result = of_compile(served, [], False, [owner])
    assert result is not None and result.status == "recorded"
    assert result.partitions_unknown == "served from the FX-graph cache"
    assert result.text == describe(result) == (
        "recorded; graph partitions not known (served from the FX-graph cache)")
    fresh = of_compile(CompileRecord("0/1", "f", graphs=[graph]), [], False, [owner])
    assert fresh is not None
    assert fresh.text == ("recorded" if fresh.partitions_unknown == "" else
                          f"recorded; graph partitions not known ({fresh.partitions_unknown})")
    skipped = with_message(None, "skipping cudagraphs due to mutated inputs (1 instances)")
    assert skipped.text == "skipped: mutated inputs (1 instances)"
    assert skipped.to_dict()["text"] == skipped.text
