"""CUDA-graph outputs overwritten while a name held them (``core/notebook/cudagraphs/hazard.py``):
the pure logic, on a CPU. torch's text is made by torch's own
``CUDAGraphTreeManager.format_dealloc_msg`` (what ``dealloc_current_path_weakrefs`` sets on
each overwritten output); the stack traces are shaped as the FX nodes' ``stack_trace``
that torch keeps per output (``ids_to_stack_traces``). The tensors are CPU tensors standing
for the outputs: which of them carry torch's mark is given here, as ``torch_mark`` reads
it on a GPU (``tests/gpu/test_hazard_gpu.py`` checks that against torch)."""

from __future__ import annotations

import weakref
from types import SimpleNamespace

import torch
from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

from nbcompile.core.notebook.cudagraphs import hazard as hz
from nbcompile.core.notebook.cudagraphs.ledger import Ledger, tensor_leaves
from nbcompile.core.notebook.cudagraphs.trees import Replayed
from nbcompile.display.hazard import explanation_text, report_text, shared_record, shared_text

STACK_Y = '  File "<ipython-input-3-5f1a>", line 2, in gk\n    y = (x @ x).relu()\n'
STACK_Z = '  File "<ipython-input-3-5f1a>", line 3, in gk\n    return y * 2 + 1\n'


def _torch_text(stack: str | None, **kwargs) -> str:
    return CUDAGraphTreeManager.format_dealloc_msg(stack, **kwargs)


def test_torch_text_is_read_and_other_errors_are_not():
    message = hz.parse_message(_torch_text(STACK_Y))
    assert message is not None and not message.gradient
    assert message.stack_trace == STACK_Y.strip() and message.produced_in == "gk"
    none = hz.parse_message(_torch_text(None))
    assert none is not None and none.stack_trace == "" and none.produced_in == ""
    assert hz.parse_message("RuntimeError: CUDA out of memory") is None
    assert not hz.is_overwritten_error("expected all tensors to be on the same device")


def test_gradient_outputs_are_read_too():
    try:
        text = _torch_text(STACK_Y, is_grad_output=True)
    except TypeError:  # a torch whose format_dealloc_msg has no gradient variant
        return
    message = hz.parse_message(text)
    assert message is not None and message.gradient and message.produced_in == "gk"


def _namespace():
    y1, y2, o0, o1, dk = (torch.ones(2) for _ in range(5))
    return {"y1": y1, "y2": y2, "outs": [o0, o1], "d": {"k": dk}, "n": 3, "s": "text"}


def test_the_names_of_the_marked_tensors_once_each_with_the_cell_that_bound_them():
    ns = _namespace()
    ledger = Ledger()
    leaves = list(tensor_leaves(ns))
    assert [name for name, _ in leaves] == ["y1", "y2", "outs[0]", "outs[1]", "d['k']"]
    assert hz.newly_overwritten(leaves, {}, ledger, 4) == []  # cell [4] bound them
    marks = {id(ns["y1"]): _torch_text(STACK_Y), id(ns["outs"][1]): _torch_text(STACK_Z)}
    found = hz.newly_overwritten(leaves, marks, ledger, 5, lambda _: "gk")
    assert [(o.name, o.bound_in) for o in found] == [("y1", 4), ("outs[1]", 4)]
    assert found[1].message.stack_trace == STACK_Z.strip()
    # reported once: the next cell says nothing of them
    assert hz.newly_overwritten(leaves, marks, ledger, 6, lambda _: "gk") == []
    # y1 bound again (cell [7]) to an output overwritten in cell [8]: said again
    ns["y1"] = torch.ones(2)
    leaves = list(tensor_leaves(ns))
    assert hz.newly_overwritten(leaves, marks, ledger, 7) == []
    marks[id(ns["y1"])] = _torch_text(STACK_Y)
    (again,) = hz.newly_overwritten(leaves, marks, ledger, 8, lambda _: "gk")
    assert (again.name, again.bound_in) == ("y1", 7)


