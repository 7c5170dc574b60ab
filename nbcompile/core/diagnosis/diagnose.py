"""``diagnose(fn, *args, **kwargs)``: does compiled code crash or change the numbers, in which
layer, at which op and line, who is right, and which workarounds help.

The walk PyTorch's troubleshooting guide describes, done on copies in one call:

1. ``fn`` runs eagerly (the reference) and as a fresh compiled copy with the user's
   options (those of its ``%%compile`` target; else ``torch.compile``'s defaults), under
   the settings in force at the call, so options the user patched (injected faults
   included) reproduce. ``kind``: ``crash`` if the compiled copy raises, ``accuracy`` if an
   output is out of ``torch.testing.assert_close``'s default tolerance for its dtype
   (NaN matching NaN), else ``ok``;
2. the ladder: fresh copies compiled with ``backend="eager"`` (Dynamo), ``"aot_eager"``
   and ``"aot_eager_decomp_partition"`` (AOTAutograd), the user's backend on top
   (Inductor): ``layer`` is the first rung that shows the same problem;
3. the culprit: torch's ``CompilerBisector`` when the problem needs decompositions or
   Inductor (down to the lowering of one node, tied to the user's line by its ``# File:``
   comment); ``torch.library.opcheck`` on custom ops and the error's own stack for a
   crash in Dynamo or AOTAutograd;
4. for an accuracy problem, a float64 run of the same function: is eager or compiled
   closer to it;
5. workarounds tried on copies (see ``workarounds``), each with its measured effect and
   its cost in time.

Nothing of the user's changes: their function, module, compiled target and its Dynamo
caches, inputs, state and RNG (``Sandbox``), and every global setting (checked and put
back, ``settings``). ``budget_s`` bounds the steps after the first two runs; what it cut
is listed in ``skipped``. Ctrl-C keeps what was established (``interrupted``, see
``DiagnosisInterrupted``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch

from ..notebook.session import get_session
from ..notebook.torch_logs import TorchLogRouting
from ..perf.call_options import check_budget
from ..perf.numerics import drift_note, leaves
from ..runs.produced import (
    FALLBACK_RANDOM,
    FALLBACK_RANDOM_CODE,
    can_draw_like_eager,
    no_fallback_words,
    not_randomness_words,
    randomness_words,
)
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from .culprit import (
    Found,
    Step,
    bisect,
    bisection_culprit,
    check_custom_ops,
    error_site,
    error_text,
    own_files,
)
from .judge import judge, low_precision, tolerance_text
from .record import Diagnosis, Reference, Rung
from .runs import Bench, Run, Trial
from .settings import SavedSettings
from .workarounds import Candidate, candidates, settle

DEFAULT_BUDGET_S = 60.0
#: (backend, layer it adds), lowest first: PyTorch's troubleshooting ladder.
LADDER: tuple[tuple[str, str], ...] = (
    ("eager", "dynamo"),
    ("aot_eager", "aot_autograd"),
    ("aot_eager_decomp_partition", "aot_autograd"),
    ("inductor", "inductor"),
)
LAYER_NAMES = {"dynamo": "Dynamo", "aot_autograd": "AOTAutograd", "inductor": "Inductor"}
#: The closer result's largest error is at most this share of the other's.
CLOSER = 0.8
#: Backends whose problems the CompilerBisector can take apart (subsystems to switch off).
BISECTABLE = ("aot_eager_decomp_partition", "inductor")


class DiagnoseError(ValueError):
    """Bad input to ``diagnose``, or a call that fails eagerly; the message says which."""


class DiagnosisInterrupted(Interrupted):
    """Ctrl-C during ``diagnose()``: ``partial`` holds what was established so far
    (``interrupted``)."""

    def __init__(self, partial: Diagnosis) -> None:
        super().__init__("diagnose", partial)


#: The steps of a diagnosis, in order (``_Place.stage``).
STAGES = ("eager", "compiled", "ladder", "culprit", "reference", "workarounds")
#: Why a step did not run after Ctrl-C.
CUT = "interrupted (Ctrl-C)"


@dataclass
class _Place:
    """Where a diagnosis is: its stage (one of ``STAGES``) and that step in words."""

    stage: str = "eager"
    words: str = "the eager run"


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return (f"Tensor{list(value.shape)} {str(value.dtype).removeprefix('torch.')} "
                f"{value.device}")
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def user_options(fn: Any) -> tuple[Any, dict[str, Any], str]:
    """``(backend, other torch.compile options, where they came from)``: those of ``fn``'s
    ``%%compile`` target, else ``torch.compile``'s defaults."""
    target = get_session().find(fn)
    if target is None:
        return "inductor", {}, "torch.compile's defaults (no %%compile target known for it)"
    kwargs = target.options.torch_kwargs()
    kwargs.pop("disable", None)
    backend = kwargs.pop("backend", "inductor")
    if kwargs.get("dynamic") is None:
        kwargs.pop("dynamic", None)
    if not kwargs.get("fullgraph"):
        kwargs.pop("fullgraph", None)
    return backend, kwargs, f"the options of the %%compile target {target.name}"


