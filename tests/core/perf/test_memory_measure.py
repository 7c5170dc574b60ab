"""Where the memory goes, measured for real (real torch, real compiles, CPU).

Known cases, with bytes that follow from the shapes: a pointwise chain (eager allocates one
full-size tensor per op, Inductor fuses it into one kernel that writes only the output),
a function with one large temporary (its bytes on its line, eager and compiled), a
training step (what the forward saves for backward, eager vs AOTAutograd's compiled
forward), and an in-place change of an input (eager allocates nothing, compiled code
rewrites it out of place). Plus the definitions on synthetic timelines, the renderers and
the schema.
"""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch

import nbcompile
from nbcompile.core.perf.comparison import Comparison, TimingRow
from nbcompile.core.perf.explain import explain_memory
from nbcompile.core.perf.memory import call as mem
from nbcompile.core.perf.memory import rows as row_memory
from nbcompile.display.profile import profile_bundle
from nbcompile.display.timing import timing_bundle, timing_text
from nbcompile.schema import generate

VALIDATOR = jsonschema.Draft202012Validator(json.loads(generate.SCHEMA_PATH.read_text()))

MiB = 2**20

N = 1024  # a float32 N x N tensor is 4 MiB

T = N * N * 4


def chain(x):
    y = x * 1.7 + 0.3
    y = torch.sin(y) * y
    y = torch.exp(y) / (1 + torch.exp(y))
    return torch.tanh(y * 3.1 - 0.2)


def big_temporary(x, w):
    h = x @ w  # the large temporary: 512 x 8192 float32 = 16 MiB
    return h.amax(dim=1)


torch.manual_seed(0)

W_STEP = torch.randn(N, N, requires_grad=True)


def train_step(x):
    y = torch.sin(x @ W_STEP)
    y = y * torch.cos(y) + torch.exp(-y * y)
    y.sum().backward()
    return y.detach().sum()


def accumulate(buf, idx, src):
    buf.scatter_add_(0, idx, src)
    return buf


def _profiler_off() -> bool:
    return not torch.autograd._profiler_enabled()


def test_peak_is_above_the_level_before_the_call():
    ev = [mem.MemEvent(t, n) for t, n in
          [(1, -100), (2, 30), (3, 50), (4, -30), (5, 40), (6, -50)]]
    peak, allocated, end, count = mem.peak_of(ev)
    # a free of something older first lowers the level below the start: the peak is
    # still measured from the start (0), and every allocation counts
    assert (peak, allocated, end, count) == (0, 120, -60, 3)
    ev = [mem.MemEvent(t, n) for t, n in [(1, 30), (2, 50), (3, -30), (4, 40), (5, -50)]]
    assert mem.peak_of(ev) == (90, 120, 40, 3)


def test_timeline_keeps_the_peak_and_stays_small():
    ev = [mem.MemEvent(float(i), 1 if i % 2 == 0 else -1) for i in range(500)]
    ev[321] = mem.MemEvent(321.0, 1000)
    points = mem.timeline(ev, 0.0, lambda m: "op", max_points=40)
    assert len(points) <= 40 and points[0].bytes == 0
    assert max(p.bytes for p in points) == max(
        sum(m.nbytes for m in ev[:i + 1]) for i in range(len(ev)))
    assert [p.t_s for p in points] == sorted(p.t_s for p in points)


def test_memory_verdict_words():
    assert mem.memory_verdict(16 * MiB, 64 * MiB) == "0.25x eager's peak"
    assert mem.memory_verdict(0, 0) == "same peak as eager (0 B)"
    assert mem.memory_verdict(16 * MiB, 0) == "+16.0 MiB over eager's 0 B peak"
    assert mem.memory_verdict(None, 5) == ""


@pytest.fixture(scope="module")
def chain_cmp():
    x = torch.randn(N, N)
    before = x.clone()
    c = nbcompile.compare(chain, x, modes=("default",), budget_s=1.0, explain=False)
    assert torch.equal(x, before)  # measured on the sandbox's copies
    return c


@pytest.mark.slow
def test_pointwise_chain_compiled_peak_well_under_eager(chain_cmp):
    eager, default = chain_cmp.row("eager"), chain_cmp.row("default")
    assert default.status == "ok", default.error
    # eager: 11 ops, each allocating one N x N result; at most 4 alive at once
    assert eager.allocated_bytes == pytest.approx(11 * T, abs=4096)
    assert eager.peak_memory_bytes == pytest.approx(4 * T, abs=4096)
    # compiled: one fused kernel writes the output, nothing else
    assert default.allocated_bytes == pytest.approx(T, abs=4096)
    assert default.peak_memory_bytes == pytest.approx(T, abs=4096)
    assert default.peak_memory_ratio == pytest.approx(0.25, abs=0.01)
    assert default.memory_verdict == "0.25x eager's peak"
    assert eager.memory_verdict == "baseline"
    assert "torch.profiler" in default.memory_note and "torch.profiler" in eager.memory_note
    assert default.saved_bytes is None  # no autograd
    assert chain_cmp.memory_measured and chain_cmp.phases_s["memory"] > 0
    assert _profiler_off()
    text = timing_text(chain_cmp)
    assert "0.25x eager's peak" in text and "4.0 MiB" in text and "16.0 MiB" in text
    assert "peak memory/call" in text and "allocated/call" in text
    bundle = timing_bundle(chain_cmp)
    VALIDATOR.validate(json.loads(json.dumps(bundle[nbcompile.MIME_TYPE])))
    assert "0.25x eager&#x27;s peak" in bundle["text/html"] or \
        "0.25x eager's peak" in bundle["text/html"]


