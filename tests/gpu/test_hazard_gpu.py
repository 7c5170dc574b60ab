"""A CUDA-graph output overwritten while a name held it (pytorch#148439), on a GPU, in a real
IPython shell: ``y1 = f(x)`` in one cell, ``f(x)`` again in the next. torch is the oracle:
its own mark on the overwritten tensor (reading it raises its "overwritten by a subsequent
run" error) and the tree manager's stack traces for the overwriting call."""

from __future__ import annotations

from dataclasses import asdict

import torch
from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

from nbcompile.core.notebook.cudagraphs import hazard as hz
from nbcompile.core.notebook.cudagraphs.hazard import get_watch, torch_mark
from tests.support.gpu import save

CELL = "def hz_f(x):\n    y = torch.relu(x)\n    return y * 2 + 1\n"


def _cell(ip, source: str):
    result = ip.run_cell(source, store_history=True)
    result.raise_error()
    return result


def _steady(ip, name: str, body: str) -> None:
    """``name(x)`` compiled under reduce-overhead and called past warm-up and recording
    on ``{name}x`` (a CUDA tensor), with nothing held after."""
    _cell(ip, "import torch")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      f"def {name}(x):\n    return {body}\n")
    _cell(ip, f"{name}x = torch.randn(64, device='cuda')")
    for _ in range(3):
        _cell(ip, f"_ = {name}({name}x)")  # warm-up, recording, replay
    _cell(ip, "_ = None")


def test_an_overwritten_output_is_named_at_the_cell_that_overwrote_it(ip, capsys, evidence):
    _cell(ip, "import torch\nimport nbcompile")
    ip.run_cell_magic("compile", "--mode reduce-overhead", CELL)
    _cell(ip, "hz_x = torch.randn(256, 256, device='cuda')")
    watch = get_watch()
    reports = len(watch.reports)
    bound = _cell(ip, "hz_y1 = hz_f(hz_x)")
    assert len(watch.reports) == reports  # nothing overwritten yet
    capsys.readouterr()
    again = _cell(ip, "hz_y2 = hz_f(hz_x)")
    shown = capsys.readouterr().out
    # torch's own mark: the tensor hz_y1 holds was overwritten by this call
    marked = torch_mark(ip.user_ns["hz_y1"])
    assert marked is not None and "overwritten by a subsequent run" in marked
    assert torch_mark(ip.user_ns["hz_y2"]) is None
    assert len(watch.reports) == reports + 1, shown
    report = watch.reports[-1]
    assert report.cell == again.execution_count
    assert [(o.name, o.bound_in) for o in report.names] == [("hz_y1", bound.execution_count)]
    assert report.calls == ("hz_f",), report.calls
    assert "`hz_y1`" in shown and ".clone()" in shown, shown
    # reading it: torch's error, explained the same way
    failed = ip.run_cell("hz_y1.sum().item()", store_history=True)
    error = failed.error_in_exec
    assert type(error) is RuntimeError and "overwritten by a subsequent run" in str(error)
    shown_error = capsys.readouterr().out
    explained = watch.explained[-1]
    assert [(o.name, o.bound_in) for o in explained.names] == [
        ("hz_y1", bound.execution_count)]
    assert (explained.overwritten_in, explained.calls) == (again.execution_count, ("hz_f",))
    assert f"`hz_y1` (bound in cell [{bound.execution_count}])" in shown_error, shown_error
    save(evidence, "hazard", {"report": asdict(report), "explained": asdict(explained),
                              "torch_error": str(error), "shown": shown,
                              "shown_error": shown_error}, [])
    # a clone is the user's own memory: no report when the next call runs
    _cell(ip, "hz_c = hz_f(hz_x).clone()")
    reports = len(watch.reports)
    _cell(ip, "hz_y3 = hz_f(hz_x)")
    assert torch_mark(ip.user_ns["hz_c"]) is None
    assert len(watch.reports) == reports, watch.reports[reports:]


def test_torchs_own_mark_is_what_the_watch_reads():
    """torch's marking function (``dealloc_current_path_weakrefs`` calls it on each output
    tensor; CUDA builds only) on a tensor, and its text: read, named once, explained."""
    t1, t2 = torch.ones(4, device="cuda"), torch.ones(4, device="cuda")
    ns = {"t1": t1, "t2": t2}
    watch = hz.HazardWatch()
    assert watch.after_cell(4, ns, lambda f, line: None) is None
    text = CUDAGraphTreeManager.format_dealloc_msg(
        '  File "<ipython-input-3-5f1a>", line 2, in gk\n    y = x.relu()\n')
    torch._C._set_storage_access_error_msg(t1, text)
    assert torch_mark(t1) == text and torch_mark(t2) is None
    report = watch.after_cell(5, ns, lambda f, line: None)
    assert report is not None and [(o.name, o.bound_in) for o in report.names] == [("t1", 4)]
    assert watch.after_cell(6, ns, lambda f, line: None) is None  # once
    try:
        t1.sum()
    except RuntimeError as e:
        found = watch.explain(str(e), ns)
    else:
        raise AssertionError("torch did not refuse the marked tensor")
    assert found is not None and [o.name for o in found.names] == ["t1"]
    assert found.overwritten_in == 5