def test_torch_error_in_a_later_cell_names_the_output_it_came_from():
    ns = _namespace()
    ledger = Ledger()
    leaves = list(tensor_leaves(ns))
    hz.newly_overwritten(leaves, {}, ledger, 4)
    marks = {id(ns["y1"]): _torch_text(STACK_Y), id(ns["y2"]): _torch_text(STACK_Z)}
    hz.newly_overwritten(leaves, marks, ledger, 5, lambda _: "gk")
    found = hz.explain(_torch_text(STACK_Y), leaves, marks, ledger)
    assert found is not None
    assert [(o.name, o.bound_in) for o in found.names] == [("y1", 4)]
    assert (found.overwritten_in, found.calls) == (5, ("gk",))
    text = explanation_text(found)
    assert "`y1` (bound in cell [4])" in text and "the call of `gk` in cell [5]" in text
    assert ".clone()" in text and "cudagraph_mark_step_begin() does not" in text
    assert hz.explain("some other error", leaves, marks, ledger) is None


def test_the_overwriting_call_is_named_from_torchs_stack_traces():
    stacks = [[STACK_Y, None], [], ['  File "<ipython-input-4-9c>", line 1, in head\n    x\n']]
    assert hz.call_names(stacks, lambda f, line: None) == ("gk", "head")
    named = hz.call_names(stacks, lambda f, line: "model" if line == 2 else None)
    assert named == ("model", "head")
    # nbcompile's entry function, outermost in a target's traces, is not the call
    entry = '  File "<nbcompile-entry-7>", line 1, in entry\n    return fn(*args)\n'
    assert hz.call_names([[entry + STACK_Y]], lambda f, line: None) == ("gk",)


def test_the_report_says_names_cells_call_and_fix():
    message = hz.parse_message(_torch_text(STACK_Y))
    assert message is not None
    report = hz.HazardReport(5, (hz.Overwritten("y1", 4, message, "gk"),), ("gk",), 1)
    text = report_text(report)
    assert text.startswith("nbcompile: the call of `gk` in this cell (cell [5]) overwrote "
                           "the CUDA-graph output still held by `y1` (bound in cell [4]).")
    assert "`y1 = f(x).clone()`" in text and "cudagraph_mark_step_begin() does not" in text


def test_the_call_blamed_is_the_one_that_overwrote():
    """``g(x)`` then ``f(x)`` in one cell: torch marks the held outputs when a new
    generation of the trees starts (``dealloc_current_path_weakrefs``), so ``g``'s call
    marked ``y1``, and at the cell's end the trees' path is ``f``'s. The call blamed is the
    one a watched call saw marking it; else the call that started the cell's only
    generation; with several generations and none seen, not known (never the last call)."""
    y1, y2 = torch.ones(2), torch.ones(2)
    seen = {id(y1): (weakref.ref(y1), "g")}
    assert hz.overwriter(y1, seen, 2, "f") == "g"
    assert hz.overwriter(y2, seen, 1, "f") == "f"  # one generation: its first call
    assert hz.overwriter(y2, seen, 2, "f") == ""  # two, unseen: not known which
    assert hz.overwriter(y2, {}, None, "f") == ""  # generations not readable
    other = torch.ones(2)  # an id reused by another tensor is not the one seen
    assert hz.overwriter(other, {id(other): (weakref.ref(y1), "g")}, 2, "f") == ""
    message = hz.parse_message(_torch_text(STACK_Y))
    assert message is not None
    report = hz.HazardReport(5, (hz.Overwritten("y1", 4, message, "g"),
                                 hz.Overwritten("y2", 3, message, "")), ("g",), 2)
    text = report_text(report)
    assert text.startswith(
        "nbcompile: the call of `g` in this cell (cell [5]) overwrote the CUDA-graph output "
        "still held by `y1` (bound in cell [4]); a call of a CUDA-graph function in this "
        "cell (cell [5]) (one of the 2 compiled calls it made; which one is not known) "
        "overwrote the CUDA-graph output still held by `y2` (bound in cell [3]).")
    assert "`f`" not in text


def test_nothing_is_watched_without_a_cuda_graph_target_or_without_cuda():
    class T:
        alive, options = True, "reduce-overhead"

    assert not hz.in_use([], lambda options: True)
    assert not hz.in_use([T()], lambda options: False)
    assert hz.in_use([T()], lambda options: True) == torch.cuda.is_available()



