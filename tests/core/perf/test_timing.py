"""nbcompile.compare: real Inductor compiles, small budgets, no speed assertions.

What holds on any machine is checked here: the rows, the numeric check, and that each
verdict follows from the measured times. Whether compiled code *is* faster (a loaded
2-core machine can make it look otherwise) is a benchmark: ``python -m benchmarks --only 6``.
"""

from __future__ import annotations

import base64
import json
import math
import statistics

import pytest
import torch

import nbcompile
from nbcompile.core.perf import interleaved, verdict
from nbcompile.core.perf.call_options import CallOptionError
from nbcompile.core.perf.comparison import Comparison, TimingRow
from nbcompile.core.perf.modes import CompareError, resolve_modes
from nbcompile.core.perf.numerics import numeric_diff
from nbcompile.core.perf.timing import compare
from nbcompile.display.timing import timing_bundle, timing_text


def pointwise_chain(x):
    for _ in range(6):
        x = torch.sin(x) * 1.5 + torch.cos(x)
    return torch.relu(x)


W = torch.randn(768, 768)


def single_matmul(a):
    return a @ W


def off_by_half(gm, example_inputs):
    """A deliberately wrong backend: correct graph, then 0.5 added to every output."""

    def run(*args):
        out = gm(*args)
        return type(out)(o + 0.5 if isinstance(o, torch.Tensor) else o for o in out)

    return run


@pytest.fixture(scope="module")
def chain_comparison():
    x = torch.randn(256, 1024)
    return nbcompile.compare(pointwise_chain, x,
                             modes=("eager", "default", "reduce-overhead", off_by_half),
                             budget_s=3.0)


@pytest.mark.slow
def test_public_names(chain_comparison):
    assert nbcompile.compare.__wrapped__ is compare
    assert "Comparison" in nbcompile.__all__ and "compare" in nbcompile.__all__
    # the public result is the core record (plain data) plus rich reprs
    assert type(chain_comparison) is nbcompile.Comparison
    assert isinstance(chain_comparison, Comparison)
    assert not hasattr(Comparison, "_repr_mimebundle_")


VERDICTS = {"faster", "slower", "no significant difference", verdict.INCONCLUSIVE}


def _check_verdict(row: TimingRow, eager: TimingRow) -> None:
    """The row's speedup and verdict are what its own paired times say (the rule of
    ``judge_speedups``: enough repeats, a narrow interval, clear of 1.0 by >= 3 %)."""
    assert row.verdict in VERDICTS, row.verdict
    assert len(row.times_s) == row.repeats == len(eager.times_s) >= 3
    ratios = [e / t for e, t in zip(eager.times_s, row.times_s, strict=True)]
    assert row.speedup == pytest.approx(statistics.median(ratios), rel=1e-3)
    assert row.speedup_q1 <= row.speedup <= row.speedup_q3
    low, high = verdict.median_confidence_interval(ratios)
    assert (row.speedup_ci_low, row.speedup_ci_high) == pytest.approx((low, high), rel=1e-3)
    assert row.significant == (row.verdict in ("faster", "slower"))
    if row.verdict == verdict.INCONCLUSIVE:
        assert row.repeats < verdict.MIN_VERDICT_REPEATS or high / low > verdict.MAX_CI_RATIO
        assert any(verdict.INCONCLUSIVE in note for note in row.notes)
    elif row.significant:
        assert row.verdict == ("faster" if row.speedup > 1 else "slower")
        assert (low > 1.0 or high < 1.0) and abs(row.speedup - 1.0) >= 0.03
    else:  # enough evidence, and it says "no difference worth a verdict"
        assert not (low > 1.0 or high < 1.0) or abs(row.speedup - 1.0) < 0.03


