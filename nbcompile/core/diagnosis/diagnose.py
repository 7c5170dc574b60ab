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
from types import SimpleNamespace
from typing import Any

import torch

from ..fixes.repro_offer import offer
from ..notebook.capture.session import get_session
from ..notebook.capture.torch_logs import TorchLogRouting
from ..perf.call_args import describe_call
from ..perf.call_options import check_budget
from ..perf.numerics import drift_note
from ..runs.produced import (
    FALLBACK_RANDOM,
    FALLBACK_RANDOM_CODE,
    can_draw_like_eager,
    no_fallback_words,
    not_randomness_words,
    randomness_words,
)
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from .culprit import find_culprit
from .judge import tolerance_text
from .ladder import LADDER, LAYER_NAMES, ladder, rounded, rung_from, settle_layer
from .precision import (
    graph_dtypes,
    has_conv,
    has_matmul,
    low_dtypes,
    matmul_precision,
    read_matmul_settings,
    value_dtypes,
)
from .record import Diagnosis, Rung
from .reference import reference
from .runs import Bench, Run, Trial
from .settings import SavedSettings
from .sites import error_text, own_files
from .trying import try_workarounds
from .verdict import Place, interrupted, summary
from .workarounds import candidates

DEFAULT_BUDGET_S = 60.0


class DiagnoseError(ValueError):
    """Bad input to ``diagnose``, or a call that fails eagerly; the message says which."""


class DiagnosisInterrupted(Interrupted):
    """Ctrl-C during ``diagnose()``: ``partial`` holds what was established so far
    (``interrupted``)."""

    def __init__(self, partial: Diagnosis) -> None:
        super().__init__("diagnose", partial)


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
                       inputs=describe_call(args, kwargs),
                       options=f"{_options_text(backend, options)} ({source})")
    saved = SavedSettings.save()
    sink = SimpleNamespace(torch_logs=[], show_torch_logs=False)
    routing = TorchLogRouting(lambda frame, compile_: sink)
    routing.install()
    bench = Bench(fn, tuple(args), dict(kwargs))
    place = Place()
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
        interrupted(result, place)
        raise DiagnosisInterrupted(result)
    _offer_repro(result, fn)
    return result


def _offer_repro(result: Diagnosis, fn: Any) -> None:
    """A note naming ``%repro`` when the diagnosis ends with torch's fault: a crash in a
    layer (not a custom op's own check, nor a graph break under fullgraph=True: those are
    the user's to change), or a compiled result farther from float64 than eager's."""
    ref = result.reference
    if (result.kind == "crash" and result.layer is not None
            and not result.culprit.startswith("custom op ")
            and not result.error.startswith("Unsupported")):
        why = f"The compiled call crashes in {LAYER_NAMES[result.layer]}"
        result.notes.append(offer(fn, "crash", why))
    elif result.kind == "accuracy" and ref is not None and ref.closer == "eager":
        result.notes.append(offer(fn, "accuracy", "Against float64 the compiled result is "
                                  "the less accurate one"))


