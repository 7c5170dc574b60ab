"""``compile_time()`` on fresh processes: a model without repeated blocks gets no regional
remedy; shape-driven recompiles get the dynamic one; what cannot be carried into a fresh
process is said, never measured; the rounds' rule. A repeated-block model's regional
remedy judged from its rounds is checked on tutorial 10's own run
(``tests/kernel/test_notebooks.py``, ``_regional_rounds``): the same fresh processes."""

from __future__ import annotations

import pytest
import torch

from nbcompile.core.compiletime.compile_time import compile_time
from nbcompile.core.compiletime.rounds import MIN_CUT, MIN_ROUNDS, judge_rounds
from nbcompile.core.compiletime.where import repeated_blocks
from nbcompile.core.perf.verdict import judge_speedups
from tests.support.compile_models import Plain, stack


def test_repeated_blocks_are_found_in_the_module_tree():
    found = repeated_blocks(stack(4))
    assert [(c.path, c.cls.__name__, c.count) for c in found] == [("blocks", "Block", 4)]
    assert repeated_blocks(Plain()) == []


def test_a_closure_is_not_reproducible_and_nothing_is_measured():
    scale = torch.tensor(2.0)
    result = compile_time(lambda x: x * scale, torch.randn(4), remedies=("regional",))
    assert not result.reproducible and not result.runs
    assert "cannot be copied into a fresh process" in result.notes[0]
    assert [r.status for r in result.remedies] == ["not reproducible"]


@pytest.mark.slow
def test_no_repeated_blocks_no_regional_remedy():
    model = Plain().requires_grad_(False)
    result = compile_time(model, torch.randn(2, 8), remedies=("regional", "nested_region"))
    # the user's model is untouched: not compiled here (only in the fresh processes)
    assert not getattr(model, "_compiled_call_impl", None)
    assert [(r.kind, r.status) for r in result.remedies] == [
        ("regional", "does not apply"), ("nested_region", "does not apply")]
    assert "no repeated blocks" in result.remedies[0].note
    assert [r.label for r in result.runs] == ["baseline cold", "baseline warm restart"]


@pytest.mark.slow
def test_ctrl_c_keeps_the_partial_record():
    from nbcompile.core.compiletime.compile_time import CompileTimeInterrupted

    def progress(step):
        if step.label == "baseline warm restart":
            raise KeyboardInterrupt

    with pytest.raises(CompileTimeInterrupted) as caught:
        compile_time(stack(2), torch.randn(2, 8), remedies=("regional",), progress=progress)
    partial = caught.value.partial
    assert partial.interrupted and "Ctrl-C" in partial.notes[-1]
    assert [r.label for r in partial.runs] == ["baseline cold"]
    assert partial.cold_s is not None and partial.where.frames


@pytest.mark.slow
def test_a_budget_too_small_stops_the_fresh_process_and_says_so():
    result = compile_time(stack(2), torch.randn(2, 8), budget_s=2.0, remedies=("regional",))
    assert result.cold_s is None and result.reproducible
    # stopped while importing torch, or not started when under a second was left
    assert "ran past the budget" in result.notes[0] or "budget was spent" in result.notes[0]
    assert [r.status for r in result.remedies] == ["not tried"]
    assert result.elapsed_s < 30


@pytest.mark.slow
def test_shape_driven_recompiles_get_the_dynamic_remedy():
    from tests.support.compile_models import wave

    result = compile_time(wave, torch.randn(8), more_calls=[((torch.randn(11),), {})],
                          remedies=("dynamic", "regional"), rounds=1)
    # torch's own record of the cold run: a recompile for the new size
    assert [f.recompile for f in result.where.frames] == [False, True]
    assert "size" in result.where.frames[1].recompile_reason
    assert result.where.recompile_s > 0
    dynamic = result.remedy("dynamic")
    assert dynamic is not None and dynamic.change == "wave = torch.compile(wave, dynamic=True)"
    assert dynamic.same_result is True and dynamic.cold_s is not None, dynamic
    assert "recompiled for:" in dynamic.note
    run = next(r for r in result.runs if r.label == "dynamic cold")
    assert run.frames_compiled == 1  # one dynamic compile serves both sizes
    regional = result.remedy("regional")
    assert regional is not None and regional.status == "does not apply"


