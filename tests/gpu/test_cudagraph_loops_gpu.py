"""CUDA graphs in the loops a GPU notebook writes, in a real IPython shell, with torch's
own values as the oracle: a per-call hook only on a target that has not replayed yet, an
output overwritten inside one cell (``y1 is y2``), a replay after
``cudagraph_mark_step_begin``, a training forward's output kept across steps, a grad-mode
forward with no backward, a graph on another device, torch's own cloning setting (nothing
said with it on) and its offer in the fix where the running torch's message has one."""

from __future__ import annotations

import gc
from collections import Counter

import pytest
import torch
from torch._inductor import config as inductor_config
from torch._inductor import cudagraph_trees

from nbcompile.core.notebook.capture.session import get_session
from nbcompile.core.notebook.cudagraphs import events as ev
from nbcompile.core.notebook.cudagraphs.hazard import get_watch, torch_mark
from nbcompile.core.notebook.cudagraphs.per_call import CudagraphCalls
from nbcompile.display.hazard import report_text, shared_text
from tests.support.frames import nbcompile_frames
from tests.support.gpu import save


def _cell(ip, source: str):
    result = ip.run_cell(source, store_history=True)
    result.raise_error()
    return result


def _compile(ip, name: str, body: str, mode: str = "reduce-overhead") -> None:
    _cell(ip, "import torch")
    ip.run_cell_magic("compile", f"--mode {mode}", f"def {name}(x):\n    return {body}\n")


def _channel() -> CudagraphCalls:
    return next(c for c in get_session().channels if isinstance(c, CudagraphCalls))


def test_only_a_waiting_targets_own_calls_pay(ip, evidence):
    """A steady target's replays run no nbcompile frame while another target has not yet
    replayed (called once: warm-up); that target's cell re-run drops its watch."""
    _compile(ip, "lp_steady", "(x * 2).relu()")
    _cell(ip, "lp_x = torch.randn(64, device='cuda')")
    for _ in range(4):
        _cell(ip, "_ = lp_steady(lp_x)")
    _compile(ip, "lp_wait", "(x + 1).cos()")
    _cell(ip, "_ = lp_wait(lp_x)")  # warm-up only: still waiting
    channel = _channel()
    assert [t.name for t in channel.waiting()] == ["lp_wait"]
    steady = ip.user_ns["lp_steady"]
    frames = nbcompile_frames(steady, ip.user_ns["lp_x"], calls=10)
    _compile(ip, "lp_wait", "(x + 1).cos()")  # the cell re-run: the old target is gone
    gc.collect()
    save(evidence, "waiting_target", {"frames": dict(frames),
                                      "waiting": [t.name for t in channel.waiting()]}, [])
    assert frames == Counter(), frames
    assert channel.waiting() == []


def test_two_calls_in_one_cell_hand_back_one_tensor(ip, capsys, evidence):
    _compile(ip, "lp_f", "(x * 3).sin()")
    _cell(ip, "lp_fx = torch.randn(64, device='cuda')")
    for _ in range(3):
        _cell(ip, "_ = lp_f(lp_fx)")
    _cell(ip, "_ = None")
    watch = get_watch()
    shared = len(watch.shared)
    cell = _cell(ip, "lp_y1 = lp_f(lp_fx)\nlp_y2 = lp_f(lp_fx * 2)")
    shown = capsys.readouterr().out
    same = ip.user_ns["lp_y1"] is ip.user_ns["lp_y2"]  # torch's own identity
    found = [r for r in watch.shared[shared:] if r.groups]
    save(evidence, "one_cell_overwrite", {"same": same, "shown": shown}, [])
    assert bool(found) == same, shown
    if same:
        assert found[0].cell == cell.execution_count
        assert {s.name for s in found[0].groups[0]} == {"lp_y1", "lp_y2"}


def test_a_replay_after_mark_steps_is_named(ip, evidence):
    _compile(ip, "lp_m", "(x * 5).cos()")
    _cell(ip, "lp_mx = torch.randn(64, device='cuda')")
    for _ in range(3):
        _cell(ip, "torch.compiler.cudagraph_mark_step_begin()\n_ = lp_m(lp_mx)")
    _cell(ip, "_ = None")
    watch = get_watch()
    shared = len(watch.shared)
    try:
        _cell(ip, "torch.compiler.cudagraph_mark_step_begin()\nlp_w = lp_m(lp_mx)")
        kept = ip.user_ns["lp_w"].clone()
        _cell(ip, "torch.compiler.cudagraph_mark_step_begin()\nlp_l = lp_m(lp_mx * 2).sum()")
        held = ip.user_ns["lp_w"]
        changed = torch_mark(held) is None and not torch.equal(held, kept)
        said = [r for r in watch.shared[shared:] if any(w.name == "lp_w" for w in r.written)]
        save(evidence, "mark_step", {"changed": changed,
                                     "generation": cudagraph_trees.MarkStepBox.mark_step_counter},
             [])
        assert bool(said) == changed
    finally:
        cudagraph_trees.MarkStepBox.mark_step_counter = 0