def _options_text(backend: Any, options: dict[str, Any]) -> str:
    name = backend if isinstance(backend, str) else getattr(backend, "__name__", repr(backend))
    parts = [f"backend={name}"] + [f"{k}={v!r}" for k, v in options.items()]
    return ", ".join(parts)


def _rung_from(run: Run, rung: Rung) -> Rung:
    rung.outcome = run.outcome  # type: ignore[assignment]
    rung.first_call_s, rung.time_s = _round(run.first_call_s), _round(run.time_s)
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


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@ctrl_c_watched()
def diagnose(fn: Any, *args: Any, budget_s: float = DEFAULT_BUDGET_S,
             progress: Progress | None = None, **kwargs: Any) -> Diagnosis:
    """Diagnose ``fn(*args, **kwargs)`` compiled: crash, accuracy or ok; the layer; the
    culprit and its line; the float64 verdict; workarounds proven on copies.

    ``fn`` is a function or module, compiled by ``%%compile`` or not (its options are
    used when nbcompile knows them); it is never touched, nor are the inputs. Settings
    the user patched before the call apply to every copy. ``budget_s`` bounds the ladder,
    the bisection, the reference and the workarounds (the eager run and the first
    compiled run always happen); steps it cut are listed in ``skipped``. ``progress``
    hears each step as it starts (``core/steps.py``). Ctrl-C stops it: the user's objects,
    RNG and torch's settings are put back and a ``DiagnosisInterrupted`` (a
    ``KeyboardInterrupt``) carries what was established so far (``partial``, marked
    ``interrupted``; the steps not reached listed in ``skipped``).
    """
    if not callable(fn):
        raise DiagnoseError(f"diagnose needs a function or module, not {type(fn).__name__}")
    budget_s = check_budget(budget_s)
    started = time.perf_counter()
    deadline = started + float(budget_s)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    backend, options, source = user_options(fn)
    result = Diagnosis(name=name, kind="not run", budget_s=float(budget_s),
                       inputs=[_describe(a) for a in args]
                       + [f"{k}={_describe(v)}" for k, v in kwargs.items()],
                       options=f"{_options_text(backend, options)} ({source})")
    saved = SavedSettings.save()
    sink = SimpleNamespace(torch_logs=[], show_torch_logs=False)
    routing = TorchLogRouting(lambda frame, compile_: sink)
    routing.install()
    bench = Bench(fn, tuple(args), dict(kwargs))
    place = _Place()
    try:
        try:
            _diagnose(result, bench, backend, options, deadline, progress, place)
        except KeyboardInterrupt:  # what was established is kept, below
            ctrl_c_delivered()
            result.interrupted = True
    finally:
        bench.close()
        routing.uninstall()
        changed = saved.restore()
    if changed:
        result.notes.append("put back after the diagnosis: " + ", ".join(changed))
    if sink.torch_logs:
        result.notes.append(f"torch logged {len(sink.torch_logs)} message(s) while compiling "
                            "the copies; kept off stderr")
    result.elapsed_s = round(time.perf_counter() - started, 3)
    if result.interrupted:
        _interrupted(result, place)
        raise DiagnosisInterrupted(result)
    return result


