"""CUDA-graph trees per call, on CPU: the tree's log lines read into events, a call's
events into a ``CudagraphCall``, recorded sizes into ``CudagraphShapes``, in words.

No CPU run makes the tree log anything. The lines below are made the way torch makes them:
the format strings of ``torch/_inductor/cudagraph_trees.py`` (``run_eager``,
``record_function``, ``_run``'s re-record line, ``cudagraphify_impl``'s new-size line,
the re-record limit's skip message) filled with torch's own objects (``CompileId``,
``CompilationMode``), and the re-record reason made by torch itself:
``cudagraph_utils.log_data_ptr_mismatch`` on real tensors whose pointer changed.
The GPU suite (tests/gpu/test_cudagraphs_gpu.py) checks the same on a live tree.
"""

from __future__ import annotations

import json
import logging

import pytest
import torch
from torch._guards import CompileId
from torch._inductor import config as inductor_config
from torch._inductor.cudagraph_trees import CompilationMode
from torch._inductor.cudagraph_utils import (
    CheckInvariantStatus,
    PlaceholderInfo,
    log_data_ptr_mismatch,
)

import nbcompile
from nbcompile.core.notebook.capture.session import get_session
from nbcompile.core.notebook.cudagraphs import events as ev
from nbcompile.core.notebook.cudagraphs import partitions as cudagraph_partitions
from nbcompile.core.notebook.cudagraphs.log import DebugLines
from nbcompile.core.notebook.cudagraphs.per_call import (
    TREES_LOGGER,
    CudagraphCalls,
    _State,
    graph_partition,
    warn_limit,
)
from nbcompile.core.notebook.targets import running as calls
from nbcompile.core.records import CudagraphShape
from nbcompile.core.trace.compile_id import CompileId as NbCompileId
from nbcompile.display.summary_model import summarize
from tests.fixtures.gpu.trim_evidence import HERE as GPU_FIXTURES
from tests.support.shell import run_cell

CID = CompileId(frame_id=0, frame_compile_id=0)
STACK = ('  File "<ipython-input-4-0a1b2c3d>", line 3, in forward\n'
         '    return x @ self.w\n')


def _line(fmt: str, *args: object) -> str:
    """A line as torch's logger makes it (``log.debug(fmt, *args)``: %-formatting)."""
    return logging.LogRecord(TREES_LOGGER, logging.DEBUG, "", 0, fmt, args, None).getMessage()


def _warmup(fn: str = "f") -> str:
    return _line("[%s] Running warmup function=%s, mode=%s", CID, fn,
                 CompilationMode.INFERENCE.name)


def _recording(fn: str = "f") -> str:
    return _line("[%s] Recording function=%s, mode=%s, cuda_graph_id=%d, inputs: %s", CID, fn,
                 CompilationMode.INFERENCE.name, 0,
                 "[0]: Tensor(size=[8], stride=(1,), dtype=torch.float32, data_ptr=0x7F00)")


def _new_size(key: object) -> str:
    """``cudagraphify_impl``'s line; its key is ``operator.itemgetter(*int_key)`` of the
    inputs: one int for one symint, a tuple for several, None for none."""
    if key is None:
        return _line("[%s] Recording cudagraph tree for graph without symints", CID)
    return _line("[%s] Recording cudagraph tree for symint key %s", CID, key)


def _rerecord_reason() -> str:
    """torch's own reason: a parameter replaced between calls (its pointer changed)."""
    recorded = torch.zeros(4)
    replaced = torch.zeros(4)
    placeholders = [PlaceholderInfo("primals_1", STACK, [], None),
                    PlaceholderInfo("arg1_1", None, [], None)]
    return log_data_ptr_mismatch(placeholders, [replaced, torch.zeros(2)],
                                 [recorded.data_ptr(), None], [0],
                                 CheckInvariantStatus.StaticInputIdxMismatch)


def _rerecording(reason: str) -> str:
    return _line("[%s] Re-recording function=%s, mode=%s, reason=%s", CID, "forward",
                 CompilationMode.FORWARD.name, reason)


