"""A diagnosis's verdict in words: the summary every renderer shows after the kind, and,
after Ctrl-C, what was established and which steps were cut.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ladder import LAYER_NAMES, settle_layer
from .record import Diagnosis

#: The steps of a diagnosis, in order (``Place.stage``).
STAGES = ("eager", "compiled", "ladder", "culprit", "reference", "workarounds")
#: Why a step did not run after Ctrl-C.
CUT = "interrupted (Ctrl-C)"


@dataclass
class Place:
    """Where a diagnosis is: its stage (one of ``STAGES``) and that step in words."""

    stage: str = "eager"
    words: str = "the eager run"


def interrupted(d: Diagnosis, place: Place) -> None:
    """Mark what Ctrl-C cut: the rungs and steps not run (in ``skipped``), the layer when
    the rungs that ran establish it, the summary, and the first note."""
    reached = STAGES.index(place.stage)
    for rung in d.rungs:
        if rung.outcome == "not run" and not rung.note.startswith("not run"):
            rung.note = f"not run: {CUT}" + (f"; {rung.note}" if rung.note else "")
            d.skipped.append(f"rung {rung.backend}: {CUT}")
    if d.kind == "not run":
        d.skipped.append(("the compiled copy with your options, the ladder, "
                          if not d.rungs else "")
                         + f"the culprit, the float64 reference and the workarounds: {CUT}")
    elif d.kind != "ok":
        if place.stage == "ladder":
            settle_layer(d)
        if reached <= STAGES.index("culprit"):
            d.skipped.append(f"the culprit (torch's CompilerBisector, custom-op checks, the "
                             f"error's stack): {CUT}")
        if d.kind == "accuracy" and reached <= STAGES.index("reference"):
            d.skipped.append(f"float64 reference: {CUT}")
        if reached < STAGES.index("workarounds") or not d.workarounds:
            d.skipped.append(f"workarounds: {CUT}")
    d.summary = summary(d) if d.kind != "not run" else (
        f"no verdict: interrupted (Ctrl-C) during {place.words}, before the compiled copy "
        "was judged against eager")
    ran = sum(1 for r in d.rungs if r.outcome != "not run")
    tried = sum(1 for w in d.workarounds if w.status != "not tried")
    kept = ("no verdict, nothing after it ran" if d.kind == "not run" else
            f"kept the verdict ({d.kind}), {ran} of {len(d.rungs)} rung(s) run"
            + (", the layer" if d.layer else "")
            + (", the bisection" if d.bisection is not None else "")
            + (", the float64 reference" if d.reference is not None else "")
            + (f", {tried} workaround(s) tried" if tried else "")
            + "; the steps not reached are listed as skipped")
    d.notes.insert(0, f"interrupted (Ctrl-C) during {place.words} after {d.elapsed_s:.1f}s: "
                      f"{kept}. Your objects, torch's settings and RNG state are as before.")


def summary(d: Diagnosis) -> str:
    """The verdict in words (the one wording every renderer shows, after the kind)."""
    if d.kind == "ok":
        random = next((n for n in d.notes if n.startswith("randomness, not")), "")
        if random:
            return f"the compiled result differs from eager only by {random}."
        diff = f"max abs difference {d.max_abs_diff:.3g}" if d.max_abs_diff is not None else ""
        return ("the compiled result matches eager within the tolerance"
                + (f" ({diff})" if diff else ""))
    first = next((r.backend for r in d.rungs if r.outcome == d.kind), "")
    where = (f"{LAYER_NAMES[d.layer]} (first at backend={first})" if d.layer
             else "a layer not known (the rungs below did not run)")
    if d.kind == "crash":
        text = f"the compiled copy crashes in {where}: {d.error}"
    else:
        diff = f"{d.max_abs_diff:.3g}" if d.max_abs_diff is not None else "an unmeasurable amount"
        text = (f"compiled differs from eager by up to {diff}, {d.mismatched} of "
                f"{d.numel} elements out of tolerance; it comes in with {where}")
    if d.culprit:
        text += f". Culprit: {d.culprit}"
    if d.lineno is not None:
        text += f", line {d.lineno}: {d.line}"
    ref = d.reference
    if ref is not None and ref.eager_error is not None and ref.compiled_error is not None:
        if ref.closer == "compiled":
            text += (f". Against float64, compiled is closer ({ref.compiled_error:.3g} vs "
                     f"eager's {ref.eager_error:.3g}): the difference is eager's rounding, "
                     "not a compiler error")
        elif ref.closer == "eager":
            text += (f". Against float64, eager is closer ({ref.eager_error:.3g} vs "
                     f"compiled's {ref.compiled_error:.3g}): the compiled result is the "
                     "less accurate one")
        else:
            text += (f". Against float64, both are about as far (eager {ref.eager_error:.3g},"
                     f" compiled {ref.compiled_error:.3g})")
    elif ref is not None and ref.closer == "unknown":
        text += f". No float64 verdict: {ref.note.removeprefix('no float64 reference: ')}"
    cause = " and ".join(d.matmul_precision)
    if cause and d.kind == "accuracy":
        text += (f". {cause[0].upper()}{cause[1:]} are in force (torch's settings on this "
                 "GPU): both sides round their matmuls, so a kernel that splits or sums one "
                 "differently differs by that rounding (see the notes)")
    proven = [w.change.splitlines()[0] for w in d.workarounds if w.verified]
    if proven:
        text += f". Proven workaround(s): {'; '.join(proven)}"
    return text + "."
