"""Ctrl-C during ``%compare``'s timed calls: the partial comparison says how long it timed
calls (not "timed calls 0.0 s"), at least the seconds its kept repeats measured."""

from __future__ import annotations

import os
import signal

import pytest
import torch

from nbcompile.core.perf.timing import ComparisonInterrupted, compare
from nbcompile.core.steps import Step
from nbcompile.display.timing import time_spent, timing_text

#: Real Inductor compiles: the whole suite, not the fast tier; each test presses Ctrl-C.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("sigint_handled")]


def _wavy(x):
    return torch.sin(x) * 2 + x.mean()


def _ctrl_c_at(what: str):
    """A progress callback that presses Ctrl-C (a real SIGINT to this process) once a
    step saying ``what`` begins."""
    def progress(step: Step) -> None:
        if step.what == what:
            os.kill(os.getpid(), signal.SIGINT)
    return progress


def test_ctrl_c_while_timing_keeps_the_seconds_timed():
    with pytest.raises(ComparisonInterrupted) as stopped:
        compare(_wavy, torch.randn(256), modes=["eager", "aot_eager"], budget_s=5.0,
                memory=False, explain=False, progress=_ctrl_c_at("timing 2 modes, repeat 5"))
    partial = stopped.value.partial
    assert partial.interrupted
    repeats = {row.repeats for row in partial.rows}
    assert len(repeats) == 1 and repeats.pop() >= 4  # the repeats done before the Ctrl-C
    measured = sum(t * row.calls_per_repeat for row in partial.rows for t in row.times_s)
    timed = partial.phases_s.get("timed calls", 0.0)
    assert timed >= measured > 0  # the time spent timing holds the time it measured
    assert "first calls" in partial.phases_s
    words = time_spent(partial)
    assert f"timed calls {timed:.1f} s" in words and "timed calls 0.0 s" not in words
    assert words in timing_text(partial)


def test_ctrl_c_in_a_compile_counts_the_first_calls_it_spent():
    """Cut while a mode compiles: the time went to first calls, none to timing."""
    with pytest.raises(ComparisonInterrupted) as stopped:
        compare(_wavy, torch.randn(256), modes=["eager", "aot_eager"], budget_s=5.0,
                memory=False, explain=False, progress=_ctrl_c_at("warming up"))
    partial = stopped.value.partial
    assert partial.phases_s.get("first calls", 0.0) > 0
    assert "timed calls" not in partial.phases_s