def test_tree_lines_read_into_events():
    assert ev.parse(_warmup()) == ev.TreeEvent("warmup", "0/0", "f", mode="INFERENCE")
    assert ev.parse("[0/0] Running eager function=f") == ev.TreeEvent("eager", "0/0", "f")
    assert ev.parse(_recording()) == ev.TreeEvent("record", "0/0", "f", mode="INFERENCE")
    # torch formats its enum with %s: ``mode=CompilationMode.BACKWARD``
    backward = _line("[%s] Running warmup function=%s, mode=%s", CID, "f",
                     CompilationMode.BACKWARD)
    assert ev.parse(backward) == ev.TreeEvent("warmup", "0/0", "f", mode="BACKWARD")
    assert ev.parse(_new_size(48)) == ev.TreeEvent("shape", "0/0", key="48")
    assert ev.parse(_new_size((48, 16))) == ev.TreeEvent("shape", "0/0", key="(48, 16)")
    assert ev.parse(_new_size(None)) == ev.TreeEvent("shape", "0/0", key="static")
    assert ev.parse("skipping cudagraphs due to mutated inputs (1 instances)") is None
    assert ev.parse("anything else") is None
    assert ev.same_compile("0/0", "0/0_1") and not ev.same_compile("0/0", "0/1")


def test_a_rerecord_names_the_input_whose_pointer_changed():
    reason = _rerecord_reason()
    assert reason.startswith("static input data pointer changed.\ninput name: primals_1.")
    event = ev.parse(_rerecording(reason))
    assert event is not None and event.kind == "rerecord"
    rerecord = ev.rerecord_of(event)
    assert rerecord.reason == "static input data pointer changed"
    assert rerecord.inputs == ["primals_1"]  # arg1_1 was not checked (torch's target_idxs)
    assert rerecord.line == "return x @ self.w"


def test_the_fall_back_to_eager_is_said_as_such():
    limit = inductor_config.triton.cudagraph_unexpected_rerecord_limit
    message = (f"skipping cudagraph due to function 0 exceeding max re-recording limit "
               f"(={limit}) on cudagraph node 3 due to {_rerecord_reason()}.")
    event = ev.parse(message)
    assert event is not None and event.kind == "fell_back"
    call = ev.call_value(7, 9, [event], 0)
    assert call.fell_back == message.strip()
    assert ev.rerecord_of(event).inputs == ["primals_1"]
    lines = (_rerecording(_rerecord_reason()), _recording("forward"))
    later = ev.call_value(0, 9, [e for e in map(ev.parse, lines) if e], 0)
    assert ev.call_line(later) == ("a call not numbered (cell [9]): recorded again: static "
                                   "input data pointer changed (primals_1: return x @ self.w)")
    line = ev.call_line(call)
    assert line.startswith("call 7 (cell [9]): fell back to eager for good: torch re-recorded "
                           "past cudagraph_unexpected_rerecord_limit (static input data "
                           "pointer changed)")


def test_a_failed_check_is_a_rerecord_only_when_torch_then_records():
    """torch logs ``Re-recording`` for each recorded graph whose check fails, before a
    later one may pass and replay (``CUDAGraphTreeManager._run``): a re-record is a
    recording torch made, counted once, with the failed check's reason."""
    reason = _rerecord_reason()
    failed = [e for e in [ev.parse(_rerecording(reason))] if e]
    replayed = ev.call_value(4, 9, failed, 1)  # a later recorded graph passed: a replay
    assert (replayed.recordings, replayed.rerecords, replayed.replays) == (0, [], 1)
    assert replayed.what == "replayed 1 graph" and ev.replay_only(replayed)
    recording = ev.parse(_recording("forward"))
    assert recording is not None
    recorded = ev.call_value(5, 9, [*failed, *failed, recording], 0)
    assert recorded.recordings == 1 and len(recorded.rerecords) == 1
    assert recorded.what == ("recorded again: static input data pointer changed "
                             "(primals_1: return x @ self.w)")
    # an unwatched call whose only lines were failed checks did nothing torch records
    assert not ev.anything_done(ev.call_value(0, 9, failed, 0))
    # torch names a function by its graph module (the same name in every compile): a
    # check that failed in one compile's graph, which then replayed, and a first
    # recording of another compile's graph (a graph break) are no re-record
    other = CompileId(frame_id=1, frame_compile_id=0)
    first_of_other = ev.parse(_line("[%s] Recording function=%s, mode=%s, cuda_graph_id=%d, "
                                    "inputs: %s", other, "forward",
                                    CompilationMode.FORWARD.name, 1, "[]"))
    assert first_of_other is not None
    broke = ev.call_value(6, 9, [*failed, first_of_other], 1)
    assert (broke.recordings, broke.rerecords, broke.replays) == (1, [], 1)
    assert broke.what == "recorded 1 graph (capture: a slow call); replayed 1 graph"


