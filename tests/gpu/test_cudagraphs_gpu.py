"""``--mode reduce-overhead`` on a CUDA GPU: each compile's CUDA-graph outcome, and each
call's (warm-up, recording, replay, re-record, sizes, graph pool), agrees with torch's own
record of the same run: the messages torch logs (its ``cudagraphs`` loggers, turned on with
``torch._logging.set_logs(cudagraphs=True)`` where the tree's DEBUG/INFO lines are the
oracle), ``counters["inductor"]["cudagraph_skips"]``, the tree manager's own state
(``cudagraph_trees.get_container(i).tree_manager``) and ``torch.cuda.memory_stats``."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch._dynamo.utils import counters
from torch._inductor import config as inductor_config
from torch._inductor import cudagraph_trees
from torch._logging._internal import set_logs

import nbcompile
from nbcompile.core.notebook.cudagraphs import partitions as cudagraph_partitions
from nbcompile.core.notebook.cudagraphs.outcome import is_skip
from nbcompile.display.summary_model import summarize
from tests.support.gpu import TorchMessages, save
from tests.support.shell import run_cell

#: CUDA-graph trees log each recording here ("Recording cudagraph tree for ...", INFO).
TREES_LOGGER = "torch._inductor.cudagraph_trees.__cudagraphs"


def _skips() -> int:
    return int(counters["inductor"]["cudagraph_skips"])


def _total(report) -> str:
    (target,) = summarize([report]).targets
    return next(i.text for i in target.items if i.text.startswith("CUDA graphs:"))


CPU_CELL = ("def {name}(x, y):\n    a = (x + 1).sin()\n    b = y * 2\n"
            "    return a, b\n")
CPU_CALLS = ("xg = torch.randn(64, device='cuda'); yc = torch.randn(64)\n"
             "for _ in range(3):\n    _ = {name}(xg, yc)")


def plain_cpu(x, y):
    a = (x + 1).sin()
    b = y * 2
    return a, b


def _torchs_partition_lines() -> list[str]:
    """torch's own partition lines for the same code compiled plainly: its scheduler's
    ``cudagraphs`` logger turned on the way a user does (``set_logs``), with no FX-graph
    cache (so the scheduler runs)."""
    heard = TorchMessages()
    set_logs(cudagraphs=True)
    logging.getLogger(cudagraph_partitions.LOGGER).addHandler(heard)
    try:
        with inductor_config.patch({"fx_graph_cache": False}):
            compiled = torch.compile(plain_cpu, mode="reduce-overhead")
            for _ in range(3):
                compiled(torch.randn(64, device="cuda"), torch.randn(64))
    finally:
        logging.getLogger(cudagraph_partitions.LOGGER).removeHandler(heard)
        set_logs()
    return heard.messages


def test_cpu_tensor_input_runs_outside_cuda_graphs_in_torchs_words(ip, torch_messages,
                                                                  evidence):
    """A CPU tensor input beside a CUDA one. With graph partitioning (torch's default
    since 2.9) Inductor splits the graph: the CPU op runs outside CUDA graphs, the rest is
    recorded, no skip is said or counted, and torch tells which op only at DEBUG, which
    nbcompile hears without printing it. Without partitioning torch skips CUDA graphs
    for the graph: ``cpu device``."""
    run_cell(ip, "import torch")
    cell = ip.execution_count
    ip.run_cell_magic("compile", "--mode reduce-overhead", CPU_CELL.format(name="gcg_cpu"))
    before = _skips()
    run_cell(ip, CPU_CALLS.format(name="gcg_cpu"))
    report = nbcompile.report(ip.user_ns["gcg_cpu"])
    theirs = _torchs_partition_lines()
    save(evidence, "cpu_input", {"record": report.to_dict(), "torch_partition_lines": theirs},
         torch_messages.messages)
    outcome = report.compiles[-1].cudagraphs
    assert outcome is not None
    if inductor_config.graph_partition:
        assert _skips() == before and not any(is_skip(m) for m in torch_messages.messages)
        created = [m for m in theirs if m.startswith("Created ")]
        assert created, theirs  # torch reported the split of the plain compile
        m = re.match(r"Created (\d+) graph partitions: (\d+) cudagraphable", created[0])
        assert m is not None
        parts = outcome.partitions
        assert outcome.status == "recorded" and parts is not None, outcome
        assert (parts.partitions, parts.cudagraphable) == (int(m.group(1)), int(m.group(2)))
        assert [n.reason for n in parts.outside] == re.findall(r"reason=([^,]+),",
                                                                "\n".join(theirs))
        (node,) = parts.outside
        assert node.fx and node.fx in "\n".join(theirs)
        assert node.line is not None and node.line.line == "b = y * 2"
        assert (node.line.lineno, node.cell) == (4, cell)
        outside = parts.partitions - parts.cudagraphable
        assert _total(report) == (
            f"CUDA graphs: 1 of 1 graph runs as a CUDA graph; {outside} of "
            f"{parts.partitions} graph partitions run{'s' if outside == 1 else ''} outside "
            f"them: {node.reason} (cell [{cell}], line 4: b = y * 2)")

    # without partitioning: torch skips CUDA graphs for the graph and says why
    with inductor_config.patch({"graph_partition": False}):
        whole_cell = ip.execution_count
        ip.run_cell_magic("compile", "--mode reduce-overhead",
                          CPU_CELL.format(name="gcg_cpu_whole"))
        before = _skips()
        torch_messages.messages.clear()
        run_cell(ip, CPU_CALLS.format(name="gcg_cpu_whole"))
    whole = nbcompile.report(ip.user_ns["gcg_cpu_whole"])
    save(evidence, "cpu_input_unpartitioned", whole, torch_messages.messages)
    said = [m for m in torch_messages.messages if is_skip(m)]
    assert said and "cpu device" in said[0], torch_messages.messages
    assert _skips() - before == len(said)  # torch counted what it said
    outcome = whole.compiles[-1].cudagraphs
    assert outcome is not None and outcome.status == "skipped"
    assert outcome.reason.startswith("cpu device") and said[0] in outcome.messages
    if "Found from" in said[0]:  # the user's line torch named
        assert outcome.line is not None and outcome.line.line == "b = y * 2"
        assert (outcome.line.lineno, outcome.cell) == (4, whole_cell)
    else:
        assert outcome.line is None
    assert _total(whole).startswith("CUDA graphs: 0 of 1 graph runs as a CUDA graph; "
                                    "skipped: cpu device")


def test_mutated_input_is_skipped_at_its_first_run(ip, torch_messages, evidence):
    cell = ip.execution_count
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def gcg_mut(a, b):\n    a.add_(1)\n    return (a * b).sin()\n")
    before = _skips()
    run_cell(ip, "am = torch.randn(64, device='cuda'); bm = torch.randn(64, device='cuda')\n"
                 "for _ in range(3):\n    _ = gcg_mut(am, bm)")
    report = nbcompile.report(ip.user_ns["gcg_mut"])
    save(evidence, "mutated_input", report, torch_messages.messages)
    said = [m for m in torch_messages.messages if is_skip(m)]
    assert len(said) == 1 and "mutated inputs" in said[0], torch_messages.messages
    assert _skips() - before == 1
    outcome = report.compiles[-1].cudagraphs
    assert outcome is not None and outcome.status == "skipped"
    assert said[0] in outcome.messages
    assert outcome.reason == "mutated inputs (1 instances)"
    if "Found from" in said[0]:  # torch named the user's line
        assert outcome.line is not None and outcome.line.line == "a.add_(1)"
        assert (outcome.line.lineno, outcome.cell) == (3, cell)  # the magic line is line 1
    else:  # torch 2.11 names none at the first run: nbcompile makes none up
        assert outcome.line is None and outcome.cell is None
    # torch named the graph's size before it found the mutation: no size was recorded
    assert report.cudagraph_shapes is None, report.cudagraph_shapes
    assert _total(report) == ("CUDA graphs: 0 of 1 graph runs as a CUDA graph; skipped: "
                              "mutated inputs (1 instances)"
                              + (f" (cell [{cell}], line 3: a.add_(1))" if outcome.line else ""))


@contextmanager
def _tree_lines() -> Iterator[TorchMessages]:
    """torch's own tree lines (warm-up, recording, re-record: DEBUG; a new size: INFO),
    turned on the way a user does (``set_logs(cudagraphs=True)``), then torch's logging
    put back to its default."""
    heard = TorchMessages()
    set_logs(cudagraphs=True)
    logging.getLogger(TREES_LOGGER).addHandler(heard)
    try:
        yield heard
    finally:
        logging.getLogger(TREES_LOGGER).removeHandler(heard)
        set_logs()


def _manager() -> cudagraph_trees.CUDAGraphTreeManager:
    """torch's CUDA-graph tree manager of the current device."""
    manager = cudagraph_trees.get_container(torch.cuda.current_device()).tree_manager
    assert manager is not None, "no CUDA graph on this device yet"
    return manager