def test_names_holding_one_replayed_output_are_named(ip, capsys, evidence):
    """Past warm-up and recording, a call that replays hands back an output; torch's own
    identity (``is``) decides what nbcompile must say: the same tensor as an earlier
    call's (CUDA-graph trees return the same TensorImpl while it is alive) -> the names
    holding it are named together at the cell that made them one; a new tensor -> the
    earlier one is marked overwritten by torch and reported so. A list of outputs the
    same way."""
    _steady(ip, "hz_g", "(x * 3).sin()")
    watch = get_watch()
    shared, reports = len(watch.shared), len(watch.reports)
    first = _cell(ip, "hz_a = hz_g(hz_gx)")
    capsys.readouterr()
    second = _cell(ip, "hz_b = hz_g(hz_gx * 2)")
    shown = capsys.readouterr().out
    same = ip.user_ns["hz_a"] is ip.user_ns["hz_b"]
    if same:
        assert len(watch.shared) == shared + 1, shown
        (group,) = watch.shared[-1].groups
        assert [(s.name, s.bound_in) for s in group] == [
            ("hz_a", first.execution_count), ("hz_b", second.execution_count)]
        assert watch.shared[-1].cell == second.execution_count
        assert "are one and the same tensor" in shown and ".clone()" in shown, shown
    else:  # torch gave a new tensor: it marked the old one, reported as overwritten
        assert torch_mark(ip.user_ns["hz_a"]) is not None
        assert len(watch.reports) == reports + 1, shown
    _cell(ip, "hz_preds = [hz_g(hz_gx) for _ in range(3)]")
    preds = ip.user_ns["hz_preds"]
    if preds[0] is preds[1]:
        assert [s.name for s in watch.shared[-1].groups[0]] == [
            "hz_preds[0]", "hz_preds[1]", "hz_preds[2]"]
    save(evidence, "shared_outputs", {"same_tensor": same, "list_same": preds[0] is preds[1],
                                      "shown": shown,
                                      "shared": [asdict(r) for r in watch.shared[shared:]]},
         [])


def test_the_call_that_overwrote_is_blamed_not_the_last(ip, capsys, evidence):
    """``hz_g(x)`` then ``hz_f2(x)`` in one cell, ``hz_a`` bound to ``hz_f2``'s output in
    the cell before: ``hz_g``'s call starts a new generation and torch marks ``hz_a``
    then; at the cell's end the trees' path is ``hz_f2``'s. The report blames ``hz_g``."""
    _cell(ip, "import torch\nimport nbcompile")
    ip.run_cell_magic("compile", "--mode reduce-overhead",
                      "def hz_g(x):\n    return x.sin() + 1\n\n"
                      "def hz_f2(x):\n    return x.cos() * 2\n")
    _cell(ip, "hz_xb = torch.randn(128, device='cuda')")
    bound = _cell(ip, "hz_a = hz_f2(hz_xb)")
    watch = get_watch()
    reports = len(watch.reports)
    capsys.readouterr()
    both = _cell(ip, "_ = hz_g(hz_xb)\n_ = hz_f2(hz_xb)")
    shown = capsys.readouterr().out
    assert torch_mark(ip.user_ns["hz_a"]) is not None  # torch's own mark
    assert len(watch.reports) == reports + 1, shown
    report = watch.reports[-1]
    assert report.cell == both.execution_count and report.generations == 2
    assert [(o.name, o.bound_in, o.by) for o in report.names] == [
        ("hz_a", bound.execution_count, "hz_g")], report
    assert "the call of `hz_g`" in shown and "`hz_f2`" not in shown.split("\n")[0], shown
    # the record: kept on the target that overwrote it, in the words the cell showed
    import nbcompile
    (kept,) = nbcompile.report(ip.user_ns["hz_g"]).cudagraph_hazards[-1:]
    assert (kept.kind, kept.cell, [n.name for n in kept.names]) == (
        "overwritten", both.execution_count, ["hz_a"])
    assert kept.text.split("\n")[0] in shown
    save(evidence, "hazard_blame", {"report": asdict(report), "shown": shown,
                                    "record": kept.to_dict()}, [])


def test_a_name_alone_on_an_output_a_later_replay_wrote_is_named(ip, capsys, evidence):
    """``hz_w = hz_h(x)`` held, then ``hz_loss = hz_h(x * 2).sum()`` in a later cell (no
    other name holds ``hz_w``'s tensor). torch's own values decide: when the replay wrote
    into ``hz_w``'s tensor (its values changed, torch marked nothing), nbcompile names
    ``hz_w`` at that cell; when they did not change, it says nothing of it."""
    _steady(ip, "hz_h", "(x * 5).cos()")
    watch = get_watch()
    shared = len(watch.shared)
    first = _cell(ip, "hz_w = hz_h(hz_hx)")
    kept = ip.user_ns["hz_w"].clone()
    capsys.readouterr()
    later = _cell(ip, "hz_loss = hz_h(hz_hx * 2).sum()")
    shown = capsys.readouterr().out
    held = ip.user_ns["hz_w"]
    marked = torch_mark(held) is not None
    changed = not marked and not torch.equal(held, kept)
    said = [r for r in watch.shared[shared:] if any(w.name == "hz_w" for w in r.written)]
    save(evidence, "written_output", {"marked": marked, "changed": changed, "shown": shown,
                                      "shared": [asdict(r) for r in watch.shared[shared:]]},
         [])
    assert bool(said) == changed, (shown, marked, changed)
    if changed:
        assert said[0].cell == later.execution_count
        assert [(w.name, w.bound_in) for w in said[0].written] == [
            ("hz_w", first.execution_count)]
        assert "replayed into" in shown and "hz_w = f(x).clone()" in shown, shown