def test_the_h200s_rerecord_lines_give_one_rerecord_then_a_replay():
    """The rerecord scenario's lines as an H200 logged them (torch 2.11): a replaced weight
    re-records once; the next failed check is followed by no recording (torch replayed
    the graph recorded for the new weight)."""
    messages = json.loads((GPU_FIXTURES / "rerecord.json").read_text())["torch_messages"]
    events = [e for e in map(ev.parse, messages) if e is not None]
    kinds = [e.kind for e in events]
    assert kinds == ["shape", "warmup", "record", "rerecord", "record", "rerecord"]
    rerecorded = ev.call_value(4, 1, events[3:5], 0)
    assert (rerecorded.recordings, [r.inputs for r in rerecorded.rerecords]) == (1, [["arg0_1"]])
    assert rerecorded.what.startswith("recorded again: static input data pointer changed")
    assert not ev.anything_done(ev.call_value(6, 1, events[5:], 0))


def test_first_calls_warm_up_then_record_then_replay():
    events = [ev.parse(m) for m in (_new_size(None), _warmup())]
    first = ev.call_value(1, 4, [e for e in events if e], 0, (0, 2 << 20, "snapshot"))
    second = ev.call_value(2, 4, [e for e in [ev.parse(_recording())] if e], 0,
                           (2 << 20, 4 << 20, "snapshot"))
    third = ev.call_value(3, 5, [], 1, (4 << 20, 4 << 20, "snapshot"))
    assert (first.warmups, first.recordings, first.replays) == (1, 0, 0)
    assert first.new_shapes == [CudagraphShape("0/0", "static", 4)]
    assert (second.warmups, second.recordings, second.replays) == (0, 1, 0)
    assert (third.warmups, third.recordings, third.replays) == (0, 0, 1)
    assert not ev.replay_only(first) and not ev.replay_only(second)
    assert ev.replay_only(third)
    assert ev.call_line(first) == (
        "call 1 (cell [4]): warmed up 1 graph (a graph's first run is eager, in the graph "
        "pool: a slow call); new size static; graph pool 0 B -> 2.0 MiB")
    assert ev.call_line(second).startswith("call 2 (cell [4]): recorded 1 graph (capture")
    assert ev.call_line(third) == ("call 3 (cell [5]): replayed 1 graph; "
                                   "graph pool 4.0 MiB -> 4.0 MiB")
    # the record carries the words the line uses (the inspector's column shows them)
    assert third.what == "replayed 1 graph" and third.to_dict()["what"] == third.what
    assert first.what in ev.call_line(first)


def test_a_size_torch_named_but_never_ran_as_a_graph_is_no_recording():
    """A mutated input, as the H200 logged it (torch 2.11): the new size's line, then the
    skip at the graph's first run, no warm-up: no size recorded, nothing run as a graph."""
    events = [e for e in [ev.parse("Recording cudagraph tree for graph without symints")] if e]
    call = ev.call_value(1, 4, events, 0)
    assert call.new_shapes == [] and call.what == "no graph run under CUDA graphs"


def test_sizes_and_the_remedy_that_fits():
    limit, config = warn_limit()
    assert config == "cudagraph_dynamic_shape_warn_limit"  # the name torch has
    assert limit == inductor_config.triton.cudagraph_dynamic_shape_warn_limit
    dynamic = [CudagraphShape("0/1", f"({n},)", 5 + i) for i, n in enumerate((32, 48, 64))]
    shapes = ev.shapes_value(dynamic, 2, config)
    assert "past torch's limit of 2" in shapes.remedy
    assert "cudagraph_skip_dynamic_graphs = True" in shapes.remedy
    text = ev.shapes_line(shapes)
    assert text is not None and text.startswith(
        "CUDA graphs per input size: 3 recorded ((32,) in cell [5], (48,) in cell [6], "
        "(64,) in cell [7]); torch warns past 2 "
        "(torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit)")
    static = [CudagraphShape(f"0/{i}", "static", 5) for i in range(2)]
    assert "torch._dynamo.mark_dynamic" in ev.shapes_value(static, 8, config, 1).remedy
    one = ev.shapes_value(static[:1], 8, config, 1)
    assert one.remedy == "" and ev.shapes_line(None) is None