def _diagnose(result: Diagnosis, bench: Bench, backend: Any, options: dict[str, Any],
              deadline: float, progress: Progress | None, place: Place) -> None:
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
    result.eager_time_s = rounded(eager.time_s)
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
    rungs = [Rung(b, layer) for b, layer in ladder(backend)]  # type: ignore[arg-type]
    rungs[-1].backend = backend if isinstance(backend, str) else getattr(
        backend, "__name__", "custom")
    rungs[-1].options = ", ".join(f"{k}={v!r}" for k, v in options.items())
    if rungs[-1].backend not in (b for b, _ in LADDER):
        rungs[-1].note = ("your backend, not one of PyTorch's ladder: its problems are "
                          "counted as the top layer's")
    result.rungs = rungs
    step("compiled", f"the compiled copy with your options ({rungs[-1].backend})",
         "compiling a copy with your options", label=rungs[-1].backend)
    top = bench.run(Trial(backend=backend, options=dict(options), capture=True),
                    deadline)
    if top.error is None and top.judged is not None and not top.judged.comparable:
        _not_comparable(result, top)
        return
    if top.outcome == "not run":
        raise DiagnoseError(f"the compiled copy of {result.name} did not finish: {top.note}")
    if top.outcome == "accuracy" and bench.random:
        step("compiled", f"the compiled copy drawing eager's random numbers "
             f"({FALLBACK_RANDOM_CODE})", "compiling a copy that draws eager's random numbers",
             label=rungs[-1].backend)
        top = _randomness(result, bench, top,
                          Trial(backend=backend, options=dict(options), capture=True), deadline)
        if top.judged is not None and not top.judged.comparable:
            _not_comparable(result, top)
            return
    rung_from(top, rungs[-1])
    result.kind = rungs[-1].outcome  # type: ignore[assignment]
    if top.error is None and top.judged is not None:
        result.compiled_time_s = rounded(top.time_s)
        result.max_abs_diff, result.mismatched = top.judged.max_abs_diff, top.judged.mismatched
        result.numel, result.tolerance = top.judged.numel, top.judged.tolerance
        result.notes += top.judged.notes
    else:
        result.tolerance = tolerance_text(set())
        result.error, result.error_detail = error_text(top.error) if top.error else ("", "")
    if result.kind == "ok":
        for rung in rungs[:-1]:
            rung.note = "not run: the compiled result matches eager"
        result.summary = summary(result)
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
        rung_from(runs[rung.backend], rung)
    first = settle_layer(result)
    other = next((r for r in rungs if r.outcome in ("crash", "accuracy")), first)
    if other is not first:
        result.notes.append(f"rung {other.backend} already shows a {other.outcome} problem, "
                            f"below the {result.kind} this diagnosis is about")

    own = own_files(bench.fn)
    step("culprit", "the search for the culprit", "finding the culprit")
    found = find_culprit(result, bench, first, runs, top, options, own, deadline)
    result.culprit = found.culprit
    if found.site is not None:
        result.filename, result.lineno = found.site.filename, found.site.lineno
        result.line = found.site.line
    if found.note:
        result.notes.append(found.note)

    if result.kind == "accuracy":
        step("reference", "the float64 reference", "the float64 reference")
    ref = (reference(result, bench, top, options, deadline) if result.kind == "accuracy"
           else None)
    if result.kind == "accuracy":
        _name_matmul_precision(result, bench, top)

    # the dtypes it computes in come from its graphs: float32 in and out can hide bfloat16
    low = low_dtypes(top.dynamo_graphs, [*bench.expected, *(top.leaves or [])])
    place.stage, place.words = "workarounds", "the workarounds"
    listed = candidates(bench, result.kind, result.layer, rungs, found.site, options, low, own)
    try_workarounds(result, bench, listed, ref, deadline, lambda change: step(
        "workarounds", f"the workaround {change}", "trying a workaround", label=change))
    result.summary = summary(result)


def _name_matmul_precision(result: Diagnosis, bench: Bench, top: Run) -> None:
    """On a CUDA GPU, a note naming the TF32 or reduced-precision matmuls torch's settings
    put in force for what the graphs compute, and their causes (the summary names them)."""
    outputs = [*bench.expected, *(top.leaves or [])]
    if bench.device.type != "cuda" and not any(
            isinstance(v, torch.Tensor) and v.is_cuda for v in outputs):
        return  # on a CPU these settings change no result
    graphs = top.dynamo_graphs
    ref = result.reference
    found = matmul_precision(
        read_matmul_settings(), graph_dtypes(graphs) | value_dtypes(outputs),
        has_matmul(graphs), has_conv(graphs),
        ref.eager_error if ref is not None else None,
        ref.compiled_error if ref is not None else None)
    result.matmul_precision = list(found.causes)
    if found.note:
        result.notes.append(found.note)


def _not_comparable(result: Diagnosis, top: Run) -> None:
    """No verdict: nothing the call produced can be compared (e.g. a generator)."""
    assert top.judged is not None
    what = "; ".join(top.judged.notes) or "not comparable"
    result.tolerance = tolerance_text(set())
    result.notes += top.judged.notes
    for rung in result.rungs:
        rung.note = f"not run: {what}" if rung is not result.rungs[-1] else what
    result.rungs[-1].first_call_s = rounded(top.first_call_s)
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