def test_recorded_graphs_and_recordings_per_input_size(ip, torch_messages, evidence):
    sizes = (32, 48, 64, 80)
    # torch warns past 2 distinct sizes of one graph (its default is 8)
    with (_tree_lines() as lines,
          inductor_config.patch({"triton.cudagraph_dynamic_shape_warn_limit": 2})):
        ip.run_cell_magic("compile", "--mode reduce-overhead",
                          "def gcg_ok(x):\n    return (x + 1).sin() * 2\n")
        before = _skips()
        cells = []
        for n in sizes:
            cells.append(ip.execution_count)  # the number the next cell runs as
            run_cell(ip, f"xs = torch.randn({n}, device='cuda')\n"
                         "for _ in range(3):\n    _ = gcg_ok(xs)")
    report = nbcompile.report(ip.user_ns["gcg_ok"])
    recorded = [m for m in lines.messages if "recording cudagraph tree" in m.lower()]
    save(evidence, "sizes", {"record": report.to_dict(), "recordings": recorded},
         torch_messages.messages)
    assert _skips() == before and not any(is_skip(m) for m in torch_messages.messages)
    outcomes = [c.cudagraphs for c in report.compiles]
    assert outcomes and all(o is not None and o.status == "recorded" for o in outcomes)
    # torch records one graph per distinct size a compile sees: all four sizes
    assert len(recorded) == len(sizes), lines.messages
    warned = [m for m in torch_messages.messages if "distinct sizes" in m]
    observed = re.search(r"observed (\d+) distinct sizes", warned[0]) if warned else None
    if warned:  # past the warn limit, torch's words are kept with the dynamic compile
        assert observed is not None and int(observed.group(1)) > 2
        assert any(warned[0] in (o.messages if o else []) for o in outcomes)
    n = len(outcomes)
    assert _total(report) == (f"CUDA graphs: {n} of {n} graphs run as CUDA graphs" if n > 1
                              else "CUDA graphs: 1 of 1 graph runs as a CUDA graph")
    # per size: the sizes torch logged, each with the cell whose call recorded it
    shapes = report.cudagraph_shapes
    assert shapes is not None and len(shapes.shapes) == len(recorded)
    for shape, line in zip(shapes.shapes, recorded, strict=True):
        assert line.endswith(shape.key) or (shape.key == "static"
                                            and line.endswith("without symints"))
    assert [s.cell for s in shapes.shapes] == cells
    assert (shapes.warn_limit, shapes.warn_limit_config) == (
        2, "cudagraph_dynamic_shape_warn_limit")
    assert shapes.remedy  # four sizes: buckets / mark_dynamic / skip_dynamic_graphs
    # "past torch's limit" in torch's own count exactly when torch warned, on every torch
    # (2.9's size lines name no compile: its warning is the only word on one graph)
    told = (f"past torch's limit of 2 (torch warned: {observed.group(1)} distinct sizes of "
            "one graph)") if observed is not None else "torch warned:"
    assert (told in shapes.remedy) == (observed is not None), shapes.remedy
    # every call numbered as it ran (three a size), the unwatched replays counted too:
    # each size's first call is the one that first ran it
    numbers = [c.call for c in report.cudagraph_calls]
    assert 0 not in numbers and numbers == sorted(set(numbers)), numbers
    assert [c.call for c in report.cudagraph_calls if c.new_shapes] == [1, 4, 7, 10]


