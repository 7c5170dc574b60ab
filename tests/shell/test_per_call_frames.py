"""Nothing per call: a steady-state call of a ``%%compile`` target runs no nbcompile code.

Counted, not timed (a busy machine cannot flip it): ``sys.setprofile`` sees every Python
frame entered during N compiled calls, and the test counts those whose code is
nbcompile's. The one frame the design needs is named: a module target's
``ModuleCall.__call__`` (``core/notebook/targets/compiling.py``), which hands the compiled
``_call_impl`` its module through a weak reference so that the module holds no reference
cycle through itself (freed as soon as the user drops it). Functions run none.

What nbcompile must know per call is learned from torch when it changes: a stance that
may run calls eagerly (heard as torch sets it, by a call, a context manager or a
decorator), after which the calls are heard, and counted as torch ran them, until the
stance is back.
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter

import pytest
import torch

import nbcompile
from nbcompile.core.notebook.capture.session import get_session
from nbcompile.core.notebook.targets import running as calls
from tests.support.frames import nbcompile_frames

#: the one nbcompile frame a module target's call enters (see the module docstring)
MODULE_CALL = ("core/notebook/targets/compiling.py", "__call__")
CALLS = 20

CELL = """
import torch
def pf_fn(x):
    return torch.relu(x * 2.0 + 1.0).sum()
class PfNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
    def forward(self, x):
        return torch.relu(self.lin(x)) * 2
pf_net = PfNet()
pf_seq = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
"""
#: per target: the nbcompile frames each steady-state call may enter
ALLOWED = {"pf_fn": Counter(), "pf_net": Counter({MODULE_CALL: 1}),
           "pf_seq": Counter({MODULE_CALL: 1})}


@pytest.fixture(scope="module", params=["default", "reduce-overhead"])
def targets(ip, request):
    """The cell's three targets compiled under the mode, each called until steady."""
    suffix = request.param.replace("-", "_")
    with contextlib.redirect_stdout(io.StringIO()):
        ip.run_cell_magic("compile", f"--mode {request.param}",
                          CELL.replace("pf_", f"pf_{suffix}_"))
    x = torch.randn(4, 8)
    found = {name: ip.user_ns[f"pf_{suffix}_{name[3:]}"] for name in ALLOWED}
    for f in found.values():
        for _ in range(3):
            f(x)
    return found, x


@pytest.fixture
def default_stance():
    yield
    torch.compiler.set_stance("default")


@pytest.mark.parametrize("name", list(ALLOWED))
def test_a_steady_call_runs_no_nbcompile_frame(targets, name):
    found, x = targets
    f = found[name]
    compiles = len(nbcompile.report(f).compiles)
    assert compiles >= 1
    frames = nbcompile_frames(f, x, calls=CALLS)
    assert len(nbcompile.report(f).compiles) == compiles  # steady: nothing compiled
    assert frames == Counter({k: v * CALLS for k, v in ALLOWED[name].items()}), frames


@pytest.mark.parametrize("name", list(ALLOWED))
def test_every_call_is_numbered_with_no_nbcompile_frame(targets, name):
    """Each call of a target has its number (the CUDA-graph record names calls by it),
    counted by a builtin on torch's enter hooks: the steady calls that run no nbcompile
    frame are counted too, one each."""
    found, x = targets
    f = found[name]
    target = get_session().find(f)
    assert target is not None
    before = calls.call_count(target)
    assert before >= 3  # the fixture's calls
    frames = nbcompile_frames(f, x, calls=CALLS)
    assert frames == Counter({k: v * CALLS for k, v in ALLOWED[name].items()}), frames
    assert calls.call_count(target) == before + CALLS