def test_a_training_forwards_output_kept_across_steps(ip, evidence):
    _cell(ip, "import torch\nlp_lin = torch.nn.Linear(32, 32, device='cuda')")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def lp_train(x):\n    return lp_lin(x).relu()\n")
    _cell(ip, "lp_tx = torch.randn(8, 32, device='cuda')")
    for _ in range(3):
        _cell(ip, "lp_train(lp_tx).sum().backward()")
    watch = get_watch()
    shared = len(watch.shared)
    _cell(ip, "lp_logits = lp_train(lp_tx)\nlp_logits.sum().backward()")
    kept = ip.user_ns["lp_logits"].detach().clone()
    _cell(ip, "lp_train(lp_tx * 2).sum().backward()")
    held = ip.user_ns["lp_logits"]
    changed = torch_mark(held) is None and not torch.equal(held.detach(), kept)
    said = [r for r in watch.shared[shared:] if any(w.name == "lp_logits" for w in r.written)]
    save(evidence, "training_kept", {"changed": changed, "said": bool(said)}, [])
    assert bool(said) == changed


def test_a_grad_mode_evaluation_says_why_it_records_again(ip, evidence):
    _cell(ip, "import torch\nlp_elin = torch.nn.Linear(32, 32, device='cuda')")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def lp_eval(x):\n    return lp_elin(x).relu()\n")
    _cell(ip, "lp_ex = torch.randn(8, 32, device='cuda')")
    for _ in range(6):  # no backward, no no_grad: torch's fast path is never reached
        _cell(ip, "lp_out = lp_eval(lp_ex)")
    target = get_session().find(ip.user_ns["lp_eval"])
    assert target is not None
    tree = cudagraph_trees.get_manager(torch.cuda.current_device(), False)
    warned = bool(getattr(tree, "warned_functions", None))
    save(evidence, "grad_mode_eval", {"warned": warned, "notes": target.notes}, [])
    assert (ev.PENDING_BACKWARD in target.notes) == warned


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_a_graph_on_another_device_is_read_there(ip, evidence):
    _compile(ip, "lp_d1", "(x * 2).tanh()")
    _cell(ip, "lp_dx = torch.randn(64, device='cuda:1')")
    for _ in range(3):
        _cell(ip, "_ = lp_d1(lp_dx)")
    target = get_session().find(ip.user_ns["lp_d1"])
    assert target is not None and torch.cuda.current_device() == 0
    assert cudagraph_trees.get_manager(1, False) is not None  # torch's own manager
    calls = target.cudagraph_calls
    save(evidence, "other_device", {"calls": [c.to_dict() for c in calls]}, [])
    assert calls[-1].replays == 1, [c.what for c in calls]


CLONING = "cudagraph_trees_generation_cloning"


@pytest.mark.skipif(not hasattr(inductor_config.triton, CLONING),
                    reason="this torch has no cudagraph_trees_generation_cloning")
def test_torchs_cloning_leaves_nothing_to_say(ip, evidence):
    """torch 2.15 with ``cudagraph_trees_generation_cloning = "user_visible"`` set before
    the compile: torch copies the held output out of the pool at each new generation, so
    it keeps its values (``torch.equal`` against a copy taken before), carries no mark,
    two calls in one cell hand back two tensors, and nbcompile says nothing."""
    triton: object = inductor_config.triton  # the setting is torch 2.15's
    before = getattr(triton, CLONING)
    setattr(triton, CLONING, "user_visible")
    try:
        _compile(ip, "lp_c", "(x * 7).cos()")
        _cell(ip, "lp_cx = torch.randn(64, device='cuda')")
        _cell(ip, "lp_c1 = lp_c(lp_cx)")
        kept = ip.user_ns["lp_c1"].clone()
        watch = get_watch()
        reports = len(watch.reports) + len(watch.shared)
        for _ in range(3):
            _cell(ip, "lp_c2 = lp_c(lp_cx * 2)")
        _cell(ip, "lp_c3 = lp_c(lp_cx)\nlp_c4 = lp_c(lp_cx * 3)")
        held = ip.user_ns["lp_c1"]
        marked = torch_mark(held) is not None
        same = ip.user_ns["lp_c3"] is ip.user_ns["lp_c4"]
        kept_values = not marked and torch.equal(held, kept)
        said = len(watch.reports) + len(watch.shared) - reports
        save(evidence, "generation_cloning", {"marked": marked, "kept": kept_values,
                                              "same": same, "said": said}, [])
        assert not marked and kept_values and not same
        assert said == 0
    finally:
        setattr(triton, CLONING, before)


def test_torchs_own_remedy_is_offered_where_its_message_has_one(ip, evidence):
    """An output held from a warm-up, overwritten by the next calls (torch marks it): the
    fix offers torch's own setting exactly when the running torch's overwrite message
    names one (torch 2.15's ``cudagraph_trees_generation_cloning``, off here), in its
    words; on an older torch only the copy."""
    _compile(ip, "lp_o", "(x * 9).cos()")
    _cell(ip, "lp_ox = torch.randn(64, device='cuda')")
    _cell(ip, "lp_o1 = lp_o(lp_ox)")
    watch = get_watch()
    reports, shared = len(watch.reports), len(watch.shared)
    for _ in range(3):
        _cell(ip, "lp_o2 = lp_o(lp_ox * 2)")
    text = torch_mark(ip.user_ns["lp_o1"]) or ""
    offered = f"triton.{CLONING} = 'user_visible'"
    words = [report_text(r) for r in watch.reports[reports:]]
    words += [shared_text(r) for r in watch.shared[shared:]]
    save(evidence, "torch_remedy", {"torch": text, "words": words}, [])
    assert text and words  # torch marked it, nbcompile said so
    assert all((offered in w) == (offered in text) for w in words), words
    assert all(".clone()" in w for w in words)