def test_calls_warm_up_then_record_then_replay(ip, torch_messages, evidence):
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def gcg_calls(x):\n    return (x * 3).cos() + 1\n")
    run_cell(ip, "xc = torch.randn(256, device='cuda')")
    states, pools, cells = [], [], []
    for _ in range(5):
        cells.append(ip.execution_count)  # the number the next cell runs as
        run_cell(ip, "_ = gcg_calls(xc)")
        manager = _manager()
        states.append(manager.path_state.name)  # torch's own: WARMUP, RECORDING, EXECUTION
        stats = torch.cuda.memory_stats()
        key = ("reserved_bytes_by_private_pools."
               + "_".join(str(p) for p in manager.cuda_graphs_thread_pool) + ".all.current")
        pools.append(stats.get(key))
    # steady: every target replays, the per-call hook is gone (nothing of nbcompile's runs)
    # imported here: the committed GPU fixtures name lines of this file above by number
    from tests.support.frames import nbcompile_frames

    steady = nbcompile_frames(ip.user_ns["gcg_calls"], ip.user_ns["xc"], calls=10)
    report = nbcompile.report(ip.user_ns["gcg_calls"])
    assert steady == {}, steady
    save(evidence, "calls", {"record": report.to_dict(), "tree_states": states,
                             "private_pool_stats": pools}, torch_messages.messages)
    assert states[:3] == ["WARMUP", "RECORDING", "EXECUTION"]
    calls = report.cudagraph_calls
    # watched until a call only replays: calls 4 on are not itemized (nor heard)
    assert [(c.call, c.warmups, c.recordings, c.replays) for c in calls] == [
        (1, 1, 0, 0), (2, 0, 1, 0), (3, 0, 0, 1)]
    assert [c.cell for c in calls] == cells[:3]
    # the graph pool, read from torch's snapshot, against torch.cuda.memory_stats's
    # private-pool figure (torch 2.13+; older torch has none: the snapshot alone)
    assert calls[0].pool_before is not None and calls[1].pool_after  # the graph's pool
    for call, stat in zip(calls, pools, strict=False):
        assert call.pool_after is not None
        if stat is not None:
            assert abs(call.pool_after - stat) <= 0.05 * max(stat, 1), (call, stat)
    lines = [i.text for i in summarize([report]).targets[0].items
             if i.text.startswith("CUDA graphs, call")]
    assert lines[0].startswith(f"CUDA graphs, call 1 (cell [{cells[0]}]): warmed up 1 graph")
    assert lines[2].startswith(f"CUDA graphs, call 3 (cell [{cells[2]}]): replayed 1 graph")