def test_names_a_replay_made_one_tensor_are_named_once():
    """torch hands back the same output tensor at every replay (``reconstruct_outputs``):
    ``y1`` bound after one call, ``y2 = f(x2)`` after a later one are one tensor; the
    trees' generations differ (a replay between). ``y3 = y1`` with no call between is the
    user's own alias; a tensor that is no graph output is no one's concern."""
    out, other = torch.ones(3), torch.ones(3)
    watch = hz.HazardWatch()
    outputs = {id(out): "f"}
    assert watch.shared_after_cell(3, {"y1": out, "z": other}, outputs, generation=5) is None
    assert watch.shared_after_cell(4, {"y1": out, "y3": out, "z": other}, outputs,
                                   generation=5) is None  # the user's alias: no call
    report = watch.shared_after_cell(6, {"y1": out, "y3": out, "y2": out, "z": other},
                                     outputs, generation=7)
    assert report is not None and report.cell == 6
    assert [[(s.name, s.bound_in) for s in g] for g in report.groups] == [
        [("y1", 3), ("y3", 4), ("y2", 6)]]
    assert watch.shared_after_cell(7, {"y1": out, "y3": out, "y2": out}, outputs,
                                   generation=8) is None  # said once
    assert watch.shared == [report]


def _ran(out: torch.Tensor, generation: int, runs: int = 0, latest: bool = True):
    """``out`` handed back by the trees' latest run (its graph), in ``generation``."""
    return {id(out): Replayed(1, runs, latest, generation)}


def test_a_name_alone_on_an_output_a_later_replay_wrote_is_named_once():
    """``y1 = f(x)``, then ``loss = f(x2).sum()`` in a later cell: the replay hands back
    ``y1``'s tensor and writes into it, and no other name holds it. Said when the tensor
    is an output of the trees' current inference path (``trees.replayed_path``) whose run
    came after the generation ``y1`` was first seen in; not before, not twice, not for an
    output off that path, and not for names sharing one tensor (said as a group)."""
    out, other = torch.ones(3), torch.ones(3)
    watch = hz.HazardWatch()
    outputs = {id(out): "f", id(other): "g"}
    assert watch.shared_after_cell(3, {"y1": out}, outputs, generation=5,
                                   replayed=_ran(out, 5)) is None  # bound now
    assert watch.shared_after_cell(4, {"y1": out}, outputs, generation=5,
                                   replayed=_ran(out, 5)) is None  # no run since
    assert watch.shared_after_cell(5, {"y1": out, "z": other}, outputs, generation=6,
                                   replayed=_ran(other, 6)) is None  # another graph ran
    report = watch.shared_after_cell(6, {"y1": out, "z": other}, outputs, generation=7,
                                     replayed=_ran(out, 7))
    assert report is not None and report.groups == ()
    assert [(w.name, w.bound_in) for w in report.written] == [("y1", 3)]
    assert report.producers == ("f",)
    text = shared_text(report)
    assert text.startswith("nbcompile: `y1` (bound in cell [3]) holds a CUDA-graph output "
                           "(mode reduce-overhead) that a later call of `f` in this cell "
                           "replayed into, with no error")
    assert "`y1 = f(x).clone()`" in text
    assert [n.name for n in shared_record(report).names] == ["y1"]
    assert watch.shared_after_cell(7, {"y1": out, "z": other}, outputs, generation=8,
                                   replayed=_ran(out, 8)) is None  # said once
    # two names on the replayed tensor: the group is said, not each name alone
    again = hz.HazardWatch()
    again.shared_after_cell(3, {"y1": out}, outputs, generation=5, replayed=_ran(out, 5))
    both = again.shared_after_cell(4, {"y1": out, "y2": out}, outputs, generation=6,
                                   replayed=_ran(out, 6))
    assert both is not None and both.written == ()
    assert [s.name for s in both.groups[0]] == ["y1", "y2"]