def test_a_stance_set_and_put_back_leaves_nothing_per_call(targets, default_stance):
    """Under an eager stance the calls are heard (and counted as torch ran them); once
    torch's stance is back, by any of its ways, nothing is."""
    found, x = targets
    f = found["pf_fn"]
    before = nbcompile.report(f).to_dict()["eager_runs"]
    counted = sum(r["count"] for r in before if r["stance"] == "force_eager")

    torch.compiler.set_stance("force_eager")  # a direct call
    assert nbcompile_frames(f, x, calls=2)  # heard: the calls run eagerly
    torch.compiler.set_stance("default")
    with torch.compiler.set_stance("force_eager"):  # the context manager
        f(x)

    @torch.compiler.set_stance("force_eager")  # the decorator
    def under_stance():
        return f(x)

    under_stance()
    runs = nbcompile.report(f).to_dict()["eager_runs"]
    assert sum(r["count"] for r in runs if r["stance"] == "force_eager") == counted + 4
    for name, target in found.items():
        frames = nbcompile_frames(target, x, calls=CALLS)
        assert frames == Counter({k: v * CALLS for k, v in ALLOWED[name].items()}), frames


def test_the_stance_setter_is_torchs_again_when_the_extension_unloads(ip, default_stance):
    """The stance is heard through torch's ``_set_stance``, wrapped while nbcompile is
    loaded and put back when it unloads."""
    import torch._dynamo.decorators as decorators
    import torch._dynamo.eval_frame as eval_frame

    assert vars(decorators)['_set_stance'] is eval_frame._set_stance
    wrapped = eval_frame._set_stance
    assert getattr(wrapped, "__wrapped__", None) is not None
    ip.run_line_magic("unload_ext", "nbcompile")
    try:
        assert eval_frame._set_stance is wrapped.__wrapped__
        assert vars(decorators)['_set_stance'] is wrapped.__wrapped__
        assert getattr(eval_frame._set_stance, "_dynamo_forbidden", False)
    finally:
        ip.run_line_magic("load_ext", "nbcompile")
    assert getattr(eval_frame._set_stance, "__wrapped__", None) is wrapped.__wrapped__
    torch.compiler.set_stance("force_eager")
    from nbcompile.core.notebook.capture.session import get_session

    assert get_session().eager._tap.on
    torch.compiler.set_stance("default")
    assert not get_session().eager._tap.on


WAITING_CELL = """
import torch
def pfw_wait(x):
    return (x * 3.0).cos()
"""


def test_a_waiting_cuda_graph_target_costs_only_its_own_calls(ip, targets):
    """A CUDA-graph target that has not replayed yet (its state watching, as the doctor
    sets it at its compile on a GPU) hears its own calls only: the steady targets beside
    it run no nbcompile frame. Once it is no longer alive (its ``%%compile`` cell re-run)
    nothing is watched and no call anywhere pays."""
    import gc

    from nbcompile.core.notebook.cudagraphs.per_call import CudagraphCalls, _State

    found, x = targets
    with contextlib.redirect_stdout(io.StringIO()):
        ip.run_cell_magic("compile", "--mode reduce-overhead", WAITING_CELL)
    session = get_session()
    channel = next(c for c in session.channels if isinstance(c, CudagraphCalls))
    waiting = session.find(ip.user_ns["pfw_wait"])
    assert waiting is not None
    channel._states[waiting.id] = _State(watching=True)  # not yet replayed
    channel._sync()
    try:
        assert channel.waiting() == [waiting]
        for name, target in found.items():  # steady targets: nothing per call
            frames = nbcompile_frames(target, x, calls=CALLS)
            assert frames == Counter({k: v * CALLS for k, v in ALLOWED[name].items()}), frames
        # the cell re-run: the old function is gone, its watch with it
        with contextlib.redirect_stdout(io.StringIO()):
            ip.run_cell_magic("compile", "--mode reduce-overhead", WAITING_CELL)
        del waiting
        gc.collect()
        assert channel.waiting() == [] and not channel._watching
        for name, target in found.items():
            frames = nbcompile_frames(target, x, calls=CALLS)
            assert frames == Counter({k: v * CALLS for k, v in ALLOWED[name].items()}), frames
    finally:
        channel._states.clear()
        channel._sync()