def test_one_pair_is_inconclusive_whatever_its_difference():
    # the pair that read "did not help (23% more)" on GPT-2 where alternated rounds cut 26%
    for after in (6.15, 3.7):
        verdict = judge_rounds([5.0], [after])
        assert verdict.status == "inconclusive", verdict
        assert "not verified" in verdict.words and "a verdict needs at least 3" in verdict.words
        assert f"5.00 / {after:.2f}" in verdict.words  # the round's numbers


def test_a_cut_within_the_spread_of_the_rounds_is_inconclusive():
    verdict = judge_rounds([5.0, 5.2, 4.9], [4.2, 5.6, 4.4])
    assert verdict.status == "inconclusive"
    assert verdict.cut is not None and verdict.cut >= MIN_CUT  # a 10% median cut...
    assert verdict.cut_low is not None and verdict.cut_low < 0  # ...and a round with more
    assert "not verified: 10% less" in verdict.words
    assert "within the spread measured in this run" in verdict.words
    assert "8% more to 16% less" in verdict.words  # the spread, in words
    assert "5.00 / 4.20, 5.20 / 5.60, 4.90 / 4.40 s" in verdict.words


def test_a_consistent_cut_over_rounds_is_verified():
    verdict = judge_rounds([5.0, 5.2, 4.9], [3.7, 3.8, 3.6], target="restart")
    assert verdict.status == "verified", verdict
    assert verdict.cut_low is not None and verdict.cut_high is not None
    assert 0 < verdict.cut_low <= verdict.cut <= verdict.cut_high  # type: ignore[operator]
    assert verdict.words.startswith("27% less (median of 3 alternated rounds")
    assert "restart first call 3.70 s vs 5.00 s without it" in verdict.words


def test_rounds_that_rule_a_cut_out_did_not_help():
    slower = judge_rounds([5.0, 5.2, 4.9], [6.0, 6.5, 6.1])
    assert slower.status == "did not help" and "more time beyond the noise" in slower.words
    short = judge_rounds([5.0, 5.2, 4.9], [4.9, 5.0, 4.8])
    assert short.status == "did not help"
    assert "2% less" in short.words and "short of the 10% cut a verdict needs" in short.words


def test_the_verdict_is_compares_rule_on_the_rounds_speedups():
    """One rule: where compare's rule says faster, the rounds are verified; where it
    cannot tell, they are inconclusive (the same interval, the same order statistics)."""
    target = 1 / (1 - MIN_CUT)
    samples = [([5.0] * 9, [3.7] * 8 + [6.0]), ([5.0, 5.2, 4.9], [4.2, 5.6, 4.4]),
               ([5.0, 5.2, 4.9], [3.7, 3.8, 3.6])]
    for before, after in samples:
        rule = judge_speedups([b / a for b, a in zip(before, after, strict=True)],
                              min_effect=target - 1, min_repeats=MIN_ROUNDS,
                              max_ci_ratio=target)
        verdict = judge_rounds(before, after)
        assert (verdict.status == "verified") == (rule.verdict == "faster"), (verdict, rule)
        assert verdict.cut_low == pytest.approx(1 - 1 / rule.ci_low)
    # nine rounds, one of them slower: the interval of the median leaves the outlier out
    assert judge_rounds([5.0] * 9, [3.7] * 8 + [6.0]).status == "verified"


def test_rounds_ended_early_are_inconclusive_with_the_numbers():
    verdict = judge_rounds([5.0, 5.1], [3.9, 4.0],
                           stopped="the budget ended after round 2 (30 s left, a round "
                                   "takes about 40 s)")
    assert verdict.status == "inconclusive"
    assert "the budget ended after round 2" in verdict.words
    assert "5.00 / 3.90, 5.10 / 4.00 s" in verdict.words
    assert judge_rounds([], [], stopped="round 2 stopped").status == "inconclusive"


def test_a_target_that_is_not_callable_is_refused_at_once():
    from nbcompile.core.perf.call_options import CallOptionError

    with pytest.raises(TypeError, match=r"^compile_time: 5 is a int, not a function or "
                                        "module$") as caught:
        compile_time(5, torch.randn(2))
    assert isinstance(caught.value, CallOptionError)  # the magic's UsageError path
    with pytest.raises(TypeError, match="Tensor"):
        compile_time(torch.randn(2), torch.randn(2))