@pytest.mark.slow
def test_memory_costs_nothing_when_not_asked(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("memory measured although memory=False")

    monkeypatch.setattr(row_memory, "measure_call", refuse)
    monkeypatch.setattr(mem, "QuietProfile", refuse)
    c = nbcompile.compare(chain, torch.randn(64, 64), modes=("default",), budget_s=0.3,
                          explain=False, memory=False)
    assert not c.memory_measured and "memory" not in c.phases_s
    for row in c.rows:
        assert row.peak_memory_bytes is None and row.allocated_bytes is None
        assert row.memory_note == "not measured (memory=False)" and not row.memory_verdict
    assert "memory: not measured (memory=False)" in timing_text(c)


@pytest.fixture(scope="module")
def temp_profile():
    x, w = torch.randn(512, 512), torch.randn(512, 8192)
    return nbcompile.profile(big_temporary, x, w, repeat=2)


@pytest.mark.slow
def test_large_temporary_found_on_its_line(temp_profile):
    p = temp_profile
    m = p.memory
    assert m is not None and m.device == "cpu"
    big = 512 * 8192 * 4
    line = big_temporary.__code__.co_firstlineno + 1  # h = x @ w
    by_line = {ln.lineno: ln for ln in p.lines}
    # eager: the temporary is allocated on its line, the reduction's output on the next
    assert by_line[line].eager_allocated_bytes == pytest.approx(big, abs=4096)
    assert by_line[line + 1].eager_allocated_bytes < 64 * 1024
    # compiled: the extern mm writes the temporary, tied to the same line
    mm = next(k for k in p.kernels if k.kind == "extern" and "mm" in k.name)
    assert mm.allocated_bytes == pytest.approx(big, abs=4096) and mm.lines == [line]
    assert by_line[line].compiled_allocated_bytes == pytest.approx(big, abs=4096)
    assert by_line[line + 1].compiled_allocated_bytes < 64 * 1024
    # peaks: the temporary plus the small output, both sides
    assert m.peak_bytes == pytest.approx(big, rel=0.01)
    assert m.eager_peak_bytes == pytest.approx(big, rel=0.01)
    assert sum(k.allocated_bytes for k in p.kernels) + m.outside_graphs_allocated_bytes \
        == m.allocated_bytes
    # the timelines reach the peak, labelled with what allocated it
    assert max(pt.bytes for pt in m.timeline) == m.peak_bytes
    top = max(m.timeline, key=lambda pt: pt.bytes)
    assert top.what  # the kernel that allocated or freed there
    assert any(pt.what == f"line {line}" for pt in m.eager_timeline)
    assert _profiler_off()


@pytest.mark.slow
def test_profile_memory_renders_validates_and_keeps_its_budget(temp_profile):
    p = temp_profile
    bundle = profile_bundle(p, budget=10**9)
    data = bundle[nbcompile.MIME_TYPE]
    VALIDATOR.validate(json.loads(json.dumps(data)))
    assert data["memory"]["peak_bytes"] == p.memory.peak_bytes
    text = bundle["text/plain"]
    assert "memory per call: peak 16.0 MiB compiled vs 16.0 MiB eager" in text
    assert "alloc c" in text and "memory timeline, compiled" in text
    assert "data:image/png;base64," in bundle["text/html"]  # the timeline chart
    assert "allocated eager" in bundle["text/html"]
    whole = _size(bundle)
    small = profile_bundle(p, budget=whole - 1)
    assert _size(small) <= whole - 1
    assert "data:image/png" not in small["text/html"]  # the chart goes first
    tiny = profile_bundle(p, budget=2000)
    marks = {o["field"] for o in tiny[nbcompile.MIME_TYPE].get("omitted", [])}
    assert {"memory.timeline", "memory.eager_timeline"} <= marks
    VALIDATOR.validate(json.loads(json.dumps(tiny[nbcompile.MIME_TYPE])))


def _size(bundle) -> int:
    from nbcompile.display.budget import json_size

    return (json_size(bundle[nbcompile.MIME_TYPE]) + len(bundle["text/html"].encode())
            + len(bundle["text/plain"].encode()))


@pytest.mark.slow
def test_training_step_saved_for_backward_eager_and_compiled():
    x = torch.randn(512, N)
    act = 512 * N * 4  # one activation of the step
    grad_before = W_STEP.grad
    c = nbcompile.compare(train_step, x, modes=("default",), budget_s=1.0, explain=False)
    eager, default = c.row("eager"), c.row("default")
    assert default.status == "ok", default.error
    # eager autograd saves the matmul's output and each pointwise op's inputs/results;
    # AOTAutograd's partitioner saves the matmul output and recomputes the rest
    assert eager.saved_bytes is not None and default.saved_bytes is not None
    assert eager.saved_bytes >= 3 * act
    assert default.saved_bytes <= 2 * act and default.saved_bytes < eager.saved_bytes
    assert default.saved_bytes % act == 0 and eager.saved_bytes % act == 0
    assert "saved for backward" in timing_text(c)
    assert W_STEP.grad is grad_before  # the sandbox put the gradient back
    assert _profiler_off()


@pytest.mark.slow
def test_in_place_change_of_an_input_costs_a_copy_when_compiled():
    buf = torch.zeros(N, N)
    idx, src = torch.randint(0, N, (64, N)), torch.randn(64, N)
    c = nbcompile.compare(accumulate, buf, idx, src, modes=("default",), budget_s=0.5)
    eager, default = c.row("eager"), c.row("default")
    assert eager.allocated_bytes == 0 and eager.peak_memory_bytes == 0
    assert default.allocated_bytes >= T and default.peak_memory_bytes >= T
    kinds = [e.kind for e in default.memory_explanations]
    assert "functionalized-mutation" in kinds, default.memory_explanations
    e = default.memory_explanations[kinds.index("functionalized-mutation")]
    assert e.evidence["mutated_bytes"] == T
    assert e.evidence["allocated_bytes"] == default.allocated_bytes
    assert "args[0] (4.00 MiB)" in e.message and "own measurement" in e.message
    assert "why more memory (functionalized-mutation)" in timing_text(c)
    assert torch.count_nonzero(buf) == 0  # the user's buffer is untouched


def test_memory_explanations_name_their_numbers():
    eager = TimingRow(mode="eager", kind="eager", peak_memory_bytes=10 * MiB,
                      allocated_bytes=10 * MiB, saved_bytes=4 * MiB)
    more = TimingRow(mode="reduce-overhead", kind="mode", peak_memory_bytes=12 * MiB,
                     allocated_bytes=12 * MiB, saved_bytes=8 * MiB, held_bytes=64 * MiB)
    found = {e.kind: e for e in explain_memory(more, eager)}
    assert set(found) == {"cudagraph-pool", "saved-for-backward"}
    assert found["cudagraph-pool"].evidence["held_bytes"] == 64 * MiB
    assert "64.00 MiB" in found["cudagraph-pool"].message
    assert found["saved-for-backward"].evidence == {"saved_bytes": 8 * MiB,
                                                   "eager_saved_bytes": 4 * MiB}
    assert "8.00 MiB" in found["saved-for-backward"].message
    fallback = TimingRow(mode="default", kind="mode", peak_memory_bytes=20 * MiB,
                         allocated_bytes=30 * MiB)
    [only] = explain_memory(fallback, eager)
    assert only.kind == "buffers" and "20.00 MiB" in only.message
    assert explain_memory(TimingRow(mode="default", kind="mode", peak_memory_bytes=5 * MiB),
                          eager) == []
    comparison = Comparison(name="f", rows=[eager, more], memory_measured=True)
    more.memory_explanations = list(found.values())
    VALIDATOR.validate(json.loads(json.dumps(comparison.to_dict())))


@pytest.mark.slow
def test_profile_of_a_training_step_saves_less_compiled_and_leaves_the_weights():
    x = torch.randn(512, N)
    act = 512 * N * 4
    weights = W_STEP.detach().clone()
    grad_before = None if W_STEP.grad is None else W_STEP.grad.clone()
    p = nbcompile.profile(train_step, x, repeat=1)
    m = p.memory
    assert m.eager_saved_bytes is not None and m.saved_bytes is not None
    assert m.eager_saved_bytes >= 3 * act and m.saved_bytes <= 2 * act
    assert "saved for backward" in profile_bundle(p)["text/plain"]
    # the profile's calls ran on copies with the weight's gradient put back
    assert torch.equal(W_STEP.detach(), weights)
    assert (W_STEP.grad is None) == (grad_before is None)
    if grad_before is not None:
        assert torch.equal(W_STEP.grad, grad_before)


def test_a_cuda_calls_peak_leaves_the_users_statistics_as_they_were():
    """No ``reset_peak_memory_stats``: a call that set a new high is read from
    ``max_memory_allocated``; one that stayed under the user's peak so far from the
    profiler's events; neither: not known (None), never the user's old peak."""
    from nbcompile.core.perf.memory.call import call_peak

    assert call_peak(before_peak=100, after_peak=180, base=40, events_peak=None) == 140
    assert call_peak(before_peak=500, after_peak=500, base=40, events_peak=90) == 90
    assert call_peak(before_peak=500, after_peak=500, base=40, events_peak=None) is None