def test_a_changed_parameter_rerecords_naming_that_input(ip, torch_messages, evidence):
    run_cell(ip, "lin_cg = torch.nn.Linear(16, 16, device='cuda')\n"
                 "xl = torch.randn(4, 16, device='cuda')")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def gcg_param(x):\n    return lin_cg(x).relu()\n")
    with (_tree_lines() as lines,
          inductor_config.patch({"triton.cudagraph_unexpected_rerecord_limit": 1})):
        run_cell(ip, "with torch.no_grad():\n    for _ in range(3):\n        _ = gcg_param(xl)")
        for _ in range(3):  # the weight's storage replaced: same Parameter, new pointer
            run_cell(ip, "lin_cg.weight.data = torch.randn_like(lin_cg.weight)\n"
                         "with torch.no_grad():\n    _ = gcg_param(xl)")
        new_ptr = ip.user_ns["lin_cg"].weight.data_ptr()
    report = nbcompile.report(ip.user_ns["gcg_param"])
    save(evidence, "rerecord", report, [*torch_messages.messages, *lines.messages])
    said = [m for m in lines.messages if "Re-recording function=" in m]
    assert said, lines.messages
    torch_names = re.findall(r"input name: (\S+?)\. data pointer changed", said[-1])
    rerecords = [r for c in report.cudagraph_calls for r in c.rerecords]
    assert rerecords and rerecords[-1].inputs == torch_names
    assert rerecords[-1].reason == said[-1].split("reason=", 1)[1].split("\n")[0].rstrip(".")
    assert f"to {new_ptr}." in said[-1]  # torch names the new weight's storage
    # numbered as they ran: three calls, then one a cell after each new weight
    numbers = [c.call for c in report.cudagraph_calls]
    assert 0 not in numbers and numbers == sorted(set(numbers)) and numbers[-1] <= 6, numbers
    assert all(4 <= c.call <= 6 for c in report.cudagraph_calls if c.rerecords)
    # past the limit torch may run the graph eagerly for good (2.13 does not count a
    # parameter's pointer change): said as such exactly when torch said it
    gave_up = [m for m in torch_messages.messages if "exceeding max re-recording limit" in m]
    fell_back = [c.fell_back for c in report.cudagraph_calls if c.fell_back]
    assert fell_back == gave_up[:len(fell_back)] and bool(fell_back) == bool(gave_up)