def test_one_output_many_times_in_a_list_is_named():
    out = torch.ones(3)
    watch = hz.HazardWatch()
    report = watch.shared_after_cell(5, {"preds": [out, out, out]}, {id(out): "f"}, generation=2)
    assert report is not None
    assert [s.name for s in report.groups[0]] == ["preds[0]", "preds[1]", "preds[2]"]
    text = shared_text(report)
    assert text.startswith("nbcompile: `preds[0]` (bound in cell [5]), `preds[1]` (bound "
                           "in cell [5]), `preds[2]` (bound in cell [5]) are one and the "
                           "same tensor, a CUDA-graph output")
    assert "`preds = f(x).clone()`" in text and "[f(b).clone() for b in batches]" in text
    assert watch.shared_after_cell(6, {"preds": [out, torch.ones(3)]}, {},
                                   generation=3) is None


def test_a_cell_end_walks_the_namespace_once_for_both_checks():
    watch = hz.HazardWatch()
    y = torch.ones(2)
    # On a CPU no output carries torch's mark and no tree hands one back: nothing said,
    # and the one walk still noted the cell that bound the name.
    assert watch.cell_ended(3, {"y": y, "ys": [y]}, lambda f, line: None) == (None, None)
    binding = watch.ledger.binding("ys[0]", y)
    assert binding is not None and binding.cell == 3


def test_after_mark_steps_a_later_replay_is_named():
    """``torch.compiler.cudagraph_mark_step_begin()`` makes torch's generation count down
    (``MarkStepBox.mark_step_counter``: -1, -2, ...): a replay in a later step still wrote
    the output a name holds. The generations are torch's own values."""
    from torch._inductor import cudagraph_trees as ct

    get = ct.CUDAGraphTreeManager.get_curr_generation
    out = torch.ones(3)
    watch = hz.HazardWatch()
    try:
        torch.compiler.cudagraph_mark_step_begin()
        first = get()
        assert watch.shared_after_cell(3, {"y1": out}, {id(out): "f"}, generation=first,
                                       replayed=_ran(out, first)) is None  # bound now
        torch.compiler.cudagraph_mark_step_begin()
        later = get()
        assert later < first  # torch counts down
        report = watch.shared_after_cell(4, {"y1": out}, {id(out): "f"}, generation=later,
                                         replayed=_ran(out, later))
    finally:
        ct.MarkStepBox.mark_step_counter = 0
    assert report is not None and [w.name for w in report.written] == ["y1"]


def test_a_graph_on_the_path_that_did_not_run_since_is_not_said_written():
    """torch extends its current path with a recorded child of the latest node without
    starting the path anew (``_run``): a node on the path that is not the latest run's
    did not replay unless a watched call counted it."""
    out = torch.ones(3)
    watch = hz.HazardWatch()
    outputs = {id(out): "f"}
    watch.shared_after_cell(3, {"y1": out}, outputs, generation=5,
                            replayed=_ran(out, 5, runs=2, latest=True))
    # the path grew by g's child in a later generation: f's node did not run
    assert watch.shared_after_cell(4, {"y1": out}, outputs, generation=6,
                                   replayed=_ran(out, 6, runs=2, latest=False)) is None
    # a watched call counted a replay of f's node since
    report = watch.shared_after_cell(5, {"y1": out}, outputs, generation=7,
                                     replayed=_ran(out, 7, runs=3, latest=False))
    assert report is not None and [w.name for w in report.written] == ["y1"]


def test_two_calls_in_one_cell_handing_back_one_output_are_named():
    """``y1 = f(x); y2 = f(x2)`` in one cell: both names are first seen at the cell's end,
    in one generation; the calls tell it from ``y2 = y1``: the same output handed back
    by two calls."""
    out = torch.ones(3)
    outputs = {id(out): "f"}
    alias = hz.HazardWatch()
    assert alias.shared_after_cell(3, {"y1": out, "y2": out}, outputs, generation=5) is None
    twice = hz.HazardWatch()
    report = twice.shared_after_cell(3, {"y1": out, "y2": out}, outputs, generation=5,
                                     handed_twice={id(out)})
    assert report is not None
    assert [[s.name for s in g] for g in report.groups] == [["y1", "y2"]]