def test_no_size_remedy_without_sizes_that_differ():
    """Two static graphs from a graph break, forward and backward, or a dtype recompile
    are no size problem; two dynamic graphs of five sizes each are within torch's limit
    of 8 (torch counts per compiled graph), and torch 2.11's lines, which name no
    compile, cannot say past it."""
    config = "cudagraph_dynamic_shape_warn_limit"
    static = [CudagraphShape(f"0/{i}", "static", 5) for i in range(2)]
    assert ev.shapes_value(static, 8, config, size_recompiles=0).remedy == ""
    two = [CudagraphShape(f"{g}/0", str(n), 5) for g in (0, 1) for n in range(5)]
    shapes = ev.shapes_value(two, 8, config)
    assert "each distinct size" in shapes.remedy and "past torch's limit" not in shapes.remedy
    unnamed = [CudagraphShape("", str(n), 5) for n in range(10)]
    assert "past torch's limit" not in ev.shapes_value(unnamed, 8, config).remedy
    named = [CudagraphShape("0/0", str(n), 5) for n in range(9)]
    assert "past torch's limit of 8" in ev.shapes_value(named, 8, config).remedy


def test_a_size_recompile_is_read_from_torchs_guard():
    from nbcompile.core.insight.advice import size_recompile
    from nbcompile.core.records import CompileRecord

    sized = CompileRecord("0/1", "f", recompile_guard=(
        "tensor 'x' size mismatch at index 0. expected 8, actual 9"))
    dtype = CompileRecord("0/2", "f", recompile_guard=(
        "tensor 'x' dtype mismatch. expected Float, actual Double"))
    assert size_recompile(sized) and not size_recompile(dtype)
    assert not size_recompile(CompileRecord("0/0", "f"))


@pytest.fixture
def trees_logger():
    logger = logging.getLogger(TREES_LOGGER)
    level = logger.level
    yield logger
    logger.setLevel(level)


