"""The diagnosis text's words match its numbers: a workaround's error against the float64
run reads "vs float64", its time "per call" with its cost beside it, and its note shows."""

from __future__ import annotations

from nbcompile.core.diagnosis.record import Diagnosis, Workaround
from nbcompile.display.diagnose import diagnosis_text


def _diagnosis() -> Diagnosis:
    tried = Workaround(kind="setting",
                       change="torch._inductor.config.emulate_precision_casts = True",
                       verified=True, status="verified", outcome="ok", max_abs_diff=0.00125,
                       mismatched=0, numel=4096, time_s=0.0031, reference_error=0.0467,
                       cost="1.2x the compiled time per call",
                       note="rounds like eager at each cast")
    skipped = Workaround(kind="disable", change="torch.compiler.disable(f)",
                         note="not tried: the 10 s budget was used up")
    return Diagnosis(name="f", kind="accuracy", workarounds=[tried, skipped], budget_s=10.0)


def test_a_workarounds_numbers_carry_their_own_labels():
    text = diagnosis_text(_diagnosis())
    [line] = [ln for ln in text.splitlines() if ln.strip().startswith("outcome ok")]
    assert "vs float64 0.0467" in line  # the error against the float64 run, so labelled
    assert "per call 3.1 ms (1.2x the compiled time per call)" in line  # the time, labelled
    assert "per call 0.0467" not in line
    assert "      rounds like eager at each cast" in text.splitlines()
    assert "      not tried: the 10 s budget was used up" in text.splitlines()


def test_labels_hold_in_a_budgeted_text():
    text = diagnosis_text(_diagnosis(), budget=4000)
    assert "vs float64 0.0467, per call 3.1 ms" in text