def test_the_calls_a_cell_made_are_counted_per_target(ip):
    """Which outputs a cell's calls handed back twice: the latest run's graph, in a
    generation the cell started, of a target called at least twice in the cell (the
    builtin call counter; torch's own generation)."""
    from tests.support.shell import run_cell

    run_cell(ip, "import torch")
    ip.run_cell_magic("compile", "--backend eager", "def hzc_f(x):\n    return x + 1\n")
    f = ip.user_ns["hzc_f"]
    x = torch.ones(2)
    f(x)
    out = torch.ones(2)
    replayed = _ran(out, 0)
    watch = hz.HazardWatch()
    watch.before_cell()
    f(x)
    assert watch._handed_twice(replayed, {id(out): "hzc_f"}) == set()  # one call
    f(x)
    assert watch._handed_twice(replayed, {id(out): "hzc_f"}) == {id(out)}
    not_latest = {id(out): Replayed(1, 0, False, 0)}
    assert watch._handed_twice(not_latest, {id(out): "hzc_f"}) == set()


class _Node:
    """A recorded graph as torch's tree manager holds it (the fields ``trees`` reads)."""

    def __init__(self, function_id, outputs, parent=None):
        self.wrapped_function = type("W", (), {"id": function_id})()
        self.cached_tensor_outputs = outputs
        self.tensor_weakrefs = [weakref.ref(t) for t in outputs]
        self.children = {}
        self._path_from_root = [*(parent._path_from_root if parent else []), self]


def _manager(monkeypatch, tree, device=0):
    from nbcompile.core.notebook.cudagraphs import trees

    monkeypatch.setattr(trees, "manager",
                        lambda index=None: tree if index in (None, device) else None)


def test_a_training_forwards_outputs_are_judged_after_backward(monkeypatch):
    """A forward node's outputs are cached and handed back as an inference node's
    (torch's ``CompilationMode.FORWARD``): they are read too, pending backward or not
    (the node, not the path, tells whether it ran)."""
    from torch._inductor.cudagraph_trees import CompilationMode

    from nbcompile.core.notebook.cudagraphs import trees

    logits, grads = torch.ones(2), torch.ones(2)
    forward = _Node(0, [logits])
    backward = _Node(1, [grads], forward)
    tree = SimpleNamespace()
    tree.current_node, tree.current_gen = backward, 4
    tree.id_to_mode = {0: CompilationMode.FORWARD, 1: CompilationMode.BACKWARD}
    tree.running_forwards_with_pending_backwards = True
    _manager(monkeypatch, tree)
    found = trees.replayed_path(0)
    assert set(found) == {id(logits)}
    assert found[id(logits)] == Replayed(id(forward), 0, False, 4)


def test_the_pending_backward_note_says_torchs_warning_and_the_fix(monkeypatch):
    import inspect

    from torch._inductor import cudagraph_trees as ct

    from nbcompile.core.notebook.cudagraphs import events as ev
    from nbcompile.core.notebook.cudagraphs import trees

    warning = ("Unable to hit fast path of CUDAGraphs because outputs from a previous step "
               "still require backward")
    import re

    source = re.sub(r'"\s*\n\s*"', "", inspect.getsource(ct.CUDAGraphTreeManager))
    assert warning in source  # torch's words, its literals joined
    assert warning in ev.PENDING_BACKWARD
    assert "torch.no_grad()" in ev.PENDING_BACKWARD
    tree = SimpleNamespace()
    tree.running_forwards_with_pending_backwards, tree.warned_functions = True, {0}
    _manager(monkeypatch, tree)
    assert trees.pending_backward(0)
    tree.warned_functions = set()
    assert not trees.pending_backward(0)


def test_every_graph_device_is_read_not_only_the_current_one(monkeypatch):
    """torch keeps one tree manager per graph device (``get_container(device_index)``):
    a graph on device 1 is read there while device 0 is current."""
    from nbcompile.core import torch_compat
    from nbcompile.core.notebook.cudagraphs import trees

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch_compat, "cudagraph_manager",
                        lambda index: object() if index == 1 else None)
    assert trees.devices() == [1] and trees.graph_devices() == [1]
