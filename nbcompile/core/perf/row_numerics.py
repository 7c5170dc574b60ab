"""One compiled row's numbers against eager's: what the call produced judged (outputs,
changed inputs and state), and randomness told apart from an accuracy difference by a copy
compiled with ``fallback_random``."""

from __future__ import annotations

from typing import Any

import torch

from .. import torch_compat
from ..insight.diagnose_hint import DIAGNOSE_HINT
from ..runs.copies import fresh_copy
from ..runs.produced import (
    FALLBACK_RANDOM,
    FALLBACK_RANDOM_CODE,
    Produced,
    can_draw_like_eager,
    no_fallback_words,
    not_randomness_words,
    randomness_words,
)
from ..runs.sandbox import Sandbox
from ..runs.timed import first_line
from ..trace.listener import suppressed
from .comparison import TimingRow
from .modes import ModeSpec
from .numerics import numeric_diff


def judge_call(box: Sandbox, out: Any, reference: Produced, mutated: list[str]
                ) -> tuple[float | None, bool | None, str, list[str]]:
    """What one call produced (``out``, the inputs and state it changed) against eager's;
    state the call changed that eager's left alone is a difference too."""
    produced = box.produced(out, mutated, reference.state)
    diff, ok, tol, notes = numeric_diff(reference.leaves, produced.leaves, reference.labels)
    extra = [label for label in box.changed_state() if label not in reference.state]
    if extra:
        ok = False
        notes.append(f"changes {', '.join(extra)}, which eager leaves as it was")
    return diff, ok, tol, notes


def randomness(row: TimingRow, fn: Any, box: Sandbox, spec: ModeSpec, reference: Produced,
                mutated: list[str], diff: float | None) -> None:
    """Tell randomness from an accuracy difference by evidence: a copy compiled with
    ``fallback_random`` (it draws eager's numbers), called from the same RNG state."""
    row.max_abs_diff, row.numerics_ok = None, None
    if not can_draw_like_eager():
        row.notes.append(no_fallback_words())
        return
    box.reset()
    try:
        with torch_compat.inductor_patch(FALLBACK_RANDOM), suppressed():
            compiled = torch.compile(fresh_copy(fn), **spec.compile_kwargs())
            after, ok, tol, notes = judge_call(box, compiled(*box.args, **box.kwargs),
                                                reference, mutated)
    except Exception as e:  # no evidence either way
        row.notes.append(f"not comparable: the call draws random numbers, and the copy "
                         f"compiled with {FALLBACK_RANDOM_CODE} to draw eager's failed "
                         f"({type(e).__name__}: {first_line(str(e))}); no verdict")
        return
    finally:
        box.reset()
    if ok:
        row.notes.append(randomness_words(diff, after))
        return
    row.max_abs_diff, row.numerics_ok = after, ok
    row.notes.extend(notes)
    row.notes.append(not_randomness_words(after) + f" (tolerance {tol})")
    row.notes.append(DIAGNOSE_HINT)
