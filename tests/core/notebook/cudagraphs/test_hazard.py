"""CUDA-graph outputs overwritten while a name held them (``core/notebook/cudagraphs/hazard.py``):
the pure logic, on a CPU. torch's text is made by torch's own
``CUDAGraphTreeManager.format_dealloc_msg`` (what ``dealloc_current_path_weakrefs`` sets on
each overwritten output); the stack traces are shaped as the FX nodes' ``stack_trace``
that torch keeps per output (``ids_to_stack_traces``). The tensors are CPU tensors standing
for the outputs: which of them carry torch's mark is given here, as ``torch_mark`` reads
it on a GPU (``tests/gpu/test_hazard_gpu.py`` checks that against torch)."""

from __future__ import annotations

import weakref

import torch
from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

from nbcompile.core.notebook.cudagraphs import hazard as hz
from nbcompile.core.notebook.cudagraphs.ledger import Ledger, tensor_leaves
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
                                   replayed={id(out)}) is None  # bound now
    assert watch.shared_after_cell(4, {"y1": out}, outputs, generation=5,
                                   replayed={id(out)}) is None  # no run since
    assert watch.shared_after_cell(5, {"y1": out, "z": other}, outputs, generation=6,
                                   replayed={id(other)}) is None  # another graph ran
    report = watch.shared_after_cell(6, {"y1": out, "z": other}, outputs, generation=7,
                                     replayed={id(out)})
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
                                   replayed={id(out)}) is None  # said once
    # two names on the replayed tensor: the group is said, not each name alone
    again = hz.HazardWatch()
    again.shared_after_cell(3, {"y1": out}, outputs, generation=5, replayed={id(out)})
    both = again.shared_after_cell(4, {"y1": out, "y2": out}, outputs, generation=6,
                                   replayed={id(out)})
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