@pytest.mark.slow
def test_pointwise_chain_rows_and_verdicts(chain_comparison):
    c = chain_comparison
    assert [r.mode for r in c.rows] == ["eager", "default", "reduce-overhead",
                                        "backend:off_by_half"]
    eager, default = c.rows[0], c.row("default")
    assert eager.verdict == "baseline" and eager.speedup is None
    assert default.status == "ok", default.error
    for row in c.rows[1:]:
        _check_verdict(row, eager)
    assert default.numerics_ok and default.max_abs_diff < 1e-3
    assert default.compile_s is not None and default.first_call_s >= default.compile_s
    assert default.repeats >= 5 and default.repeats == eager.repeats
    assert default.calls_per_repeat >= 1
    assert default.median_s and default.iqr_s is not None
    assert c.num_threads == torch.get_num_threads()
    faster = [r for r in c.rows if r.verdict == "faster" and r.numerics_ok]
    if faster:
        assert c.best is max(faster, key=lambda r: r.speedup)
    else:
        assert c.best is None
    assert c.best is not c.row("backend:off_by_half")
    assert default.verdict in timing_text(c)


@pytest.mark.slow
def test_reduce_overhead_says_cuda_graphs_do_not_apply_on_cpu(chain_comparison):
    row = chain_comparison.row("reduce-overhead")
    assert row.status == "ok", row.error
    assert any("CUDA graphs do not apply on CPU" in n for n in row.notes)


@pytest.mark.slow
def test_numeric_check_catches_a_wrong_backend(chain_comparison):
    bad = chain_comparison.row("backend:off_by_half")
    assert bad.status == "ok", bad.error
    assert bad.numerics_ok is False
    assert bad.max_abs_diff == pytest.approx(0.5, abs=1e-3)
    assert any("numerics differ" in n for n in bad.notes)
    assert chain_comparison.best is not bad
    assert "DIFFERS" in timing_text(chain_comparison)


@pytest.mark.slow
def test_builtin_wrong_backend_by_name():
    x = torch.randn(64, 64)
    c = compare(pointwise_chain, x, modes=["relu_accuracy_error_TESTING_ONLY"], budget_s=0.3)
    row = c.row("relu_accuracy_error_TESTING_ONLY")
    assert row.numerics_ok is False and row.max_abs_diff >= 0.5


@pytest.mark.slow
def test_timing_record(chain_comparison):
    data = chain_comparison.to_dict()
    text = json.dumps(data, allow_nan=False)  # strict JSON: no inf/nan
    assert data["schema_version"] == 1 and data["record"] == "timing"
    assert data["name"] == "pointwise_chain"
    best = chain_comparison.best
    assert data["best"] == (best.mode if best is not None else None)
    row = data["rows"][1]
    for key in ("mode", "compile_s", "median_s", "iqr_s", "speedup", "speedup_q1", "speedup_q3",
                "significant", "verdict", "max_abs_diff", "numerics_ok", "peak_memory_bytes",
                "memory_note", "repeats", "cache", "notes"):
        assert key in row
    # memory is measured on the CPU too: one call of each row
    assert row["peak_memory_bytes"] > 0 and "torch.profiler" in row["memory_note"]
    assert row["allocated_bytes"] >= row["peak_memory_bytes"] and row["memory_verdict"]
    assert "Tensor[256, 1024] float32 cpu" in text


@pytest.mark.slow
def test_bundle_table_and_chart(chain_comparison):
    bundle = chain_comparison._repr_mimebundle_()
    assert set(bundle) == {nbcompile.MIME_TYPE, "text/html", "text/plain", "image/png"}
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    assert "data:image/png;base64," in bundle["text/html"]
    assert "<table>" in bundle["text/html"] and "<script" not in bundle["text/html"]
    assert chain_comparison.row("default").verdict in bundle["text/plain"]
    assert repr(chain_comparison) == bundle["text/plain"]


@pytest.mark.slow
def test_single_matmul_verdict_follows_its_times():
    """Both sides run the same extern addmm: the verdict comes from the times alone.

    (That it reads "no significant difference" is benchmark 6b.)"""
    a = torch.randn(768, 768)
    c = compare(single_matmul, a, modes=("default",), budget_s=2.0)
    row = c.row("default")
    assert row.status == "ok", row.error
    _check_verdict(row, c.rows[0])
    assert row.numerics_ok and row.max_abs_diff < 1e-3
    assert (c.best is row) == (row.verdict == "faster")
    assert row.verdict in timing_bundle(c)["text/plain"]


