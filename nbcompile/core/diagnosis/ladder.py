"""PyTorch's troubleshooting ladder: the backends a problem is run on, lowest layer first
(Dynamo, AOTAutograd, Inductor), each rung measured on a fresh copy; the layer a problem
comes in with is the first rung that shows it.
"""

from __future__ import annotations

from typing import Any

from .record import Diagnosis, Rung
from .runs import Run
from .sites import error_text

#: (backend, layer it adds), lowest first: PyTorch's troubleshooting ladder.
LADDER: tuple[tuple[str, str], ...] = (
    ("eager", "dynamo"),
    ("aot_eager", "aot_autograd"),
    ("aot_eager_decomp_partition", "aot_autograd"),
    ("inductor", "inductor"),
)
LAYER_NAMES = {"dynamo": "Dynamo", "aot_autograd": "AOTAutograd", "inductor": "Inductor"}
#: Backends whose problems the CompilerBisector can take apart (subsystems to switch off).
BISECTABLE = ("aot_eager_decomp_partition", "inductor")


def ladder(backend: Any) -> list[tuple[str, str]]:
    """The rungs up to the user's backend (a backend not on the ladder: all, its own on top)."""
    names = [b for b, _ in LADDER]
    if isinstance(backend, str) and backend in names:
        return list(LADDER[: names.index(backend) + 1])
    return [*LADDER[:3], ("inductor", "inductor")]


def rung_from(run: Run, rung: Rung) -> Rung:
    """Fill ``rung`` from its run: outcome, times, error or difference to eager."""
    rung.outcome = run.outcome  # type: ignore[assignment]
    rung.first_call_s, rung.time_s = rounded(run.first_call_s), rounded(run.time_s)
    if run.note:
        rung.note = f"not run: {run.note}"
    if run.error is not None:
        rung.error = error_text(run.error)[0]
    elif run.judged is not None:
        rung.max_abs_diff, rung.mismatched = run.judged.max_abs_diff, run.judged.mismatched
        rung.numel = run.judged.numel
        if run.judged.notes:
            rung.note = "; ".join(run.judged.notes)
    return rung


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def settle_layer(result: Diagnosis) -> Rung:
    """Set ``layer`` from the rungs that ran (None while a rung below the first one
    showing the problem did not run); the first such rung."""
    rungs = result.rungs
    first = next((r for r in rungs if r.outcome == result.kind), rungs[-1])
    unchecked = [r.backend for r in rungs[: rungs.index(first)] if r.outcome == "not run"]
    result.layer = None if unchecked else first.layer
    if unchecked:
        result.notes.append(f"layer unknown: rung(s) {', '.join(unchecked)} below "
                            f"{first.backend} did not run")
    return first