def _interrupted(d: Diagnosis, place: _Place) -> None:
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
            _settle_layer(d)
        if reached <= STAGES.index("culprit"):
            d.skipped.append(f"the culprit (torch's CompilerBisector, custom-op checks, the "
                             f"error's stack): {CUT}")
        if d.kind == "accuracy" and reached <= STAGES.index("reference"):
            d.skipped.append(f"float64 reference: {CUT}")
        if reached < STAGES.index("workarounds") or not d.workarounds:
            d.skipped.append(f"workarounds: {CUT}")
    d.summary = _summary(d) if d.kind != "not run" else (
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


def _settle_layer(result: Diagnosis) -> Rung:
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


def _diagnose(result: Diagnosis, bench: Bench, backend: Any, options: dict[str, Any],
              deadline: float, progress: Progress | None, place: _Place) -> None:
    def step(stage: str, words: str, what: str, index: int = 0, total: int = 0,
             label: str = "") -> None:
        place.stage, place.words = stage, words
        tell(progress, "diagnose", what, index, total, label,
             max(deadline - time.perf_counter(), 0.0))

    step("eager", "the eager run", "running eagerly")
    eager = bench.eager()
    if eager.error is not None:
        short, _ = error_text(eager.error)
        raise DiagnoseError(f"{result.name} raises when run eagerly ({short}): diagnose "
                            "compares compiled code with eager, so that must run first")
    result.eager_time_s = _round(eager.time_s)
    if bench.first_call_drift is not None:
        result.notes.append(drift_note(bench.first_call_drift))
    if bench.isolate:
        result.notes.append(bench.isolate)
    if bench.mutated:
        result.notes.append(f"{result.name} changes {', '.join(bench.mutated)} in place: "
                            "every run used copies, and the changed inputs are compared too")
    if bench.state:
        result.notes.append(f"{result.name} changes {', '.join(bench.state)}: every run "
                            "started from the same values, and what each left there is "
                            "compared with eager's too (your objects are put back)")
    if bench.random:
        result.notes.append(f"{result.name} draws random numbers: every run started from "
                            "the same RNG state; a compiled copy that differs is compiled "
                            f"again with {FALLBACK_RANDOM_CODE} (it then draws eager's "
                            "numbers) to tell randomness from an accuracy problem")
    ladder = _ladder(backend)
    rungs = [Rung(b, layer) for b, layer in ladder]  # type: ignore[arg-type]
    rungs[-1].backend = backend if isinstance(backend, str) else getattr(
        backend, "__name__", "custom")
    rungs[-1].options = ", ".join(f"{k}={v!r}" for k, v in options.items())
    if rungs[-1].backend not in (b for b, _ in LADDER):
        rungs[-1].note = ("your backend, not one of PyTorch's ladder: its problems are "
                          "counted as the top layer's")
    result.rungs = rungs
    step("compiled", f"the compiled copy with your options ({rungs[-1].backend})",
         "compiling a copy with your options", label=rungs[-1].backend)
    top = bench.run(Trial(backend=backend, options=dict(options)), deadline)
    if top.error is None and top.judged is not None and not top.judged.comparable:
        _not_comparable(result, top)
        return
    if top.outcome == "not run":
        raise DiagnoseError(f"the compiled copy of {result.name} did not finish: {top.note}")
    if top.outcome == "accuracy" and bench.random:
        step("compiled", f"the compiled copy drawing eager's random numbers "
             f"({FALLBACK_RANDOM_CODE})", "compiling a copy that draws eager's random numbers",
             label=rungs[-1].backend)
        top = _randomness(result, bench, top, Trial(backend=backend, options=dict(options)),
                          deadline)
        if top.judged is not None and not top.judged.comparable:
            _not_comparable(result, top)
            return
    _rung_from(top, rungs[-1])
    result.kind = rungs[-1].outcome  # type: ignore[assignment]
    if top.error is None and top.judged is not None:
        result.compiled_time_s = _round(top.time_s)
        result.max_abs_diff, result.mismatched = top.judged.max_abs_diff, top.judged.mismatched
        result.numel, result.tolerance = top.judged.numel, top.judged.tolerance
        result.notes += top.judged.notes
    else:
        result.tolerance = tolerance_text(set())
        result.error, result.error_detail = error_text(top.error) if top.error else ("", "")
    if result.kind == "ok":
        for rung in rungs[:-1]:
            rung.note = "not run: the compiled result matches eager"
        result.summary = _summary(result)
        return

    runs: dict[str, Run] = {rungs[-1].backend: top}
    for rung in rungs[:-1]:
        if time.perf_counter() > deadline:
            rung.note = "not run: the time budget was used up"
            result.skipped.append(f"rung {rung.backend}: the time budget was used up")
            continue
        keep = {k: v for k, v in options.items() if k in ("dynamic", "fullgraph")}
        index = rungs.index(rung) + 1
        step("ladder", f"rung {index} of {len(rungs)} ({rung.backend}) of the ladder",
             "running (the ladder)", index, len(rungs), rung.backend)
        runs[rung.backend] = bench.run(Trial(backend=rung.backend, options=keep), deadline)
        _rung_from(runs[rung.backend], rung)
    first = _settle_layer(result)
    other = next((r for r in rungs if r.outcome in ("crash", "accuracy")), first)
    if other is not first:
        result.notes.append(f"rung {other.backend} already shows a {other.outcome} problem, "
                            f"below the {result.kind} this diagnosis is about")

    own = own_files(bench.fn)
    step("culprit", "the search for the culprit", "finding the culprit")
    found = _culprit(result, bench, first, runs, top, options, own, deadline)
    result.culprit = found.culprit
    if found.site is not None:
        result.filename, result.lineno = found.site.filename, found.site.lineno
        result.line = found.site.line
    if found.note:
        result.notes.append(found.note)

    if result.kind == "accuracy":
        step("reference", "the float64 reference", "the float64 reference")
    reference = _reference(result, bench, top, deadline) if result.kind == "accuracy" else None

    baseline_s = result.compiled_time_s or result.eager_time_s
    baseline_what = "compiled" if result.compiled_time_s else "eager"
    low = low_precision([*bench.expected, *(top.leaves or [])])
    place.stage, place.words = "workarounds", "the workarounds"
    listed = candidates(bench, result.kind, result.layer, rungs, found.site, options, low, own)
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
                step("workarounds", f"the workaround {change[:60]}", "trying a workaround",
                     label=change[:60])
                run = _try(candidate, bench, reference, deadline)
            w = settle(candidate, run, baseline_s, baseline_what)
            if run is not None and run.leaves is not None and reference is not None:
                errors = _errors(reference, run.leaves)
                w.reference_error = None if errors is None else errors[0]
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
    result.summary = _summary(result)


def _not_comparable(result: Diagnosis, top: Run) -> None:
    """No verdict: nothing the call produced can be compared (e.g. a generator)."""
    assert top.judged is not None
    what = "; ".join(top.judged.notes) or "not comparable"
    result.tolerance = tolerance_text(set())
    result.notes += top.judged.notes
    for rung in result.rungs:
        rung.note = f"not run: {what}" if rung is not result.rungs[-1] else what
    result.rungs[-1].first_call_s = _round(top.first_call_s)
    result.summary = (f"no verdict: nothing the call produced can be compared with eager's "
                      f"({what})")


def _randomness(result: Diagnosis, bench: Bench, top: Run, trial: Trial,
                deadline: float) -> Run:
    """Tell randomness from an accuracy problem by evidence: the copy compiled again with
    ``fallback_random`` from the same RNG state. Matching eager, the call differs only by
    its random numbers (``ok``, said in words); still differing, that run is the one
    diagnosed, and every later run draws eager's numbers too (``bench.config``)."""
    assert top.judged is not None
    before = top.judged.max_abs_diff
    if not can_draw_like_eager():
        top.judged.comparable = False
        top.judged.notes.append(no_fallback_words())
        return top
    trial.config = {**trial.config, **FALLBACK_RANDOM}
    again = bench.run(trial, deadline)
    if again.error is not None or again.judged is None:
        result.notes.append(f"the copy compiled with {FALLBACK_RANDOM_CODE} did not give "
                            "a result to tell randomness apart ("
                            + (error_text(again.error)[0] if again.error else again.note)
                            + "); the first compiled copy is judged as it is")
        return top
    bench.config = dict(FALLBACK_RANDOM)
    if again.judged.ok:
        again.judged.notes.append(randomness_words(before, again.judged.max_abs_diff))
    else:
        again.judged.notes.append(not_randomness_words(again.judged.max_abs_diff)
                                  + "; every compiled copy below ran with it too")
    return again


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
    eager_before = _errors(reference, bench.expected) if reference is not None else None
    eager_after = _errors(reference, base.leaves) if reference is not None else None
    if base.judged is not None and base.judged.max_abs_diff is not None:
        w.note += (f"; compared with eager running the same change (it changes eager too: "
                   f"by up to {base.judged.max_abs_diff:.3g})")
    if eager_before is not None and eager_after is not None:
        w.note += (f"; eager's error to float64 {eager_before[0]:.3g} -> {eager_after[0]:.3g}")
    return run


def _ladder(backend: Any) -> list[tuple[str, str]]:
    names = [b for b, _ in LADDER]
    if isinstance(backend, str) and backend in names:
        return list(LADDER[: names.index(backend) + 1])
    return [*LADDER[:3], ("inductor", "inductor")]


def _culprit(result: Diagnosis, bench: Bench, first: Rung, runs: dict[str, Run], top: Run,
             options: dict[str, Any], own: set[str], deadline: float) -> Found:
    found = Found()
    if first.backend in BISECTABLE:
        if time.perf_counter() > deadline:
            result.skipped.append("bisection (torch's CompilerBisector): the time budget "
                                  "was used up")
        else:
            steps: list[Step] = []
            result.bisection = bisect(bench, options, result.kind == "crash", deadline, steps)
            if result.bisection.note.startswith("stopped"):
                result.skipped.append(f"bisection: {result.bisection.note}")
            found = bisection_culprit(result.bisection, steps)
    if result.kind != "crash":
        if not found.culprit:
            found.note = ("no culprit found: " + (result.bisection.note if result.bisection
                          else "the bisection did not run"))
        return found
    failing = runs.get(first.backend) or top
    if first.layer in ("dynamo", "aot_autograd") and not found.culprit:
        if time.perf_counter() > deadline:
            result.skipped.append("custom op checks: the time budget was used up")
        else:
            checked = check_custom_ops(bench, own, deadline)
            if checked is not None:
                found = checked
    if failing.error is not None and found.site is None:
        site = error_site(failing.error, failing.warnings, own)
        if site is not None:
            found.site = site
            if not found.culprit:
                found.culprit = f"the error in {LAYER_NAMES[first.layer]} at this line ({site.how})"
    if not found.culprit and failing.error is not None:
        found.culprit = f"the error in {LAYER_NAMES[first.layer]} (no user line in its stack)"
    return found


def _reference(result: Diagnosis, bench: Bench, top: Run, deadline: float
               ) -> list[Any] | None:
    """Fill ``result.reference``; the float64 run's output leaves (None: none)."""
    if time.perf_counter() > deadline:
        result.skipped.append("float64 reference: the time budget was used up")
        return None
    ref, note = bench.float64()
    if ref is None or top.leaves is None:
        result.reference = Reference(note=f"no float64 reference: {note}")
        return None
    eager_err = _errors(ref, bench.expected)
    compiled_err = _errors(ref, top.leaves)
    if eager_err is None or compiled_err is None:
        result.reference = Reference(note="no float64 reference: the outputs do not line up")
        return None
    reference = Reference(eager_error=eager_err[0], compiled_error=compiled_err[0],
                          eager_mean_error=eager_err[1], compiled_mean_error=compiled_err[1],
                          note=note)
    if compiled_err[0] <= CLOSER * eager_err[0]:
        reference.closer = "compiled"
    elif eager_err[0] <= CLOSER * compiled_err[0]:
        reference.closer = "eager"
    result.reference = reference
    return ref


def _errors(reference: list[Any], got: list[Any]) -> tuple[float, float] | None:
    """(largest, mean) abs difference of ``got``'s floating tensors to ``reference``'s."""
    refs, values = leaves(reference), leaves(got)
    if len(refs) > len(values):
        return None
    worst, total, count = 0.0, 0.0, 0
    for ref, value in zip(refs, values, strict=False):
        if not (isinstance(ref, torch.Tensor) and isinstance(value, torch.Tensor)):
            continue
        if not (ref.is_floating_point() or ref.is_complex()) or ref.shape != value.shape:
            continue
        if ref.numel() == 0:
            continue
        diff = (ref.detach().cpu().to(torch.complex128 if ref.is_complex() else torch.float64)
                - value.detach().cpu().to(torch.complex128 if value.is_complex()
                                          else torch.float64)).abs()
        diff = torch.nan_to_num(diff, nan=0.0)
        worst = max(worst, float(diff.max()))
        total += float(diff.sum())
        count += diff.numel()
    return (worst, total / count) if count else None


def _summary(d: Diagnosis) -> str:
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
    proven = [w.change.splitlines()[0] for w in d.workarounds if w.verified]
    if proven:
        text += f". Proven workaround(s): {'; '.join(proven)}"
    return text + "."