@pytest.mark.slow
def test_module_and_html_escaping():
    class Scale(torch.nn.Module):
        def forward(self, x):
            return torch.tanh(x) * 3

    m = Scale()
    c = compare(m, torch.randn(32, 32), modes=["default"], budget_s=0.3)
    assert c.row("default").status == "ok" and c.row("default").numerics_ok
    assert m._compiled_call_impl is None  # the module itself was not compiled

    def evil(x):
        return x * 2

    evil.__name__ = "<img src=x onerror=alert(1)>"
    c = compare(evil, torch.randn(4), modes=["default"], budget_s=0.2)
    html = timing_bundle(c)["text/html"]
    assert "<img src=x" not in html and "&lt;img src=x" in html


@pytest.mark.slow
def test_modes_are_validated():
    with pytest.raises(CompareError, match="unknown mode 'fast'.*allowed: eager, default"):
        resolve_modes(["eager", "fast"])
    specs = resolve_modes(["default", "default", "backend:eager", "aot_eager", off_by_half])
    assert [s.label for s in specs] == ["eager", "default", "backend:eager", "aot_eager",
                                       "backend:off_by_half"]
    assert specs[1].compile_kwargs() == {"backend": "inductor"}
    assert resolve_modes(["max-autotune"])[1].compile_kwargs()["mode"] == "max-autotune"
    with pytest.raises(CallOptionError, match="budget_s"):  # the commands' one rule
        compare(pointwise_chain, torch.randn(2), budget_s=0)
    with pytest.raises(CompareError, match="function or module"):
        compare(3, torch.randn(2))


def test_numeric_diff():
    a = torch.tensor([1.0, float("nan"), 3.0])
    assert numeric_diff([a], a.clone())[:2] == (0.0, True)
    d, ok, _, notes = numeric_diff([a], torch.tensor([1.0, 2.0, 3.0]))
    assert math.isinf(d) and not ok and "NaN" in notes[0]
    d, ok, _, notes = numeric_diff([a], torch.zeros(4))
    assert not ok and "shape" in notes[0]
    d, ok, _, _ = numeric_diff([torch.ones(3)], torch.ones(3) + 1e-6)
    assert ok and 0 < d < 1e-5
    d, ok, _, _ = numeric_diff([torch.ones(3), 2], (torch.ones(3), 3))
    assert not ok and d == 1.0


@pytest.mark.slow
def test_the_output_says_up_front_what_came_on_top_of_the_budget(chain_comparison):
    """``--budget 5`` took 29.9 s with nothing said. The budget bounds
    the timed calls; the output's second line says what the whole command took and what
    came on top (first calls with their compiles, memory, the explaining profile)."""
    c = chain_comparison
    assert {"first calls", "memory", "timed calls"} <= set(c.phases_s)
    assert sum(c.phases_s.values()) == pytest.approx(c.elapsed_s, abs=0.05)
    second = timing_text(c).splitlines()[1]
    timed = c.phases_s["timed calls"]
    assert second.startswith(f"took {c.elapsed_s:.1f} s: timed calls {timed:.1f} s (")
    # within the budget, or over it with the reason (a loaded machine: the minimum repeats)
    assert (f"within the budget of {c.budget_s:g} s" in second) == (
        timed <= c.budget_s * 1.1), second
    assert "on top of the budget: first calls" in second
    assert "took" in c._repr_mimebundle_()["text/html"].split("<table>")[0]


class _Measured:
    def __init__(self, median: float) -> None:
        self.median = median


class _TimerWithOneSlowCall:
    """Per call 10 us, except the first call, which takes 100 ms (a busy machine)."""

    def __init__(self) -> None:
        self.calls = 0

    def timeit(self, number: int) -> _Measured:
        total = number * 1e-5 + (0.1 if self.calls == 0 else 0.0)
        self.calls += number
        return _Measured(total / number)


def test_one_slow_call_does_not_size_the_blocks():
    # sized by the slow first call, a 0.2 s block would hold 2 calls (20 us): the
    # repeats would take microseconds and the timing would be noise
    per_call, number = interleaved.per_call(_TimerWithOneSlowCall(), 0.2, deadline=float("inf"))
    assert per_call == pytest.approx(1e-5)
    assert number == 20000