def test_the_tree_filter_hears_debug_lines_and_prints_nothing_new(trees_logger):
    heard: list[str] = []
    printed: list[str] = []

    class Printed(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            printed.append(record.getMessage())

    handler = Printed(logging.DEBUG)
    trees_logger.addHandler(handler)
    flt = DebugLines(TREES_LOGGER, heard.append)
    try:
        flt.install()
        assert trees_logger.isEnabledFor(logging.DEBUG)
        trees_logger.debug(_warmup())
        trees_logger.warning("a warning torch prints anyway")
    finally:
        flt.uninstall()
        trees_logger.removeHandler(handler)
    assert heard == [_warmup(), "a warning torch prints anyway"]
    assert printed == ["a warning torch prints anyway"]
    assert not trees_logger.isEnabledFor(logging.DEBUG)  # the level it had is back


def test_set_logs_in_a_cell_does_not_blind_the_tree_filter(trees_logger):
    """``torch._logging.set_logs`` resets torch's artifact loggers (levels to NOTSET): the
    filter is re-armed as torch does it (heard), not at the next compile."""
    from torch._logging import _internal as torch_logging

    heard: list[str] = []
    flt = DebugLines(TREES_LOGGER, heard.append)
    flt.install()
    try:
        torch_logging.set_logs(recompiles=True)  # as a user's cell does
        assert trees_logger.isEnabledFor(logging.DEBUG)
        trees_logger.debug(_warmup())
        assert heard == [_warmup()]
        torch_logging.set_logs()
        trees_logger.debug(_recording())
        assert heard == [_warmup(), _recording()]
    finally:
        flt.uninstall()
        torch_logging.set_logs()
    assert not trees_logger.isEnabledFor(logging.DEBUG)


def test_on_cpu_nothing_is_watched_per_call(ip):
    """reduce-overhead on a CPU: no per-call value, no lowered logger, no per-call hook."""
    level = logging.getLogger(TREES_LOGGER).level
    hooks = len(calls._call_listeners)
    run_cell(ip, "import torch")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def cgc_cpu(x):\n    return (x - 1).cos()\n")
    run_cell(ip, "for _ in range(3):\n    _ = cgc_cpu(torch.randn(5))")
    report = nbcompile.report(ip.user_ns["cgc_cpu"])
    assert report.compiles[0].cudagraphs is not None  # torch said "not used" per compile
    assert report.cudagraph_calls == [] and report.cudagraph_shapes is None
    assert "cudagraph_calls" not in report.to_dict() or not report.to_dict()["cudagraph_calls"]
    assert logging.getLogger(TREES_LOGGER).level == level
    # nor is Inductor's partition logger lowered (cudagraphs/channel.py): no GPU, no lines
    assert not logging.getLogger(cudagraph_partitions.LOGGER).isEnabledFor(logging.DEBUG)
    assert len(calls._call_listeners) == hooks
    channel = next(c for c in get_session().channels if isinstance(c, CudagraphCalls))
    assert channel._cuda is False and not channel._watching
    (target,) = summarize([report]).targets
    assert not any(i.text.startswith("CUDA graphs, call") for i in target.items)


def _steady_hearing_target(ip, name: str):
    """A ``%%compile`` target ``name`` whose calls hand the channel, as torch's tree manager
    would during the call, the lines put in the returned list; its state steady (not
    watched). Returns the channel, the target and that list."""
    run_cell(ip, "import torch")
    ip.run_cell_magic("compile", "--backend eager",
                      f"def {name}(x):\n    hear()\n    return x + 1\n")
    session = get_session()
    channel = next(c for c in session.channels if isinstance(c, CudagraphCalls))
    target = next(t for t in reversed(session.registry.targets) if t.name == name)
    channel._states[target.id] = _State(watching=False)  # a steady target
    pending: list[str] = []

    def hear() -> None:
        for message in pending:
            channel._on_line(message)
        pending.clear()
    ip.user_ns["hear"] = torch._dynamo.disable(hear)
    return channel, target, pending


def test_a_new_size_without_a_compile_id_is_the_running_calls(ip):
    """torch 2.11 prints a new size's line with no compile id (``Recording cudagraph tree
    for symint key 48``, as an H200 logged it): heard during a call no longer watched (the
    target was steady), it is that call's target's, with the cell the call ran in and the
    call's own number (the steady calls before it ran unwatched, and are counted)."""
    channel, target, pending = _steady_hearing_target(ip, "cgc_size")
    session = get_session()
    # a compile no target knows: the session outlives tests and ``torch._dynamo.reset()``
    # restarts frame ids, so a fixed id (once "99/1") can be an earlier test's compile
    known = [NbCompileId.parse(c.compile_id.lstrip("!"))
             for t in session.registry.targets for c in t.compiles]
    frame = 1 + max((k.frame_id for k in known if k is not None), default=0)
    lines = ["Recording cudagraph tree for symint key 48",
             f"[{frame}/1] Running warmup function=partition_0"]
    try:
        run_cell(ip, "for _ in range(3):\n    _ = cgc_size(torch.randn(3))")  # steady calls
        pending.extend(lines)
        cell = ip.execution_count
        run_cell(ip, "_ = cgc_size(torch.randn(3))")
    finally:  # the channel as the test found it: the lines heard made it watch
        channel._states.pop(target.id, None)
        channel._sync()
    assert [(c.call, c.cell, c.warmups, [s.key for s in c.new_shapes])
            for c in target.cudagraph_calls] == [(4, cell, 1, ["48"])]
    shapes = target.cudagraph_shapes
    assert shapes is not None and [(s.key, s.cell) for s in shapes.shapes] == [("48", cell)]
    # the graph's run that follows names the compile: the size is that compile's (torch
    # counts sizes per graph, and the limit's words need the graph)
    assert [s.compile_id for s in shapes.shapes] == [f"{frame}/1"]


def test_a_graph_run_no_one_can_own_is_said_not_counted(ip):
    """torch 2.9's tree lines name no compile and no mode (``Running warmup of function
    %d``): one outside any call (its backward pass) cannot be attributed, and each target
    under the tree says its runs outside a call are not counted, once; a line naming a
    compile no target knows says nothing of the sort."""
    run_cell(ip, "import torch")
    ip.run_cell_magic("compile", "--backend eager", "def cgc_bwd29(x):\n    return x * 2\n")
    session = get_session()
    channel = next(c for c in session.channels if isinstance(c, CudagraphCalls))
    target = next(t for t in reversed(session.registry.targets) if t.name == "cgc_bwd29")
    channel._states[target.id] = _State(watching=False)
    try:
        channel._on_line(_line("Running warmup of function %d", 3))
        channel._on_line(_line("Recording function %d of graph recording id %d", 3, 1))
    finally:
        channel._states.pop(target.id, None)
        channel._sync()
    assert target.cudagraph_calls == []
    assert target.notes.count(ev.UNATTRIBUTED) == 1
    assert "not counted" in ev.UNATTRIBUTED and "2.9" in ev.UNATTRIBUTED


def test_backward_runs_after_a_call_are_counted_as_its_backward_pass(ip):
    """``loss.backward()`` runs the compiled backward graphs outside the target's call:
    torch's warm-up and recording lines for them (``mode=CompilationMode.BACKWARD``) come
    with no call running. They are kept as the backward pass after the latest call (one
    value, updated as its lines come), not dropped; a forward line with no call is not."""
    run_cell(ip, "import torch")
    ip.run_cell_magic("compile", "--backend eager", "def cgc_bwd(x):\n    return x * 2\n")
    run_cell(ip, "for _ in range(3):\n    _ = cgc_bwd(torch.randn(3))")
    session = get_session()
    channel = next(c for c in session.channels if isinstance(c, CudagraphCalls))
    target = next(t for t in reversed(session.registry.targets) if t.name == "cgc_bwd")
    known = [NbCompileId.parse(c.compile_id.lstrip("!"))
             for t in session.registry.targets for c in t.compiles]
    frame = 1 + max((k.frame_id for k in known if k is not None), default=0)
    cid = f"{frame}/0"
    target.compiles[0].compile_id = cid  # the compile torch's lines name
    channel._states[target.id] = _State(watching=False)  # three calls made, unwatched
    mode = CompilationMode.BACKWARD
    try:
        channel._on_line(_line("[%s] Running warmup function=%s, mode=%s", cid, "g", mode))
        channel._on_line(_line("[%s] Recording function=%s, mode=%s, cuda_graph_id=%d, "
                               "inputs: %s", cid, "g", mode, 1, "[]"))
        channel._on_line(_line("[%s] Running warmup function=%s, mode=%s", cid, "g",
                               CompilationMode.FORWARD))
    finally:
        channel._states.pop(target.id, None)
        channel._sync()
    (value,) = target.cudagraph_calls
    assert (value.call, value.backward, value.warmups, value.recordings) == (3, True, 1, 1)
    assert value.what.startswith("backward pass (after call 3, outside the call")
    assert ev.call_line(value).startswith("the backward pass")
    assert value.to_dict()["backward"] is True


def test_the_skip_dynamic_remedy_says_what_the_running_torch_does():
    """torch 2.13's own source: with graph_partition the scheduler moves only "dynamic
    shape ops" out; compile_fx skips the whole graph only without it."""
    import inspect

    from torch._inductor import compile_fx, scheduler

    assert "dynamic shape ops" in inspect.getsource(scheduler)
    assert "not config.graph_partition" in inspect.getsource(compile_fx)
    dynamic = [CudagraphShape("0/0", f"({n},)") for n in (2, 3, 4)]
    on = ev.shapes_value(dynamic, 8, "cudagraph_dynamic_shape_warn_limit", partitioned=True)
    off = ev.shapes_value(dynamic, 8, "cudagraph_dynamic_shape_warn_limit", partitioned=False)
    assert "only the ops that use a dynamic size" in on.remedy
    assert "dynamic graphs then run without CUDA graphs" in off.remedy
    assert graph_partition() is inductor_config.graph_partition


def test_torch_2_9s_sizes_are_the_targets_and_torchs_warning_says_past(ip):
    """torch 2.9's lines name no compile: each new size, heard in a call, is the running
    call's target's; while torch has not warned, the target's sizes say that which graph
    each is for is not known, and once torch's own warning past its limit is heard in one
    of its calls, the target says past torch's limit, in torch's count (kept for its
    later calls)."""
    from tests.core.notebook.cudagraphs.test_formats import torch_size_warning
    from tests.fixtures.torch_text import TORCH_2_9_NEW_SIZE, TORCH_2_9_WARMUP

    channel, target, pending = _steady_hearing_target(ip, "cgc_s29")
    warning, counted = torch_size_warning()
    said: list[str] = []
    try:
        for n, key in enumerate((8, 16, 24), 1):
            pending.extend([_line(TORCH_2_9_NEW_SIZE, key),
                            *([warning] if n == 3 else []), _line(TORCH_2_9_WARMUP, n)])
            run_cell(ip, "_ = cgc_s29(torch.randn(3))")
            shapes = target.cudagraph_shapes
            said.append(shapes.remedy if shapes is not None else "")
    finally:
        channel._states.pop(target.id, None)
        channel._sync()
    shapes = target.cudagraph_shapes
    assert shapes is not None
    assert [(s.compile_id, s.key) for s in shapes.shapes] == [("", "8"), ("", "16"), ("", "24")]
    assert said[0] == ""  # one size: nothing to do
    assert "past torch's limit" not in said[1]
    assert ("which of this target's graphs each of these 2 sizes is for is not known"
            in said[1])
    assert f"(torch warned: {counted} distinct sizes of one graph)" in said[2]
    assert "past torch's limit" in said[2] and "not known" not in said[2]