def test_the_non_tree_path_is_said_not_known_per_call(ip, torch_messages, evidence):
    """``triton.cudagraph_trees = False``: torch captures at the first call through its
    non-tree path and logs nothing per call; no per-call value reads "no graph run", the
    target says the per-call facts are not known."""
    from nbcompile.core.notebook.cudagraphs.outcome import NON_TREE

    ip.run_cell_magic("compile", "-o triton.cudagraphs=True -o triton.cudagraph_trees=False",
                      "def gcg_flat(x):\n    return (x * 5).sin() + 2\n")
    run_cell(ip, "xf = torch.randn(256, device='cuda')\n"
                 "for _ in range(3):\n    _ = gcg_flat(xf)")
    report = nbcompile.report(ip.user_ns["gcg_flat"])
    save(evidence, "non_tree", report, torch_messages.messages)
    assert report.cudagraph_calls == [], report.cudagraph_calls
    assert NON_TREE in report.notes, report.notes


def test_a_training_steps_backward_runs_are_counted(ip, torch_messages, evidence):
    """``loss.backward()`` runs the compiled backward graphs outside the module's call:
    their warm-up and recording lines come with no call running, kept as the backward
    pass after the call (torch's own record: the trees' BACKWARD-mode nodes)."""
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "gcg_lin = torch.nn.Linear(64, 64, device='cuda')\n")
    run_cell(ip, "xt = torch.randn(32, 64, device='cuda')\n"
                 "for _ in range(3):\n"
                 "    gcg_lin(xt).sum().backward()\n"
                 "    gcg_lin.zero_grad(set_to_none=True)")
    report = nbcompile.report(ip.user_ns["gcg_lin"])
    save(evidence, "backward", report, torch_messages.messages)
    backward = [c for c in report.cudagraph_calls if c.backward]
    assert backward, [c.what for c in report.cudagraph_calls]
    assert backward[0].warmups >= 1 and backward[0].what.startswith("backward pass (after call")
    modes = [m for m in torch_messages.messages if "mode=" in m]
    assert any("BACKWARD" in m for m in modes) or not modes, modes[:4]
