"""The workarounds of a diagnosis tried one by one on copies, within the time budget: each
run judged against eager (a change to the user's code, against eager running the same
change), its cost in time and its error to the float64 reference; Ctrl-C leaves every
workaround listed, those cut saying so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..steps import ctrl_c_delivered
from .judge import judge
from .record import Diagnosis
from .reference import errors
from .runs import Bench, Run
from .sites import error_text
from .verdict import CUT
from .workarounds import Candidate, settle

#: Called as each workaround starts: (its change in words,) for the progress line.
Starting = Callable[[str], None]


def try_workarounds(result: Diagnosis, bench: Bench, listed: list[Candidate],
                    reference: list[Any] | None, deadline: float, starting: Starting) -> None:
    """Try ``listed`` in order, appending each settled workaround to ``result``."""
    baseline_s = result.compiled_time_s or result.eager_time_s
    baseline_what = "compiled" if result.compiled_time_s else "eager"
    try:
        for candidate in listed:
            run = None
            if candidate.trial is not None:
                change = candidate.workaround.change.splitlines()[0]
                if time.perf_counter() > deadline:
                    candidate.workaround.note += "; not tried: the time budget was used up"
                    result.skipped.append(f"workaround {change}: the time budget was used up")
                    result.workarounds.append(candidate.workaround)
                    continue
                starting(change[:60])
                run = _try(candidate, bench, reference, deadline)
            w = settle(candidate, run, baseline_s, baseline_what)
            if run is not None and run.leaves is not None and reference is not None:
                found = errors(reference, run.leaves)
                w.reference_error = None if found is None else found[0]
            if w.status != "not tried" and result.kind == "accuracy" and result.mismatched:
                w.note += (f"; elements out of tolerance {result.mismatched} -> "
                           f"{w.mismatched if w.mismatched is not None else '-'} of "
                           f"{result.numel}")
            result.workarounds.append(w)
    except KeyboardInterrupt:  # every workaround still listed, those cut say so
        ctrl_c_delivered()
        for left in listed[len(result.workarounds):]:
            w = left.workaround
            if left.trial is not None and w.status == "not tried":
                w.note += f"; not tried: {CUT}"
                result.skipped.append(f"workaround {w.change.splitlines()[0]}: {CUT}")
            result.workarounds.append(w)
        raise


def _try(candidate: Candidate, bench: Bench, reference: list[Any] | None,
         deadline: float) -> Run | None:
    """The candidate's run; for a change to the user's code (``against``), judged against
    eager running the same change (None: not tried, the note says why)."""
    assert candidate.trial is not None
    if candidate.against is None:
        return bench.run(candidate.trial, deadline)
    w, upcast = candidate.workaround, candidate.upcast
    base = bench.run(candidate.against, deadline)
    if base.error is not None or base.leaves is None:
        w.note += "; not tried: eager with the change " + (
            f"fails ({error_text(base.error)[0]})" if base.error else "did not finish")
        return None
    if upcast is not None and not upcast.changed:
        w.note += "; not tried: " + (upcast.refused or "no float16/bfloat16 op of the line is "
                                     "in the captured graphs")
        return None
    run = bench.run(candidate.trial, deadline)
    if run.error is None and run.leaves is not None:
        run.judged = judge(base.leaves, run.leaves)
    eager_before = errors(reference, bench.expected) if reference is not None else None
    eager_after = errors(reference, base.leaves) if reference is not None else None
    if base.judged is not None and base.judged.max_abs_diff is not None:
        w.note += (f"; compared with eager running the same change (it changes eager too: "
                   f"by up to {base.judged.max_abs_diff:.3g})")
    if eager_before is not None and eager_after is not None:
        w.note += (f"; eager's error to float64 {eager_before[0]:.3g} -> {eager_after[0]:.3g}")
    return run
